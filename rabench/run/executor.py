"""Where the ``self`` engine's CPU-bound work runs: in-process (default) or on a Ray cluster.

Why in the config and not in the runner: the runner does not change with the executor.
Its anyio task group stays the coordinator (ordering, one outcome per unit, resume); only
the engine's worker pool moves (``rabench.cluster.ray_pool``). ``--executor``/``--address``
write ``[executor]`` of targets.toml, so every part that reads the config sees one answer.

On Ray the ``self`` provider's concurrency cap, unless given, is the cluster's capacity
(actors x calls queued per actor): the gate then never holds back a free actor, and the
pool's own slots keep the coordinator from sending more than the cluster holds.

The duplicate network stays on the coordinator: ``SelfTarget.verdict`` looks up and inserts
the fingerprint after the actor's analysis comes back. Every store keeps its semantics
(the spec's in-memory store, one per repetition, needs no change), an actor retried after
a worker died inserts nothing twice, and the order of lookups is the coordinator's, which
already waits for a case's ``after``/lineage before starting it.
"""

from __future__ import annotations

import msgspec

from rabench.contracts.targets_config import ExecutorSection, ProviderTable, TargetsConfig
from rabench.errors import UserError

SELF_PROVIDER = "self"


def with_executor(config: TargetsConfig, kind: str | None, address: str | None) -> TargetsConfig:
    """``config`` with ``--executor``/``--address`` written into ``[executor]`` (checked as the file is)."""
    if kind is None and address is None:
        return config
    section = config.executor
    if kind is None and address is not None and section.kind != "ray":
        raise UserError('--address needs --executor ray (or [executor] kind = "ray" in the config)')
    new_kind = kind or section.kind
    new_address = address if address is not None else (section.address if new_kind == "ray" else None)
    try:
        executor = ExecutorSection(kind=new_kind, address=new_address)  # type: ignore[arg-type]
        msgspec.convert(msgspec.to_builtins(executor), ExecutorSection)  # the same checks as the file
    except (ValueError, msgspec.ValidationError) as exc:
        raise UserError(f"--executor {new_kind}: {exc}") from None
    return msgspec.structs.replace(config, executor=executor)


def cluster_concurrency(config: TargetsConfig, concurrency: dict[str, float]) -> dict[str, float]:
    """The ``self`` concurrency for a Ray run when neither ``--concurrency self=N`` nor the config sets it:
    the cluster's capacity (connecting to the cluster to count its CPUs)."""
    if config.executor.kind != "ray" or SELF_PROVIDER in concurrency:
        return concurrency
    if config.providers.get(SELF_PROVIDER, ProviderTable()).concurrency is not None:
        return concurrency
    from rabench.cluster.ray_pool import DEFAULT_DEPTH, cluster_cpus, connect

    assert config.executor.address is not None
    connect(config.executor.address)
    return {**concurrency, SELF_PROVIDER: float(max(1, cluster_cpus()) * DEFAULT_DEPTH)}
