"""Authenticity (spec, "Authenticity"): ROC AUC and detection at 1/5/10%
false-flag rate (bootstrap), detection and false flags at risk >= 0.5 and >= 0.7
(Wilson) — over base cases, for "all" and every stratum.

Repetitions: each run of a case is a point weighted 1 / (runs of that case), so
a case counts once and is the mixture of its runs. With one run per case this is
exactly the spec's definition. A run without a risk (none given, or a failed
call) scores 0.5 for AUC and is never flagged at any threshold.
"""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score import kernels
from rabench.score.metrics import FFR_LEVELS, RISK_THRESHOLDS
from rabench.score.rows import N_BOOT, bootstrap_row, rate_row, row_seed
from rabench.score.strata import AuthStratum, authenticity_strata
from rabench.score.tasks import TaskContext

TASK = "authenticity"
NO_RISK_AUC = 0.5
NEVER_FLAGGED = -1.0


def flagged_share(ctx: TaskContext, threshold: float) -> np.ndarray:
    """Per case, the share of its runs with risk >= threshold (no risk: not flagged)."""
    risk = ctx.facts.risk
    with np.errstate(invalid="ignore"):
        flags = np.where(np.isnan(risk), 0.0, (risk >= threshold).astype(float))
    return ctx.share(flags)


def rows(ctx: TaskContext) -> list[Row]:
    eligible = ctx.base
    strata = authenticity_strata(ctx.cases, eligible, ctx.tags)
    shares = {t: flagged_share(ctx, t) for t in RISK_THRESHOLDS}
    risk = ctx.facts.risk
    auc_score = np.where(np.isnan(risk), NO_RISK_AUC, risk)
    thr_score = np.where(np.isnan(risk), NEVER_FLAGGED, risk)
    out: list[Row | None] = []
    for s in strata:
        out.extend(_ranking_rows(ctx, s, auc_score, thr_score))
        for t in RISK_THRESHOLDS:
            out.append(rate_row(TASK, f"detection_at_risk_{t}", s.name, ctx.tid, shares[t][s.fake]))
            out.append(rate_row(TASK, f"false_flag_rate_at_risk_{t}", s.name, ctx.tid, shares[t][s.genuine]))
    return [r for r in out if r is not None]


def _ranking_rows(ctx: TaskContext, s: AuthStratum, auc_score: np.ndarray, thr_score: np.ndarray) -> list[Row]:
    members = s.genuine | s.fake
    n_g, n_f = int(s.genuine.sum()), int(s.fake.sum())
    n = n_g + n_f
    note = f"genuine={n_g} fakes={n_f}"
    names = ["roc_auc", *[f"detection_at_ffr_{tag}" for _, tag in FFR_LEVELS]]
    if n_g == 0 or n_f == 0:
        if s.name != "all":
            return []
        return [
            bootstrap_row(
                TASK, m, s.name, ctx.tid, None, None, row_seed(TASK, m, s.name, ctx.tid), n, note + ": needs both"
            )
            for m in names
        ]
    local = np.cumsum(members) - 1  # case index -> index within the stratum
    sel = members[ctx.facts.case]
    case = local[ctx.facts.case[sel]].astype(np.int32)
    fake = s.fake[ctx.facts.case[sel]]
    w = ctx.facts.w[sel]
    genuine_cases = local[np.flatnonzero(s.genuine)]
    fake_cases = local[np.flatnonzero(s.fake)]
    out = []
    auc_runs = kernels.SortedRuns(auc_score[sel], case, fake, w, n)
    seed = row_seed(TASK, "roc_auc", s.name, ctx.tid)
    value, _ = kernels.point_levels(kernels.AUC, 0.0, auc_runs, n_g, n_f)
    samples = kernels.bootstrap_runs(kernels.AUC, 0.0, auc_runs, genuine_cases, fake_cases, N_BOOT, seed)
    out.append(bootstrap_row(TASK, "roc_auc", s.name, ctx.tid, value, samples, seed, n, note))
    thr_runs = kernels.SortedRuns(thr_score[sel], case, fake, w, n, never_below=0.0)
    for alpha, tag in FFR_LEVELS:
        metric = f"detection_at_ffr_{tag}"
        seed = row_seed(TASK, metric, s.name, ctx.tid)
        value, threshold = kernels.point_levels(kernels.DETECTION_AT_FFR, alpha, thr_runs, n_g, n_f)
        samples = kernels.bootstrap_runs(
            kernels.DETECTION_AT_FFR, alpha, thr_runs, genuine_cases, fake_cases, N_BOOT, seed
        )
        thr = "none (flags nothing)" if threshold is None else f"{threshold:.6g}"
        out.append(bootstrap_row(TASK, metric, s.name, ctx.tid, value, samples, seed, n, f"{note} threshold={thr}"))
    return out
