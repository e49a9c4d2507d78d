"""Printed values -> label values: amounts, dates, currency codes, ids.

Each source prints amounts its own way (SROIE: ``RM 9.00``, ``$6.60``; CORD:
Indonesian ``25,000`` / ``25.000`` with no decimals). The rules live here, one
function per rule, so that docs/cases.md can state them exactly and a value that
fits no rule is rejected (a bad row), never guessed. Printed dates have their
own module (``dates``): they can be ambiguous, which amounts cannot.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from decimal import Decimal, InvalidOperation


class ValueProblem(ValueError):
    """A printed value that fits none of the rules; the message is the user-facing problem."""


def _finite(text: str, body: str, negative: bool) -> float:
    try:
        value = Decimal(body)
    except InvalidOperation:
        raise ValueProblem(f'"{text}" is not an amount') from None
    return float(-value if negative else value)


def _sign(s: str) -> tuple[str, bool]:
    """Strip a leading minus or wrapping parentheses (accounting negative)."""
    s = s.strip()
    if s.startswith("(") and s.endswith(")"):
        return s[1:-1].strip(), True
    if s.startswith("-"):
        return s[1:].strip(), True
    return s, False


_PLAIN = re.compile(r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?")


def parse_plain_amount(text: str, *, prefixes: tuple[str, ...] = ()) -> float:
    """``12.30``, ``1,234.50``, ``-3`` -> float: dot decimal, commas only as thousands separators.

    ``prefixes`` are currency markers allowed before the number (SROIE: ``RM``,
    ``MYR``, ``$``); they say nothing about the currency label. Anything else
    (``12,3x``, ``12,30``, ``9.00 RM``) is not an amount.
    """
    s, negative = _sign(text)
    for prefix in prefixes:
        if s.upper().startswith(prefix.upper()):
            s = s[len(prefix) :].strip()
            if not negative:
                s, negative = _sign(s)  # "RM -3.00"
            break
    m = _PLAIN.fullmatch(s)
    if not m:
        raise ValueProblem(f'"{text}" is not an amount')
    body = m["int"].replace(",", "") + (f".{m['frac']}" if m["frac"] else "")
    return _finite(text, body, negative)


_IDR = re.compile(
    r"(?P<int>\d{1,3}(?:(?P<sep>[.,])\d{3}(?:(?P=sep)\d{3})*)|\d+)"
    r"(?:(?P<dec>[.,])(?P<frac>\d{1,2}))?"
)


def parse_idr_amount(text: str, *, allow_at: bool = False) -> float:
    """Indonesian printed amounts (CORD) -> float.

    ``Rp``/``IDR`` prefixes and spaces are dropped. A ``.`` or ``,`` followed by
    exactly three digits is a thousands separator (IDR has no minor unit):
    ``25,000`` = ``25.000`` = 25000. A final separator followed by one or two
    digits is a decimal point (``25.000,00`` = 25000). Mixed or ambiguous forms
    (``1,500,50``, ``1234,000``) are not amounts. ``allow_at`` accepts a leading
    ``@`` (unit prices print as ``@12,000``).
    """
    s, negative = _sign(text)
    if allow_at and s.startswith("@"):
        s = s[1:].strip()
    for prefix in ("IDR", "Rp.", "Rp", "RP.", "RP"):
        if s.startswith(prefix):
            s = s[len(prefix) :].strip()
            break
    if not negative:
        s, negative = _sign(s)
    s = s.replace(" ", "")
    m = _IDR.fullmatch(s)
    if not m or (m["sep"] and m["dec"] and m["sep"] == m["dec"]):
        raise ValueProblem(f'"{text}" is not an amount')
    sep = m["sep"] or ""
    body = m["int"].replace(sep, "") if sep else m["int"]
    if m["frac"]:
        body += f".{m['frac']}"
    return _finite(text, body, negative)


def parse_iso_date(text: str) -> str:
    """Exactly ``YYYY-MM-DD`` (the label format); anything else is rejected."""
    s = text.strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        raise ValueProblem(f'"{text}" is not an ISO date (YYYY-MM-DD)')
    try:
        return date.fromisoformat(s).isoformat()
    except ValueError:
        raise ValueProblem(f'"{text}" is not a valid date') from None


def parse_currency(text: str) -> str:
    """An ISO 4217 code: three letters, upper-cased (``myr`` -> ``MYR``)."""
    s = text.strip()
    if not re.fullmatch(r"[A-Za-z]{3}", s):
        raise ValueProblem(f'"{text}" is not an ISO 4217 currency code (three letters, e.g. EUR)')
    return s.upper()


def squash(text: str) -> str:
    """Trim and collapse runs of whitespace (key files pad and wrap names)."""
    return " ".join(text.split())


def slugify(text: str) -> str:
    """A case-id-safe slug: ASCII, lower case, ``[a-z0-9._-]``, other runs -> ``-``, at most
    96 characters (the id rule allows 128: room for a ``-2`` and derive's ``--reencode-1``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9._-]+", "-", ascii_text.lower()).strip("-._")
    return slug[:96].rstrip("-._") or "receipt"
