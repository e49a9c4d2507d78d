"""The AP section of report.md and report.html: what an AP reader asks first, per target, in
words with intervals — how often it paid a fraud (on its own decision), how often it held a
payable invoice, what that costs per 1,000 invoices against paying or reviewing everything,
and whether its probabilities beat saying nothing (docs/methodology-ap.md).
"""

from __future__ import annotations

import html as _html
from collections.abc import Sequence

from rabench.contracts import Row

from rabench.score.metrics import AP_TASKS as TASKS


def is_ap(rows: Sequence[Row]) -> bool:
    return any(r.task in TASKS for r in rows)


def _f(x: float | None, pct: bool = False, money: bool = False) -> str:
    if x is None:
        return "–"
    if money:
        return f"${x:,.0f}"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def _iv(r: Row | None, pct: bool = False, money: bool = False) -> str:
    if r is None:
        return "–"
    text = _f(r.value, pct, money)
    if r.lo is not None and r.hi is not None:
        text += f" [{_f(r.lo, pct, money)}, {_f(r.hi, pct, money)}]"
    return f"{text} (n={r.n})"


def sentences(rows: Sequence[Row]) -> list[str]:
    """One paragraph per target, every figure with its 95% interval and n."""
    head = {(r.target, r.metric): r for r in rows if r.stratum == "all" and r.task in TASKS}
    targets = list(dict.fromkeys(r.target for r in rows if r.task in TASKS))
    out = []
    for t in targets:
        g = lambda m: head.get((t, m))  # noqa: E731
        pay_all = g("expected_cost_per_1000_pay_everything")
        review_all = g("expected_cost_per_1000_review_everything")
        out.append(
            f"{t}: paid {_iv(g('unsafe_release_rate'), pct=True)} of fraud cases on its own decision and escalated "
            f"{_iv(g('fraud_escalation_recall'), pct=True)}; held {_iv(g('false_hold_rate'), pct=True)} of payable "
            f"invoices and called {_iv(g('false_fraud_rate'), pct=True)} of genuine ones fraud; right decision "
            f"{_iv(g('decision_accuracy'), pct=True)}. Expected cost per 1,000 invoices "
            f"{_iv(g('expected_cost_per_1000'), money=True)} against {_f(pay_all.value if pay_all else None, money=True)} "
            f"paying everything and {_f(review_all.value if review_all else None, money=True)} reviewing everything. "
            f"Brier score {_iv(g('brier_score'))} and log loss {_iv(g('log_loss'))} (the uniform forecast scores "
            f"{_f(g('brier_score_uniform').value if g('brier_score_uniform') else None)} Brier); reason-code F1 "
            f"{_iv(g('reason_code_f1'))}; fields grounded (IoU ≥ 0.5) {_iv(g('field_grounded'), pct=True)}."
        )
    return out


INTRO = (
    "Accounts-payable suite: every figure is measured on the target's own answer (no guard rewrites an "
    "unsafe PAY), costs use the cited defaults of docs/methodology-ap.md (a fraud paid $58,900, a payable "
    "invoice held $12.88, fraud 0.5% of invoices), calibration uses proper scores only."
)


def markdown(rows: Sequence[Row]) -> list[str]:
    if not is_ap(rows):
        return []
    return ["## Accounts payable", "", INTRO, "", *[f"- {s}" for s in sentences(rows)], ""]


def html(rows: Sequence[Row]) -> str:
    if not is_ap(rows):
        return ""
    items = "".join(f"<li>{_html.escape(s)}</li>" for s in sentences(rows))
    return f"<section id='ap'><h2>Accounts payable</h2><p>{_html.escape(INTRO)}</p><ul>{items}</ul></section>"
