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
* Outcomes: one line per unit as it finishes, one ``write`` per pass of the event loop
  (see ``outcomes``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.abc
import anyio.lowlevel

from rabench.cases.manifest import LoadedCase
from rabench.contracts import Outcome, Verdict
from rabench.prepare.cache import PrepCache, PreparedFile
from rabench.prepare.image import PreparationError
from rabench.run.breaker import Breaker
from rabench.run.budget import Budget
from rabench.run.execute import CallResult, call_target
from rabench.run.limits import ProviderGate
from rabench.run.outcomes import OutcomeWriter, UnitKey
from rabench.run.plan import SuitePlan
from rabench.run.progress import TargetCounters
from rabench.run.respcache import ResponseCache, cache_key, cacheable, target_part
from rabench.run.retry import RetryPolicy
from rabench.targets.base import CheckRequest, Target
from rabench.targets.diy.estimate import image_size

# Units a worker runs between two forced returns to the event loop (see ``_worker``).
YIELD_EVERY = 64
# How often a lane looks for provider slots that no worker uses (``TargetRun._spares``).
SPARE_POLL_S = 0.01


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
    budget: Budget | None = None  # the spending cap (None: no cap)
    settled: anyio.Event = field(default_factory=anyio.Event)  # set (and replaced) as a capped call ends
    responses: ResponseCache | None = None  # the response cache (None: --cache-responses not given)
    breakers: dict[str, Breaker] = field(default_factory=dict)  # provider -> its circuit breaker (rabench.run.breaker)


class TargetRun:
    """One target's share of the run: its gate, counters and per-repetition lanes."""

    def __init__(self, ctx: RunContext, target: Target, gate: ProviderGate, counters: TargetCounters):
        self.ctx = ctx
        self.target = target
        self.tid = target.info.id
        self.gate = gate
        self.counters = counters
        self.needed = ctx.plan.needed
        info = target.info
        self.responses = ctx.responses if ctx.responses is not None and cacheable(info) else None
        self.response_key = target_part(info) if self.responses is not None else b""
        # A target that reads only the prepared image (``reads_original = False``: DIY, null)
        # is sent the image of the bytes this run hashed, which matched the manifest, whatever
        # happens to the original later: its units after a case's first one reuse that lookup
        # (``_known``) instead of a ``stat`` each. A target that reads the original itself
        # (the engine, or any that does not say) gets the ``stat`` per unit, so a file replaced
        # during the run is still refused rather than analysed.
        self.original_unread = getattr(target, "reads_original", True) is False
        self._known: tuple[LoadedCase, PreparedFile] | None = None  # the last case prepared, its file

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
        # One worker per slot, plus spares: a worker backing off (or waiting on a dependency,
        # or for its file's preparation) holds no slot, and a spare uses it meanwhile. Spares
        # run only while the provider has a slot no worker holds or waits for (``_spares``):
        # a spare always queued at the gate would cost every call a hand-over of its slot.
        conc = self.gate.limits.concurrency
        total = self.ctx.plan.count * len(reps)
        workers = max(1, min(conc, total))
        spares = max(0, min(conc + max(8, conc // 4), total) - workers)
        async with anyio.create_task_group() as tg:
            watch = anyio.CancelScope()
            if spares:
                tg.start_soon(self._spares, watch, tg, units, events, spares)
            async with anyio.create_task_group() as regular:
                for _ in range(workers):
                    regular.start_soon(self._worker, units, events)
            watch.cancel()  # every unit is taken; the spares still running finish theirs

    async def _spares(
        self,
        watch: anyio.CancelScope,
        tg: anyio.abc.TaskGroup,
        units: Iterator[tuple[LoadedCase, int, bool]],
        events: dict[tuple[int, str], anyio.Event],
        most: int,
    ) -> None:
        """Every ``SPARE_POLL_S``, start spare workers for the gate's idle slots (at most ``most``
        running); each stops after a unit once the gate has no idle slot. So a slot a worker
        left idle is used within ``SPARE_POLL_S``, and while every slot is busy no spare runs."""
        running = [0]

        async def spare() -> None:
            try:
                n = 0
                for lc, rep, record in units:
                    await self._one(lc, rep, record, events)
                    if self.gate.idle_slots() <= 0:
                        break
                    n += 1
                    if n % YIELD_EVERY == 0:  # as ``_worker`` does
                        await anyio.lowlevel.checkpoint()
            finally:
                running[0] -= 1

        with watch:
            while True:
                await anyio.sleep(SPARE_POLL_S)
                idle = min(self.gate.idle_slots(), most - running[0])
                for _ in range(idle):
                    running[0] += 1
                    tg.start_soon(spare)

    def _units(
        self, reps: list[int], replay: bool, events: dict[tuple[int, str], anyio.Event], only_replay: bool = False
    ) -> Iterator[tuple[LoadedCase, int, bool]]:
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

    async def _worker(
        self, units: Iterator[tuple[LoadedCase, int, bool]], events: dict[tuple[int, str], anyio.Event]
    ) -> None:
        n = 0
        for lc, rep, record in units:  # a shared generator: each unit goes to one worker
            await self._one(lc, rep, record, events)
            n += 1
            if n % YIELD_EVERY == 0:
                # A target that never suspends (``null``, a cache hit) would keep this worker
                # from ever returning to the event loop, and each unit's cancelled timeout
                # timer stays in the loop's timer heap until a loop iteration prunes it
                # (~200 B a unit: 312 MB at 1M units). One checkpoint every few units
                # lets the loop prune them; memory stays flat (bench/scale_memory.py).
                await anyio.lowlevel.checkpoint()

    async def _one(self, lc: LoadedCase, rep: int, record: bool, events: dict[tuple[int, str], anyio.Event]) -> None:
        case = lc.case
        counters = self.counters
        counters.active += 1
        try:
            if case.after or case.lineage is not None:
                for dep in case.depends_on():
                    await _event(events, rep, dep).wait()
            budget = self.ctx.budget if record else None
            if budget is not None and budget.stopped(self.tid):
                budget.admit(self.tid, 0.0)  # "stop": counted as not started
                return
            cached = False
            cache = self.ctx.cache
            known = self._known
            prepared: PreparedFile | None
            failed: PreparationError | None = None
            if known is not None and known[0] is lc:  # a repetition of the case just looked up
                prepared = known[1]
            else:
                prepared = cache.lookup(lc.path, case.sha256)  # the usual case: known, one stat
                if prepared is None:
                    counters.preparing += 1  # shown as in flight: preparing a file can take seconds
                    try:
                        prepared = await cache.get(lc.path, case.sha256, case.media_type)
                    except PreparationError as exc:
                        failed = exc
                    finally:
                        counters.preparing -= 1
                if prepared is not None and self.original_unread:
                    self._known = (lc, prepared)
            breaker = self.ctx.breakers.get(self.gate.name) if record else None
            if prepared is None:
                result = CallResult("error", 0, None, error=f"cannot prepare {case.file}: {failed}")
            elif breaker is not None and breaker.open:
                result = breaker.skip()
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
                responses = self.responses if record else None
                answer: CallResult | None
                if responses is None and budget is None:  # the usual unit: straight to the call
                    answer = await call_target(
                        self.target,
                        request,
                        self.gate,
                        timeout_s=self.ctx.timeout_s,
                        policy=self.ctx.policy,
                        counters=counters,
                    )
                elif responses is None:
                    answer = await self._call(request, budget)
                else:
                    key = cache_key(self.response_key, responses.image_sha256(prepared.path), rep)
                    hit = responses.get(key)
                    if hit is not None:
                        cached = True
                        answer = CallResult("ok", 0, None, verdict=hit.verdict, usage=hit.usage)
                    else:
                        answer = await self._call(request, budget)
                        if answer is not None and answer.status == "ok" and isinstance(answer.verdict, Verdict):
                            responses.put(key, answer.verdict, answer.usage)
                if answer is None:
                    return  # not started, not recorded: a resume with a higher cap runs it
                result = answer
                if breaker is not None:
                    breaker.record(result)
            if record:
                self.ctx.writer.write(
                    Outcome(
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
                        cached=cached,
                    )
                )
                counters.finish(result.status)
        finally:
            counters.active -= 1
            if case.id in self.needed:
                _event(events, rep, case.id).set()

    async def _call(self, request: CheckRequest, budget: Budget | None) -> CallResult | None:
        """The unit's call, under the spending cap if there is one (None: the cap kept it from starting)."""
        if budget is None:
            return await call_target(
                self.target,
                request,
                self.gate,
                timeout_s=self.ctx.timeout_s,
                policy=self.ctx.policy,
                counters=self.counters,
            )
        while True:
            estimate = budget.estimate(self.tid, self._a_priori(budget, request.prepared))
            decision = budget.admit(self.tid, estimate)
            if decision == "go":
                break
            if decision == "stop":
                return None
            await self.ctx.settled.wait()  # "wait": until a call in flight settles
        cost = None
        try:
            result = await call_target(
                self.target,
                request,
                self.gate,
                timeout_s=self.ctx.timeout_s,
                policy=self.ctx.policy,
                counters=self.counters,
            )
            cost = result.usage.cost_usd if result.usage is not None else None
            return result
        finally:
            budget.settle(self.tid, estimate, cost)
            self.ctx.settled.set()  # wake the units waiting for the budget
            self.ctx.settled = anyio.Event()

    def _a_priori(self, budget: Budget, prepared: Path) -> float | None:
        """The target's own estimate of one call, until it has a recorded cost."""
        estimate_call = getattr(self.target, "estimate_call", None)
        if estimate_call is None or budget.has_mean(self.tid):
            return None
        size = image_size(prepared)
        return estimate_call(*size).typical_usd if size is not None else None


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
