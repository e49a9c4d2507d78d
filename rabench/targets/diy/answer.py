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
import functools
import json
import math
import re
from typing import Any

import msgspec

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
    fast = _typed_object(text)
    if fast is not None:  # the same values json would give for the keys read below
        return _verdict(
            fast.merchant,
            fast.date,
            fast.subtotal,
            fast.tax_total,
            fast.total,
            fast.currency,
            fast.receipt_number,
            fast.line_items,
            fast.risk,
            fast.reasons,
        )
    return verdict_of_object(extract_json_object(text))


def verdict_of_object(obj: dict[str, Any]) -> Verdict:
    """The general path: the answer's JSON object as json decoded it."""
    get = obj.get
    return _verdict(
        get("merchant"),
        get("date"),
        get("subtotal"),
        get("tax_total"),
        get("total"),
        get("currency"),
        get("receipt_number"),
        get("line_items"),
        get("risk"),
        get("reasons"),
    )


def _verdict(
    merchant: Any,
    date: Any,
    subtotal: Any,
    tax_total: Any,
    total: Any,
    currency: Any,
    receipt_number: Any,
    line_items: Any,
    risk: Any,
    reasons: Any,
) -> Verdict:
    fields = Fields(
        merchant=_text(merchant, "merchant"),
        date=_date(date),
        subtotal=to_amount(subtotal, "subtotal"),
        tax_total=to_amount(tax_total, "tax_total"),
        total=to_amount(total, "total"),
        currency=_currency(currency),
        receipt_number=_text(receipt_number, "receipt_number", numbers_ok=True),
    )
    return Verdict(
        fields=fields,
        line_items=_line_items(line_items),
        risk=_risk(risk),
        reasons=_reasons(reasons),
    )


class _Answer(msgspec.Struct):
    """The keys ``parse_answer`` reads, each decoded as json would decode it (``Any``); other
    keys are skipped without being built."""

    merchant: Any = None
    date: Any = None
    subtotal: Any = None
    tax_total: Any = None
    total: Any = None
    currency: Any = None
    receipt_number: Any = None
    line_items: Any = None
    risk: Any = None
    reasons: Any = None


_answer_decoder = msgspec.json.Decoder(_Answer)


def _typed_object(text: str) -> _Answer | None:
    """The fast path of ``extract_json_object``: the first candidate chunk, from its first
    ``{`` to its last ``}``, decoded by msgspec in one go. When that span is one JSON object
    it is the very object ``extract_json_object`` returns (an object ends at its own closing
    brace, so the value starting at that ``{`` is the whole span), and msgspec gives each
    value json's: it accepts no input json rejects (json additionally takes NaN/Infinity and
    lone surrogates, which msgspec refuses). Anything else -- prose with braces after the
    object, a first ``{`` that starts no object, NaN, a top-level key written twice with a
    nested object (msgspec keeps the last, like json) -- gives None: the general path decides.
    """
    if not isinstance(text, str):
        return None
    fence = _FENCE_RE.search(text) if "```" in text else None
    chunk = fence.group(1) if fence is not None else text
    start = chunk.find("{")
    end = chunk.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        return _answer_decoder.decode(chunk[start : end + 1])
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


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


_NULL_MAX = max(map(len, _NULL_WORDS))


def _is_null(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    value = value.strip()
    return len(value) <= _NULL_MAX and value.lower() in _NULL_WORDS


def _text(value: Any, key: str, *, numbers_ok: bool = False) -> str | None:
    if type(value) is str:  # the usual case, first: _is_null's test, once
        value = value.strip()
        return None if len(value) <= _NULL_MAX and value.lower() in _NULL_WORDS else value
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
    return _date_text(value.strip())


@functools.lru_cache(maxsize=4096)
def _date_text(value: str) -> str:
    """A stripped date string -> YYYY-MM-DD, or as written (pure: remembered, since a study's
    receipts share few dates; an AnswerError is raised again each time, never remembered)."""
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
    # three ASCII letters ([A-Za-z]{3}), tested without the regex engine
    return value.upper() if len(value) == 3 and value.isascii() and value.isalpha() else value


def to_amount(value: Any, what: str = "amount") -> float | None:
    """A number, or a numeric string by the documented rules; None for null words."""
    if type(value) is float and math.isfinite(value):  # the usual case, first
        return value
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
        description = _text(raw.get("description"), "description")
        quantity = _item_amount(raw.get("quantity"), n, "quantity")
        unit_price = _item_amount(raw.get("unit_price"), n, "unit_price")
        total = _item_amount(raw.get("total"), n, "total")
        if total is None and quantity is not None and unit_price is not None:
            total = round(quantity * unit_price, 2)
        if not description or total is None:
            continue
        items.append(LineItem(description=description, total=total, quantity=quantity, unit_price=unit_price))
    return items


def _item_amount(value: Any, n: int, key: str) -> float | None:
    """``to_amount`` of a line item's value, naming it only when there is something to say."""
    kind = type(value)
    if kind is float and math.isfinite(value):
        return value  # type: ignore[no-any-return]
    if kind is int or value is None:
        return None if value is None else float(value)
    return to_amount(value, f"line_items[{n}].{key}")


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
        if "@" in text:
            tags.extend(_TAG_RE.findall(text))
        fields = [t for t in dict.fromkeys(tags) if t in FIELD_TAGS] if tags else []
        out.append(Reason(text=text, kind="opinion", fields=fields))
        if len(out) == MAX_REASONS:
            break
    return out
