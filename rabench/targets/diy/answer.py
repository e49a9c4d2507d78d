"""Read a model's free-text answer to the plain prompt into a Verdict.

Why its own module: every provider returns text, and the same text must give the
same Verdict whichever provider carried it. The rules (docs/targets.md, "Parsing
rules") are lenient about *where* the JSON is (code fences, prose around it) and
strict about *what* it holds: a value of the wrong type that no documented rule
can normalise makes the whole answer ``invalid_output``, never a silently
dropped field, so the same mistake is always scored the same way.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from typing import Any

from rabench.contracts import Fields, LineItem, Reason, Verdict
from rabench.contracts.labels import FIELD_TAGS

MAX_REASONS = 5
MAX_REASON_CHARS = 300
_NULL_WORDS = {"", "null", "none", "n/a", "na", "-", "unknown"}
_TAG_RE = re.compile(r"@(" + "|".join(sorted(FIELD_TAGS, key=len, reverse=True)) + r")\b")
_FENCE_RE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.S)
_ISO_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
# Amount formats, tried in order on the string with symbols and spaces removed.
_PLAIN = re.compile(r"^-?\d+(?:\.\d+)?$")  # 12 / 12.50
_DECIMAL_COMMA = re.compile(r"^-?\d+,\d{1,2}$")  # 12,50 -> 12.5
_THOUSANDS_COMMA = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")  # 1,234.50 / 1,234
_THOUSANDS_DOT = re.compile(r"^-?\d{1,3}(?:\.\d{3})+,\d{1,2}$")  # 1.234,50
_SYMBOLS_RE = re.compile(r"[\s$€£¥₹\u00a0']|^[A-Z]{3}|[A-Z]{3}$")


_RAW = json.JSONDecoder()


class AnswerError(ValueError):
    """The text is not a readable answer; the message says why (shown in the outcome)."""


def parse_answer(text: str) -> Verdict:
    """Text -> Verdict (fields, line items, risk, opinion reasons) or AnswerError."""
    obj = extract_json_object(text)
    fields = Fields(
        merchant=_text(obj, "merchant"),
        date=_date(obj.get("date")),
        subtotal=_amount(obj, "subtotal"),
        tax_total=_amount(obj, "tax_total"),
        total=_amount(obj, "total"),
        currency=_currency(obj.get("currency")),
        receipt_number=_text(obj, "receipt_number", numbers_ok=True),
    )
    return Verdict(
        fields=fields,
        line_items=_line_items(obj.get("line_items")),
        risk=_risk(obj.get("risk")),
        reasons=_reasons(obj.get("reasons")),
    )


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (inside a code fence if there is one)."""
    if not isinstance(text, str) or not text.strip():
        raise AnswerError("empty answer")
    candidates = [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]
    for chunk in candidates:
        start = chunk.find("{")
        while start >= 0:
            # the JSON object starting here, parsed by json's C scanner up to its closing brace
            # (the same object as cutting at the matching brace and json.loads, at C speed)
            try:
                value, _ = _RAW.raw_decode(chunk, start)
            except ValueError:
                value = None
            if isinstance(value, dict):
                return value
            start = chunk.find("{", start + 1)
    raise AnswerError("no JSON object in the answer")


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NULL_WORDS)


def _text(obj: dict[str, Any], key: str, *, numbers_ok: bool = False) -> str | None:
    value = obj.get(key)
    if _is_null(value):
        return None
    if isinstance(value, bool):
        raise AnswerError(f"{key}: expected a string, got {value!r}")
    if numbers_ok and isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise AnswerError(f"{key}: expected a string, got {type(value).__name__}")
    return value.strip()


def _date(value: Any) -> str | None:
    """ISO date or ISO date-time -> YYYY-MM-DD; any other string is kept as written."""
    if _is_null(value):
        return None
    if not isinstance(value, str):
        raise AnswerError(f"date: expected a string, got {type(value).__name__}")
    value = value.strip()
    m = _ISO_DATE_RE.match(value)
    if m:
        try:
            return _dt.date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            raise AnswerError(f"date: {value!r} is not a calendar date") from None
    return value  # not ISO: kept, so the scorer counts it wrong rather than "not shown"


def _currency(value: Any) -> str | None:
    if _is_null(value):
        return None
    if not isinstance(value, str):
        raise AnswerError(f"currency: expected a string, got {type(value).__name__}")
    value = value.strip()
    return value.upper() if re.fullmatch(r"[A-Za-z]{3}", value) else value


def to_amount(value: Any, what: str = "amount") -> float | None:
    """A number, or a numeric string by the documented rules; None for null words."""
    if _is_null(value):
        return None
    if isinstance(value, bool):
        raise AnswerError(f"{what}: expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        s = _SYMBOLS_RE.sub("", value.strip().upper())
        if _PLAIN.match(s):
            number = float(s)
        elif _DECIMAL_COMMA.match(s):
            number = float(s.replace(",", "."))
        elif _THOUSANDS_COMMA.match(s):
            number = float(s.replace(",", ""))
        elif _THOUSANDS_DOT.match(s):
            number = float(s.replace(".", "").replace(",", "."))
        else:
            raise AnswerError(f"{what}: {value!r} is not an amount")
    else:
        raise AnswerError(f"{what}: expected a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise AnswerError(f"{what}: {value!r} is not finite")
    return number


def _amount(obj: dict[str, Any], key: str) -> float | None:
    return to_amount(obj.get(key), key)


def _risk(value: Any) -> float | None:
    risk = to_amount(value, "risk")
    if risk is not None and not 0.0 <= risk <= 1.0:
        raise AnswerError(f"risk: {value!r} is outside [0, 1]")
    return risk


def _line_items(value: Any) -> list[LineItem] | None:
    """A list of items; an item without a description or a total is dropped."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise AnswerError(f"line_items: expected a list, got {type(value).__name__}")
    items: list[LineItem] = []
    for n, raw in enumerate(value):
        if not isinstance(raw, dict):
            raise AnswerError(f"line_items[{n}]: expected an object, got {type(raw).__name__}")
        description = _text(raw, "description")
        quantity = to_amount(raw.get("quantity"), f"line_items[{n}].quantity")
        unit_price = to_amount(raw.get("unit_price"), f"line_items[{n}].unit_price")
        total = to_amount(raw.get("total"), f"line_items[{n}].total")
        if total is None and quantity is not None and unit_price is not None:
            total = round(quantity * unit_price, 2)
        if not description or total is None:
            continue
        items.append(
            LineItem(description=description, total=total, quantity=quantity, unit_price=unit_price)
        )
    return items


def _reasons(value: Any) -> list[Reason]:
    """Up to 5 opinions (a plain prompt has no proofs), with their ``@field`` tags."""
    if _is_null(value):
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise AnswerError(f"reasons: expected a list, got {type(value).__name__}")
    out: list[Reason] = []
    for n, raw in enumerate(value):
        tags: list[str] = []
        if isinstance(raw, dict):
            text = raw.get("text", raw.get("reason"))
            extra = raw.get("fields") or []
            if isinstance(extra, str):
                extra = [extra]
            tags.extend(t.lstrip("@") for t in extra if isinstance(t, str))
        else:
            text = raw
        if not isinstance(text, str):
            raise AnswerError(f"reasons[{n}]: expected a string, got {type(text).__name__}")
        text = " ".join(text.split())[:MAX_REASON_CHARS]
        if not text:
            continue
        tags.extend(_TAG_RE.findall(text))
        fields = [t for t in dict.fromkeys(tags) if t in FIELD_TAGS]
        out.append(Reason(text=text, kind="opinion", fields=fields))
        if len(out) == MAX_REASONS:
            break
    return out
