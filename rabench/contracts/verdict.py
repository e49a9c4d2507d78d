"""What a target answers for one receipt case: the ``Verdict`` (one member of ``contracts.answer.Answer``)."""

from __future__ import annotations

from typing import Literal

import msgspec

from rabench.contracts.labels import LineItem

ReasonKind = Literal["proof", "check", "file_fact", "plausibility", "opinion"]
# Exactly the kinds of proof the spec counts (RA-Bench 0.2.0, "Evidence").
ProofType = Literal[
    "ai_generator_tag",  # an AI-generator tag read from the file
    "ai_source_type",  # IPTC DigitalSourceType trainedAlgorithmicMedia / composite...
    "generator_tag",  # a receipt/invoice-generator tag
    "pdf_modified",  # PDF modification records (incremental update with changes)
    "thumbnail_mismatch",  # embedded thumbnail doesn't match the image
    "photo_before_purchase",  # photo taken before the printed purchase date
    "arithmetic",  # printed amounts that don't add up (with the numbers)
    "duplicate_match",  # duplicate-network match
]
CheckStatus = Literal["passed", "failed", "not_run"]
MatchKind = Literal["exact", "perceptual", "text"]


class Fields(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """Extracted scalar fields; None means "not shown" / not found."""

    merchant: str | None = None
    date: str | None = None
    subtotal: float | None = None
    tax_total: float | None = None
    total: float | None = None
    currency: str | None = None
    receipt_number: str | None = None


class Check(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """A deterministic check, e.g. ``totals_add_up``, with the numbers it used."""

    name: str
    status: CheckStatus
    fields: list[str] = []
    numbers: dict[str, float] = {}
    detail: str = ""


class Reason(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One reason a reviewer reads. ``fields`` are the ``@field`` tags it points at."""

    text: str
    kind: ReasonKind = "opinion"
    fields: list[str] = []
    proof_type: ProofType | None = None
    check: str | None = None  # name of the deterministic check this reason reports


class Usage(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """Model usage and what this one check cost (None = unknown, never 0 by default)."""

    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None  # what the caller pays for this check
    model_cost_usd: float | None = None  # model tokens x list price


class Verdict(
    msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True, tag_field="suite", tag="receipt"
):
    """What a target answers for one case: fields, line items, checks, risk, reasons (most
    specific first), whether it saw the receipt before, usage and run diagnostics."""

    fields: Fields = Fields()
    line_items: list[LineItem] | None = None
    checks: list[Check] = []
    risk: float | None = None  # in [0, 1]; higher = more likely fake
    reasons: list[Reason] = []  # most specific first
    seen_before: bool | None = None  # None: the target has no memory
    match_kind: MatchKind | None = None
    match_of: str | None = None
    usage: Usage | None = None
    # Notes on how the check ran that are not reasons (e.g. "no submission time: the time rules
    # were not applied"); for the people running the target, never scored.
    diagnostics: list[str] = []
