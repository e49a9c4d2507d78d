"""What the scorer emits: one number with its interval and unit count."""

from __future__ import annotations

from typing import Literal

import msgspec

Interval = Literal["wilson", "bootstrap", "none"]


class Row(msgspec.Struct, frozen=True, omit_defaults=True):
    task: str  # extraction | checks | authenticity | duplicates | decisions | evidence | operations
    metric: str
    stratum: str  # "all" or "dimension=value"
    target: str
    value: float | None  # None when not supported / undefined
    n: int
    lo: float | None = None
    hi: float | None = None
    interval: Interval = "none"
    seed: int | None = None  # bootstrap seed, from a stable hash of the row key
    supported: bool = True  # False: the target can't do this task by construction
    note: str = ""
