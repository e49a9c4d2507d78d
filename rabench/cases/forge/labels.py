"""The label and tags of a forged case or genuine control, from its source's label.

A label states what the file shows, so a forgery's label carries the *edited*
values (the new total, date or merchant name, the changed line item), the fake
class, the fields it edited, the provenance its last tool left, and whether the
printed amounts add up. ``adds_up`` is stated only when it is known: from the
source label, or because the OCR found line amounts summing exactly to the
labelled total (``locate``); an edit that changes one amount without the
others is then known not to add up, and one that changes an item and every
amount depending on it is known to.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET

from rabench.cases.forge.make import Output
from rabench.cases.forge.plan import FAKE_CLASS
from rabench.contracts.labels import Authenticity, LineItem, ReceiptLabel

# Tags the source's own values would misdescribe: recomputed for every output.
_RECOMPUTED = ("class", "provenance", "format", "transform", "arithmetic", "forge", "saved")


def _items(items: list[LineItem], old: float, new: float) -> list[LineItem]:
    out = []
    for it in items:
        if abs(it.total - old) < 0.005:
            unit = it.unit_price
            if unit is not None and it.quantity:
                unit = round(new / it.quantity, 2) if abs(unit * it.quantity - old) < 0.01 else unit
            out.append(msgspec.structs.replace(it, total=new, unit_price=unit))
        else:
            out.append(it)
    return out


def forged_label(src: ReceiptLabel, kind: str, o: Output) -> ReceiptLabel:
    """``src`` as the output shows it."""
    fake = kind in FAKE_CLASS
    auth = Authenticity(
        verdict="fake" if fake else "genuine",
        fake_class=FAKE_CLASS[kind] if fake else None,  # type: ignore[arg-type]
        edited_fields=list(o.edited),
    )  # type: ignore[arg-type]
    changes: dict[str, object] = {"authenticity": auth, "provenance": o.provenance or src.provenance}
    for name in ("total", "date", "merchant"):
        if name in o.changes:
            changes[name] = o.changes[name]
    if "line_item" in o.changes and src.line_items is not UNSET:
        old, new = o.changes["line_item"]  # type: ignore[misc]
        changes["line_items"] = _items(list(src.line_items), old, new)  # type: ignore[arg-type]
    if "total" in o.changes and "subtotal_from" in o.changes and isinstance(src.subtotal, float):
        if abs(src.subtotal - float(o.changes["subtotal_from"])) < 0.005:  # type: ignore[arg-type]
            changes["subtotal"] = o.changes["total"]
    before = o.detail.get("adds_up_before")
    if kind == "item_consistent":
        changes["adds_up"] = before is not False  # a slip the source already printed stays
    elif kind == "item_break" or (("total" in o.changes) and before is True):
        changes["adds_up"] = False
    elif "total" in o.changes:
        changes["adds_up"] = UNSET
    elif isinstance(before, bool):
        changes["adds_up"] = before
    return msgspec.structs.replace(src, **changes)


def forged_tags(src: dict[str, str], kind: str, o: Output, label: ReceiptLabel, domain: str | None) -> dict[str, str]:
    tags = {k: v for k, v in src.items() if k not in _RECOMPUTED}
    tags["class"] = FAKE_CLASS.get(kind, "genuine")
    tags["forge"] = kind
    tags["saved"] = o.delivery
    tags["provenance"] = label.provenance
    tags["format"] = {"image/jpeg": "jpeg", "image/png": "png"}.get(o.media_type, o.media_type)
    if o.capture:
        tags["capture"] = o.capture
    if isinstance(label.adds_up, bool):
        tags["arithmetic"] = "consistent" if label.adds_up else "inconsistent"
    if domain:
        tags["domain"] = domain
    return dict(sorted(tags.items()))
