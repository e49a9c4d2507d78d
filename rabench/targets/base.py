"""The target interface the runner drives.

A target answers ``check(request) -> Answer`` (a ``Verdict`` on a receipt suite, an
``APVerdict`` on an ap suite: ``rabench.contracts.answer``). It signals what went wrong by
raising one of two exception families, so that the *runner* owns the single
retry layer (DESIGN.md, "One retry layer"):

* ``TransportFailure``: connection errors, HTTP 408/429/5xx. The runner retries
  these (at most 3 times, exponential backoff, ``retry_after`` honoured).
* ``TargetFailure``: everything else that is not a readable answer
  (``error`` / ``refusal`` / ``invalid_output``). Recorded, never retried.

Lifecycle: ``open()`` once before the first check, ``reset(repetition)`` before
each repetition's checks (fresh per-repetition state, e.g. an empty duplicate
network), ``close()`` once at the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import msgspec

from rabench.contracts import Answer, TargetInfo, Usage


class CheckRequest(msgspec.Struct, frozen=True):
    """What a target sees of a case: never its label."""

    case_id: str
    original: Path  # the file as submitted (the engine reads metadata from it)
    media_type: str
    prepared: Path  # upright, <=3072 px, <=3.75 MB image every target gets
    prepared_media_type: str
    repetition: int = 0
    # the case's submission time (ISO 8601), the "now" of time rules; None = no time rules
    submitted_at: str | None = None


class TransportFailure(Exception):
    """A transport failure the runner may retry (connection error, 408, 429, 5xx)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class TargetFailure(Exception):
    """A recorded, never-retried failure: status is the Outcome status to record."""

    def __init__(
        self,
        status: Literal["error", "refusal", "invalid_output"],
        message: str,
        *,
        usage: Usage | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.usage = usage


@runtime_checkable
class Target(Protocol):
    """A target may also say ``reads_original = False`` (a class attribute): it never opens
    ``CheckRequest.original``, only the prepared image, so the runner need not ``stat`` the
    original before each of a case's repetitions (``rabench.run.runner``); without it, it does."""

    info: TargetInfo

    async def open(self) -> None: ...

    async def reset(self, repetition: int) -> None: ...

    async def check(self, request: CheckRequest) -> Answer: ...

    async def close(self) -> None: ...
