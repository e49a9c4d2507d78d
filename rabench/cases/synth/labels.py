"""A printed ``Doc`` as a ``ReceiptLabel``: the values the document *prints* (for a fake, the edited ones)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rabench.contracts.labels import Authenticity, LineItem, ReceiptLabel
from rabench.cases.synth.document import Doc, adds_up
from rabench.cases.synth.layouts import printed_merchant

if TYPE_CHECKING:
    from rabench.cases.synth.build import Spec

EDITING_CLASSES = ("ai_inpaint", "hand_edit", "pdf_edit")


def _amt(v: int | None, doc: Doc) -> float | None:
    if v is None:
        return None
    return round(v / 10**doc.loc.currency.decimals, doc.loc.currency.decimals)


def label_for(doc: Doc, spec: Spec) -> ReceiptLabel:
    fake = spec.cls != "genuine"
    auth = Authenticity(
        verdict="fake" if fake else "genuine",
        fake_class=spec.cls if fake else None,  # type: ignore[arg-type]
        edited_fields=[spec.edit] if spec.cls in EDITING_CLASSES and spec.edit else [],  # type: ignore[list-item]
    )
    items = [
        LineItem(
            description=i.desc,
            total=_amt(i.total, doc) or 0.0,
            quantity=float(i.qty) if i.qty is not None else None,
            unit_price=_amt(i.unit, doc) if i.unit is not None else None,
        )
        for i in doc.items
    ]
    return ReceiptLabel(
        authenticity=auth,
        provenance=spec.provenance,  # type: ignore[arg-type]
        merchant=printed_merchant(doc),
        date=doc.when.isoformat(),
        subtotal=_amt(doc.subtotal, doc),
        tax_total=_amt(doc.tax, doc),
        total=_amt(doc.total, doc),
        currency=doc.loc.currency.code,
        receipt_number=doc.receipt_number,
        line_items=items,
        adds_up=adds_up(doc),
    )
