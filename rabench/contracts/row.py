"""What the scorer emits: one number with its interval and unit count."""

from __future__ import annotations

from typing import Literal

import msgspec

Interval = Literal["wilson", "bootstrap", "none"]


class Row(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One number of rows.json: a task's metric for one target in one stratum, with its unit
    count n and, where it has one, a 95% interval (Wilson or seeded bootstrap)."""

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
