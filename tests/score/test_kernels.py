"""Each numba kernel against a slow, obvious reference and against
scikit-learn / statsmodels / scipy where they compute the same thing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from statsmodels.stats.proportion import proportion_confint

from rabench.score import kernels


def slow_auc(scores, fake, weights):
    """Weighted Mann-Whitney over every (fake, genuine) pair; ties count half."""
    num = den = 0.0
    for i, j in itertools.product(range(len(scores)), repeat=2):
        if fake[i] and not fake[j]:
            k = 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
            num += weights[i] * weights[j] * k
            den += weights[i] * weights[j]
    return num / den


def slow_detection(scores, fake, weights, alpha, never_below=None):
    """Try every candidate threshold; keep the lowest flagging <= alpha of genuine weight."""
    scores, fake, weights = map(np.asarray, (scores, fake, weights))
    ng, nf = weights[~fake].sum(), weights[fake].sum()
    best = 0.0
    for t in sorted(set(scores.tolist()), reverse=True):
        if never_below is not None and t < never_below:
            break
        flagged = scores >= t
        if weights[flagged & ~fake].sum() <= alpha * ng + 1e-9:
            best = weights[flagged & fake].sum() / nf
        else:
            break
    return best


def runs_for(scores, fake, case=None, w=None, never_below=None):
    scores = np.asarray(scores, dtype=float)
    n = scores.size
    case = np.arange(n, dtype=np.int32) if case is None else np.asarray(case, dtype=np.int32)
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    fake = np.asarray(fake, dtype=bool)
    return kernels.SortedRuns(scores, case, fake, w, int(case.max()) + 1, never_below)


@pytest.mark.parametrize("seed", range(5))
def test_auc_matches_sklearn_and_reference_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = 60
    fake = rng.random(n) < 0.4
    scores = np.round(rng.random(n) + 0.3 * fake, 1)  # coarse: many ties
    runs = runs_for(scores, fake)
    value, _ = kernels.point_levels(kernels.AUC, 0.0, runs, int((~fake).sum()), int(fake.sum()))
    assert value == pytest.approx(roc_auc_score(fake, scores), abs=1e-12)
    assert value == pytest.approx(slow_auc(scores, fake, np.ones(n)), abs=1e-12)


def test_auc_with_repeated_runs_weights_each_case_once():
    # Case 0 (genuine) runs twice with 0.2 and 0.8; case 1 (fake) once at 0.5; case 2 (genuine) at 0.1.
    scores = [0.2, 0.8, 0.5, 0.1]
    case = [0, 0, 1, 2]
    fake = [False, False, True, False]
    w = [0.5, 0.5, 1.0, 1.0]
    runs = runs_for(scores, fake, case, w)
    value, _ = kernels.point_levels(kernels.AUC, 0.0, runs, 2, 1)
    # vs case 0: half its runs below -> 0.5; vs case 2: 1.0 -> mean 0.75
    assert value == pytest.approx(0.75)
    assert value == pytest.approx(roc_auc_score(fake, scores, sample_weight=w))
    assert value == pytest.approx(slow_auc(scores, fake, w))


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.25])
@pytest.mark.parametrize("seed", range(4))
def test_detection_at_false_flag_rate_matches_reference(alpha, seed):
    rng = np.random.default_rng(100 + seed)
    n = 80
    fake = rng.random(n) < 0.5
    scores = np.round(rng.random(n) * 0.7 + 0.3 * fake, 1)
    scores[rng.random(n) < 0.1] = -1.0  # missing risk: never flagged
    runs = runs_for(scores, fake, never_below=0.0)
    value, threshold = kernels.point_levels(kernels.DETECTION_AT_FFR, alpha, runs, int((~fake).sum()), int(fake.sum()))
    assert value == pytest.approx(slow_detection(scores, fake, np.ones(n), alpha, 0.0))
    if threshold is not None:
        assert (scores[~fake] >= threshold).mean() <= alpha + 1e-12


def test_detection_ties_at_the_threshold_are_all_flagged():
    # 10 genuine: two tied at 0.9, eight at 0.1; fakes at 0.95, 0.9, 0.5.
    scores = [0.9, 0.9] + [0.1] * 8 + [0.95, 0.9, 0.5]
    fake = [False] * 10 + [True] * 3
    runs = runs_for(scores, fake, never_below=0.0)
    # 10%: 0.9 would flag both tied genuine (20%), so the threshold stays at 0.95.
    value, threshold = kernels.point_levels(kernels.DETECTION_AT_FFR, 0.10, runs, 10, 3)
    assert threshold == 0.95 and value == pytest.approx(1 / 3)
    # 20%: the lowest threshold flagging at most 2 genuine is 0.5 (same genuine as 0.9).
    value, threshold = kernels.point_levels(kernels.DETECTION_AT_FFR, 0.20, runs, 10, 3)
    assert threshold == 0.5 and value == pytest.approx(1.0)
    # 5% with a genuine at the very top: nothing can be flagged.
    runs = runs_for([0.99] + [0.1] * 9 + [0.9], [False] * 10 + [True], never_below=0.0)
    value, threshold = kernels.point_levels(kernels.DETECTION_AT_FFR, 0.05, runs, 10, 1)
    assert threshold is None and value == 0.0


@pytest.mark.parametrize("count,n", [(0, 10), (10, 10), (3, 17), (3.5, 10), (123.25, 400), (1, 1)])
def test_wilson_matches_statsmodels_including_fractional_successes(count, n):
    lo, hi = kernels.wilson(count, n, kernels.Z95)
    ref_lo, ref_hi = proportion_confint(count, n, alpha=0.05, method="wilson")
    assert lo == pytest.approx(ref_lo, abs=1e-12)
    assert hi == pytest.approx(ref_hi, abs=1e-12)


def test_z95_is_the_normal_quantile():
    from scipy.stats import norm

    assert kernels.Z95 == pytest.approx(norm.ppf(0.975), abs=1e-14)


def slow_bootstrap_counts(genuine, fake, seed, b):
    """Reference draw: the same splitmix64 stream, written in plain Python ints."""
    mask = (1 << 64) - 1

    def mix(state):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return state, z ^ (z >> 31)

    state = seed ^ (((b + 1) * 0xBF58476D1CE4E5B9) & mask)
    state, _ = mix(state)
    counts = np.zeros(max(list(genuine) + list(fake)) + 1, dtype=np.int64)
    for group in (genuine, fake):
        for _ in range(len(group)):
            state, x = mix(state)
            counts[group[int(float(x >> 11) * 2.0**-53 * len(group))]] += 1
    return counts


def test_bootstrap_resamples_are_stratified_and_equal_a_slow_loop():
    rng = np.random.default_rng(7)
    n = 40
    fake = rng.random(n) < 0.3
    scores = np.round(rng.random(n) + 0.4 * fake, 2)
    runs = runs_for(scores, fake)
    g, f = np.flatnonzero(~fake), np.flatnonzero(fake)
    seed = 987654321
    fast = kernels.bootstrap_runs(kernels.AUC, 0.0, runs, g, f, 50, seed)
    fast_det = kernels.bootstrap_runs(kernels.DETECTION_AT_FFR, 0.1, runs, g, f, 50, seed)
    for b in range(50):
        counts = slow_bootstrap_counts(g, f, seed, b)
        assert counts[g].sum() == g.size and counts[f].sum() == f.size  # each group keeps its size
        w = counts[np.arange(n)].astype(float)
        keep = w > 0
        assert fast[b] == pytest.approx(roc_auc_score(fake[keep], scores[keep], sample_weight=w[keep]))
        assert fast_det[b] == pytest.approx(slow_detection(scores[keep], fake[keep], w[keep], 0.1))


def test_bootstrap_is_deterministic_per_seed_and_thread_count():
    import numba

    rng = np.random.default_rng(3)
    fake = rng.random(300) < 0.5
    scores = rng.random(300) + fake * 0.2
    runs = runs_for(scores, fake)
    g, f = np.flatnonzero(~fake), np.flatnonzero(fake)
    a = kernels.bootstrap_runs(kernels.AUC, 0.0, runs, g, f, 200, 42)
    b = kernels.bootstrap_runs(kernels.AUC, 0.0, runs, g, f, 200, 42)
    c = kernels.bootstrap_runs(kernels.AUC, 0.0, runs, g, f, 200, 43)
    one = kernels.bootstrap_levels(
        kernels.AUC,
        0.0,
        g.astype(np.int64),
        f.astype(np.int64),
        runs.n_cases,
        runs.case,
        runs.level,
        runs.fake,
        runs.w,
        runs.n_levels,
        runs.flaggable_from,
        200,
        42,
        1,
    )
    assert np.array_equal(a, b) and np.array_equal(a, one)
    assert not np.array_equal(a, c)
    assert numba.get_num_threads() >= 1


def test_ratio_bootstrap_matches_numpy_resampling():
    rng = np.random.default_rng(11)
    num = rng.integers(0, 5, 30).astype(float)
    den = num + rng.integers(0, 3, 30)
    fake = rng.random(30) < 0.5
    g, f = np.flatnonzero(~fake), np.flatnonzero(fake)
    out = kernels.bootstrap_ratio(num, den, g.astype(np.int64), f.astype(np.int64), 20, 5)
    for b in range(20):
        counts = slow_bootstrap_counts(g, f, 5, b)[: num.size]
        assert out[b] == pytest.approx((counts * num).sum() / (counts * den).sum())


def test_percentile_interval_ignores_undefined_resamples():
    samples = np.array([np.nan, 1.0, 2.0, 3.0, 4.0, 5.0])
    lo, hi = kernels.percentile_interval(samples)
    assert (lo, hi) == tuple(np.percentile([1, 2, 3, 4, 5], [2.5, 97.5]))
    assert kernels.percentile_interval(np.array([np.nan])) == (None, None)
