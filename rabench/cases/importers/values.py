"""Printed values -> label values: amounts, dates, currency codes, ids.

Each source prints amounts and dates its own way (SROIE: ``RM 9.00`` and
day-first Malaysian dates; CORD: Indonesian ``25,000`` / ``25.000`` with no
decimals). The rules live here, one function per rule, so that docs/cases.md can
state them exactly and a value that fits no rule is rejected (a bad row), never
guessed.
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

    ``prefixes`` are currency markers allowed before the number (SROIE: ``RM``);
    anything else (``12,3x``, ``12,30``) is not an amount.
    """
    s, negative = _sign(text)
    for prefix in prefixes:
        if s.upper().startswith(prefix.upper()):
            s = s[len(prefix):].strip()
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
            s = s[len(prefix):].strip()
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


_MONTHS = {
    # English and Malay (SROIE receipts print both): MAC = March, MEI = May, OGOS = August,
    # OKT = October, DIS = December.
    "jan": 1, "january": 1, "januari": 1,
    "feb": 2, "february": 2, "februari": 2,
    "mar": 3, "march": 3, "mac": 3,
    "apr": 4, "april": 4,
    "may": 5, "mei": 5,
    "jun": 6, "june": 6,
    "jul": 7, "july": 7, "julai": 7,
    "aug": 8, "august": 8, "ogo": 8, "ogos": 8,
    "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "okt": 10, "oktober": 10,
    "nov": 11, "november": 11,
    "dec": 12, "december": 12, "dis": 12, "disember": 12,
}
_SEP = r"[\s/.\-]+"
_DMY = re.compile(rf"(\d{{1,2}})([/.\-]|\s+)(\d{{1,2}})\2(\d{{4}}|\d{{2}})")
_YMD = re.compile(r"(\d{4})([/.\-])(\d{1,2})\2(\d{1,2})")
_D_MON_Y = re.compile(rf"(\d{{1,2}})(?:{_SEP})?([A-Za-z]{{3,9}})\.?(?:{_SEP}|,\s*)?(\d{{4}}|\d{{2}})")
_MON_D_Y = re.compile(rf"([A-Za-z]{{3,9}})\.?(?:{_SEP})?(\d{{1,2}})(?:,\s*|{_SEP})(\d{{4}})")


def _year(text: str, y: str) -> int:
    return 2000 + int(y) if len(y) == 2 else int(y)


def _make_date(text: str, y: int, m: int, d: int) -> str:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        raise ValueProblem(f'"{text}" is not a valid day-first date') from None


def _month(text: str, name: str) -> int:
    month = _MONTHS.get(name.lower())
    if month is None:
        raise ValueProblem(f'"{text}" is not a date (unknown month "{name}")')
    return month


def parse_day_first_date(text: str) -> str:
    """A date printed day-first (Malaysia) -> ISO ``YYYY-MM-DD``.

    Accepted: ``25/12/2018``, ``25-12-18``, ``25.12.2018``, ``25 12 2018``
    (day, month, year; two-digit years are 20xx), ``25 DEC 2018``,
    ``25-Dec-18``, ``DEC 25, 2018``, and year-first ``2018-12-25`` /
    ``2018/12/25``. A day-first reading that is not a real date
    (``12/25/2018``) is rejected, never flipped.
    """
    s = " ".join(text.split())
    if m := _DMY.fullmatch(s):
        return _make_date(text, _year(text, m[4]), int(m[3]), int(m[1]))
    if m := _YMD.fullmatch(s):
        return _make_date(text, int(m[1]), int(m[3]), int(m[4]))
    if m := _D_MON_Y.fullmatch(s):
        return _make_date(text, _year(text, m[3]), _month(text, m[2]), int(m[1]))
    if m := _MON_D_Y.fullmatch(s):
        return _make_date(text, int(m[3]), _month(text, m[1]), int(m[2]))
    raise ValueProblem(f'"{text}" is not a day-first date')


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
    """A case-id-safe slug: ASCII, lower case, ``[a-z0-9._-]``, other runs -> ``-``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9._-]+", "-", ascii_text.lower()).strip("-._")
    return slug or "receipt"
