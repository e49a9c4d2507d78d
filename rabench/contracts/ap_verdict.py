"""What a target answers for one AP case: the ``APVerdict``.

Why its own struct and not the receipt ``Verdict``: an AP answer is a decision over a bundle
(PAY / HOLD / NEEDS_REVIEW / ESCALATE_FRAUD) with reason codes, discrepancies and links from
the fixed vocabulary of ``rabench.contracts.ap``, and a probability per outcome class. It
rides in ``Outcome.verdict`` (``contracts.answer.Answer``, tagged by ``suite``) so the runner, the outcomes file and the operations rows are
shared with receipts. Strict like every contract: unknown keys, codes outside the vocabulary,
probabilities outside [0, 1] and inverted boxes are one-line validation errors where the
verdict is decoded (a DIY model's answer that breaks them is ``invalid_output``).

Version: ``AP_VERDICT_VERSION`` is written into every verdict (``v``); a reader refuses
another version with one line (``check_ap_verdict_version``).
"""

from __future__ import annotations

import math

import msgspec

from rabench.contracts.ap import (
    Decision,
    DiscrepancyKind,
    EvidenceBox,
    FieldName,
    Link,
    OutcomeClass,
    ReasonCode,
)
from rabench.contracts.verdict import Usage

AP_VERDICT_VERSION = 1


class APField(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One extracted invoice field: the value as read (None = not printed / not found) and,
    when the target can say, where it read it (a box in page fractions)."""

    value: str | float | None = None
    evidence: EvidenceBox | None = None


class APLineItem(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One invoice line as read: description, line total, and quantity and unit price if printed."""

    description: str
    total: float
    quantity: float | None = None
    unit_price: float | None = None


class APVerdict(
    msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True, tag_field="suite", tag="ap"
):
    """A target's answer for one AP case (docs/methodology-ap.md, "What a target answers")."""

    decision: Decision
    fields: dict[FieldName, APField] = {}
    line_items: list[APLineItem] | None = None
    reason_codes: list[ReasonCode] = []
    discrepancies: list[DiscrepancyKind] = []
    duplicate_links: list[Link] = []
    campaign_links: list[Link] = []
    # Outcome class -> probability; a class left out is 0; None: the target gives no forecast.
    probabilities: dict[OutcomeClass, float] | None = None
    notes: list[str] = []  # free text for the people reading a case; never scored
    usage: Usage | None = None
    v: int = AP_VERDICT_VERSION

    def __post_init__(self) -> None:
        if self.v != AP_VERDICT_VERSION:
            raise ValueError(f"APVerdict version {self.v} found, this rabench reads version {AP_VERDICT_VERSION}")
        if self.probabilities is not None:
            for cls, p in self.probabilities.items():
                if not (isinstance(p, (int, float)) and math.isfinite(p) and 0.0 <= p <= 1.0):
                    raise ValueError(f"probability of {cls} is {p!r}, not a number in [0, 1]")
        for link in (*self.duplicate_links, *self.campaign_links):
            if not link.source.strip() or not link.target.strip():
                raise ValueError("a link needs a non-empty source and target")


_decoder = msgspec.json.Decoder(APVerdict)


def decode_ap_verdict(data: bytes | str) -> APVerdict:
    """JSON -> APVerdict, or ValueError with one line naming the problem."""
    try:
        return _decoder.decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ValueError(f"not a valid APVerdict: {str(exc).replace('`', '')}") from None
