"""Findings (spec, "Findings"): the reference target against every other target on
the headline rows (stratum "all"). The reference is ``--reference`` when given, else
the first ``self`` target, else the first target named (the run's order, not the
alphabet); ``rabench.report.verdict`` opens the report with the same pairs.

* A win or a loss only when the 95% intervals don't overlap (touching intervals
  overlap); the better side is read from the metric's direction.
* Latency and cost (no interval): only when one value is at least 1.2 times the
  other (a zero against a positive value counts as decided).
* Always a tie when either side rests on fewer than 10 cases (or calls).
* Metrics with neither an interval nor a ratio rule (calibration error,
  approve-everything) are listed as ties with the reason "no interval".
* A task the baseline can't do by construction: "not supported by baseline".
"""

from __future__ import annotations

from rabench.contracts import Row
from rabench.contracts.rows import Finding, FindingResult
from rabench.errors import UserError

__all__ = ["RATIO", "RATIO_SLACK", "Finding", "Result", "compare", "findings", "pick_reference"]
from rabench.score.load import TargetRuns
from rabench.score.metrics import BY_KEY, ORDER
from rabench.score.rows import ALL, MIN_STRATUM

RATIO = 1.2
# "At least 1.2 times" compared with a relative slack for binary float error:
# 0.102 / 0.085 == 1.1999999999999997, though 0.102 is exactly 1.2 x 0.085.
RATIO_SLACK = 1e-9
Result = FindingResult


def compare(ours: Row, base: Row) -> tuple[Result, str]:
    meta = BY_KEY[(ours.task, ours.metric)]
    if not base.supported:
        return "not_supported", "not supported by baseline"
    if not ours.supported:
        return "not_supported", "not supported by our target"
    if ours.value is None or base.value is None:
        return "tie", "no value on one side"
    if meta.compare == "none":
        return "tie", "no interval"
    if min(ours.n, base.n) < MIN_STRATUM:
        return "tie", f"fewer than {MIN_STRATUM} {meta.unit} on one side"
    sign = -1.0 if meta.lower_is_better else 1.0
    if meta.compare == "ratio":
        lo, hi = sorted((ours.value, base.value))
        if hi <= 0 or (lo > 0 and hi / lo < RATIO * (1 - RATIO_SLACK)):
            return "tie", f"within {RATIO}x"
        better = sign * (ours.value - base.value) > 0
        return ("win" if better else "loss"), f"at least {RATIO}x apart"
    if None in (ours.lo, ours.hi, base.lo, base.hi):
        return "tie", "no interval"
    if ours.lo > base.hi or base.lo > ours.hi:  # type: ignore[operator]
        better = sign * (ours.value - base.value) > 0
        return ("win" if better else "loss"), "95% intervals don't overlap"
    return "tie", "95% intervals overlap"


def pick_reference(named: list[str], kinds: dict[str, str], reference: str | None = None) -> str | None:
    """The target every other one is compared with. ``named``: target ids in the order the
    run(s) named them; ``kinds``: id -> kind. One line (exit 2) for an unknown --reference."""
    if reference is not None:
        if reference not in named:
            raise UserError(f"--reference {reference}: not a target of these runs (they have {', '.join(named)})")
        return reference
    ours = [t for t in named if kinds.get(t) == "self"]
    return (ours or named)[0] if named else None


def findings(
    rows: list[Row], targets: list[TargetRuns], reference: str | None = None, named: list[str] | None = None
) -> list[Finding]:
    """The reference (``pick_reference``) against every other target, in the order named."""
    named = named or [t.id for t in targets]
    ref = pick_reference(named, {t.id: t.info.kind for t in targets}, reference)
    if ref is None:
        return []
    head = {(r.target, r.task, r.metric): r for r in rows if r.stratum == ALL}
    keys = sorted({(r.task, r.metric) for r in rows if r.stratum == ALL}, key=lambda k: ORDER[k])
    out: list[Finding] = []
    for them in named:
        if them == ref:
            continue
        for task, metric in keys:
            a, b = head.get((ref, task, metric)), head.get((them, task, metric))
            if a is None or b is None:
                continue
            result, reason = compare(a, b)
            out.append(
                Finding(
                    task=task,
                    metric=metric,
                    target=ref,
                    baseline=them,
                    result=result,
                    reason=reason,
                    value=a.value,
                    baseline_value=b.value,
                )
            )
    return out
