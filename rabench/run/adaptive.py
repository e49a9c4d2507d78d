"""Adaptive concurrency per provider: the decision (pure) and the gate that applies it.

Why: a user who does not know their account's limits sets a generous cap; the
provider then answers part of the calls with 429 and each one costs a retry and a
backoff. Like TCP's congestion control (AIMD), the gate starts at the configured
cap, halves the number of calls it lets in flight when the provider pushes back,
and grows it again as calls succeed, so it settles at what the account allows
without a storm of 429s.

The decision is ``AimdState`` plus two pure functions, ``on_success`` and
``on_throttle`` (``now`` and the latency are arguments; nothing here sleeps or
reads a clock), kept apart from the I/O like ``rabench.run.retry.RetryDecision``:

* throttle (HTTP 429, or 503/529 "overloaded"): the calls that were out (at most the
  slots allowed) minus one become the *ceiling* (what is known to work), and the limit
  becomes ``limit x decrease`` or the ceiling if that is lower (at least ``min_limit``). At most once per cooldown (the smoothed
  latency, at least ``min_cooldown_s``): the 429s of one overload all answer calls
  sent before the decrease took effect and must not halve the limit again and again.
* success: below the ceiling, one more slot per success (back to what worked within
  a few calls); at or above it, one more slot per ``probe_rounds`` rounds of
  ``limit`` successes (probing slowly whether the provider now takes more), never
  above the cap. If the smoothed latency rises above ``latency_rise`` x the lowest
  smoothed latency seen (after ``warmup`` successes), a decrease as for a throttle: a
  provider queueing calls before it starts refusing them.

Plain AIMD (one slot per round everywhere) was tried first: against a provider
taking 4 calls in flight, 50 of 350 requests were refused (a sawtooth between 2 and
5); the ceiling makes the probes rare (docs/performance.md, "Adaptive concurrency").

``AdaptiveGate`` is a ``ProviderGate`` whose number of slots follows the state.
"""

from __future__ import annotations

import asyncio
import collections
import math

import msgspec

from rabench.run.config import Limits
from rabench.run.limits import ProviderGate

THROTTLE_STATUSES = frozenset({429, 503, 529})


class AimdPolicy(msgspec.Struct, frozen=True):
    min_limit: float = 1.0
    decrease: float = 0.5  # multiply the limit by this on a throttle
    increase: float = 1.0  # slots added per success below the ceiling, per probe above it
    probe_rounds: float = 4.0  # rounds of `limit` successes per slot above the ceiling
    latency_rise: float = 3.0  # shrink when the smoothed latency passes this x its lowest
    ewma: float = 0.1  # weight of a new latency in the smoothed latency
    min_cooldown_s: float = 0.05  # at most one decrease per max(this, smoothed latency)
    warmup: int = 20  # successes before rising latency may shrink the limit


class AimdState(msgspec.Struct, frozen=True):
    limit: float  # calls allowed in flight (fractional; the gate uses its floor, at least 1)
    cap: int  # the configured concurrency: never above it
    ceiling: float | None = None  # slots known to work (set by the last decrease)
    last_decrease_at: float = -math.inf
    latency_s: float | None = None  # smoothed (EWMA) latency of successful calls
    lowest_s: float | None = None  # lowest smoothed latency seen
    successes: int = 0
    throttles: int = 0
    decreases: int = 0

    @property
    def slots(self) -> int:
        return max(1, int(self.limit))


def start(cap: int) -> AimdState:
    return AimdState(limit=float(cap), cap=cap)


def _cooldown(state: AimdState, policy: AimdPolicy) -> float:
    return max(policy.min_cooldown_s, state.latency_s or 0.0)


def _decrease(state: AimdState, policy: AimdPolicy, now: float, in_flight: int | None, **changes: object) -> AimdState:
    if now - state.last_decrease_at < _cooldown(state, policy):
        return msgspec.structs.replace(state, **changes)
    worked = state.slots if in_flight is None else min(state.slots, in_flight)
    ceiling = max(policy.min_limit, float(worked - 1))
    limit = max(policy.min_limit, min(state.limit * policy.decrease, ceiling))
    return msgspec.structs.replace(
        state, limit=limit, ceiling=ceiling, last_decrease_at=now, decreases=state.decreases + 1, **changes
    )


def on_throttle(state: AimdState, policy: AimdPolicy, now: float, in_flight: int | None = None) -> AimdState:
    """The provider refused a call for load (429 / 503 / 529) while ``in_flight`` calls (this
    one included) were out: one fewer is what it takes."""
    return _decrease(state, policy, now, in_flight, throttles=state.throttles + 1)


def on_success(state: AimdState, policy: AimdPolicy, latency_s: float, now: float) -> AimdState:
    """A call came back (any answer that is not a throttle) after ``latency_s``."""
    smooth = latency_s if state.latency_s is None else ((1 - policy.ewma) * state.latency_s + policy.ewma * latency_s)
    lowest = smooth if state.lowest_s is None else min(state.lowest_s, smooth)
    successes = state.successes + 1
    if successes > policy.warmup and smooth > policy.latency_rise * lowest:
        return _decrease(state, policy, now, None, latency_s=smooth, lowest_s=lowest, successes=successes)
    ceiling = state.ceiling if state.ceiling is not None else float(state.cap)
    if state.limit < ceiling:
        limit = min(ceiling, state.limit + policy.increase)
    else:
        limit = state.limit + policy.increase / (max(state.limit, 1.0) * policy.probe_rounds)
    limit = min(float(state.cap), limit)
    return msgspec.structs.replace(state, limit=limit, latency_s=smooth, lowest_s=lowest, successes=successes)


class AdaptiveGate(ProviderGate):
    """A provider gate whose number of slots follows an ``AimdState``; the call path
    reports each attempt with ``observe`` (``rabench.run.execute``)."""

    __slots__ = ("state", "policy", "_waiters", "_held")
    adaptive = True

    def __init__(self, name: str, limits: Limits, policy: AimdPolicy | None = None):
        super().__init__(name, limits)
        self.state = start(limits.concurrency)
        self.policy = policy or AimdPolicy()
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._held = 0  # slots granted (in flight, or waiting for a rate token)

    @property
    def limit(self) -> int:
        return self.state.slots

    def describe(self) -> str:
        s = self.state
        ceiling = "none" if s.ceiling is None else f"{s.ceiling:g}"
        return (
            f"adaptive concurrency {s.slots} of {s.cap} at the end, ceiling {ceiling} "
            f"({s.throttles} throttled, {s.decreases} decreases)"
        )

    def idle_slots(self) -> int:
        return 0 if self._waiters else max(0, self.state.slots - self._held)

    async def _take_slot(self) -> None:
        if self._held < self.state.slots and not self._waiters:
            self._held += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        except BaseException:
            if fut.done() and not fut.cancelled():  # granted, then cancelled: give it back
                self._give_slot()
            else:
                self._waiters.remove(fut)
            raise

    def _give_slot(self) -> None:
        self._held -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self._held < self.state.slots:
            fut = self._waiters.popleft()
            if not fut.done():
                self._held += 1
                fut.set_result(None)

    def observe(self, latency_s: float, status: int | None) -> None:
        """After one attempt: ``status`` None for an answer (any outcome but a transport
        failure), else the transport failure's HTTP status (-1: no status, e.g. a reset)."""
        now = asyncio.get_running_loop().time()
        if status is None:
            self.state = on_success(self.state, self.policy, latency_s, now)
        elif status in THROTTLE_STATUSES:
            self.state = on_throttle(self.state, self.policy, now, self.in_flight)
