"""Read a model's answer to the AP prompt (``prompts/ap-plain-v1.txt``) into an APVerdict.

The receipt parser's rules (``answer.py``): lenient about where the JSON is (fences, prose),
strict about what it holds. Values the receipt rules normalise are normalised the same way
(amounts "1.234,50", ISO dates, currency case); anything else that breaks the APVerdict
contract — a decision or code outside the vocabulary, a probability outside [0, 1], a box
that is not four fractions — makes the answer ``invalid_output``, never a dropped value.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import Any

import msgspec

from rabench.contracts.ap import AMOUNT_FIELDS, FIELD_NAMES
from rabench.contracts.ap_verdict import APVerdict, decode_ap_verdict
from rabench.targets.diy.answer import AnswerError, _currency, _date, _is_null, extract_json_object, to_amount

AP_PROMPT_VERSION = "ap-plain-v1"
# sha256 of rabench/targets/prompts/<AP_PROMPT_VERSION>.txt; bump the version to change the text.
AP_PROMPT_SHA256 = "752c0a3a49526ac2e19dd6b0ab0c6d1851cbca745cab6f5d6f266a94091e228e"
DATE_FIELDS = ("invoice_date", "due_date")


@cache
def ap_prompt_text(version: str = AP_PROMPT_VERSION) -> str:
    raw = resources.files("rabench.targets").joinpath("prompts", f"{version}.txt").read_bytes()
    if version == AP_PROMPT_VERSION and hashlib.sha256(raw).hexdigest() != AP_PROMPT_SHA256:
        raise RuntimeError(
            f"prompt {version}.txt changed without a new version: add prompts/ap-plain-vN.txt "
            "and bump AP_PROMPT_VERSION / AP_PROMPT_SHA256 instead"
        )
    return raw.decode("utf-8")


def _field_value(name: str, value: Any) -> Any:
    if name in AMOUNT_FIELDS:
        return to_amount(value, name)
    if name in DATE_FIELDS:
        return _date(value)
    if name == "currency":
        return _currency(value)
    if _is_null(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # an invoice or PO number written as a number
    return value.strip() if isinstance(value, str) else value


def _fields(value: Any) -> dict[str, Any]:
    if _is_null(value):
        return {}
    if not isinstance(value, dict):
        raise AnswerError(f"fields: expected an object, got {type(value).__name__}")
    out: dict[str, Any] = {}
    for name, item in value.items():
        if name not in FIELD_NAMES:
            raise AnswerError(f"fields: {name!r} is not one of the invoice fields")
        if isinstance(item, dict):
            entry = {"value": _field_value(name, item.get("value"))}
            if not _is_null(item.get("evidence")):
                entry["evidence"] = item["evidence"]
        else:  # a bare value: no evidence box
            entry = {"value": _field_value(name, item)}
        out[name] = entry
    return out


def _list(value: Any, key: str) -> list[Any]:
    if _is_null(value):
        return []
    if not isinstance(value, list):
        raise AnswerError(f"{key}: expected a list, got {type(value).__name__}")
    return value


def _line_items(value: Any) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    out = []
    for item in _list(value, "line_items"):
        if not isinstance(item, dict) or _is_null(item.get("description")) or _is_null(item.get("total")):
            continue  # as receipts: an item without a description or a total is dropped
        out.append(
            {
                "description": str(item["description"]).strip(),
                "total": to_amount(item["total"], "line total"),
                "quantity": to_amount(item.get("quantity"), "quantity"),
                "unit_price": to_amount(item.get("unit_price"), "unit price"),
            }
        )
    return out


def parse_ap_answer(text: str) -> APVerdict:
    """Text -> APVerdict or AnswerError (the message says why)."""
    obj = extract_json_object(text)
    decision = obj.get("decision")
    if isinstance(decision, str):
        decision = decision.strip().upper().replace(" ", "_")
    probs = obj.get("probabilities")
    clean: dict[str, Any] = {
        "decision": decision,
        "fields": _fields(obj.get("fields")),
        "line_items": _line_items(obj.get("line_items")),
        "reason_codes": [str(c).strip() for c in _list(obj.get("reason_codes"), "reason_codes")],
        "discrepancies": [str(c).strip() for c in _list(obj.get("discrepancies"), "discrepancies")],
        "duplicate_links": _list(obj.get("duplicate_links"), "duplicate_links"),
        "campaign_links": _list(obj.get("campaign_links"), "campaign_links"),
        "probabilities": None if _is_null(probs) else probs,
    }
    if clean["line_items"] is None:
        del clean["line_items"]
    try:
        return decode_ap_verdict(msgspec.json.encode(clean))
    except ValueError as exc:
        raise AnswerError(str(exc)) from None
