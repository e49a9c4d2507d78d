"""A provider's rate limit and concurrency cap shared by every runner process, in Redis.

Why: quotas belong to an account, and several runner processes (one per model family, on
different machines, same key) each with an in-process limiter would together send N times the
quota. ``SharedLimits`` is what ``ProviderGate`` (rabench/run/limits.py) consults instead of its
aiolimiter when ``shared_limits = "redis://..."`` is configured; the local slot step stays, so a
process never asks Redis for more than its own cap.

One round trip per acquire: ``_ACQUIRE`` takes a concurrency slot *and* reserves a rate slot in
one Lua script, with the server's clock (``TIME``), so machines need no synchronised clocks:

* Concurrency: a sorted set of leases (member = holder token, score = expiry in ms). Expired
  leases are dropped first, so a process killed while holding slots gives them back after at most
  one lease; a live process renews its leases every third of a lease (one round trip for all).
* Rate: GCRA with reservation. ``tat`` (theoretical arrival time) moves by ``60000/rpm`` ms per
  call; a call may start at ``max(now, tat - tolerance)`` and the script returns that delay, so
  the caller sleeps without asking again. The tolerance gives the same burst as the in-process
  bucket (``max(1, floor(rpm/60))`` calls): over any window of W seconds at most
  ``burst + W*rpm/60`` calls start, across all processes.

Release (``_RELEASE``) is one more round trip. If no slot is free the caller polls (one process
polls at a time; its other calls wait locally behind it).
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import uuid

import redis
import redis.asyncio as aredis

from rabench.errors import UserError

LEASE_S = 30.0  # a dead process's slots come back after at most this long
POLL_S = (0.005, 0.05)  # waiting for a free slot: first and longest sleep between tries

# KEYS[1] = lease set, KEYS[2] = tat. ARGV: token, cap, lease ms, interval ms (0: no rate), tolerance ms.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tostring(tonumber(first[2]) - now)}
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.ceil(2 * lease))
local delay = 0
local interval = tonumber(ARGV[4])
if interval > 0 then
  local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
  if tat < now then tat = now end
  delay = tat - tonumber(ARGV[5]) - now
  if delay < 0 then delay = 0 end
  redis.call('SET', KEYS[2], tostring(tat + interval), 'PX', math.ceil(tat + interval - now + 60000))
end
return {1, tostring(delay)}
"""

# KEYS[1] = lease set. ARGV: token.
_RELEASE = "return redis.call('ZREM', KEYS[1], ARGV[1])"

# KEYS[1] = lease set. ARGV[1] = lease ms, ARGV[2..] = tokens still held (renewed only if not expired).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local lease = tonumber(ARGV[1])
local kept = 0
for i = 2, #ARGV do
  kept = kept + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], math.ceil(2 * lease))
return kept
"""


def _quiet(fut: asyncio.Future[object]) -> None:
    """A release that failed (Redis gone): its lease expires on its own."""
    if not fut.cancelled():
        fut.exception()


def keys_of(provider: str) -> tuple[str, str]:
    """The lease set and the rate key of one provider (a Cluster hash tag keeps them in one slot)."""
    base = f"rabench:limits:{{{provider}}}:"
    return base + "leases", base + "tat"


def gcra(rpm: float | None) -> tuple[float, float]:
    """(interval ms, tolerance ms): the in-process bucket's rate and burst (rabench.run.limits)."""
    if not rpm:
        return 0.0, 0.0
    interval = 60000.0 / rpm
    burst = max(1.0, math.floor(rpm / 60.0))
    return interval, (burst - 1.0) * interval


class SharedLimits:
    """One provider's shared cap and rate in Redis, for one process (an asyncio event loop)."""

    def __init__(self, url: str, provider: str, concurrency: int, rpm: float | None, *, lease_s: float = LEASE_S):
        self.url = url
        self.concurrency = concurrency
        self.lease_ms = lease_s * 1000.0
        self.interval_ms, self.tolerance_ms = gcra(rpm)
        self._leases, self._tat = keys_of(provider)
        self._prefix = f"{os.getpid()}:{uuid.uuid4().hex[:12]}:"
        self._serial = 0
        self._held: set[str] = set()
        self._releasing: set[asyncio.Future[object]] = set()  # releases sent, reply not yet read
        self._polling = asyncio.Lock()
        self._renewer: asyncio.Task[None] | None = None
        self.round_trips = 0
        probe = redis.Redis.from_url(url, socket_connect_timeout=5)
        try:
            probe.ping()
        except redis.RedisError as exc:
            raise UserError(f"shared_limits {url}: cannot reach Redis ({exc})") from None
        finally:
            probe.close()
        self._client = aredis.Redis.from_url(url)
        self._acquire = self._client.register_script(_ACQUIRE)
        self._release = self._client.register_script(_RELEASE)
        self._renew = self._client.register_script(_RENEW)

    async def _try(self, token: str) -> tuple[bool, float]:
        self.round_trips += 1
        got, ms = await self._acquire(
            keys=[self._leases, self._tat],
            args=[token, self.concurrency, self.lease_ms, self.interval_ms, self.tolerance_ms],
        )
        return int(got) == 1, float(ms) / 1000.0

    async def acquire(self) -> str:
        """Take a shared slot and wait for the rate; returns the lease token to ``release``."""
        self._serial += 1
        token = f"{self._prefix}{self._serial}"
        got, wait_s = await self._try(token)
        if not got:
            async with self._polling:  # one poller per process; the others queue here
                pause = POLL_S[0]
                while not got:
                    await asyncio.sleep(min(pause, max(wait_s, 0.001)) * random.uniform(0.8, 1.0))
                    pause = min(pause * 2, POLL_S[1])
                    got, wait_s = await self._try(token)
        self._held.add(token)
        self._start_renewing()
        if wait_s > 0:
            try:
                await asyncio.sleep(wait_s)
            except BaseException:
                await self.release(token)
                raise
        return token

    async def release(self, token: str) -> None:
        """Give the slot back (its rate reservation is spent either way). Waited for: a release
        still in flight would make this process's next acquire find the cap full. A cancelled
        caller still gives the slot back (shielded). Never raises for Redis: a lease that cannot
        be removed expires on its own."""
        self._held.discard(token)
        self.round_trips += 1
        task = asyncio.ensure_future(self._release(keys=[self._leases], args=[token]))
        self._releasing.add(task)
        task.add_done_callback(self._released)
        try:
            await asyncio.shield(task)
        except (redis.RedisError, OSError):
            pass

    def _released(self, task: asyncio.Future[object]) -> None:
        self._releasing.discard(task)
        _quiet(task)

    def _start_renewing(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew_loop())

    async def _renew_loop(self) -> None:
        while self._held:
            await asyncio.sleep(self.lease_ms / 3000.0)
            if not self._held:
                return
            try:
                await self._renew(keys=[self._leases], args=[self.lease_ms, *sorted(self._held)])
            except (redis.RedisError, OSError):
                continue  # the next tick tries again; meanwhile the leases run on

    async def aclose(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
        if self._releasing:
            await asyncio.gather(*self._releasing, return_exceptions=True)
        await self._client.aclose()
