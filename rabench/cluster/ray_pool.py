"""The engine's worker pool on a Ray cluster: a ``WorkerPool`` whose workers are Ray actors.

Why a pool and not a target: the ``self`` target already splits its work in two, the
per-file analysis (``pipeline.analyse``: OCR, forensics, CPU-bound, pure) sent to a
``WorkerPool``, and the duplicate lookup, risk and Verdict on the event loop. Only the
first part moves to the cluster. The runner's anyio task group stays the coordinator:
it orders originals before their transforms, awaits each unit's Ray object ref (an
``ObjectRef`` is awaitable under asyncio) and writes the one outcome of the unit.

* Actors: one per CPU the cluster reports when the pool opens (``num_cpus=1`` each, spread
  over the nodes); each loads the OCR models once, in its constructor.
* Back-pressure: an actor takes at most ``depth`` calls at a time (one running, the next
  already queued so the actor never waits for a round trip); a caller waits for a free
  slot, so the coordinator never has more units at the cluster than ``actors * depth``.
* Files: requests carry paths; the suite and the prepare cache (``--cache``) must be on
  a path every node sees (a shared file system). A file's bytes travel node-to-node only,
  never through the coordinator's memory.
* Worker death: an actor whose process dies fails its calls with ``RayActorError``; the
  call is sent again to another slot (another actor when one is free), and the dead
  actor's slot comes back once Ray has restarted it (``max_restarts=-1``). The analysis
  is a pure function of the file, so running it twice changes nothing; the duplicate
  network is only touched on the coordinator, after the answer, so one unit is one
  insert and one outcome, whichever actor answered.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable
from typing import Any, TypeVar

from rabench.engine.ocr import OcrSettings, _init_worker
from rabench.errors import UserError

T = TypeVar("T")

DEFAULT_DEPTH = 2  # calls at an actor at once: one running, one queued
MAX_ATTEMPTS = 4  # sends of one call before it is an error (each after an actor died)


class EngineActor:
    """One engine worker on the cluster (wrapped by ``ray.remote`` when the pool opens)."""

    def __init__(self, settings: OcrSettings) -> None:
        _init_worker(settings, True)  # the OCR models, once per actor

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        return fn(*args)

    def pid(self) -> int:
        return os.getpid()


def connect(address: str) -> None:
    """Attach this process to the cluster at ``address`` as a driver (once per process;
    ``RayWorkerPool.close`` detaches it)."""
    import ray

    if ray.is_initialized():
        return
    host, _, port = address.rpartition(":")
    try:  # Ray's own connect retries for minutes before giving up on a wrong address
        socket.create_connection((host, int(port)), timeout=10).close()
    except (OSError, ValueError) as exc:
        raise UserError(
            f"--executor ray: cannot connect to the Ray cluster at {address}: "
            f"{exc.strerror or exc if isinstance(exc, OSError) else exc}"
        ) from None
    try:
        ray.init(
            address=address,
            logging_level=logging.ERROR,
            log_to_driver=False,
            configure_logging=True,
            include_dashboard=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UserError(
            f"--executor ray: cannot connect to the Ray cluster at {address}: {' '.join(str(exc).split())[:300]}"
        ) from None


def cluster_cpus() -> int:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return int(resources.get("CPU", 0))


class RayWorkerPool:
    """``WorkerPool`` on the Ray cluster at ``address`` (see the module docstring)."""

    def __init__(
        self,
        address: str,
        settings: OcrSettings = OcrSettings(),
        *,
        actors: int | None = None,
        depth: int = DEFAULT_DEPTH,
    ):
        import ray

        connect(address)
        cpus = cluster_cpus()
        self.workers = actors or cpus
        if self.workers < 1:
            raise UserError(f"--executor ray: the cluster at {address} has no CPU to run actors on")
        self.depth = depth
        remote = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0, scheduling_strategy="SPREAD")(EngineActor)
        self._actors: list[Any] = [remote.remote(settings) for _ in range(self.workers)]
        self._slots: asyncio.Queue[int] | None = None
        self._restoring: set[asyncio.Task[None]] = set()
        self.retried = 0  # calls sent again after their actor died

    def _queue(self) -> asyncio.Queue[int]:
        if self._slots is None:  # made on the event loop that uses it
            self._slots = asyncio.Queue()
            for _ in range(self.depth):
                for i in range(self.workers):
                    self._slots.put_nowait(i)
        return self._slots

    async def submit(self, fn: Callable[..., T], *args: Any) -> T:
        from ray.exceptions import RayActorError, RayTaskError

        slots = self._queue()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            i = await slots.get()
            actor = self._actors[i]
            ref = actor.run.remote(fn, *args)
            try:
                result: T = await ref
            except RayActorError:
                self._restore_later(i)  # the slot comes back once the actor answers again
                if attempt == MAX_ATTEMPTS:
                    raise
                self.retried += 1
                continue
            except RayTaskError as exc:
                slots.put_nowait(i)
                cause = exc.cause
                if isinstance(cause, BaseException):
                    raise cause from None  # the engine's own exception, as in a local pool
                raise
            except BaseException:
                slots.put_nowait(i)
                raise
            slots.put_nowait(i)
            return result
        raise AssertionError("unreachable")

    def _restore_later(self, i: int) -> None:
        async def restore() -> None:
            slots = self._queue()
            while True:
                try:
                    await self._actors[i].pid.remote()
                except Exception:
                    await asyncio.sleep(0.5)
                    continue
                slots.put_nowait(i)
                return

        task = asyncio.get_running_loop().create_task(restore())
        self._restoring.add(task)
        task.add_done_callback(self._restoring.discard)

    async def pids(self) -> list[int]:
        """The actors' worker process ids (tests kill one of them)."""
        return [int(await a.pid.remote()) for a in self._actors]

    def close(self) -> None:
        import ray

        for task in list(self._restoring):
            task.cancel()
        for actor in self._actors:
            try:
                ray.kill(actor, no_restart=True)
            except Exception:
                pass
        self._actors = []
        ray.shutdown()  # the run is over: a next run in this process may use another cluster
