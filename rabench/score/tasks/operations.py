"""Operations (spec, "Operations"): latency percentiles and cost over successful
calls; error, refusal, timeout (and invalid output) rates over every call."""

from __future__ import annotations

import numpy as np

from rabench.contracts import Row
from rabench.score.reduce import STATUS_CODE
from rabench.score.rows import ALL, MIN_STRATUM, plain_row, rate_row
from rabench.score.strata import tag_strata
from rabench.score.tasks import TaskContext

TASK = "operations"
PERCENTILES = ((50, "latency_p50_s"), (95, "latency_p95_s"), (99, "latency_p99_s"))
RATES = (("error", "error_rate"), ("refusal", "refusal_rate"), ("timeout", "timeout_rate"),
         ("invalid_output", "invalid_output_rate"))


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
        for q, name in PERCENTILES:
            if lat.size == 0:
                out.append(plain_row(TASK, name, stratum, ctx.tid, None, 0, "no successful calls"))
            elif stratum == ALL or lat.size >= MIN_STRATUM:
                out.append(plain_row(TASK, name, stratum, ctx.tid, float(np.percentile(lat, q)), int(lat.size)))
        n_ok = int(ok.sum())
        for values, name in ((f.cost, "cost_per_check_usd"), (f.model_cost, "model_cost_per_check_usd")):
            value, n, note = _mean_known(values[ok], n_ok)
            if stratum == ALL or n >= MIN_STRATUM:
                out.append(plain_row(TASK, name, stratum, ctx.tid, value, n, note))
        for status, name in RATES:
            hits = (f.status[calls] == STATUS_CODE[status]).astype(float)
            out.append(rate_row(TASK, name, stratum, ctx.tid, hits))
    return [r for r in out if r is not None]
