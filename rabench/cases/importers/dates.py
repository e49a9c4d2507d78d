"""Printed receipt dates -> ISO ``YYYY-MM-DD``, or "ambiguous", or "not a date".

Data sets transcribe dates the way the receipt prints them, and one set can mix
conventions: SROIE is Malaysian (day first) yet holds ``12/28/2017``. So a
numeric date is read in every order the source may use, and only a date that
exactly one reading makes real is labelled. ``06/03/2018`` in a set that mixes
day-first and month-first is 6 March or June 3: it raises ``AmbiguousDate`` and
the importer leaves the field out (not covered) and counts it, since a guessed
date in a label is a wrong answer key. A text no rule reads raises
``ValueProblem`` (a bad row). The exact rules are in docs/cases.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from rabench.cases.importers.values import ValueProblem

ORDERS = ("dmy", "mdy")  # the day/month orders a numeric ``a/b/year`` date may be printed in
YEARS = range(1970, 2100)  # a receipt's year; a reading outside is no reading

_MONTHS = {
    # English and Malay (SROIE receipts print both): MAC = March, MEI = May, OGOS = August,
    # OKT = October, DIS = December.
    "jan": 1,
    "january": 1,
    "januari": 1,
    "feb": 2,
    "february": 2,
    "februari": 2,
    "mar": 3,
    "march": 3,
    "mac": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "mei": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "julai": 7,
    "aug": 8,
    "august": 8,
    "ogo": 8,
    "ogos": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "okt": 10,
    "oktober": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
    "dis": 12,
    "disember": 12,
}
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_SEP = r"[\s/.\-]+"
_Y = r"(\d{4}|\d{2})"
_NUMERIC = re.compile(rf"(\d{{1,2}})([/.\-]|\s)(\d{{1,2}})\2{_Y}")
_YEAR_FIRST = re.compile(r"(\d{4})([/.\-]|\s)(\d{1,2})\2(\d{1,2})")
_COMPACT = re.compile(r"\d{8}")
_D_MON_Y = re.compile(rf"(\d{{1,2}})(?:{_SEP})?([A-Za-z]{{3,9}})\.?(?:{_SEP}|,\s*)?{_Y}")
_MON_D_Y = re.compile(rf"([A-Za-z]{{3,9}})\.?(?:{_SEP})?(\d{{1,2}})(?:,\s*|{_SEP}){_Y}")
_Y_MON_D = re.compile(rf"(\d{{4}})(?:{_SEP})([A-Za-z]{{3,9}})\.?(?:{_SEP})(\d{{1,2}})")
_TIME = r"\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:\s*[AaPp]\.?[Mm]\.?)?(?:\s*(?:Z|[+-]\d{2}:?\d{2}))?"
_TIME_AFTER = re.compile(rf"(?P<date>.+?)(?:\s*T\s*|[\s,]*)(?P<time>{_TIME})")
_TIME_BEFORE = re.compile(rf"(?P<time>{_TIME})[\s,]+(?P<date>.+)")
_BRACKETS = {"(": ")", "[": "]", "{": "}", "<": ">"}


class AmbiguousDate(ValueProblem):
    """A date that more than one allowed reading makes real; ``readings`` are those dates (ISO)."""

    def __init__(self, text: str, readings: list[tuple[str, str]]):
        self.readings = tuple(iso for iso, _ in readings)
        said = " or ".join(f"{_spoken(iso)} ({how})" for iso, how in readings)
        super().__init__(f'"{text}" is ambiguous: {said}')


def _spoken(iso: str) -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    return f"{d} {_MONTH_NAMES[m - 1]} {y}"


def _valid(y: int, m: int, d: int) -> str | None:
    if y not in YEARS:
        return None
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _year(y: str) -> int:
    return 2000 + int(y) if len(y) == 2 else int(y)


def _month(text: str, name: str) -> int:
    month = _MONTHS.get(name.lower())
    if month is None:
        raise ValueProblem(f'"{text}" is not a date (unknown month "{name}")')
    return month


def _pick(text: str, readings: Iterable[tuple[str | None, str]]) -> str:
    """The one real date among the readings; AmbiguousDate if several differ, ValueProblem if none."""
    found: dict[str, str] = {}
    for iso, how in readings:
        if iso is not None:
            found.setdefault(iso, how)
    if not found:
        raise ValueProblem(f'"{text}" is not a valid date')
    if len(found) > 1:
        raise AmbiguousDate(text, sorted(found.items()))
    return next(iter(found))


def _unwrap(s: str) -> str:
    """Drop wrapping brackets (``(06/12/2016)``) and a time printed before or after the date."""
    while len(s) >= 2 and _BRACKETS.get(s[0]) == s[-1]:
        s = s[1:-1].strip()
    return s


def _read(text: str, s: str, orders: tuple[str, ...]) -> str | None:
    """The ISO date of ``s`` if it is one of the date forms; None if it is none of them."""
    if m := _NUMERIC.fullmatch(s):
        a, b, y = int(m[1]), int(m[3]), _year(m[4])
        by_order = {"dmy": (_valid(y, b, a), "day first"), "mdy": (_valid(y, a, b), "month first")}
        return _pick(text, (by_order[o] for o in orders))
    if m := _YEAR_FIRST.fullmatch(s):
        return _pick(text, [(_valid(int(m[1]), int(m[3]), int(m[4])), "year first")])
    if _COMPACT.fullmatch(s):
        n = [int(s[i:j]) for i, j in ((0, 2), (2, 4), (4, 8), (0, 4), (4, 6), (6, 8))]
        dd, mm, yyyy, y4, m2, d2 = n
        readings = [(_valid(y4, m2, d2), "YYYYMMDD")]
        if "dmy" in orders:
            readings.append((_valid(yyyy, mm, dd), "DDMMYYYY"))
        if "mdy" in orders:
            readings.append((_valid(yyyy, dd, mm), "MMDDYYYY"))
        return _pick(text, readings)
    if m := _D_MON_Y.fullmatch(s):
        return _pick(text, [(_valid(_year(m[3]), _month(text, m[2]), int(m[1])), "day, month name")])
    if m := _MON_D_Y.fullmatch(s):
        return _pick(text, [(_valid(_year(m[3]), _month(text, m[1]), int(m[2])), "month name, day")])
    if m := _Y_MON_D.fullmatch(s):
        return _pick(text, [(_valid(int(m[1]), _month(text, m[2]), int(m[3])), "year, month name")])
    return None


def parse_printed_date(text: str, *, orders: tuple[str, ...] = ORDERS) -> str:
    """A printed date -> ISO ``YYYY-MM-DD``.

    ``orders`` are the day/month orders the source may print numeric dates in
    (``("dmy",)`` for a source known to be day-first only; both for a mixed one).
    Raises ``AmbiguousDate`` when more than one reading is a real date and they
    differ, ``ValueProblem`` when the text is no date form or no reading is real.
    """
    unknown = [o for o in orders if o not in ORDERS]
    if unknown or not orders:
        raise ValueError(f"orders must be a non-empty subset of {ORDERS}, not {orders}")
    s = _unwrap(" ".join(text.split()))
    iso = _read(text, s, orders)
    if iso is not None:
        return iso
    for pattern in (_TIME_AFTER, _TIME_BEFORE):
        if (m := pattern.fullmatch(s)) and (iso := _read(text, _unwrap(m["date"].strip(" ,")), orders)):
            return iso
    raise ValueProblem(f'"{text}" is not a date')
