"""AP suites: the suite's cases as label arrays, and per-run facts from each APVerdict.

Why the same two steps as receipts (``rabench.score.reduce``): every call is judged once
into plain arrays (NaN = doesn't apply to this run), and every row is then a per-case mean
("a case run several times counts once, with the share of its runs that succeeded")
followed by a Wilson or bootstrap interval (docs/methodology-ap.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rabench.contracts.ap import DECISIONS, OUTCOME_CLASSES, APCase, EvidenceBox, Link
from rabench.contracts.ap_verdict import APVerdict
from rabench.contracts.labels import SCALAR_FIELDS
from rabench.score.load import TargetRuns
from rabench.score.normalise import field_right, match_line_items
from rabench.score.reduce import STATUS_CODE, RunFacts

NAN = float("nan")
IOU_AT = 0.5
LOG_FLOOR = 1e-15  # log loss of a zero forecast on the outcome: -ln(1e-15) = 34.5
K = len(OUTCOME_CLASSES)
# Which receipt rule (``normalise.field_right``) scores each AP field.
FIELD_RULE = {
    "vendor_name": "merchant",
    "invoice_date": "date",
    "due_date": "date",
    "currency": "currency",
    "subtotal": "subtotal",
    "tax": "tax_total",
    "total": "total",
}
SETS = ("discrepancy", "reason_code", "duplicate_link", "campaign_link")
PAY = DECISIONS.index("PAY")
ESCALATE = DECISIONS.index("ESCALATE_FRAUD")
NO_DECISION = -1


def ap_field_right(name: str, label: object, answer: object) -> bool:
    """The receipt rules where they apply; identifiers (and any other field) by the
    receipt-number rule: letters and digits only, lower-cased, equal."""
    return field_right(FIELD_RULE.get(name, "receipt_number"), label, answer)


def iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two ``[x0, y0, x1, y1]`` boxes; 0 for a degenerate box."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    area_a = max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1])
    area_b = max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])
    union = area_a + area_b - inter
    return inter / union if union > 0 else 0.0


def grounded(gold: EvidenceBox, got: EvidenceBox | None) -> bool:
    return (
        got is not None
        and got.doc.strip().lower() == gold.doc.strip().lower()
        and got.page == gold.page
        and iou(gold.box, got.box) >= IOU_AT
    )


def link_keys(links: list[Link]) -> set[tuple[str, str, str]]:
    """Order-free link identities, references trimmed and case-folded."""
    out: set[tuple[str, str, str]] = set()
    for link in links:
        a, b = sorted((link.source.strip().casefold(), link.target.strip().casefold()))
        out.add((link.kind, a, b))
    return out


def forecast(v: APVerdict | None) -> np.ndarray | None:
    """The run's probabilities over the outcome classes, normalised; None = no forecast."""
    if v is None or v.probabilities is None:
        return None
    p = np.array([float(v.probabilities.get(c, 0.0)) for c in OUTCOME_CLASSES])  # type: ignore[call-overload]
    s = float(p.sum())
    if not (math.isfinite(s) and s > 0):
        return None
    return p / s


def brier(p: np.ndarray, outcome: int) -> float:
    """Multiclass Brier score: sum over classes of (p_k - y_k)^2, in [0, 2]."""
    y = np.zeros(p.size)
    y[outcome] = 1.0
    return float(((p - y) ** 2).sum())


def log_loss(p: np.ndarray, outcome: int) -> float:
    return -math.log(max(float(p[outcome]), LOG_FLOOR))


@dataclass(slots=True)
class APCaseTable:
    """Every AP case, in manifest order, with the label facts the rows need as arrays."""

    cases: list[APCase]
    index: dict[str, int]
    fraud: np.ndarray
    payable: np.ndarray  # safe_to_pay
    exception: np.ndarray  # neither fraud nor safe to pay
    outcome: np.ndarray  # int index into OUTCOME_CLASSES
    implied_tags: dict[str, str]

    @property
    def n(self) -> int:
        return len(self.cases)

    @staticmethod
    def of(cases: list[APCase]) -> APCaseTable:
        fraud = np.array([c.label.is_fraud for c in cases], dtype=bool)
        payable = np.array([c.label.safe_to_pay for c in cases], dtype=bool)
        return APCaseTable(
            cases=cases,
            index={c.id: i for i, c in enumerate(cases)},
            fraud=fraud,
            payable=payable,
            exception=~fraud & ~payable,
            outcome=np.array([OUTCOME_CLASSES.index(c.label.outcome) for c in cases], dtype=np.int64),
            implied_tags={},
        )


@dataclass(slots=True)
class APFacts:
    """One entry per outcome of one target; NaN where a fact doesn't apply. ``base`` carries
    the facts the shared operations rows read (status, latency, cost, recorded)."""

    base: RunFacts
    field: dict[str, np.ndarray]
    all_right: np.ndarray
    li_tp: np.ndarray
    li_pred: np.ndarray
    li_lab: np.ndarray
    grounded: np.ndarray  # share of the label's boxed fields grounded (NaN: none boxed)
    grounded_right: np.ndarray
    decision: np.ndarray  # int index into DECISIONS; -1 = no decision (failed call)
    right_decision: np.ndarray  # 1/0: decision among the label's acceptable ones
    sets: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]  # name -> (tp, predicted, labelled)
    has_forecast: np.ndarray
    brier: np.ndarray
    log_loss: np.ndarray

    @property
    def case(self) -> np.ndarray:
        return self.base.case


def _empty_base(target: TargetRuns) -> RunFacts:
    n = len(target.outcomes)

    def f() -> np.ndarray:
        return np.full(n, NAN)

    return RunFacts(
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


def _f(value: float | None) -> float:
    return NAN if value is None or not math.isfinite(value) else float(value)


def ap_facts(target: TargetRuns, cases: APCaseTable) -> APFacts:
    from rabench.contracts.ap import FIELD_NAMES

    n = len(target.outcomes)

    def f() -> np.ndarray:
        return np.full(n, NAN)

    base = _empty_base(target)
    facts = APFacts(
        base=base,
        field={name: f() for name in FIELD_NAMES},
        all_right=f(),
        li_tp=f(),
        li_pred=f(),
        li_lab=f(),
        grounded=f(),
        grounded_right=f(),
        decision=np.full(n, NO_DECISION, dtype=np.int64),
        right_decision=f(),
        sets={s: (f(), f(), f()) for s in SETS},
        has_forecast=f(),
        brier=f(),
        log_loss=f(),
    )
    runs_per_case = np.bincount(target.case, minlength=cases.n)
    base.w[:] = 1.0 / np.maximum(runs_per_case[target.case], 1)
    uniform = np.full(K, 1.0 / K)
    for i, oc in enumerate(target.outcomes):
        case = cases.cases[int(target.case[i])]
        label = case.label
        ok = oc.status == "ok"
        v = oc.verdict if ok and isinstance(oc.verdict, APVerdict) else None
        base.status[i] = STATUS_CODE[oc.status]
        base.readable[i] = 1.0 if v is not None else 0.0
        usage = oc.usage if oc.usage is not None else (oc.verdict.usage if oc.verdict is not None else None)
        if ok and not oc.cached:
            base.latency[i] = _f(oc.latency_s)
            if usage is not None:
                base.cost[i] = _f(usage.cost_usd)
                base.model_cost[i] = _f(usage.model_cost_usd)
        # Extraction and grounding: a failed call gets every covered field wrong, grounds nothing.
        got = v.fields if v is not None else {}
        all_ok = True
        boxed = hits = hits_right = 0
        for name, gold in label.fields.items():
            answer = got.get(name)
            right = v is not None and ap_field_right(name, gold.value, answer.value if answer else None)
            facts.field[name][i] = 1.0 if right else 0.0
            all_ok = all_ok and right
            if gold.evidence is not None:
                boxed += 1
                if grounded(gold.evidence, answer.evidence if answer else None):
                    hits += 1
                    hits_right += int(right)
        if label.fields:
            facts.all_right[i] = 1.0 if all_ok else 0.0
        if boxed:
            facts.grounded[i] = hits / boxed
            facts.grounded_right[i] = hits_right / boxed
        if label.line_items:
            lab_items = [(it.description, it.total) for it in label.line_items]
            mine = [(it.description, it.total) for it in (v.line_items or [])] if v is not None else []
            facts.li_lab[i] = len(lab_items)
            facts.li_pred[i] = len(mine)
            facts.li_tp[i] = match_line_items(lab_items, mine)
        # Decision.
        if v is not None:
            facts.decision[i] = DECISIONS.index(v.decision)
        facts.right_decision[i] = 1.0 if v is not None and v.decision in label.acceptable else 0.0
        # Sets: discrepancies, reason codes, links (a failed call predicts nothing).
        pairs: dict[str, tuple[set[object], set[object]]] = {
            "discrepancy": (set(label.discrepancies), set(v.discrepancies) if v else set()),
            "reason_code": (set(label.reason_codes), set(v.reason_codes) if v else set()),
            "duplicate_link": (
                set(link_keys(label.duplicate_links)),
                set(link_keys(v.duplicate_links)) if v else set(),
            ),
            "campaign_link": (set(link_keys(label.campaign_links)), set(link_keys(v.campaign_links)) if v else set()),
        }
        for set_name, (lab_set, pred_set) in pairs.items():
            tp, pred, labd = facts.sets[set_name]
            tp[i] = len(lab_set & pred_set)
            pred[i] = len(pred_set)
            labd[i] = len(lab_set)
        # Calibration: no forecast = the uniform one.
        p = forecast(v)
        facts.has_forecast[i] = 0.0 if p is None else 1.0
        q = uniform if p is None else p
        outcome = int(cases.outcome[int(target.case[i])])
        facts.brier[i] = brier(q, outcome)
        facts.log_loss[i] = log_loss(q, outcome)
    return facts
