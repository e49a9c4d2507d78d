"""Per-run facts, then the per-case reduction every rate uses.

Why two steps: each call (run) is judged once, in one pass over the outcomes,
into plain arrays (NaN = "doesn't apply to this run"); every metric is then a
per-case mean of one array — "a case run several times counts once, with the
share of its runs that succeeded" — followed by a Wilson or bootstrap interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rabench.contracts import Outcome, Usage, Verdict
from rabench.contracts.labels import SCALAR_FIELDS
from rabench.score.load import CaseTable, TargetRuns
from rabench.score.normalise import field_right, match_line_items
from rabench.score.pointing import is_proof, points_at

FLAG_AT = 0.5  # "a decision ... flagged when risk >= 0.5"
STATUS_CODE = {"ok": 0, "error": 1, "refusal": 2, "timeout": 3, "invalid_output": 4}
NAN = float("nan")


@dataclass(slots=True)
class RunFacts:
    """One entry per outcome of one target; NaN where a fact doesn't apply."""

    case: np.ndarray  # int32 case index
    w: np.ndarray  # 1 / runs of that case
    status: np.ndarray  # int8, STATUS_CODE
    recorded: np.ndarray  # bool: a call the runner recorded (False: stand-in for a case with no outcome)
    readable: np.ndarray  # float 0/1: call ok with a readable verdict
    risk: np.ndarray  # NaN = no risk (failed call or none given); clipped to [0, 1]
    field: dict[str, np.ndarray]  # per scalar field: 1 right, 0 wrong, NaN not covered
    all_right: np.ndarray
    li_tp: np.ndarray
    li_pred: np.ndarray
    li_lab: np.ndarray  # NaN when the label doesn't cover line items
    check_ran: np.ndarray
    check_flagged: np.ndarray
    total: np.ndarray  # extracted total, NaN = absent
    seen: np.ndarray  # 1 seen_before True
    exact: np.ndarray  # 1 seen_before True with match_kind "exact"
    has_proof: np.ndarray
    edited_named: np.ndarray  # NaN unless a fake whose label names edited fields
    latency: np.ndarray  # NaN unless ok
    cost: np.ndarray  # NaN = unknown
    model_cost: np.ndarray


def _usage(oc: Outcome) -> Usage | None:
    if oc.usage is not None:
        return oc.usage
    return oc.verdict.usage if oc.verdict is not None else None


def _finite(x: float | None) -> float:
    return NAN if x is None or not math.isfinite(x) else float(x)


def run_facts(target: TargetRuns, cases: CaseTable) -> RunFacts:
    n = len(target.outcomes)

    def f() -> np.ndarray:
        return np.full(n, NAN)

    facts = RunFacts(
        case=target.case,
        w=np.zeros(n),
        status=np.zeros(n, dtype=np.int8),
        recorded=np.ones(n, dtype=bool) if target.missing is None else ~target.missing,
        readable=f(),
        risk=f(),
        field={name: f() for name in SCALAR_FIELDS},
        all_right=f(),
        li_tp=f(),
        li_pred=f(),
        li_lab=f(),
        check_ran=f(),
        check_flagged=f(),
        total=f(),
        seen=f(),
        exact=f(),
        has_proof=f(),
        edited_named=f(),
        latency=f(),
        cost=f(),
        model_cost=f(),
    )
    runs_per_case = np.bincount(target.case, minlength=cases.n)
    facts.w[:] = 1.0 / np.maximum(runs_per_case[target.case], 1)
    for i, oc in enumerate(target.outcomes):
        case = cases.cases[target.case[i]]
        ok = oc.status == "ok"
        v = oc.verdict if ok and isinstance(oc.verdict, Verdict) else None  # the receipt answer
        facts.status[i] = STATUS_CODE[oc.status]
        facts.readable[i] = 1.0 if v is not None else 0.0
        risk = NAN if v is None else _finite(v.risk)
        facts.risk[i] = NAN if math.isnan(risk) else min(1.0, max(0.0, risk))
        usage = _usage(oc)
        if ok and not oc.cached:  # a cached answer was neither timed nor paid for in this run
            facts.latency[i] = _finite(oc.latency_s)
            if usage is not None:
                facts.cost[i] = _finite(usage.cost_usd)
                facts.model_cost[i] = _finite(usage.model_cost_usd)
        facts.seen[i] = 1.0 if v is not None and v.seen_before is True else 0.0
        facts.exact[i] = 1.0 if facts.seen[i] and v is not None and v.match_kind == "exact" else 0.0
        if case.lineage is not None:
            continue
        label = case.label
        # Extraction: a failed or unreadable call gets every field wrong.
        covered = label.covered()
        fields = v.fields if v is not None else None
        all_ok = True
        for name, lab in covered.items():
            right = fields is not None and field_right(name, lab, getattr(fields, name))
            facts.field[name][i] = 1.0 if right else 0.0
            all_ok = all_ok and right
        if covered:
            facts.all_right[i] = 1.0 if all_ok else 0.0
        if isinstance(label.line_items, list):
            lab_items = [(it.description, it.total) for it in label.line_items]
            got = [(it.description, it.total) for it in (v.line_items or [])] if v is not None else []
            facts.li_lab[i] = len(lab_items)
            facts.li_pred[i] = len(got)
            facts.li_tp[i] = match_line_items(lab_items, got)
        if fields is not None:
            facts.total[i] = _finite(fields.total)
        # Checks: totals_add_up ran / flagged (failed).
        check = None
        if v is not None:
            check = next((c for c in v.checks if c.name == "totals_add_up"), None)
        facts.check_ran[i] = 1.0 if check is not None and check.status != "not_run" else 0.0
        facts.check_flagged[i] = 1.0 if check is not None and check.status == "failed" else 0.0
        # Evidence.
        reasons = v.reasons if v is not None else []
        checks = {c.name: c for c in v.checks} if v is not None else {}
        facts.has_proof[i] = 1.0 if any(is_proof(r, checks) for r in reasons) else 0.0
        edited = label.authenticity.edited_fields
        if label.is_fake and edited:
            named = False
            if risk >= FLAG_AT and v is not None:
                pointed: set[str] = set()
                for r in reasons[:3]:
                    pointed |= points_at(r, checks)
                named = bool(pointed & set(edited))
            facts.edited_named[i] = 1.0 if named else 0.0
    return facts


def per_case(facts: RunFacts, values: np.ndarray, n_cases: int) -> np.ndarray:
    """Mean of ``values`` over each case's runs where it applies (NaN: no run applies)."""
    ok = ~np.isnan(values)
    sums = np.bincount(facts.case[ok], weights=values[ok], minlength=n_cases)
    cnt = np.bincount(facts.case[ok], minlength=n_cases)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, sums / np.maximum(cnt, 1), NAN)


def runs_per_case(facts: RunFacts, n_cases: int) -> np.ndarray:
    return np.bincount(facts.case, minlength=n_cases)
