"""One calibrated risk in [0, 1] from all of a receipt's signals.

Why a fitted model and not hand weights: the engine's analysers emit dozens
of signals of very different reliability (a C2PA AI tag is near-certain, a
missing camera model is common on genuine scans), and only data says how much
each is worth. The model is a logistic regression on one feature per signal
name (its strongest value on the receipt) plus counts per reason kind, fitted
with plain numpy (Newton steps with an L2 penalty) so the runtime needs no
learning library. Its coefficients are data (``rabench/data/risk-model.json``)
that record the suite, split and seed they were fitted on; ``rabench engine
fit`` refuses the test split.

Proofs are verifiable, so they set a floor: any proof puts risk at or above
``PROOF_FLOOR`` (0.7), while keeping the model's ordering among proven fakes
(risk = 0.7 + 0.3 × p), so ROC AUC still sees the model's confidence.

Measurements (signals with ``reason=False``, e.g. the visual ones) weigh twice: by their value,
and by how far they pass a *knee*, the 95th percentile of that measurement over the genuine
receipts the model was fitted on (feature ``NAME@excess`` = max(0, value - knee)). One straight
line in the value cannot say both "2 is ordinary and 3 is a little odd" and "8 is far past any
honest receipt"; the excess lets the fit put a steep weight where genuine receipts end. The
knees are data in the model (``knees``), set by the fit, never by hand.

Plausibility is never enough on its own: a real receipt can be old, carry an
odd tax rate or a template-like address, so reasons of kind ``plausibility``
may raise the risk but never carry it across ``FLAG_LINE`` (0.5) by
themselves. When the model without them stays below the line, the risk is
held just under it (issue 14: genuine receipts flagged on plausibility alone).
Opinion reasons are held the same way, except when one of them is corroborated
(``Signal.corroborated``: cash tendered − change equals what the other printed
amounts add up to, and only the total differs): then the model's probability stands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

import msgspec
import numpy as np

from rabench.engine.signals import ALWAYS_FITTED, Signal
from rabench.logistic import fit_logistic

PROOF_FLOOR = 0.7
FLAG_LINE = 0.5  # the spec's default flag threshold (risk >= 0.5)
BELOW_LINE = 0.499  # the highest risk of a receipt held under the line (plausibility/opinions only)
HOLD_FROM = 0.4  # held risks are HOLD_FROM + (BELOW_LINE - HOLD_FROM) x the model's probability
KINDS = ("proof", "check", "file_fact", "plausibility", "opinion")
EXCESS = "@excess"  # suffix of a measurement's excess-over-its-knee feature
# Measurements the fit leaves out, so no model weighs them. The per-field z-scores of noise, edge
# sharpness and ink darkness separate the synthetic generator's pastes from its genuine receipts
# but not hand edits of real receipts from genuine ones (AUC 0.40-0.58 on real dev data, below 0.5
# once phone photos are pooled: a photo's focus and light fall-off make honest lines differ), and a
# fit on the dev mix still weighed them, so a genuine re-photographed receipt was flagged on them
# alone (docs/engine.md, Risk, "Round 5"). They stay in the signals for research.
NOT_FITTED = frozenset({"visual.noise_z", "visual.sharpness_z", "visual.ink_z"})
KNEE_QUANTILE = 0.95  # a knee is this quantile of the measurement over the fit's genuine receipts
MIN_KNEE_GENUINE = 20  # genuine receipts carrying the measurement needed to set its knee


class RiskModel(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``rabench/data/risk-model.json``: the fitted coefficients and where they came from."""

    features: list[str]
    coef: list[float]
    intercept: float
    # where the numbers came from
    suite: str = ""
    split: str = ""
    seed: int | None = None
    n_cases: int = 0
    n_fakes: int = 0
    l2: float = 1.0
    # measurement name -> its knee (the fit's genuine 95th percentile); feature NAME@excess is the value past it
    knees: dict[str, float] = {}
    version: int = 1
    command: str = ""
    notes: str = ""


def featurize(signals: Iterable[Signal], features: Sequence[str], knees: dict[str, float] | None = None) -> np.ndarray:
    """One row: the strongest value of each named signal, counts per reason kind (measurements
    with ``reason=False`` count by name only) and, for measurements with a knee, how far past it."""
    index = {name: i for i, name in enumerate(features)}
    x = np.zeros(len(features), dtype=np.float64)
    knees = knees or {}
    for s in signals:
        keys: tuple[tuple[str, float], ...]
        keys = ((s.name, s.value), (f"kind:{s.kind}", 1.0)) if s.reason else ((s.name, s.value),)
        if not s.reason and s.name in knees:
            keys += ((s.name + EXCESS, max(0.0, float(s.value) - knees[s.name])),)
        for key, value in keys:
            i = index.get(key)
            if i is None:
                continue
            if key.startswith("kind:"):
                x[i] = min(3.0, x[i] + value)
            else:
                x[i] = max(x[i], float(value))
    return x


def feature_names(
    signal_sets: Iterable[Iterable[Signal]], min_count: int = 1, knees: dict[str, float] | None = None
) -> list[str]:
    """Every signal name seen at least ``min_count`` times, plus the per-kind counts and the excess
    of each measurement with a knee that at least ``min_count`` receipts pass."""
    counts: dict[str, int] = {}
    knees = knees or {}
    for signals in signal_sets:
        seen = {s.name for s in signals}
        seen |= {
            s.name + EXCESS for s in signals if not s.reason and s.name in knees and float(s.value) > knees[s.name]
        }
        for name in seen:
            counts[name] = counts.get(name, 0) + 1
    names = sorted(n for n, c in counts.items() if c >= min_count)
    return [f"kind:{k}" for k in KINDS] + names


def knees_of(signal_sets: Sequence[Sequence[Signal]], labels: Sequence[int]) -> dict[str, float]:
    """Each measurement's knee: its ``KNEE_QUANTILE`` over the genuine receipts that carry it
    (at least ``MIN_KNEE_GENUINE`` of them), rounded to 3 decimals."""
    values: dict[str, list[float]] = {}
    for signals, label in zip(signal_sets, labels):
        if label:
            continue
        strongest: dict[str, float] = {}
        for s in signals:
            if not s.reason:
                strongest[s.name] = max(strongest.get(s.name, 0.0), float(s.value))
        for name, v in strongest.items():
            values.setdefault(name, []).append(v)
    return {
        name: round(float(np.quantile(v, KNEE_QUANTILE)), 3)
        for name, v in sorted(values.items())
        if len(v) >= MIN_KNEE_GENUINE
    }


def fit(
    signal_sets: Sequence[Sequence[Signal]],
    labels: Sequence[int],
    *,
    l2: float = 1.0,
    min_count: int = 3,
    with_knees: bool = True,
    **meta: object,
) -> RiskModel:
    """The fitted model; the ``NOT_FITTED`` measurements get no feature."""
    signal_sets = [[s for s in signals if s.name not in NOT_FITTED] for signals in signal_sets]
    knees = knees_of(signal_sets, labels) if with_knees else {}
    names = feature_names(signal_sets, min_count=min_count, knees=knees)
    names += [n for n in ALWAYS_FITTED if n not in names]  # a new check's weight is learnt, even when rare
    knees = {k: v for k, v in knees.items() if k + EXCESS in names}
    x = np.vstack([featurize(s, names, knees) for s in signal_sets]) if signal_sets else np.zeros((0, len(names)))
    y = np.asarray(labels, dtype=np.float64)
    coef, intercept = fit_logistic(x, y, l2=l2)
    return RiskModel(
        features=names,
        coef=[round(float(c), 6) for c in coef],
        intercept=round(intercept, 6),
        n_cases=len(labels),
        n_fakes=int(y.sum()),
        l2=l2,
        knees=knees,
        **meta,  # type: ignore[arg-type]
    )


def probability(model: RiskModel, signals: Sequence[Signal]) -> float:
    x = featurize(signals, model.features, model.knees)
    z = float(np.dot(x, np.asarray(model.coef)) + model.intercept)
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def risk(model: RiskModel, signals: Sequence[Signal]) -> float:
    """The score a caller acts on: the model's probability, floored at 0.7 by any proof,
    and never pushed to the flag line by plausibility reasons alone."""
    p = probability(model, signals)
    if any(s.kind == "proof" for s in signals):
        return round(PROOF_FLOOR + (1.0 - PROOF_FLOOR) * p, 6)
    if p >= FLAG_LINE and any(_soft(s) for s in signals) and not any(s.corroborated for s in signals):
        without = probability(model, [s for s in signals if not _soft(s)])
        if without < FLAG_LINE:
            # held under the line, the model's order kept among the held ones
            return round(max(without, HOLD_FROM + (BELOW_LINE - HOLD_FROM) * p), 6)
    return round(p, 6)


def _soft(s: Signal) -> bool:
    """Evidence that may raise the risk but never flags a receipt by itself: plausibility (an old
    receipt, a till's odd rate) and opinion reasons (amounts that could not be reconciled, a line
    that looks different). The visual measurements behind opinions (``reason=False``) count as
    model evidence, not as soft reasons."""
    return s.kind == "plausibility" or (s.kind == "opinion" and s.reason)


# A model for when none has been fitted yet: proofs weigh most, then file facts,
# then plausibility and opinions. Used only if risk-model.json is missing.
PRIOR = RiskModel(
    features=[f"kind:{k}" for k in KINDS],
    coef=[3.0, 1.0, 0.5, 0.3, 0.3],
    intercept=-2.0,
    notes="prior: hand-set weights, not fitted",
)


def model_path() -> Path:
    return Path(str(resources.files("rabench") / "data" / "risk-model.json"))


def load_model(path: Path | None = None) -> RiskModel:
    p = path or model_path()
    if not p.is_file():
        return PRIOR
    model = msgspec.json.decode(p.read_bytes(), type=RiskModel)
    if model.version != 1 or len(model.coef) != len(model.features):
        raise ValueError(
            f"{p}: a risk model of version {model.version} with {len(model.coef)} weights for "
            f"{len(model.features)} features; this rabench reads version 1, one weight per feature"
        )
    return model


def save_model(model: RiskModel, path: Path | None = None) -> Path:
    p = path or model_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(msgspec.json.format(msgspec.json.encode(model), indent=2) + b"\n")
    return p
