"""The run loop: stream cases through preparation into target calls, append outcomes.

Shape (DESIGN.md, "The pipeline"): one anyio task group; per target one
*lane* of worker tasks pulling (case, repetition) units from one shared,
lazily-read stream of the suite, so memory does not grow with the suite.

* Ordering: within one (target, repetition) a case waits for the cases its
  ``lineage.of`` / ``after`` names to finish (any status). Only cases that are
  named get a "finished" event, so the cost is proportional to the number of
  dependencies, not of cases. Dependencies come first in the stream, and
  workers take units in stream order, so a waiting worker always waits on a
  unit that is already running: no deadlock.
* Per-repetition state: ``target.reset(rep)`` is called before a repetition's
  units start. A target with memory (``capabilities.memory``) runs its
  repetitions one after another; on resume, the finished units of a partly
  done repetition are replayed to it without being recorded, so its memory is
  what it would have been in one uninterrupted run. Other targets interleave
  repetitions.
* Limits: a target's calls go through its provider's gate (see ``limits``).
* Outcomes: one line per unit as it finishes (see ``outcomes``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import anyio

from rabench.cases.manifest import LoadedCase
from rabench.contracts import Outcome
from rabench.prepare.cache import PrepCache
from rabench.prepare.image import PreparationError
from rabench.run.execute import CallResult, call_target
from rabench.run.limits import ProviderGate
from rabench.run.outcomes import OutcomeWriter, UnitKey
from rabench.run.plan import SuitePlan
from rabench.run.progress import TargetCounters
from rabench.run.retry import RetryPolicy
from rabench.targets.base import CheckRequest, Target


@dataclass
class RunContext:
    """Everything the lanes share; one per run."""

    run_id: str
    plan: SuitePlan
    repetitions: int
    writer: OutcomeWriter
    cache: PrepCache
    timeout_s: float
    policy: RetryPolicy
    done: set[UnitKey] = field(default_factory=set)


class TargetRun:
    """One target's share of the run: its gate, counters and per-repetition lanes."""

    def __init__(self, ctx: RunContext, target: Target, gate: ProviderGate, counters: TargetCounters):
        self.ctx = ctx
        self.target = target
        self.tid = target.info.id
        self.gate = gate
        self.counters = counters
        self.needed = ctx.plan.needed

    def done_in(self, rep: int) -> int:
        tid = self.tid
        return sum(1 for (_, t, r) in self.ctx.done if t == tid and r == rep)

    async def run(self) -> None:
        reps = list(range(self.ctx.repetitions))
        if self.target.info.capabilities.memory:
            for rep in reps:
                already = self.done_in(rep) if self.ctx.done else 0
                if already >= self.ctx.plan.count:
                    continue
                await self.target.reset(rep)
                if already > 0:  # the finished units first, all of them, before any new one
                    await self._lane([rep], replay=True, only_replay=True)
                await self._lane([rep], replay=False)
        else:
            for rep in reps:
                await self.target.reset(rep)
            await self._lane(reps, replay=False)

    async def _lane(self, reps: list[int], *, replay: bool, only_replay: bool = False) -> None:
        events: dict[tuple[int, str], anyio.Event] = {}
        units = self._units(reps, replay, events, only_replay)
        # More workers than slots: a worker backing off (or waiting on a dependency)
        # holds no slot, and another worker can use it meanwhile.
        # Waking a worker costs a loop iteration, so not too many more than slots either.
        conc = self.gate.limits.concurrency
        workers = max(1, min(conc + max(8, conc // 4), self.ctx.plan.count * len(reps)))
        async with anyio.create_task_group() as tg:
            for _ in range(workers):
                tg.start_soon(self._worker, units, events)

    def _units(self, reps: list[int], replay: bool, events: dict[tuple[int, str], anyio.Event],
               only_replay: bool = False):
        """(case, rep, record) in plan order; skips finished units (or replays them, unrecorded).

        ``only_replay``: just the finished units, replayed (a lane that must end before the
        repetition's new units start, whatever the time each unit's preparation takes).
        """
        done = self.ctx.done
        tid = self.tid
        needed = self.needed
        for lc in self.ctx.plan.cases():
            cid = lc.case.id
            for rep in reps:
                if done and (cid, tid, rep) in done:
                    if replay:
                        yield lc, rep, False
                    elif cid in needed:
                        _event(events, rep, cid).set()
                    continue
                if not only_replay:
                    yield lc, rep, True
                elif cid in needed:  # not finished: a replayed unit must not wait for it here
                    _event(events, rep, cid).set()

    async def _worker(self, units, events: dict[tuple[int, str], anyio.Event]) -> None:
        for lc, rep, record in units:  # a shared generator: each unit goes to one worker
            await self._one(lc, rep, record, events)

    async def _one(self, lc: LoadedCase, rep: int, record: bool, events) -> None:
        case = lc.case
        counters = self.counters
        counters.active += 1
        try:
            if case.after or case.lineage is not None:
                for dep in case.depends_on():
                    await _event(events, rep, dep).wait()
            try:
                prepared = await self.ctx.cache.get(lc.path, case.sha256, case.media_type)
            except PreparationError as exc:
                result = CallResult("error", 0, None, error=f"cannot prepare {case.file}: {exc}")
            else:
                request = CheckRequest(
                    case_id=case.id,
                    original=lc.path,
                    media_type=case.media_type,
                    prepared=prepared.path,
                    prepared_media_type=prepared.media_type,
                    repetition=rep,
                    submitted_at=case.submitted_at,
                )
                result = await call_target(
                    self.target, request, self.gate,
                    timeout_s=self.ctx.timeout_s, policy=self.ctx.policy, counters=counters,
                )
            if record:
                self.ctx.writer.write(Outcome(
                    run_id=self.ctx.run_id,
                    case_id=case.id,
                    target=self.tid,
                    repetition=rep,
                    status=result.status,  # type: ignore[arg-type]
                    attempts=result.attempts,
                    latency_s=result.latency_s,
                    verdict=result.verdict,
                    error=result.error,
                    usage=result.usage,
                    finished_at=time.time(),
                ))
                counters.finish(result.status)
        finally:
            counters.active -= 1
            if case.id in self.needed:
                _event(events, rep, case.id).set()


def _event(events: dict[tuple[int, str], anyio.Event], rep: int, cid: str) -> anyio.Event:
    ev = events.get((rep, cid))
    if ev is None:
        ev = events[(rep, cid)] = anyio.Event()
    return ev


async def run_targets(ctx: RunContext, runs: list[TargetRun]) -> None:
    """All targets concurrently; each target's calls limited by its provider's gate."""
    async with anyio.create_task_group() as tg:
        for tr in runs:
            tg.start_soon(tr.run)
