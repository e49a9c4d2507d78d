"""The ``null`` target: answers instantly with an empty Verdict.

Why: it measures the runner itself (``bench/runner_overhead.py``) and lets
tests and smoke runs exercise the whole pipeline without a model. Options ride
in the id, ``null:slow=0.05`` (sleep that many seconds per check, so that
concurrency and progress are visible), ``null:fail=0.1`` (a seeded share of
checks answer ``TargetFailure("error")``). It never sees labels and has no
memory, no checks and no proofs.
"""

from __future__ import annotations

import random

import anyio

from rabench.contracts import TargetInfo, TargetsConfig, Verdict
from rabench.errors import UserError
from rabench.targets.base import CheckRequest, TargetFailure

_EMPTY = Verdict()


def _parse_options(target_id: str) -> dict[str, float]:
    _, _, rest = target_id.partition(":")
    options: dict[str, float] = {}
    for part in filter(None, rest.split(",")):
        name, eq, value = part.partition("=")
        if not eq or name not in ("slow", "fail"):
            raise UserError(f"target {target_id!r}: null options are slow=SECONDS and fail=SHARE")
        try:
            options[name] = float(value)
        except ValueError:
            raise UserError(f"target {target_id!r}: {name} must be a number") from None
    return options


class NullTarget:
    reads_original = False  # reads no file at all (rabench.targets.base.Target)

    def __init__(self, target_id: str, slow: float = 0.0, fail: float = 0.0):
        self.info = TargetInfo(
            id=target_id, kind="null", settings={"slow": slow, "fail": fail} if (slow or fail) else {}
        )
        self._slow = slow
        self._fail = fail
        self._rng = random.Random(0)

    async def open(self) -> None:
        return None

    async def reset(self, repetition: int) -> None:
        self._rng = random.Random(repetition)

    async def check(self, request: CheckRequest) -> Verdict:
        if self._slow:
            await anyio.sleep(self._slow)
        if self._fail and self._rng.random() < self._fail:
            raise TargetFailure("error", "null target: simulated failure")
        return _EMPTY

    async def close(self) -> None:
        return None


def make_null_target(target_id: str, config: TargetsConfig) -> NullTarget:
    options = _parse_options(target_id)
    return NullTarget(target_id, slow=options.get("slow", 0.0), fail=options.get("fail", 0.0))
