"""Decisions (spec, "Decisions"): consistency, total consistency, calibration
error (ECE), expected cost per 1,000 receipts with the one-at-a-time sweep, and
the approve-everything reference — over base cases.

Every row of a stratum uses the same population: the authenticity task's groups
(``rabench.score.strata.authenticity_strata``), so ``class=ai_full`` is that class's
fakes against every genuine receipt in the consistency, calibration and cost rows alike."""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score.normalise import AMOUNT_TOLERANCE, FLOAT_SLACK
from rabench.score.reduce import FLAG_AT
from rabench.score.rows import ALL, MIN_STRATUM, plain_row, rate_row
from rabench.score.strata import AuthStratum, authenticity_strata
from rabench.score.tasks import TaskContext
from rabench.score.tasks.authenticity import flagged_share

TASK = "decisions"
N_BINS = 10
DEFAULTS = {"p": 0.01, "c_miss": 100.0, "c_review": 17.0}
# One assumption varied at a time over its published spread (stratum names).
SWEEP = (("p", 0.001), ("p", 0.05), ("c_miss", 32.0), ("c_miss", 182.0), ("c_review", 8.0), ("c_review", 73.0))
COST_THRESHOLDS = (0.5, 0.7)


def assumption_sets(
    defaults: dict[str, float] = DEFAULTS, sweep: tuple[tuple[str, float], ...] = SWEEP
) -> list[tuple[str, dict[str, float]]]:
    """The defaults, then each one-at-a-time change of the sweep (also the ap scorer's, with its own)."""
    out = [(ALL, dict(defaults))]
    for key, value in sweep:
        a = dict(defaults)
        a[key] = value
        out.append((f"assumption={key}={value:g}", a))
    return out


def expected_cost(ffr: float, detection: float, a: dict[str, float]) -> float:
    """1000 x ((1 - p) x false-flag rate x C_review + p x (1 - detection) x C_miss)."""
    return 1000.0 * ((1 - a["p"]) * ffr * a["c_review"] + a["p"] * (1 - detection) * a["c_miss"])


def _consistent(ctx: TaskContext) -> tuple[np.ndarray, np.ndarray]:
    """Per case: 1/0 whether every run's decision (resp. extracted total) agrees."""
    f = ctx.facts
    n = ctx.cases.n
    with np.errstate(invalid="ignore"):
        flag = np.where(np.isnan(f.risk), 0.0, (f.risk >= FLAG_AT).astype(float))
    n_flag = np.bincount(f.case, weights=flag, minlength=n)
    decision = ((n_flag == 0) | (n_flag == ctx.runs)).astype(float)
    present = ~np.isnan(f.total)
    n_present = np.bincount(f.case, weights=present.astype(float), minlength=n)
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, f.case[present], f.total[present])
    np.maximum.at(hi, f.case[present], f.total[present])
    with np.errstate(invalid="ignore"):
        same_total = (n_present == 0) | ((n_present == ctx.runs) & (hi - lo <= AMOUNT_TOLERANCE + FLOAT_SLACK))
    return decision, same_total.astype(float)


# Inner bin edges 0.1, ..., 0.9 as the doubles nearest k/10.
_EDGES = np.arange(1, N_BINS) / N_BINS


def risk_bins(risk: np.ndarray) -> np.ndarray:
    """Bin of each risk among [0, 0.1), ..., [0.9, 1.0], by comparison with the edges
    (``int(risk * 10)`` would put 0.3 * 3 = 0.8999999999999999 in [0.9, 1.0])."""
    return np.searchsorted(_EDGES, risk, side="right")


def ece(risk: np.ndarray, fake: np.ndarray) -> float | None:
    """Expected calibration error: 10 equal-width bins of risk ([0, 0.1), ...,
    [0.9, 1.0]), each |mean risk - share fake| weighted by its runs."""
    if risk.size == 0:
        return None
    bins = risk_bins(risk)
    s_risk = np.bincount(bins, weights=risk, minlength=N_BINS)
    s_fake = np.bincount(bins, weights=fake.astype(float), minlength=N_BINS)
    return float(np.abs(s_risk - s_fake).sum() / risk.size)


def rows(ctx: TaskContext) -> list[Row]:
    base = ctx.base
    decision, same_total = _consistent(ctx)
    repeated = base & (ctx.runs >= 2)
    f = ctx.facts
    out: list[Row | None] = []
    run_base = base[f.case]
    has_risk = ~np.isnan(f.risk)
    strata = authenticity_strata(ctx.cases, base, ctx.tags)
    # One population per stratum name, the authenticity task's (the cost rows are made of its
    # rates): class=/arithmetic= = that group's fakes + every genuine receipt; provenance= and
    # tags = their cases (a tag named like a label group gives way to it).
    for stratum, mask in [(s.name, s.genuine | s.fake) for s in strata]:
        m = mask & repeated
        out.append(rate_row(TASK, "decision_consistency", stratum, ctx.tid, decision[m]))
        out.append(rate_row(TASK, "total_consistency", stratum, ctx.tid, same_total[m]))
        sel = run_base & mask[f.case] & has_risk
        n_runs = int(sel.sum())
        if stratum == ALL or n_runs >= MIN_STRATUM:
            out.append(
                plain_row(
                    TASK,
                    "calibration_error",
                    stratum,
                    ctx.tid,
                    ece(f.risk[sel], ctx.cases.is_fake[f.case[sel]]),
                    n_runs,
                    "" if n_runs else "no runs with a risk",
                )
            )
    shares = {t: flagged_share(ctx, t) for t in COST_THRESHOLDS}

    def rates_of(s: AuthStratum) -> dict[float, tuple[float | None, float | None]]:
        return {
            t: (
                float(shares[t][s.fake].mean()) if s.fake.any() else None,
                float(shares[t][s.genuine].mean()) if s.genuine.any() else None,
            )
            for t in COST_THRESHOLDS
        }

    rates = rates_of(strata[0])  # "all"
    n = int(strata[0].fake.sum() + strata[0].genuine.sum())
    # Every stratum of the authenticity rows (the cost is a function of them), at the
    # default assumptions; a stratum needs both genuine receipts and fakes.
    for s in strata[1:]:
        if not (s.fake.any() and s.genuine.any()):
            continue
        note = "p={p:g} C_miss={c_miss:g} C_review={c_review:g}".format(**DEFAULTS)
        for t, (det, ffr) in rates_of(s).items():
            out.append(
                plain_row(
                    TASK,
                    f"expected_cost_per_1000_at_risk_{t}",
                    s.name,
                    ctx.tid,
                    expected_cost(ffr, det, DEFAULTS),  # type: ignore[arg-type]
                    int(s.fake.sum() + s.genuine.sum()),
                    note,
                )
            )
    for stratum, a in assumption_sets():
        note = f"p={a['p']:g} C_miss={a['c_miss']:g} C_review={a['c_review']:g}"
        for t in COST_THRESHOLDS:
            det, ffr = rates[t]
            value = None if det is None or ffr is None else expected_cost(ffr, det, a)
            out.append(
                plain_row(
                    TASK,
                    f"expected_cost_per_1000_at_risk_{t}",
                    stratum,
                    ctx.tid,
                    value,
                    n,
                    note if value is not None else "needs genuine and fakes",
                )
            )
        out.append(
            plain_row(
                TASK,
                "expected_cost_per_1000_approve_everything",
                stratum,
                ctx.tid,
                1000.0 * a["p"] * a["c_miss"],
                0,
                note + " (assumptions only)",
            )
        )
    return [r for r in out if r is not None]
