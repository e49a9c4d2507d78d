"""Operations (spec, "Operations"): latency percentiles and cost over successful
calls; error, refusal, timeout (and invalid output) rates over every call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from rabench.contracts import Row
from rabench.score.reduce import STATUS_CODE
from rabench.score.rows import ALL, MIN_STRATUM, plain_row, rate_row
from rabench.score.strata import tag_strata
from rabench.score.tasks import TaskContext

TASK = "operations"
# Notes the report shows beside a row (rabench.report): why a latency is not measured, and
# that a cost is the batch price.
NOT_MEASURED = "not measured"
NOT_MEASURED_BATCH = (
    f"{NOT_MEASURED}: a batch run (the spec's latency is per call; a batch API answers a whole batch, hours later)"
)
NOT_MEASURED_CACHED = (
    f"{NOT_MEASURED}: no successful answer was timed in this run (answers from the response cache are not)"
)
BATCH_PRICE = "at the batch price (50% of the list price)"
PERCENTILES = ((50, "latency_p50_s"), (95, "latency_p95_s"), (99, "latency_p99_s"))
RATES = (
    ("error", "error_rate"),
    ("refusal", "refusal_rate"),
    ("timeout", "timeout_rate"),
    ("invalid_output", "invalid_output_rate"),
)


def _mean_known(values: np.ndarray, ok_calls: int) -> tuple[float | None, int, str]:
    known = values[~np.isnan(values)]
    unknown = ok_calls - known.size
    if known.size == 0:
        return None, 0, "unknown" if ok_calls else "no successful calls"
    note = f"{unknown} of {ok_calls} successful calls with unknown cost, left out" if unknown else ""
    return float(known.mean()), int(known.size), note


def rows(ctx: TaskContext) -> list[Row]:
    f = ctx.facts
    call_case = f.case
    out: list[Row | None] = []
    every = ctx.has_runs
    for stratum, cmask in [(ALL, every), *tag_strata(ctx.tags, every)]:
        calls = cmask[call_case] & f.recorded  # stand-ins for unanswered cases were never calls
        n_calls = int(calls.sum())
        if stratum != ALL and n_calls < MIN_STRATUM:
            continue
        ok = calls & (f.status == STATUS_CODE["ok"])
        lat = f.latency[ok]
        lat = lat[~np.isnan(lat)]
        n_ok = int(ok.sum())
        for q, name in PERCENTILES:
            if ctx.target.batch:
                out.append(plain_row(TASK, name, stratum, ctx.tid, None, 0, NOT_MEASURED_BATCH))
            elif lat.size == 0:
                note = NOT_MEASURED_CACHED if n_ok else "no successful calls"
                out.append(plain_row(TASK, name, stratum, ctx.tid, None, 0, note))
            elif stratum == ALL or lat.size >= MIN_STRATUM:
                out.append(plain_row(TASK, name, stratum, ctx.tid, float(np.percentile(lat, q)), int(lat.size)))
        for values, name in ((f.cost, "cost_per_check_usd"), (f.model_cost, "model_cost_per_check_usd")):
            value, n, note = _mean_known(values[ok], n_ok)
            if ctx.target.batch and value is not None:
                note = f"{BATCH_PRICE}; {note}" if note else BATCH_PRICE
            if stratum == ALL or n >= MIN_STRATUM:
                out.append(plain_row(TASK, name, stratum, ctx.tid, value, n, note))
        for status, name in RATES:
            hits = (f.status[calls] == STATUS_CODE[status]).astype(float)
            out.append(rate_row(TASK, name, stratum, ctx.tid, hits))
    return [r for r in out if r is not None]


def not_measured_reason(row: Row) -> str | None:
    """Why a row has no value because nothing was measured (a batch run, cached answers), for
    the report to show; None for any other row."""
    if row.value is None and row.note.startswith(NOT_MEASURED + ": "):
        return row.note[len(NOT_MEASURED) + 2 :]
    return None


def batch_targets(rows: Iterable[Row]) -> list[str]:
    """The targets whose rows say they ran through a batch API (``rabench run --batch``)."""
    return list(dict.fromkeys(r.target for r in rows if r.task == TASK and r.note == NOT_MEASURED_BATCH))


def batch_sentence(targets: Sequence[str]) -> str:
    """What the report says about the batch runs among ``targets`` (plain text, ids in backticks)."""
    who = ", ".join(f"`{t}`" for t in targets)
    return (
        f"Batch run: {who} answered through {'its' if len(targets) == 1 else 'their'} provider's batch API "
        "(`rabench run --batch`): latency is not measured (the spec's latency is per call; a batch "
        f"answers hours later, all at once) and cost is {BATCH_PRICE}."
    )
