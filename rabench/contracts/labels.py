"""Ground truth for one case. Targets never see these.

Labels are suite-specific; ``Label`` is a tagged union (tag field ``suite``) so a
second suite (AP invoices) adds its own struct to the union without touching the
runner or the scorer's generic parts.

Receipt scalar fields distinguish three states, as the spec requires:
``UNSET`` (absent from the JSON) = the label does not cover the field and it is
not scored; ``None`` (JSON null) = the document does not show it, only a null
answer is right; a value = the printed value.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

FakeClass = Literal["ai_full", "ai_inpaint", "hand_edit", "generator", "pdf_edit", "photo_date"]
Provenance = Literal["intact", "stripped", "none"]
ScalarField = Literal["merchant", "date", "subtotal", "tax_total", "total", "currency", "receipt_number"]
SCALAR_FIELDS: tuple[str, ...] = (
    "merchant",
    "date",
    "subtotal",
    "tax_total",
    "total",
    "currency",
    "receipt_number",
)
# Field names a reason may point at (``@field`` tags): the scalars plus line items.
FIELD_TAGS: tuple[str, ...] = SCALAR_FIELDS + ("line_items",)


class LineItem(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One printed line; ``total`` is the line's printed amount."""

    description: str
    total: float
    quantity: float | None = None
    unit_price: float | None = None


class Authenticity(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Genuine or fake; for a fake, its class and the fields it changed."""

    verdict: Literal["genuine", "fake"]
    fake_class: FakeClass | None = None
    # Fields the fake changed (ai_inpaint, hand_edit, pdf_edit): drive "edited field named".
    edited_fields: list[ScalarField] = []


class ReceiptLabel(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="suite", tag="receipt"):
    """A receipt's ground truth: authenticity, provenance, the printed fields (absent = not
    labelled, null = not shown), line items and whether the amounts add up."""

    authenticity: Authenticity
    provenance: Provenance = "none"
    merchant: str | None | UnsetType = UNSET
    date: str | None | UnsetType = UNSET  # ISO YYYY-MM-DD
    subtotal: float | None | UnsetType = UNSET
    tax_total: float | None | UnsetType = UNSET
    total: float | None | UnsetType = UNSET
    currency: str | None | UnsetType = UNSET  # ISO 4217
    receipt_number: str | None | UnsetType = UNSET
    line_items: list[LineItem] | UnsetType = UNSET
    # "The printed amounts add up" (UNSET: not labelled).
    adds_up: bool | UnsetType = UNSET

    def covered(self) -> dict[str, object]:
        """The scalar fields this label covers, with their labelled value (None = not shown)."""
        out: dict[str, object] = {}
        for name in SCALAR_FIELDS:
            value = getattr(self, name)
            if value is not UNSET:
                out[name] = value
        return out

    @property
    def is_fake(self) -> bool:
        return self.authenticity.verdict == "fake"


# The union every Case carries; add new suites' label structs here.
Label = ReceiptLabel
