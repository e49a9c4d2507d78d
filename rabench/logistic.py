"""L2-penalised logistic regression by Newton's method, in plain numpy.

Why its own module: the engine's risk model (``rabench.engine.risk``) and the real-vs-synthetic
shift check (``rabench.cases.shift``) fit the same small model, and the cases tools must not
import the engine. Checked against scikit-learn in ``tests/engine/test_risk.py``.
"""

from __future__ import annotations

import numpy as np


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, iters: int = 100) -> tuple[np.ndarray, float]:
    """Coefficients and intercept; the intercept is not penalised."""
    n, d = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(xa @ w, -50, 50)))
        grad = xa.T @ (p - y) + penalty * w
        hess = (xa * (p * (1 - p))[:, None]).T @ xa + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w[:-1], float(w[-1])
