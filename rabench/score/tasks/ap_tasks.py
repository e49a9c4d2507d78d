"""AP rows other than decisions (docs/methodology-ap.md): extraction, evidence grounding,
discrepancy / reason-code / link F1 and the proper scores (Brier, log loss).

Same row builders and kernels as the receipt tasks: Wilson over cases with fractional
successes, percentile bootstrap of a ratio of sums (``kernels.bootstrap_ratio``) with fraud
and genuine cases resampled apart, a seed per row.
"""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.contracts.ap import FIELD_NAMES
from rabench.score import kernels
from rabench.score.rows import ALL, MIN_STRATUM, N_BOOT, bootstrap_row, plain_row, rate_row, row_seed
from rabench.score.tasks.ap_facts import K, SETS, APCaseTable, APFacts

EXTRACTION = "ap_extraction"
EVIDENCE = "ap_evidence"
FINDINGS = "ap_findings"
CALIBRATION = "ap_calibration"
Strata = list[tuple[str, np.ndarray]]


def per_case(facts: APFacts, values: np.ndarray, n_cases: int) -> np.ndarray:
    """Mean of ``values`` over each case's runs where it applies (NaN: no run applies)."""
    ok = ~np.isnan(values)
    case = facts.case[ok]
    sums = np.bincount(case, weights=values[ok], minlength=n_cases)
    cnt = np.bincount(case, minlength=n_cases)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)
    return out


def ratio_row(
    task: str,
    metric: str,
    stratum: str,
    tid: str,
    num: np.ndarray,
    den: np.ndarray,
    mask: np.ndarray,
    cases: APCaseTable,
    empty_note: str = "undefined",
) -> Row | None:
    """sum(num) / sum(den) over the cases in ``mask`` with a stratified bootstrap interval
    (fraud and genuine cases resampled apart). ``num``/``den`` are per case (all cases)."""
    n = int(mask.sum())
    if stratum != ALL and n < MIN_STRATUM:
        return None
    seed = row_seed(task, metric, stratum, tid)
    a, b = num[mask], den[mask]
    if n == 0 or b.sum() <= 0:
        return bootstrap_row(task, metric, stratum, tid, None, None, seed, n, empty_note if n else "no cases")
    fraud = cases.fraud[mask]
    samples = kernels.bootstrap_ratio(
        a, b, np.flatnonzero(~fraud).astype(np.int64), np.flatnonzero(fraud).astype(np.int64), N_BOOT, seed
    )
    return bootstrap_row(task, metric, stratum, tid, float(a.sum() / b.sum()), samples, seed, n)


def _rate(task: str, metric: str, stratum: str, tid: str, shares: np.ndarray, note: str = "") -> Row | None:
    s = shares[~np.isnan(shares)]
    return rate_row(task, metric, stratum, tid, s, note=note)


def extraction_rows(tid: str, facts: APFacts, cases: APCaseTable, strata: Strata) -> list[Row]:
    n = cases.n
    field = {name: per_case(facts, facts.field[name], n) for name in FIELD_NAMES}
    all_right = per_case(facts, facts.all_right, n)
    valid = per_case(facts, facts.base.readable, n)
    tp, pred, lab = (per_case(facts, x, n) for x in (facts.li_tp, facts.li_pred, facts.li_lab))
    grounded = per_case(facts, facts.grounded, n)
    grounded_right = per_case(facts, facts.grounded_right, n)
    out: list[Row | None] = []
    for stratum, mask in strata:
        for name in FIELD_NAMES:
            out.append(_rate(EXTRACTION, f"{name}_accuracy", stratum, tid, field[name][mask]))
        out.append(_rate(EXTRACTION, "all_fields_right", stratum, tid, all_right[mask]))
        li = mask & ~np.isnan(lab)
        out.append(
            ratio_row(
                EXTRACTION,
                "line_item_f1",
                stratum,
                tid,
                2.0 * np.nan_to_num(tp),
                np.nan_to_num(pred) + np.nan_to_num(lab),
                li,
                cases,
                "no line items",
            )
        )
        missing = int((~facts.base.recorded & mask[facts.case]).sum())
        note = f"{missing} cases without an outcome, counted as failed runs" if missing else ""
        out.append(_rate(EXTRACTION, "valid_output_rate", stratum, tid, valid[mask], note))
        out.append(_rate(EVIDENCE, "field_grounded", stratum, tid, grounded[mask]))
        out.append(_rate(EVIDENCE, "field_grounded_and_right", stratum, tid, grounded_right[mask]))
    return [r for r in out if r is not None]


def findings_rows(tid: str, facts: APFacts, cases: APCaseTable, strata: Strata) -> list[Row]:
    n = cases.n
    out: list[Row | None] = []
    sums = {}
    for name in SETS:
        tp, pred, lab = (per_case(facts, x, n) for x in facts.sets[name])
        sums[name] = (2.0 * np.nan_to_num(tp), np.nan_to_num(pred) + np.nan_to_num(lab))
    ran = facts_ran(facts, n)
    for stratum, mask in strata:
        for name in SETS:
            num, den = sums[name]
            out.append(ratio_row(FINDINGS, f"{name}_f1", stratum, tid, num, den, mask & ran, cases))
    return [r for r in out if r is not None]


def calibration_rows(tid: str, facts: APFacts, cases: APCaseTable, strata: Strata) -> list[Row]:
    n = cases.n
    brier = per_case(facts, facts.brier, n)
    loss = per_case(facts, facts.log_loss, n)
    cover = per_case(facts, facts.has_forecast, n)
    ran = facts_ran(facts, n)
    ones = np.ones(n)
    out: list[Row | None] = []
    for stratum, mask in strata:
        m = mask & ran
        out.append(ratio_row(CALIBRATION, "brier_score", stratum, tid, np.nan_to_num(brier), ones, m, cases))
        out.append(ratio_row(CALIBRATION, "log_loss", stratum, tid, np.nan_to_num(loss), ones, m, cases))
        out.append(_rate(CALIBRATION, "forecast_coverage", stratum, tid, cover[m]))
    out.append(
        plain_row(CALIBRATION, "brier_score_uniform", ALL, tid, 1.0 - 1.0 / K, 0, "the uniform forecast, the reference")
    )
    return [r for r in out if r is not None]


def facts_ran(facts: APFacts, n_cases: int) -> np.ndarray:
    """Cases with at least one run (a stand-in for a missing outcome counts as a run)."""
    ran: np.ndarray = np.bincount(facts.case, minlength=n_cases) > 0
    return ran
