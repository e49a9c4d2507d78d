"""Evidence (spec, "Evidence"): edited field named, fakes caught with proof,
genuine receipts with proof — only for targets that can return verifiable findings."""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score.metrics import task_metrics
from rabench.score.reduce import FLAG_AT
from rabench.score.rows import ALL, rate_row, unsupported_rows
from rabench.score.strata import tag_strata
from rabench.score.tasks import TaskContext

TASK = "evidence"


def rows(ctx: TaskContext) -> list[Row]:
    if not ctx.target.info.capabilities.proofs:
        return unsupported_rows(TASK, task_metrics(TASK), ctx.tid)
    f = ctx.facts
    named = ctx.share(f.edited_named)
    with np.errstate(invalid="ignore"):
        caught = ctx.share(
            np.where(np.isnan(f.has_proof), np.nan, ((f.risk >= FLAG_AT) & (f.has_proof == 1.0)).astype(float))
        )
    proof = ctx.share(f.has_proof)
    fakes = ctx.base & ctx.cases.is_fake
    genuine = ctx.base & ~ctx.cases.is_fake
    out: list[Row | None] = []
    for stratum, mask in [(ALL, ctx.base), *tag_strata(ctx.tags, ctx.base)]:
        s = named[mask & fakes]
        out.append(rate_row(TASK, "edited_field_named", stratum, ctx.tid, s[~np.isnan(s)]))
        out.append(rate_row(TASK, "fakes_caught_with_proof", stratum, ctx.tid, caught[mask & fakes]))
        out.append(rate_row(TASK, "genuine_with_proof", stratum, ctx.tid, proof[mask & genuine]))
    return [r for r in out if r is not None]
