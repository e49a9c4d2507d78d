"""AP answers the fake provider writes (``prompts/ap-plain-v1.txt``): right, wrong or unreadable.

With an ``ap`` suite (``--suite DIR``) a "right" answer is read from the case's label, found
by the sha256 of the invoice image the request carries: the fake then plays a perfect
analyst (decision, fields with their boxes, codes, links, 0.9 on the true outcome class).
"wrong" is the confident mistake that matters most in AP: PAY, 0.9 on "safe", no codes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rabench.contracts.ap import OUTCOME_CLASSES, APLabel

CANNED: dict[str, Any] = {
    "decision": "NEEDS_REVIEW",
    "fields": {"vendor_name": {"value": "Fake Provider Supplies Ltd", "evidence": None}},
    "line_items": [],
    "reason_codes": [],
    "discrepancies": [],
    "duplicate_links": [],
    "campaign_links": [],
    "probabilities": {c: round(1 / len(OUTCOME_CLASSES), 4) for c in OUTCOME_CLASSES},
}


def ap_answer_object(label: APLabel | None) -> dict[str, Any]:
    if label is None:
        return msgspec.json.decode(msgspec.json.encode(CANNED))
    rest = 0.1 / (len(OUTCOME_CLASSES) - 1)
    return {
        "decision": label.decision,
        "fields": {name: msgspec.to_builtins(g) for name, g in label.fields.items()},
        "line_items": [msgspec.to_builtins(i) for i in label.line_items],
        "reason_codes": list(label.reason_codes),
        "discrepancies": list(label.discrepancies),
        "duplicate_links": [msgspec.to_builtins(x) for x in label.duplicate_links],
        "campaign_links": [msgspec.to_builtins(x) for x in label.campaign_links],
        "probabilities": {c: (0.9 if c == label.outcome else rest) for c in OUTCOME_CLASSES},
    }


def ap_wrong_object(label: APLabel | None) -> dict[str, Any]:
    obj = ap_answer_object(label)
    obj.update(decision="PAY", reason_codes=[], discrepancies=[], duplicate_links=[], campaign_links=[])
    rest = 0.1 / (len(OUTCOME_CLASSES) - 1)
    obj["probabilities"] = {c: (0.9 if c == "safe" else rest) for c in OUTCOME_CLASSES}
    return obj
