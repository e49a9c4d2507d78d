"""Compare the same target across two runs (e.g. two engine versions).

A row "moved" when run B's value differs from run A's beyond what the
intervals allow: the same rule as the findings (95% intervals don't overlap;
1.2x for rows without an interval; never on fewer than 10 cases or calls), so
a reader sees only changes the data can carry.
"""

from __future__ import annotations

from dataclasses import dataclass

from rabench.contracts import Row
from rabench.errors import UserError
from rabench.score.findings import compare as compare_rows
from rabench.score.scorer import score_runs


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
