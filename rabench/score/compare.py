"""Compare the same target across two runs (e.g. two engine versions), or across domains.

A row "moved" when run B's value differs from run A's beyond what the
intervals allow: the same rule as the findings (95% intervals don't overlap;
1.2x for rows without an interval; never on fewer than 10 cases or calls), so
a reader sees only changes the data can carry. Then the cases behind them: each
case whose decision changed (flagged in most of the target's answered runs, or
not; the report viewer's rule), now right or now wrong against its label.

``compare_domains`` puts the synthetic and real figures of each target side by
side with the same rule, from the ``domain=<d>`` strata of one combined run or of
two runs of different suites (e.g. the two tracks of ``rabench bench --real``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rabench.contracts import Row, Verdict
from rabench.errors import UserError
from rabench.score.findings import compare as compare_rows
from rabench.score.load import ScoreInput, TargetRuns, load_runs
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


@dataclass(frozen=True, slots=True)
class Changed:
    """A case whose decision (flagged in most of a target's answered runs, or not) changed."""

    target: str
    case_id: str
    fake: bool
    label: str  # "genuine" or "fake (<class>)"
    before: str  # "flagged" | "approved" | "no answer"
    after: str
    risk_before: float | None  # mean risk over the runs that gave one
    risk_after: float | None

    @property
    def now(self) -> str:
        """From the label's side: "now right", "now wrong" or "no answer now"/"answered now"."""
        if self.after == "no answer":
            return "no answer now"
        if self.before == "no answer":
            return "answered now"
        right = (self.after == "flagged") == self.fake
        return "now right" if right else "now wrong"


@dataclass
class Comparison:
    moved: list[Moved]
    compared: int
    changed: list[Changed] = field(default_factory=list)
    cases: int = 0  # cases per target compared for decisions
    targets: list[str] = field(default_factory=list)
    inp: ScoreInput | None = None  # run B's input (the suite's files, for thumbnails)


FLAG_AT = 0.5


def _decisions(target: TargetRuns) -> dict[str, tuple[str, float | None]]:
    """Per case id: the target's decision over its answered runs, and its mean risk."""
    flags: dict[str, list[bool]] = {}
    risks: dict[str, list[float]] = {}
    seen: set[str] = set()
    for oc in target.outcomes:
        seen.add(oc.case_id)
        if oc.status != "ok" or not isinstance(oc.verdict, Verdict):
            continue
        risk = oc.verdict.risk
        flags.setdefault(oc.case_id, []).append(risk is not None and risk >= FLAG_AT)
        if risk is not None:
            risks.setdefault(oc.case_id, []).append(float(risk))
    out: dict[str, tuple[str, float | None]] = {}
    for cid in seen:
        f = flags.get(cid)
        r = risks.get(cid)
        mean = round(float(np.mean(r)), 4) if r else None
        if not f:
            out[cid] = ("no answer", mean)
        else:
            out[cid] = ("flagged" if 2 * sum(f) >= len(f) and any(f) else "approved", mean)
    return out


def changed_decisions(inp_a: ScoreInput, inp_b: ScoreInput) -> tuple[list[Changed], int]:
    """Cases whose decision changed, per target in both runs; and how many cases were compared."""
    a_targets = {t.id: t for t in inp_a.targets}
    out: list[Changed] = []
    n = 0
    for tb in inp_b.targets:
        ta = a_targets.get(tb.id)
        if ta is None:
            continue
        before, after = _decisions(ta), _decisions(tb)
        n = max(n, len(after))
        for case in inp_b.cases.cases:
            old, new = before.get(case.id), after.get(case.id)
            if old is None or new is None or old[0] == new[0]:
                continue
            a = case.label.authenticity
            label = a.verdict if a.fake_class is None else f"{a.verdict} ({a.fake_class})"
            out.append(Changed(tb.id, case.id, bool(a.verdict == "fake"), label, old[0], new[0], old[1], new[1]))
    order = {"now wrong": 0, "no answer now": 1, "now right": 2, "answered now": 3}
    out.sort(key=lambda c: (c.target, order[c.now], c.case_id))
    return out, n


def compare(run_a: str, run_b: str, *, strata: bool = False) -> Comparison:
    """Rows that moved beyond their intervals, then the cases whose decision changed."""
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
            moved.append(
                Moved(
                    row.target,
                    row.task,
                    row.metric,
                    row.stratum,
                    old,
                    row,
                    "better" if result == "win" else "worse",
                    reason,
                )
            )
    changed, n = changed_decisions(a.inp, b.inp) if a.inp is not None and b.inp is not None else ([], 0)
    return Comparison(moved, compared, changed, n, sorted(shared_targets), b.inp)


def compare_runs(run_a: str, run_b: str, *, strata: bool = False) -> tuple[list[Moved], int]:
    """Rows of every target present in both runs that moved; also how many rows were compared."""
    c = compare(run_a, run_b, strata=strata)
    return c.moved, c.compared


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
                    raise UserError(
                        f"target {row.target} has {domain} rows in both {source[key]} and {run}; "
                        "compare one run per domain"
                    )
                source[key] = run
                tracks[domain].append(row)
    missing = [d for d in (SYNTHETIC, REAL) if not tracks[d]]
    if missing:
        seen = "; ".join(f"{r}: {', '.join(d)}" for r, d in found.items()) or "no domain stratum at all"
        raise UserError(
            f"no {' or '.join(missing)} cases (at least 10) in {', '.join(run_dirs)} "
            f"(domains found: {seen}); tag cases domain=real|synthetic"
        )
    return pair_tracks(tracks[SYNTHETIC], tracks[REAL])
