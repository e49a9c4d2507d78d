"""Duplicates (spec, "Duplicates"): recall and exact recall over duplicate
transforms; false matches over hard negatives and over the other genuine receipts."""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score.metrics import task_metrics
from rabench.score.rows import ALL, rate_row, unsupported_rows
from rabench.score.strata import tag_strata
from rabench.score.tasks import TaskContext

TASK = "duplicates"


def _transform_strata(ctx: TaskContext, mask: np.ndarray) -> list[tuple[str, np.ndarray]]:
    kinds: dict[str, list[int]] = {}
    for i in np.flatnonzero(mask):
        lin = ctx.cases.cases[i].lineage
        if lin is not None:
            kinds.setdefault(f"transform={lin.transform}", []).append(int(i))
    out = []
    for name in sorted(kinds):
        m = np.zeros(ctx.cases.n, dtype=bool)
        m[kinds[name]] = True
        out.append((name, m))
    return out


def rows(ctx: TaskContext) -> list[Row]:
    if not ctx.target.info.capabilities.memory:
        return unsupported_rows(TASK, task_metrics(TASK), ctx.tid)
    seen = ctx.share(ctx.facts.seen)
    exact = ctx.share(ctx.facts.exact)
    transforms = ~ctx.cases.is_base & ctx.has_runs
    hard = ctx.cases.has_after & ctx.has_runs
    other = ctx.base & ~ctx.cases.has_after & ~ctx.cases.is_fake
    out: list[Row | None] = []
    for stratum, mask in [(ALL, transforms), *tag_strata(ctx.tags, transforms), *_transform_strata(ctx, transforms)]:
        out.append(rate_row(TASK, "recall", stratum, ctx.tid, seen[mask]))
        out.append(rate_row(TASK, "exact_recall", stratum, ctx.tid, exact[mask]))
    for stratum, mask in [(ALL, hard), *tag_strata(ctx.tags, hard)]:
        out.append(rate_row(TASK, "false_match_rate", stratum, ctx.tid, seen[mask]))
    for stratum, mask in [(ALL, other), *tag_strata(ctx.tags, other)]:
        out.append(rate_row(TASK, "false_match_rate_genuine", stratum, ctx.tid, seen[mask]))
    return [r for r in out if r is not None]
