"""Extraction (spec, "Extraction"): per-field accuracy, all fields right,
line-item F1 (bootstrap), valid output rate — over base cases."""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score import kernels
from rabench.score.metrics import EXTRACTION_FIELDS
from rabench.score.rows import ALL, MIN_STRATUM, N_BOOT, bootstrap_row, rate_row, row_seed
from rabench.score.strata import tag_strata
from rabench.score.tasks import TaskContext

TASK = "extraction"


def rows(ctx: TaskContext) -> list[Row]:
    base = ctx.base
    f = ctx.facts
    shares = {name: ctx.share(f.field[name]) for name in EXTRACTION_FIELDS}
    all_right = ctx.share(f.all_right)
    valid = ctx.share(f.readable)
    tp, pred, lab = ctx.share(f.li_tp), ctx.share(f.li_pred), ctx.share(f.li_lab)
    out: list[Row | None] = []
    for stratum, mask in [(ALL, base), *tag_strata(ctx.tags, base)]:
        for name in EXTRACTION_FIELDS:
            s = shares[name][mask]
            out.append(rate_row(TASK, f"{name}_accuracy", stratum, ctx.tid, s[~np.isnan(s)]))
        s = all_right[mask]
        out.append(rate_row(TASK, "all_fields_right", stratum, ctx.tid, s[~np.isnan(s)]))
        out.append(_f1_row(ctx, stratum, mask, tp, pred, lab))
        missing = int((~f.recorded & mask[f.case]).sum())
        note = f"{missing} cases without an outcome, counted as failed runs" if missing else ""
        out.append(rate_row(TASK, "valid_output_rate", stratum, ctx.tid, valid[mask], note=note))
    return [r for r in out if r is not None]


def _f1_row(
    ctx: TaskContext, stratum: str, mask: np.ndarray, tp: np.ndarray, pred: np.ndarray, lab: np.ndarray
) -> Row | None:
    """Micro-averaged F1 = 2 sum(TP) / (sum(extracted) + sum(labelled)) over the
    documents whose label covers line items; each document's counts are the
    mean over its runs. Bootstrap: documents resampled, genuine and fakes apart."""
    m = mask & ~np.isnan(lab)
    n = int(m.sum())
    if stratum != ALL and n < MIN_STRATUM:
        return None
    seed = row_seed(TASK, "line_item_f1", stratum, ctx.tid)
    num = 2.0 * tp[m]
    den = pred[m] + lab[m]
    if n == 0 or den.sum() <= 0:
        return bootstrap_row(
            TASK, "line_item_f1", stratum, ctx.tid, None, None, seed, n, "no line items" if n else "no cases"
        )
    fake = ctx.cases.is_fake[m]
    samples = kernels.bootstrap_ratio(
        num,
        den,
        np.flatnonzero(~fake).astype(np.int64),
        np.flatnonzero(fake).astype(np.int64),
        N_BOOT,
        seed,
    )
    return bootstrap_row(TASK, "line_item_f1", stratum, ctx.tid, float(num.sum() / den.sum()), samples, seed, n)
