"""One unit's call to a target: gate, per-attempt timeout, retries, and the resulting status.

Why here and nowhere else: this is the single place that maps what a target
did to an Outcome status (DESIGN.md, "One retry layer"):

* a Verdict (an APVerdict on an ap suite) -> ``ok``
* ``TargetFailure``                  -> its status (error | refusal | invalid_output), never retried
* no answer within ``timeout_s``     -> ``timeout`` (the attempt is cancelled), never retried
* ``TransportFailure``               -> retried (``rabench.run.retry``); after the last retry ``error``
* any other exception                -> ``error`` with a one-line message; the run goes on

``latency_s`` is the monotonic wall time of the final attempt, measured here
(inside the gate, so waiting for a slot or a rate token is not latency).

The timeout is asyncio's own mechanism rather than an anyio cancel scope (the run
loop always runs on anyio's asyncio backend; see docs/performance.md, "Runner"):
one timer that cancels the task, and the cancel request taken back, exactly as
``asyncio.timeout`` does it (``_Call.attempt``), without its object per attempt.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from rabench.contracts import Answer, Usage, Verdict
from rabench.contracts.ap_verdict import APVerdict
from rabench.run.limits import ProviderGate
from rabench.run.retry import RetryPolicy, retry_transport
from rabench.targets.base import CheckRequest, Target, TargetFailure, TransportFailure

MAX_ERROR_CHARS = 2000


@dataclass(slots=True)
class CallResult:
    status: str
    attempts: int
    latency_s: float | None
    verdict: Answer | None = None  # a Verdict on a receipt suite, an APVerdict on an ap suite
    error: str | None = None
    usage: Usage | None = None
    wait_s: float = 0.0  # time spent waiting for the provider gate (a slot, a rate token), all attempts


class _AttemptTimedOut(Exception):
    pass


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    msg = f"{name}: {text}" if text else name
    return msg[:MAX_ERROR_CHARS]


class _Call:
    """State of one unit's attempts (a small object beats closures in the hot path)."""

    __slots__ = (
        "target",
        "request",
        "gate",
        "timeout_s",
        "attempts",
        "latency_s",
        "counters",
        "wait_s",
        "task",
        "expired",
    )

    def __init__(self, target: Target, request: CheckRequest, gate: ProviderGate, timeout_s: float, counters: Any):
        self.target = target
        self.request = request
        self.gate = gate
        self.timeout_s = timeout_s
        self.attempts = 0
        self.latency_s: float | None = None
        self.counters = counters
        self.wait_s = 0.0
        self.task: asyncio.Task[Any] | None = None
        self.expired = False  # the running attempt's deadline passed: its task was cancelled for it

    def _expire(self) -> None:
        self.expired = True
        assert self.task is not None
        self.task.cancel()

    async def attempt(self) -> Answer:
        counters = self.counters
        if self.attempts and counters is not None:
            counters.retries += 1
        asked = time.monotonic()
        async with self.gate:
            self.attempts += 1
            if counters is not None:
                counters.in_flight += 1
            t0 = time.monotonic()
            self.wait_s += t0 - asked
            # asyncio.timeout's logic: a timer cancels the task; a CancelledError that our
            # timer caused, and no other cancel request since, is our timeout.
            task = self.task = asyncio.current_task()
            assert task is not None
            cancelling = task.cancelling()
            loop = asyncio.get_running_loop()
            handle = loop.call_at(loop.time() + self.timeout_s, self._expire)
            status: int | None = None  # for an adaptive gate: the transport failure's HTTP status
            try:
                return await self.target.check(self.request)
            except asyncio.CancelledError:
                if self.expired:
                    self.expired = False
                    if task.uncancel() <= cancelling:  # ours alone, not the run being cancelled
                        raise _AttemptTimedOut() from None
                raise
            except TimeoutError:
                if self.expired:  # the deadline passed and the target turned its cancellation into this
                    raise _AttemptTimedOut() from None
                raise  # a TimeoutError of the target's own: an error, not our timeout
            except TransportFailure as exc:
                status = exc.status if exc.status is not None else -1
                raise
            finally:
                handle.cancel()
                if self.expired:  # the timer fired, the attempt ended otherwise: take our cancel back
                    self.expired = False
                    task.uncancel()
                self.latency_s = time.monotonic() - t0
                if counters is not None:
                    counters.in_flight -= 1
                if self.gate.adaptive:
                    self.gate.observe(self.latency_s, status)


async def call_target(
    target: Target,
    request: CheckRequest,
    gate: ProviderGate,
    *,
    timeout_s: float,
    policy: RetryPolicy,
    counters: Any = None,
) -> CallResult:
    """Run one unit against ``target``; never raises except for cancellation of the run.

    ``counters``, if given, is any object with integer ``retries`` and ``in_flight``
    attributes (the progress display reads them).
    """
    call = _Call(target, request, gate, timeout_s, counters)
    try:
        try:
            verdict = await call.attempt()
        except TransportFailure as first:
            verdict = await retry_transport(call.attempt, first, policy)
    except _AttemptTimedOut:
        return CallResult(
            "timeout",
            call.attempts,
            call.latency_s,
            wait_s=call.wait_s,
            error=f"no answer within {timeout_s:g} s (attempt {call.attempts})",
        )
    except TargetFailure as exc:
        return CallResult(
            exc.status,
            call.attempts,
            call.latency_s,
            wait_s=call.wait_s,
            error=(" ".join(str(exc).split()) or exc.status)[:MAX_ERROR_CHARS],
            usage=exc.usage,
        )
    except TransportFailure as exc:
        return CallResult(
            "error",
            call.attempts,
            call.latency_s,
            wait_s=call.wait_s,
            error=f"transport failure after {call.attempts} attempts: {one_line(exc)}"[:MAX_ERROR_CHARS],
        )
    except Exception as exc:  # a crash of one call never stops the run
        return CallResult("error", call.attempts, call.latency_s, error=one_line(exc), wait_s=call.wait_s)
    if not isinstance(verdict, (Verdict, APVerdict)):
        return CallResult(
            "invalid_output",
            call.attempts,
            call.latency_s,
            wait_s=call.wait_s,
            error=f"target returned {type(verdict).__name__}, not a Verdict",
        )
    return CallResult("ok", call.attempts, call.latency_s, verdict=verdict, usage=verdict.usage, wait_s=call.wait_s)
