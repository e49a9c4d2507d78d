"""Checks (spec, "Checks"): totals_add_up recall, precision, false alarms, coverage.

A positive is a document whose printed amounts don't add up (label
``adds_up = false``); the check flags it when it reports ``failed``. A check
that didn't run (not reported, ``not_run``, or a failed call) flags nothing.
Recall, false alarms and coverage weigh a document by its share of runs;
precision counts each document flagged in at least one run once (docs/methodology.md).
"""

from __future__ import annotations


from rabench.contracts import Row
from rabench.score.metrics import task_metrics
from rabench.score.rows import ALL, rate_row, unsupported_rows
from rabench.score.strata import tag_strata
from rabench.score.tasks import TaskContext

TASK = "checks"


def rows(ctx: TaskContext) -> list[Row]:
    if not ctx.target.info.capabilities.checks:
        return unsupported_rows(TASK, task_metrics(TASK), ctx.tid)
    base = ctx.base
    flagged = ctx.share(ctx.facts.check_flagged)
    ran = ctx.share(ctx.facts.check_ran)
    adds = ctx.cases.adds_up
    out: list[Row | None] = []
    for stratum, mask in [(ALL, base), *tag_strata(ctx.tags, base)]:
        pos = mask & (adds == 0)
        out.append(rate_row(TASK, "totals_add_up_recall", stratum, ctx.tid, flagged[pos]))
        # Precision over flagged documents: each labelled document flagged in at least
        # one run counts once (spec: a case counts once), right when its amounts don't add
        # up; its runs' flags are all right or all wrong, the label being per document.
        # n = those documents, and the Wilson interval is over that same n.
        lab = mask & (adds >= 0) & (flagged > 0)
        out.append(rate_row(TASK, "totals_add_up_precision", stratum, ctx.tid, (adds[lab] == 0).astype(float)))
        neg = mask & (adds == 1) & ~ctx.cases.is_fake
        out.append(rate_row(TASK, "totals_add_up_false_alarm_rate", stratum, ctx.tid, flagged[neg]))
        out.append(rate_row(TASK, "totals_add_up_coverage", stratum, ctx.tid, ran[mask]))
    return [r for r in out if r is not None]
