"""Answer texts the fake provider writes: right, wrong or unreadable.

With a suite (``--suite DIR``), a "right" answer is read from the case's label,
found by the sha256 of the image the request carries (the prepared image, or
the original file when preparation passed it through). The fake then plays a
perfect model; without a label it answers about a canned receipt. Answers come
in the shapes real models use (bare JSON, a ```json fence, prose around it) so
that the client's parser is exercised over the wire, not just in unit tests.
"""

from __future__ import annotations

import json
import random
from typing import Any

from msgspec import UNSET

from rabench.contracts import ReceiptLabel
from rabench.contracts.ap import APLabel
from rabench.fakeprovider.ap_answers import ap_answer_object, ap_wrong_object

CANNED: dict[str, Any] = {
    "merchant": "Fake Provider Cafe",
    "date": "2025-03-14",
    "subtotal": 10.0,
    "tax_total": 0.8,
    "total": 10.8,
    "currency": "USD",
    "receipt_number": "FP-0001",
    "line_items": [
        {"description": "Flat white", "quantity": 2, "unit_price": 3.5, "total": 7.0},
        {"description": "Croissant", "quantity": 1, "unit_price": 3.0, "total": 3.0},
    ],
    "risk": 0.1,
    "reasons": ["print and layout look like a normal till receipt"],
}


def answer_object(label: ReceiptLabel | None) -> dict[str, Any]:
    """What a perfect model would answer for this label (the canned receipt without one)."""
    if label is None:
        return json.loads(json.dumps(CANNED))
    out: dict[str, Any] = {}
    for name in ("merchant", "date", "subtotal", "tax_total", "total", "currency", "receipt_number"):
        value = getattr(label, name)
        out[name] = None if value is UNSET else value
    items = [] if label.line_items is UNSET else label.line_items
    out["line_items"] = [
        {"description": i.description, "quantity": i.quantity, "unit_price": i.unit_price, "total": i.total}
        for i in items
    ]
    if label.is_fake:
        out["risk"] = 0.85
        fields = list(label.authenticity.edited_fields) or ["total"]
        out["reasons"] = [f"@{f} looks altered" for f in fields[:3]] + ["fonts are inconsistent"]
    else:
        out["risk"] = 0.1
        out["reasons"] = ["looks like an ordinary receipt"]
    return out


def wrong_object(label: ReceiptLabel | None) -> dict[str, Any]:
    """A confident wrong answer: other merchant, total off by 5, risk flipped."""
    obj = answer_object(label)
    obj["merchant"] = "Somewhere Else Ltd"
    if isinstance(obj.get("total"), (int, float)):
        obj["total"] = round(obj["total"] + 5.0, 2)
    else:
        obj["total"] = 5.0
    obj["risk"] = round(1.0 - float(obj.get("risk") or 0.0), 2)
    obj["reasons"] = ["@merchant name seems fine"]
    return obj


def render(obj: dict[str, Any], rng: random.Random) -> str:
    """The JSON in one of the shapes models write it."""
    body = json.dumps(obj, ensure_ascii=False)
    style = rng.randrange(3)
    if style == 0:
        return body
    if style == 1:
        return "```json\n" + json.dumps(obj, ensure_ascii=False, indent=2) + "\n```"
    return "Here is what I read from the receipt:\n" + body + "\nLet me know if you need more."


def answer_text(behaviour: str, label: ReceiptLabel | APLabel | None, rng: random.Random) -> str:
    """The answer for a receipt label, an AP case's label (the AP prompt's shape), or none."""
    if behaviour == "unreadable":
        return "The image is too blurry for me to read the amounts reliably, sorry."
    if isinstance(label, APLabel):
        return render(ap_wrong_object(label) if behaviour == "wrong" else ap_answer_object(label), rng)
    if behaviour == "wrong":
        return render(wrong_object(label), rng)
    return render(answer_object(label), rng)
