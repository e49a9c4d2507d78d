"""The AP calibration scores are proper: reporting what you believe minimises the expected
score (docs/methodology-ap.md, "Task ap_calibration"); a LedgerShield-style confidence bonus
is not."""

from __future__ import annotations

import math

import numpy as np

from rabench.score.tasks.ap_facts import K, brier, log_loss


def expected(score, p: np.ndarray, q: np.ndarray) -> float:
    """E_{y ~ q}[score(p, y)], computed exactly over the K outcomes."""
    return sum(q[y] * score(p, y) for y in range(q.size))


def _perturbed(q: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    out = []
    for scale in (0.3, 0.05, 0.005):
        for _ in range(n):
            p = np.clip(q + rng.normal(0, scale, q.size), 1e-6, None)
            out.append(p / p.sum())
    # the confident reports a gamer would try: all mass on the likeliest class, or on another
    for k in range(q.size):
        p = np.full(q.size, 1e-9)
        p[k] = 1.0
        out.append(p / p.sum())
    out.append(np.full(q.size, 1.0 / q.size))
    return out


def test_honest_reporting_minimises_expected_brier_and_log_loss():
    rng = np.random.default_rng(17)
    for _ in range(200):
        q = rng.dirichlet(np.full(K, rng.choice([0.3, 1.0, 5.0])))
        q = np.clip(q, 1e-6, None)
        q /= q.sum()
        for score in (brier, log_loss):
            honest = expected(score, q, q)
            for p in _perturbed(q, rng, 10):
                if np.allclose(p, q, atol=1e-12):
                    continue
                assert expected(score, p, q) > honest - 1e-12, (score.__name__, q, p)


def test_the_expected_scores_have_the_textbook_decomposition():
    """E[Brier] = sum (p - q)^2 + sum q (1 - q);  E[log loss] = H(q) + KL(q || p)."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        q = rng.dirichlet(np.ones(K))
        p = rng.dirichlet(np.ones(K))
        assert math.isclose(expected(brier, p, q), float(((p - q) ** 2).sum() + (q * (1 - q)).sum()), rel_tol=1e-9)
        h = -float((q * np.log(q)).sum())
        kl = float((q * np.log(q / p)).sum())
        assert math.isclose(expected(log_loss, p, q), h + kl, rel_tol=1e-9)


def test_a_confidence_bonus_makes_a_score_improper():
    """LedgerShield-style: a log term rewarding confidence in the chosen class. With q = (0.6,
    0.4, 0, ...) the confident (1, 0, ...) beats honest reporting in expectation."""
    lam = 1.0  # with Brier, any lam > 0.32 / ln(1/0.6) = 0.63 does it at this q

    def with_bonus(p: np.ndarray, y: int) -> float:  # lower is better, like ours
        return brier(p, y) + lam * math.log(1.0 / float(p.max()))

    q = np.zeros(K)
    q[0], q[1] = 0.6, 0.4
    confident = np.zeros(K)
    confident[0] = 1.0
    assert expected(with_bonus, confident, q) < expected(with_bonus, q, q)
    # ... while our two scores prefer the honest report
    assert expected(brier, confident, q) > expected(brier, q, q)
