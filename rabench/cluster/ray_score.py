"""The scorer's rows on a Ray cluster: one Ray task per (target, task module).

Why this split: every row's bootstrap is seeded from the row itself (``rows.row_seed``)
and the kernels draw counter-based random numbers, so a row is the same whichever
process computes it and however many threads it uses. The scorer sorts rows before
writing them, so rows computed in any order on any node give a byte-identical
rows.json. A (target, task module) pair is the largest unit that needs nothing from
the others: the findings, the details and the sort stay on the caller.

Data: each target's context (its per-run facts, the case table, the strata masks) is
put into the object store once and read by that target's tasks on any node; only the
rows come back.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from rabench.contracts import Row


def _module_rows(ctx: Any, module_name: str) -> bytes:
    """One task module's rows for one target, msgpack-encoded by msgspec where they were made.

    Not pickled: ``omit_defaults`` leaves out a field whose value *is* the default object, and
    a pickled string equal to the default is another object, so rows.json would gain
    ``"interval": "none"`` lines. Encoded here and decoded on the caller, an omitted field
    comes back as the default itself: the same bytes as the in-process scorer.
    """
    import msgspec
    import numba

    numba.set_num_threads(1)  # one CPU per task (num_cpus=1): the cluster's parallelism is the tasks
    return msgspec.msgpack.encode(importlib.import_module(module_name).rows(ctx))


def rows_on_ray(address: str, contexts: Sequence[Any], modules: Sequence[ModuleType]) -> list[Row]:
    """Every task module's rows for every target's context, computed as Ray tasks on the
    cluster at ``address``; in (context, module) order, as the in-process loop makes them."""
    import msgspec
    import ray

    from rabench.cluster.ray_pool import connect

    connect(address)
    try:
        task = ray.remote(num_cpus=1, max_retries=3)(_module_rows)
        refs: list[Any] = []
        for ctx in contexts:
            shared = ray.put(ctx)
            refs.extend(task.remote(shared, m.__name__) for m in modules)
        out: list[Row] = []
        decoder = msgspec.msgpack.Decoder(list[Row])
        for part in ray.get(refs):
            out.extend(decoder.decode(part))
        return out
    finally:
        ray.shutdown()
