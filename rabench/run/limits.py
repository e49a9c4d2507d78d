"""Per-provider gates: a cap on calls in flight plus a requests-per-minute limiter.

Why per provider: quotas belong to an account, so every target calling one
provider shares one gate (``registry.provider_of``). A gate is entered for one
attempt only; the retry mechanism sleeps outside it, so a backing-off call
never blocks a slot.

Order inside ``__aenter__``: first a concurrency slot, then a rate token, so
a call starts right after it was granted its token and the measured request
rate equals the limiter's rate. The limiter is an aiolimiter leaky bucket
holding one second's worth of requests (at least one), so a burst at the start
is at most ``max(1, rpm/60)`` calls rather than a whole minute's quota.

With ``shared_limits = "redis://..."`` (``Limits.shared``) the rate step and a second
concurrency slot come from Redis instead (``rabench.cluster.redis_limits``: the same burst and
rate, one cap, held across every runner process using that Redis); the local slot still comes
first, so one process never asks Redis for more than its own cap.
"""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING

from aiolimiter import AsyncLimiter

from rabench.run.config import Limits

if TYPE_CHECKING:
    from rabench.cluster.redis_limits import SharedLimits


def make_limiter(rpm: float) -> AsyncLimiter:
    """A bucket that refills at rpm/60 per second and holds max(1, rpm/60) requests."""
    burst = max(1.0, math.floor(rpm / 60.0))
    return AsyncLimiter(burst, time_period=burst * 60.0 / rpm)


class ProviderGate:
    __slots__ = ("name", "limits", "_slots", "_limiter", "_shared", "_tokens", "in_flight", "max_in_flight", "calls")
    adaptive = False  # True: the call path reports each attempt to ``observe`` (rabench.run.adaptive)

    @property
    def limit(self) -> int:
        """Calls allowed in flight right now (fixed here; adaptive gates change it)."""
        return self.limits.concurrency

    def observe(self, latency_s: float, status: int | None) -> None:
        return None

    def idle_slots(self) -> int:
        """Slots free right now that no call is waiting for (0 when any call waits)."""
        if self._slots.locked():
            return 0
        return max(1, self.limits.concurrency - self.in_flight)

    def __init__(self, name: str, limits: Limits):
        self.name = name
        self.limits = limits
        # asyncio's semaphore: FIFO, and no extra scheduling round when a slot is free
        # (the run loop always runs on anyio's asyncio backend).
        self._slots = asyncio.Semaphore(limits.concurrency)
        self._shared: SharedLimits | None = None
        self._tokens: list[str] = []  # shared leases held by calls in this gate
        if limits.shared:
            from rabench.cluster.redis_limits import SharedLimits

            self._shared = SharedLimits(limits.shared, name, limits.concurrency, limits.rpm)
        self._limiter = make_limiter(limits.rpm) if limits.rpm and self._shared is None else None
        self.in_flight = 0
        self.max_in_flight = 0
        self.calls = 0

    async def _take_slot(self) -> None:
        await self._slots.acquire()

    def _give_slot(self) -> None:
        self._slots.release()

    async def __aenter__(self) -> None:
        await self._take_slot()
        try:
            if self._shared is not None:
                self._tokens.append(await self._shared.acquire())
            elif self._limiter is not None:
                await self._limiter.acquire()
        except BaseException:
            self._give_slot()
            raise
        self.in_flight += 1
        self.calls += 1
        if self.in_flight > self.max_in_flight:
            self.max_in_flight = self.in_flight

    async def aclose(self) -> None:
        """Close the shared limiter's Redis connections (nothing to do in-process)."""
        if self._shared is not None:
            await self._shared.aclose()

    async def __aexit__(self, *exc: object) -> None:
        self.in_flight -= 1
        try:
            if self._shared is not None:
                await self._shared.release(self._tokens.pop())
        finally:
            self._give_slot()
