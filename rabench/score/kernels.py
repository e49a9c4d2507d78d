"""numba kernels for the scorer's statistics, on plain arrays.

Why numba: RA-Bench asks for a 2000-resample percentile bootstrap on every
AUC, detection-at-false-flag-rate and line-item F1 row, for every target and
every stratum. Done naively (resample indices, call ``roc_auc_score``) that is
minutes; here each resample is a multinomial *count* vector over cases and a
single pass over the runs, whose scores were sorted into levels once
(``np.unique``), so a resample costs O(cases + runs) with no sorting.

Conventions shared by every kernel:

* A *case* is the unit resampled; its runs (repetitions) carry weights that
  sum to 1 (``run_w = 1 / runs of that case``), so a case counts once and a
  drawn-twice case counts twice.
* Genuine receipts and fakes are resampled separately (stratified bootstrap):
  ``genuine_cases`` and ``fake_cases`` list the case indices of each group and
  each resample draws exactly that many from each, with replacement.
* Randomness is counter-based (splitmix64 keyed by the row seed and the
  resample number), so results don't depend on thread scheduling: the same
  seed gives the same resamples on any number of cores.

Every kernel has a slow, obvious reference in tests/score/test_kernels.py and
is checked against scikit-learn / statsmodels / scipy where they compute the
same thing.
"""

from __future__ import annotations

import os

import numba
import numpy as np
from numba import njit, prange

from rabench.numba_cache import ensure_writable_cache


ensure_writable_cache()  # numba's compiled kernels beside this file, or in a temp folder if read-only

Z95 = 1.959963984540054  # standard normal 97.5% quantile (scipy.stats.norm.ppf(0.975))
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53

AUC = 0
DETECTION_AT_FFR = 1


@njit(cache=True, inline="always")
def _splitmix(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(x: np.uint64, n: int) -> int:
    """A uniform integer in [0, n) from 53 random bits."""
    return int(np.float64(x >> np.uint64(11)) * _TO_UNIT * n)


@njit(cache=True)
def _resample_state(seed: np.uint64, b: int) -> np.uint64:
    state = seed ^ (np.uint64(b + 1) * _M1)
    state, _ = _splitmix(state)
    return state


@njit(cache=True)
def draw_counts(genuine_cases, fake_cases, counts, state):
    """Fill ``counts`` (per case) with one stratified resample; return the new RNG state."""
    counts[:] = 0
    ng = genuine_cases.size
    for _ in range(ng):
        state, x = _splitmix(state)
        counts[genuine_cases[_below(x, ng)]] += 1
    nf = fake_cases.size
    for _ in range(nf):
        state, x = _splitmix(state)
        counts[fake_cases[_below(x, nf)]] += 1
    return state


@njit(cache=True)
def auc_sorted(run_case, run_level, run_fake, run_w, counts):
    """Weighted ROC AUC (ties half) in one pass over the runs (sorted by level ascending),
    with no per-level arrays: two threads sharing one physical core thrash the
    cache with 2 x n_levels buffers each, and this keeps the working set to the
    runs themselves, read in order."""
    cum_g = 0.0
    s = 0.0
    nf = 0.0
    n = run_case.size
    r = 0
    while r < n:
        lvl = run_level[r]
        lg = 0.0
        lf = 0.0
        while r < n and run_level[r] == lvl:
            w = counts[run_case[r]] * run_w[r]
            fk = 1.0 if run_fake[r] else 0.0
            lf += w * fk
            lg += w - w * fk
            r += 1
        s += lf * (cum_g + 0.5 * lg)
        cum_g += lg
        nf += lf
    if cum_g <= 0.0 or nf <= 0.0:
        return np.nan
    return s / (cum_g * nf)


@njit(cache=True)
def detection_sorted(run_case, run_level, run_fake, run_w, counts, ng, nf, flaggable_from, alpha):
    """Detection at a false-flag rate without building level sums: walks the runs
    (sorted by level ascending) from the top and stops at the first level that
    would flag more than ``alpha`` of the genuine weight, so a 1% false-flag
    rate touches only the top of the genuine scores. ``ng``/``nf`` are the total
    genuine/fake weights (= cases drawn, since a case's run weights sum to 1)."""
    if ng <= 0.0 or nf <= 0.0:
        return np.nan, -1
    limit = alpha * ng * (1.0 + 1e-12) + 1e-12
    cum_g = 0.0
    cum_f = 0.0
    best = 0.0
    best_lvl = -1
    r = run_case.size - 1
    while r >= 0:
        lvl = run_level[r]
        if lvl < flaggable_from:
            break
        while r >= 0 and run_level[r] == lvl:
            w = counts[run_case[r]] * run_w[r]
            fk = 1.0 if run_fake[r] else 0.0
            cum_f += w * fk
            cum_g += w - w * fk
            r -= 1
        if cum_g <= limit:
            best = cum_f
            best_lvl = lvl
        else:
            break
    return best / nf, best_lvl


@njit(cache=True)
def _levels_chunk(
    metric,
    alpha,
    genuine_cases,
    fake_cases,
    n_cases,
    run_case,
    run_level,
    run_fake,
    run_w,
    n_levels,
    flaggable_from,
    seed,
    start,
    stop,
    out,
):
    counts = np.zeros(n_cases, dtype=np.int64)
    ng = float(genuine_cases.size)
    nf = float(fake_cases.size)
    for b in range(start, stop):
        state = _resample_state(seed, b)
        draw_counts(genuine_cases, fake_cases, counts, state)
        if metric == AUC:
            out[b] = auc_sorted(run_case, run_level, run_fake, run_w, counts)
        else:
            value, _ = detection_sorted(run_case, run_level, run_fake, run_w, counts, ng, nf, flaggable_from, alpha)
            out[b] = value


@njit(cache=True, parallel=True)
def bootstrap_levels(
    metric,
    alpha,
    genuine_cases,
    fake_cases,
    n_cases,
    run_case,
    run_level,
    run_fake,
    run_w,
    n_levels,
    flaggable_from,
    n_boot,
    seed,
    n_chunks,
):
    """``n_boot`` stratified resamples of AUC (metric 0) or detection at a
    false-flag rate (metric 1) over runs pre-sorted by score level (ascending).
    Resamples are split into ``n_chunks`` chunks (one per thread), each with its
    own buffers; the result doesn't depend on ``n_chunks``."""
    out = np.empty(n_boot)
    useed = np.uint64(seed)
    n_chunks = max(1, min(n_chunks, n_boot))
    for c in prange(n_chunks):
        start = n_boot * c // n_chunks
        stop = n_boot * (c + 1) // n_chunks
        _levels_chunk(
            metric,
            alpha,
            genuine_cases,
            fake_cases,
            n_cases,
            run_case,
            run_level,
            run_fake,
            run_w,
            n_levels,
            flaggable_from,
            useed,
            start,
            stop,
            out,
        )
    return out


@njit(cache=True, parallel=True)
def bootstrap_ratio(num, den, genuine_cases, fake_cases, n_boot, seed):
    """``n_boot`` stratified resamples of sum(num) / sum(den) over cases
    (line-item F1 = sum(2 TP) / sum(extracted + labelled items))."""
    out = np.empty(n_boot)
    useed = np.uint64(seed)
    n_cases = num.size
    for b in prange(n_boot):
        counts = np.zeros(n_cases, dtype=np.int64)
        state = _resample_state(useed, b)
        draw_counts(genuine_cases, fake_cases, counts, state)
        s_num = 0.0
        s_den = 0.0
        for i in range(n_cases):
            c = counts[i]
            if c:
                s_num += c * num[i]
                s_den += c * den[i]
        out[b] = s_num / s_den if s_den > 0.0 else np.nan
    return out


@njit(cache=True)
def wilson(successes, n, z):
    """Wilson score interval; ``successes`` may be fractional (sum of per-case shares)."""
    if n <= 0:
        return np.nan, np.nan
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * np.sqrt(max(p * (1.0 - p) / n + z2 / (4.0 * n * n), 0.0))
    return max(0.0, centre - half), min(1.0, centre + half)


class SortedRuns:
    """Runs of one group of cases, sorted once by score level (ascending), with
    runs of the same case at the same level merged (weights added) — a target
    that answers the same risk in every repetition costs one entry per case."""

    __slots__ = ("case", "level", "fake", "w", "values", "n_cases", "flaggable_from")

    def __init__(
        self,
        scores: np.ndarray,
        case: np.ndarray,
        fake: np.ndarray,
        w: np.ndarray,
        n_cases: int,
        never_below: float | None = None,
    ):
        values, inverse = np.unique(scores, return_inverse=True)
        key = inverse.astype(np.int64) * max(n_cases, 1) + case.astype(np.int64)
        ukey, first, inv = np.unique(key, return_index=True, return_inverse=True)
        self.values = values
        self.level = (ukey // max(n_cases, 1)).astype(np.int32)
        self.case = (ukey % max(n_cases, 1)).astype(np.int32)
        self.fake = fake[first].astype(np.bool_)
        self.w = np.bincount(inv.ravel(), weights=w, minlength=ukey.size).astype(np.float64)
        self.n_cases = n_cases
        # Levels whose value is below ``never_below`` (missing risks) are never flagged.
        self.flaggable_from = 0 if never_below is None else int(np.searchsorted(values, never_below, side="left"))

    @property
    def n_levels(self) -> int:
        return int(self.values.size)


def point_levels(
    metric: int, alpha: float, runs: SortedRuns, n_genuine: int, n_fake: int
) -> tuple[float, float | None]:
    """The estimate itself (every case counted once); for detection also the threshold."""
    counts = np.ones(runs.n_cases, dtype=np.int64)
    if metric == AUC:
        return float(auc_sorted(runs.case, runs.level, runs.fake, runs.w, counts)), None
    value, lvl = detection_sorted(
        runs.case, runs.level, runs.fake, runs.w, counts, float(n_genuine), float(n_fake), runs.flaggable_from, alpha
    )
    return float(value), (float(runs.values[lvl]) if lvl >= 0 else None)


def bootstrap_runs(
    metric: int,
    alpha: float,
    runs: SortedRuns,
    genuine_cases: np.ndarray,
    fake_cases: np.ndarray,
    n_boot: int,
    seed: int,
) -> np.ndarray:
    samples: np.ndarray = bootstrap_levels(
        metric,
        alpha,
        genuine_cases.astype(np.int64),
        fake_cases.astype(np.int64),
        runs.n_cases,
        runs.case,
        runs.level,
        runs.fake,
        runs.w,
        runs.n_levels,
        runs.flaggable_from,
        n_boot,
        seed,
        numba.get_num_threads(),
    )
    return samples


def choose_threads() -> int:
    """Threads for the parallel kernels: all cores, unless the machine is already
    busier than its cores (1-minute load average), where two threads contending
    with other processes measured 3-4x slower than one. ``RABENCH_SCORE_THREADS``
    overrides. Results never depend on this (counter-based random numbers)."""
    env = os.environ.get("RABENCH_SCORE_THREADS")
    cores = int(getattr(numba.config, "NUMBA_NUM_THREADS"))  # noqa: B009
    if env:
        return max(1, min(int(env), cores))
    try:
        busy = os.getloadavg()[0] > (os.cpu_count() or 1)
    except OSError:
        busy = False
    return 1 if busy else cores


def percentile_interval(samples: np.ndarray) -> tuple[float | None, float | None]:
    """95% percentile interval (numpy's default linear interpolation), ignoring
    resamples where the statistic is undefined."""
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return float(lo), float(hi)
