"""AP decisions (docs/methodology-ap.md, "Task ap_decision"): accuracy, unsafe release on the
target's *own* decision, fraud escalation, exception release, false holds and false fraud
alarms, consistency, and the expected cost per 1,000 invoices with its cited defaults and the
one-at-a-time sweep.

A failed call has no decision: it releases nothing and, on a payable invoice, is a hold.
"""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score import kernels
from rabench.score.rows import ALL, MIN_STRATUM, N_BOOT, bootstrap_row, plain_row, rate_row, row_seed
from rabench.score.tasks import decisions
from rabench.score.tasks.ap_facts import ESCALATE, NO_DECISION, PAY, APCaseTable, APFacts
from rabench.score.tasks.ap_tasks import facts_ran, per_case

TASK = "ap_decision"
METRICS = [
    "decision_accuracy",
    "unsafe_release_rate",
    "fraud_escalation_recall",
    "exception_release_rate",
    "false_hold_rate",
    "false_fraud_rate",
    "decision_consistency",
    "expected_cost_per_1000",
    "expected_cost_per_1000_pay_everything",
    "expected_cost_per_1000_review_everything",
]
# USD per invoice and shares (the table in docs/methodology-ap.md, with its sources).
DEFAULTS: dict[str, float] = {
    "c_release": 58_900.0,
    "c_hold": 12.88,
    "c_escalate": 57.47,
    "c_overpay": 1_000.0,
    "p_fraud": 0.005,
    "p_exception": 0.226,
}
SWEEP: tuple[tuple[str, float], ...] = (
    ("c_release", 14_700.0),
    ("c_release", 135_000.0),
    ("c_hold", 2.36),
    ("c_hold", 50.0),
    ("c_escalate", 19.16),
    ("c_escalate", 172.41),
    ("c_overpay", 100.0),
    ("c_overpay", 10_000.0),
    ("p_fraud", 0.001),
    ("p_fraud", 0.02),
    ("p_exception", 0.101),
)
TRUTHS = ("fraud", "exception", "payable")


def assumption_sets() -> list[tuple[str, dict[str, float]]]:
    return decisions.assumption_sets(DEFAULTS, SWEEP)


def priors(a: dict[str, float]) -> dict[str, float]:
    """Real-world mix of the three truth classes."""
    exception = (1.0 - a["p_fraud"]) * a["p_exception"]
    return {"fraud": a["p_fraud"], "exception": exception, "payable": 1.0 - a["p_fraud"] - exception}


def cost_matrix(a: dict[str, float]) -> dict[str, tuple[float, float, float]]:
    """truth -> (cost of PAY, of HOLD / NEEDS_REVIEW / no decision, of ESCALATE_FRAUD)."""
    return {
        "fraud": (a["c_release"], a["c_hold"], 0.0),
        "exception": (a["c_overpay"], 0.0, a["c_escalate"]),
        "payable": (0.0, a["c_hold"], a["c_escalate"]),
    }


def reference_costs(a: dict[str, float]) -> tuple[float, float]:
    """Expected cost per 1,000 invoices of paying everything and of reviewing everything."""
    pi, c = priors(a), cost_matrix(a)
    pay = 1000.0 * sum(pi[t] * c[t][0] for t in TRUTHS)
    review = 1000.0 * sum(pi[t] * c[t][1] for t in TRUTHS)
    return pay, review


def truth_masks(cases: APCaseTable) -> dict[str, np.ndarray]:
    return {"fraud": cases.fraud, "exception": cases.exception, "payable": cases.payable}


def expected_cost(
    shares: tuple[np.ndarray, np.ndarray, np.ndarray],
    truths: dict[str, np.ndarray],
    mask: np.ndarray,
    a: dict[str, float],
    seed: int,
) -> tuple[float | None, np.ndarray | None]:
    """Point estimate and bootstrap samples of 1000 x sum_t pi_t x mean_{cases of t} cost.
    Each truth class is resampled on its own (a stratified bootstrap), seeds seed+0,1,2."""
    pay, other, esc = shares
    pi, c = priors(a), cost_matrix(a)
    value = 0.0
    samples = np.zeros(N_BOOT)
    for k, t in enumerate(TRUTHS):
        m = mask & truths[t]
        if not m.any():
            return None, None
        cost = pay[m] * c[t][0] + other[m] * c[t][1] + esc[m] * c[t][2]
        value += pi[t] * float(cost.mean())
        idx = np.arange(cost.size, dtype=np.int64)
        sub_seed = (seed + k) & ((1 << 63) - 1)
        samples += pi[t] * kernels.bootstrap_ratio(
            cost, np.ones(cost.size), idx, np.zeros(0, dtype=np.int64), N_BOOT, sub_seed
        )
    return 1000.0 * value, 1000.0 * samples


def rows(tid: str, facts: APFacts, cases: APCaseTable, strata: list[tuple[str, np.ndarray]]) -> list[Row]:
    n = cases.n
    d = facts.decision
    is_pay = (d == PAY).astype(float)
    is_esc = (d == ESCALATE).astype(float)
    pay, esc = per_case(facts, is_pay, n), per_case(facts, is_esc, n)
    other = 1.0 - pay - esc  # HOLD, NEEDS_REVIEW or no decision
    right = per_case(facts, facts.right_decision, n)
    ran = facts_ran(facts, n)
    runs = np.bincount(facts.case, minlength=n)
    lo = np.full(n, np.iinfo(np.int64).max)
    hi = np.full(n, np.iinfo(np.int64).min)
    np.minimum.at(lo, facts.case, d)
    np.maximum.at(hi, facts.case, d)
    same = (lo == hi).astype(float)
    truths = truth_masks(cases)
    genuine = ~cases.fraud
    out: list[Row | None] = []
    for stratum, mask in strata:
        m = mask & ran
        out.append(rate_row(TASK, "decision_accuracy", stratum, tid, right[m]))
        out.append(rate_row(TASK, "unsafe_release_rate", stratum, tid, pay[m & cases.fraud]))
        out.append(rate_row(TASK, "fraud_escalation_recall", stratum, tid, esc[m & cases.fraud]))
        out.append(rate_row(TASK, "exception_release_rate", stratum, tid, pay[m & cases.exception]))
        out.append(rate_row(TASK, "false_hold_rate", stratum, tid, 1.0 - pay[m & cases.payable]))
        out.append(rate_row(TASK, "false_fraud_rate", stratum, tid, esc[m & genuine]))
        out.append(rate_row(TASK, "decision_consistency", stratum, tid, same[m & (runs >= 2)]))
        sets = assumption_sets() if stratum == ALL else [(stratum, dict(DEFAULTS))]
        for name, a in sets:  # the sweep for `all` only; a stratum's row needs every truth class
            out.append(_cost_row(tid, name, (pay, other, esc), truths, m, a, cases, strict=stratum != ALL))
    for name, a in assumption_sets():
        p_all, r_all = reference_costs(a)
        out.append(
            plain_row(
                TASK, "expected_cost_per_1000_pay_everything", name, tid, p_all, 0, "every invoice paid, the reference"
            )
        )
        out.append(
            plain_row(
                TASK,
                "expected_cost_per_1000_review_everything",
                name,
                tid,
                r_all,
                0,
                "every invoice sent to review, the reference",
            )
        )
    return [r for r in out if r is not None]


def _cost_row(
    tid: str,
    stratum: str,
    shares: tuple[np.ndarray, np.ndarray, np.ndarray],
    truths: dict[str, np.ndarray],
    mask: np.ndarray,
    a: dict[str, float],
    cases: APCaseTable,
    *,
    strict: bool,
) -> Row | None:
    n = int(mask.sum())
    if strict and n < MIN_STRATUM:
        return None
    seed = row_seed(TASK, "expected_cost_per_1000", stratum, tid)
    value, samples = expected_cost(shares, truths, mask, a, seed)
    if value is None:
        if strict:
            return None  # a stratum without every truth class has no cost row
        return bootstrap_row(
            TASK, "expected_cost_per_1000", stratum, tid, None, None, seed, n, "needs every truth class"
        )
    return bootstrap_row(TASK, "expected_cost_per_1000", stratum, tid, value, samples, seed, n)


__all__ = ["METRICS", "NO_DECISION", "rows"]
