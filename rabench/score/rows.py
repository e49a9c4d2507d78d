"""Building rows: Wilson and bootstrap intervals, per-row seeds, the strata rule.

Why here: every task emits rows the same way, so the rules that the spec states
once ("every row reports n", "rows for every stratum with at least 10 cases",
"seeded per row") are applied in one place.
"""

from __future__ import annotations

import hashlib

import numpy as np

from rabench.contracts import Row
from rabench.score import kernels

N_BOOT = 2000
MIN_STRATUM = 10
ALL = "all"
NOT_SUPPORTED = "not supported"


def row_seed(task: str, metric: str, stratum: str, target: str) -> int:
    """A stable 63-bit seed from the row's key (blake2b; never Python's hash())."""
    key = f"{task}\x1f{metric}\x1f{stratum}\x1f{target}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") >> 1


def _clean(x: float | None) -> float | None:
    if x is None or not np.isfinite(x):
        return None
    return float(x)


def rate_row(task: str, metric: str, stratum: str, target: str, shares: np.ndarray, note: str = "") -> Row | None:
    """A rate over cases (or calls) with a Wilson 95% interval.

    ``shares`` holds one per-unit success share in [0, 1] (a case's share of
    runs that succeeded); successes = sum of shares, n = number of units, and the
    row's ``n`` is the interval's n.
    """
    n = int(shares.size)
    if stratum != ALL and n < MIN_STRATUM:
        return None
    denom = float(n)
    if n == 0:
        return Row(
            task=task,
            metric=metric,
            stratum=stratum,
            target=target,
            value=None,
            n=n,
            interval="wilson",
            note=note or "no cases",
        )
    successes = float(shares.sum())
    lo, hi = kernels.wilson(successes, denom, kernels.Z95)
    return Row(
        task=task,
        metric=metric,
        stratum=stratum,
        target=target,
        value=_clean(successes / denom),
        n=n,
        lo=_clean(lo),
        hi=_clean(hi),
        interval="wilson",
        note=note,
    )


def bootstrap_row(
    task: str,
    metric: str,
    stratum: str,
    target: str,
    value: float | None,
    samples: np.ndarray | None,
    seed: int,
    n: int,
    note: str = "",
) -> Row:
    lo, hi = (None, None) if samples is None else kernels.percentile_interval(samples)
    value = _clean(value)
    return Row(
        task=task,
        metric=metric,
        stratum=stratum,
        target=target,
        value=value,
        n=n,
        lo=lo if value is not None else None,
        hi=hi if value is not None else None,
        interval="bootstrap",
        seed=seed,
        note=note if value is not None else (note or "undefined"),
    )


def plain_row(task: str, metric: str, stratum: str, target: str, value: float | None, n: int, note: str = "") -> Row:
    return Row(
        task=task, metric=metric, stratum=stratum, target=target, value=_clean(value), n=n, interval="none", note=note
    )


def unsupported_rows(task: str, metrics: list[str], target: str) -> list[Row]:
    """A task the target can't do by construction: supported=False, never a zero."""
    return [
        Row(task=task, metric=m, stratum=ALL, target=target, value=None, n=0, supported=False, note=NOT_SUPPORTED)
        for m in metrics
    ]
