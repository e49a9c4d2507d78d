"""``details.json``: the per-call material behind the report's pictures (ROC curves,
reliability bins, latency samples, the worst misses), written beside rows.json by the
scorer and read by ``rabench report`` (which never reads runs itself)."""

from __future__ import annotations

import msgspec

from rabench.contracts.version import CONTRACTS_VERSION

DETAILS_FORMAT = "rabench.details/1"


class RocCurve(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One target's weighted ROC step points (false-flag rate, detection), thresholds high to low."""

    fpr: list[float]
    tpr: list[float]
    auc: float | None = None


class ReliabilityBin(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One equal-width risk bin: its edges, runs in it, their mean risk and share fake."""

    lo: float
    hi: float
    n: int
    mean_risk: float
    share_fake: float


class MissReason(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One reason the target gave, as shown beside a worst miss (text cut at 300 characters)."""

    kind: str
    text: str


class WorstMiss(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A missed fake or a false flag: the case, why it is listed, a thumbnail data URI, the
    label and what the target said."""

    target: str
    case_id: str
    repetition: int
    why: str
    thumbnail: str | None
    label: str
    verdict: str
    reasons: list[MissReason]


class DetailsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``reports/ID/details.json``: per target, ROC points, reliability bins and latency
    samples, plus the worst misses; deterministic like rows.json."""

    format: str = DETAILS_FORMAT
    contracts_version: int = CONTRACTS_VERSION
    roc: dict[str, RocCurve] = {}
    reliability: dict[str, list[ReliabilityBin]] = {}
    latency: dict[str, list[float]] = {}
    worst: list[WorstMiss] = []
