"""Two-sample shift check: can a simple classifier tell suite A's receipts from suite B's?

Why: a synthetic suite is only a stand-in for real receipts if the two look alike
to a detector. The leak audit asks "does one file signal separate fakes from
genuine receipts *within* a suite"; this asks "do the same signals separate the
*suites*" (e.g. imported real SROIE scans vs the generator's dev split). An AUC
near 0.5 means the signals cannot tell the suites apart; near 1.0 means any
detector can learn "which generator made this" instead of "is this a fake".

The check is deliberately plain: the audit's per-file signals (``audit.file_signals``,
the font tag left out because imported suites have none), numeric ones standardised
(byte size and pixel count on a log scale), a missing value imputed at the mean with
a missing-indicator column, categorical ones one-hot; an L2 logistic regression
(numpy Newton steps, as ``engine.risk`` fits its model; kept here so the
cases tools do not depend on the engine); stratified k-fold
cross-validation so every case is scored by a model that never saw it; the AUC of
those out-of-fold scores with a stratified bootstrap percentile interval. The
interval resamples cases over fixed out-of-fold scores, so it leaves out the
variance of refitting: read it as a lower bound on the uncertainty.

Formats: a suite of JPEG scans against one with PDFs and PNGs is separated by
the format alone. By default only the formats both suites contain are compared
(like for like) and the format mix is reported beside it; ``formats="all"``
compares everything.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rabench.cases.audit import auc_ties_half, file_signals, signal_auc
from rabench.cases.manifest import open_suite
from rabench.logistic import fit_logistic
from rabench.errors import UserError

NUMERIC = ("byte_size", "pixels", "jpeg_quality", "luma_mean", "luma_std", "saturation_mean")
LOG_SCALE = ("byte_size", "pixels")
CATEGORICAL = ("format", "exif_present", "software_tag")
SHIFT_SIGNALS = ("format",) + NUMERIC + ("exif_present", "software_tag")
MIN_PER_SUITE = 10

Signals = dict[str, object]


@dataclass(frozen=True, slots=True)
class SignalShift:
    signal: str
    auc: float | None  # oriented single-signal AUC between the suites; None = too few values
    detail: str = ""  # category for a categorical signal


@dataclass
class ShiftResult:
    auc: float
    lo: float
    hi: float
    n_a: int
    n_b: int
    folds: int
    formats: dict[str, tuple[int, int]]  # media type -> (count in A, count in B) before filtering
    dropped: tuple[int, int]  # cases left out (formats only one suite has)
    per_signal: list[SignalShift] = field(default_factory=list)  # strongest first
    weights: dict[str, float] = field(default_factory=dict)  # standardised coefficients (B is 1)


def suite_signals(root: Path, *, genuine_only: bool = False, where: dict[str, str] | None = None) -> list[Signals]:
    """The audit's file signals of every base case (not duplicates) of the suite at ``root``.

    ``where``: keep only cases carrying every one of these tag values (e.g. ``{"capture": "scan"}``).
    """
    out: list[Signals] = []
    for lc in open_suite(root):
        if lc.case.lineage is not None or (genuine_only and lc.case.label.is_fake):
            continue
        if where and any(lc.case.tags.get(k) != v for k, v in where.items()):
            continue
        out.append(file_signals(lc.read_bytes(), lc.case.media_type))
    return out


def design(records: list[Signals]) -> tuple[np.ndarray, list[str]]:
    """Feature matrix: standardised numerics (+ missing indicators), 0/1 categoricals."""
    cols: list[np.ndarray] = []
    names: list[str] = []
    for sig in NUMERIC:
        raw = [r.get(sig) for r in records]
        present = np.array([v is not None for v in raw])
        if not present.any():
            continue
        v = np.array([float(x) if x is not None else np.nan for x in raw])
        if sig in LOG_SCALE:
            v = np.log10(np.maximum(v, 1.0))
        mu = float(np.nanmean(v))
        sd = float(np.nanstd(v)) or 1.0
        cols.append(np.where(present, (v - mu) / sd, 0.0))
        names.append(sig)
        if not present.all():
            cols.append((~present).astype(float))
            names.append(f"{sig}:missing")
    for sig in CATEGORICAL:
        cats = sorted({str(r.get(sig)) for r in records})
        if len(cats) < 2:
            continue
        for cat in cats if len(cats) > 2 else cats[1:]:
            cols.append(np.array([str(r.get(sig)) == cat for r in records], dtype=float))
            names.append(f"{sig}={cat}")
    x = np.column_stack(cols) if cols else np.zeros((len(records), 0))
    return x, names


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


def out_of_fold(x: np.ndarray, y: np.ndarray, *, folds: int, seed: int, l2: float = 1.0) -> np.ndarray:
    """Each case's probability of being in suite B from a model fitted without its fold (stratified)."""
    rng = np.random.default_rng([seed, 1])
    fold = np.empty(len(y), dtype=int)
    for cls in (0, 1):
        idx = np.flatnonzero(y == cls)
        fold[rng.permutation(idx)] = np.arange(len(idx)) % folds
    scores = np.empty(len(y))
    for k in range(folds):
        test = fold == k
        coef, b = fit_logistic(x[~test], y[~test], l2=l2)
        scores[test] = _sigmoid(x[test] @ coef + b)
    return scores


def bootstrap_auc(
    scores: np.ndarray, y: np.ndarray, *, n_boot: int, seed: int, alpha: float = 0.05
) -> tuple[float, float]:
    """Percentile interval of the AUC, resampling each suite's cases with replacement."""
    rng = np.random.default_rng([seed, 2])
    pos, neg = scores[y == 1], scores[y == 0]
    stats = np.array([auc_ties_half(rng.choice(pos, len(pos)), rng.choice(neg, len(neg))) for _ in range(n_boot)])
    return float(np.quantile(stats, alpha / 2)), float(np.quantile(stats, 1 - alpha / 2))


def shift(
    a: Iterable[Signals],
    b: Iterable[Signals],
    *,
    folds: int = 5,
    n_boot: int = 1000,
    seed: int = 0,
    formats: str = "common",
) -> ShiftResult:
    """Cross-validated AUC of a logistic classifier telling ``b``'s cases (label 1) from ``a``'s."""
    a, b = list(a), list(b)
    fa, fb = Counter(str(r["format"]) for r in a), Counter(str(r["format"]) for r in b)
    mix = {f: (fa.get(f, 0), fb.get(f, 0)) for f in sorted(set(fa) | set(fb))}
    if formats == "common":
        keep = set(fa) & set(fb)
        if not keep:
            raise UserError("the two suites share no file format; compare them with --formats all")
        a2 = [r for r in a if r["format"] in keep]
        b2 = [r for r in b if r["format"] in keep]
    elif formats == "all":
        a2, b2 = a, b
    else:
        raise UserError(f"formats must be 'common' or 'all', not {formats!r}")
    if len(a2) < MIN_PER_SUITE or len(b2) < MIN_PER_SUITE:
        raise UserError(f"too few cases to compare ({len(a2)} and {len(b2)}; need {MIN_PER_SUITE} in each)")
    folds = max(2, min(folds, len(a2), len(b2)))
    x, names = design(a2 + b2)
    y = np.r_[np.zeros(len(a2)), np.ones(len(b2))]
    scores = out_of_fold(x, y, folds=folds, seed=seed)
    auc = auc_ties_half(scores[y == 1], scores[y == 0])
    lo, hi = bootstrap_auc(scores, y, n_boot=n_boot, seed=seed)
    per = []
    for sig in SHIFT_SIGNALS:
        value, _, _, detail = signal_auc(sig, b2, a2)
        per.append(SignalShift(sig, value, detail))
    per.sort(key=lambda s: -1.0 if s.auc is None else -s.auc)
    coef, _ = fit_logistic(x, y)
    weights = dict(sorted(zip(names, (float(c) for c in coef)), key=lambda kv: -abs(kv[1])))
    return ShiftResult(
        auc=auc,
        lo=lo,
        hi=hi,
        n_a=len(a2),
        n_b=len(b2),
        folds=folds,
        formats=mix,
        dropped=(len(a) - len(a2), len(b) - len(b2)),
        per_signal=per,
        weights=weights,
    )


def describe(res: ShiftResult, name_a: str, name_b: str, *, top: int = 5) -> list[str]:
    """The result as printed lines: AUC with interval, format mix, strongest signals, weights."""

    def mix(i: int) -> str:
        n = sum(v[i] for v in res.formats.values()) or 1
        return ", ".join(f"{f.split('/')[-1]} {v[i] * 100 / n:.0f} %" for f, v in res.formats.items() if v[i])

    lines = [
        f"A = {name_a}: {res.n_a} base cases compared ({res.dropped[0]} left out: format not in B)",
        f"B = {name_b}: {res.n_b} base cases compared ({res.dropped[1]} left out: format not in A)",
        f"formats: A {mix(0)}; B {mix(1)}",
        f"shift AUC {res.auc:.3f} (95 % CI {res.lo:.3f}-{res.hi:.3f}; {res.folds}-fold cross-validated "
        "logistic regression on the audit's file signals; 0.5 = indistinguishable, 1.0 = fully separable)",
        "signals that separate most (single-signal AUC, max(auc, 1-auc)):",
    ]
    for s in res.per_signal[:top]:
        if s.auc is None:
            continue
        extra = f" (category {s.detail})" if s.detail else ""
        lines.append(f"  {s.signal:<16} {s.auc:.3f}{extra}")
    strongest = [(k, v) for k, v in res.weights.items() if math.isfinite(v)][:top]
    lines.append(
        "largest standardised weights (positive = more typical of B): "
        + ", ".join(f"{k} {v:+.2f}" for k, v in strongest)
    )
    return lines
