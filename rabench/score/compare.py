"""Compare the same target across two runs (e.g. two engine versions), or across domains.

A row "moved" when run B's value differs from run A's beyond what the
intervals allow: the same rule as the findings (95% intervals don't overlap;
1.2x for rows without an interval; never on fewer than 10 cases or calls), so
a reader sees only changes the data can carry.

``compare_domains`` puts the synthetic and real figures of each target side by
side with the same rule, from the ``domain=<d>`` strata of one combined run or of
two runs of different suites (e.g. the two tracks of ``rabench bench --real``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rabench.contracts import Row
from rabench.errors import UserError
from rabench.score.findings import compare as compare_rows
from rabench.score.load import load_runs
from rabench.score.rows import ALL
from rabench.score.scorer import score_input, score_runs
from rabench.score.strata import tag_masks
from rabench.score.tracks import DOMAIN, REAL, SYNTHETIC, Pair, domain_rows, domains_in, pair_tracks


@dataclass(frozen=True, slots=True)
class Moved:
    target: str
    task: str
    metric: str
    stratum: str
    before: Row
    after: Row
    direction: str  # "better" | "worse"
    reason: str


def compare_runs(run_a: str, run_b: str, *, strata: bool = False) -> tuple[list[Moved], int]:
    """Rows of every target present in both runs that moved; also how many rows were compared."""
    a, b = score_runs([run_a]), score_runs([run_b])
    if a.doc.header.suite_manifest_sha256 != b.doc.header.suite_manifest_sha256:
        raise UserError(f"{run_a} and {run_b} used different suites; compare runs of one suite")
    before = {(r.target, r.task, r.metric, r.stratum): r for r in a.rows}
    shared_targets = {r.target for r in a.rows} & {r.target for r in b.rows}
    if not shared_targets:
        raise UserError(f"{run_a} and {run_b} have no target in common")
    moved: list[Moved] = []
    compared = 0
    for row in b.rows:
        if row.target not in shared_targets or (not strata and row.stratum != "all"):
            continue
        old = before.get((row.target, row.task, row.metric, row.stratum))
        if old is None:
            continue
        compared += 1
        result, reason = compare_rows(row, old)
        if result in ("win", "loss"):
            moved.append(Moved(row.target, row.task, row.metric, row.stratum, old, row,
                               "better" if result == "win" else "worse", reason))
    return moved, compared


def _rows_by_domain(run: str) -> dict[str, list[Row]]:
    """A run's rows per domain: its headline rows when every case is of one domain (so the
    figures are the report's own, same bootstrap seeds), else its ``domain=<d>`` strata."""
    inp = load_runs([run])
    rows = score_input(inp, with_details=False).rows
    masks = {name.split("=", 1)[1]: m for name, m in tag_masks(inp.cases).items() if name.startswith(f"{DOMAIN}=")}
    whole = [d for d, m in masks.items() if m.all()]
    if whole:
        return {whole[0]: [r for r in rows if r.stratum == ALL]}
    return {d: domain_rows(rows, d) for d in sorted(domains_in(rows))}


def compare_domains(run_dirs: list[str]) -> list[Pair]:
    """Synthetic against real, per target and headline metric, by the runs' case domains.

    Each run is scored on its own (the runs may use different suites). A run whose
    cases are all of one domain gives its headline rows for that domain; a run
    mixing domains gives its ``domain=<d>`` strata (cases without a tag take their
    suite's domain).
    """
    tracks: dict[str, list[Row]] = {SYNTHETIC: [], REAL: []}
    source: dict[tuple[str, str, str, str], str] = {}
    found: dict[str, list[str]] = {}
    for run in run_dirs:
        for domain, rows in _rows_by_domain(run).items():
            found.setdefault(run, []).append(domain)
            if domain not in tracks:
                continue
            for row in rows:
                key = (domain, row.target, row.task, row.metric)
                if key in source:
                    raise UserError(f"target {row.target} has {domain} rows in both {source[key]} and {run}; "
                                    "compare one run per domain")
                source[key] = run
                tracks[domain].append(row)
    missing = [d for d in (SYNTHETIC, REAL) if not tracks[d]]
    if missing:
        seen = "; ".join(f"{r}: {', '.join(d)}" for r, d in found.items()) or "no domain stratum at all"
        raise UserError(f"no {' or '.join(missing)} cases (at least 10) in {', '.join(run_dirs)} "
                        f"(domains found: {seen}); tag cases domain=real|synthetic")
    return pair_tracks(tracks[SYNTHETIC], tracks[REAL])
