"""The retry decision (pure) and the retry mechanism (stamina), kept apart.

Why apart: *whether* and *how long* to wait is policy that a reader must be able
to check at a glance and a test must be able to check without sleeping;
*doing* the waiting is stamina's job (exponential backoff with jitter, attempt
counting). One retry layer only (DESIGN.md): targets raise ``TransportFailure``
for connection errors and HTTP 408/429/5xx and must not retry inside their
client library; everything else is an outcome and is never retried.

The mechanism never holds a provider slot while it sleeps: ``attempt()`` takes
the slot itself, and stamina sleeps between calls to it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec
import stamina
import stamina.instrumentation

from rabench.targets.base import TransportFailure

T = TypeVar("T")

# The runner reports retries in its own progress display; stamina's default
# hooks would log a warning line per retry into the middle of it.
stamina.instrumentation.set_on_retry_hooks([])


class RetryPolicy(msgspec.Struct, frozen=True):
    max_retries: int = 3  # 4 attempts in all
    wait_initial_s: float = 1.0  # first backoff; doubles each retry
    wait_max_s: float = 30.0
    wait_jitter_s: float = 1.0  # up to this much random extra per backoff
    retry_after_cap_s: float = 60.0  # a server's Retry-After is honoured up to this


class RetryDecision(msgspec.Struct, frozen=True):
    """What to do after one failed attempt. ``wait_s`` None = the policy's jittered backoff."""

    retry: bool
    wait_s: float | None = None
    reason: str = ""


def decide(exc: BaseException, policy: RetryPolicy) -> RetryDecision:
    """Retry transport failures only; honour ``retry_after`` (capped). Pure."""
    if not isinstance(exc, TransportFailure):
        return RetryDecision(False, reason=f"{type(exc).__name__} is not a transport failure")
    status = f"HTTP {exc.status}" if exc.status is not None else "transport failure"
    if exc.retry_after is not None and exc.retry_after >= 0:
        return RetryDecision(True, min(exc.retry_after, policy.retry_after_cap_s), f"{status}, Retry-After")
    return RetryDecision(True, None, status)


async def retry_transport(
    attempt: Callable[[], Awaitable[T]],
    first_failure: TransportFailure,
    policy: RetryPolicy,
) -> T:
    """Retry after ``first_failure`` (already spent one attempt) with stamina; re-raise the last one.

    The first attempt is made by the caller without stamina so that the common
    case (no failure) pays nothing for the retry machinery; its failure is
    replayed here as stamina's first attempt, so stamina's attempt count and
    backoff schedule are exactly those of ``policy``.
    """
    if policy.max_retries <= 0:
        raise first_failure

    def hook(exc: Exception) -> bool | float:
        d = decide(exc, policy)
        if not d.retry:
            return False
        return True if d.wait_s is None else d.wait_s

    pending: TransportFailure | None = first_failure
    async for attempt_ctx in stamina.retry_context(
        on=hook,
        attempts=policy.max_retries + 1,
        timeout=None,
        wait_initial=policy.wait_initial_s,
        wait_max=policy.wait_max_s,
        wait_jitter=policy.wait_jitter_s,
    ):
        with attempt_ctx:
            if pending is not None:
                replay, pending = pending, None
                raise replay
            return await attempt()
    raise AssertionError("unreachable")  # stamina re-raises the last failure
