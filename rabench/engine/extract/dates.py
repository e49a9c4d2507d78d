"""Printed dates -> ISO dates, with day-first vs month-first decided by evidence.

``03/04/2024`` is the 3rd of April in Paris and March 4th in New York. The
order is decided, strongest evidence first, by: a component above 12 in this
date; another numeric date on the same receipt whose order is unambiguous;
month names; the receipt's language (German, French, Spanish... are
day-first); the currency's country (USD is month-first, JPY year-first).
``parse_dates`` also says whether the order was *proven* by the text itself,
because a proof that rests on a date (photo taken before purchase) must only
use a date that parses unambiguously.
"""

from __future__ import annotations

import datetime as dt
import re

import msgspec

MONTHS: dict[str, int] = {}
for _num, _names in enumerate(
    [
        "january jan janvier janv januar jän jaen enero ene gennaio gen januari 1月",
        "february feb février fevrier févr fevr februar febrero febbraio februari",
        "march mar mars märz maerz marz marzo mrt maart",
        "april apr avril abril aprile",
        "may mai mayo maggio mei",
        "june jun juin juni junio giugno",
        "july jul juillet juil juli julio luglio",
        "august aug août aout august agosto ago augustus",
        "september sep sept septembre septiembre settembre set",
        "october oct octobre oktober okt octubre ottobre ott",
        "november nov novembre noviembre",
        "december dec décembre decembre déc dezember dez diciembre dic dicembre",
    ],
    start=1,
):
    for _n in _names.split():
        MONTHS[_n] = _num

_MONTH_RE = "|".join(sorted((re.escape(m) for m in MONTHS if not m[0].isdigit()), key=len, reverse=True))

DAY_FIRST_LANGUAGES = {"de", "fr", "es", "it", "nl", "pt", "pl", "cs", "tr", "da", "no"}


class DateCandidate(msgspec.Struct, frozen=True):
    iso: str
    text: str
    row: int  # row index it was found in
    unambiguous: bool  # the text alone fixes day, month and year
    labelled: bool = False  # on a row that says "Date"/"Datum"/"Fecha"...
    # The earliest date the printed text can mean (day-first or month-first). Whatever the
    # order, the purchase was not before it: a photo taken a day before *this* was taken
    # before the purchase, so a proof can rest on it when the order itself is unsettled.
    earliest: str = ""  # "" = the same as iso

    @property
    def earliest_iso(self) -> str:
        return self.earliest or self.iso


_NUMERIC = re.compile(r"(?<!\d)(\d{1,4})([./\-])(\d{1,2})\2(\d{2,4})(?!\d)")
_YMD_CJK = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
_DMONY = re.compile(r"(?<!\d)(\d{1,2})\.?\s*(?:de\s+)?(" + _MONTH_RE + r")\.?,?\s*(?:de\s+)?'?(\d{4}|\d{2})(?!\d)", re.I)
_MONDY = re.compile(r"(?<![A-Za-z])(" + _MONTH_RE + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)", re.I)
_DATE_LABEL = re.compile(r"(?<![a-z])(date|datum|fecha|data|le|dated|issued|ausgestellt)(?![a-z])|日付", re.I)
MAX_YEAR = dt.date.today().year + 5  # a receipt is not printed decades ahead


def _year(y: str) -> int:
    n = int(y)
    return n + 2000 if n < 100 else n


def _valid(y: int, m: int, d: int) -> str | None:
    try:
        return dt.date(y, m, d).isoformat() if 1990 <= y <= MAX_YEAR else None
    except ValueError:
        return None


def numeric_orders(a: str, b: str, c: str) -> dict[str, str]:
    """Every reading of ``a/b/c`` that is a real date: order -> ISO."""
    out: dict[str, str] = {}
    if len(a) == 4:
        iso = _valid(int(a), int(b), int(c))
        if iso:
            out["YMD"] = iso
        return out
    if len(c) not in (2, 4):
        return out
    y = _year(c)
    for order, (d, m) in (("DMY", (a, b)), ("MDY", (b, a))):
        iso = _valid(y, int(m), int(d))
        if iso:
            out[order] = iso
    return out


def parse_dates(
    rows: list[str], *, language: str | None = None, country_order: str | None = None
) -> list[DateCandidate]:
    """Every date printed on the receipt, with the numeric ones resolved by evidence."""
    named: list[DateCandidate] = []
    numeric: list[tuple[int, str, dict[str, str], bool]] = []
    for i, text in enumerate(rows):
        labelled = bool(_DATE_LABEL.search(text))
        for m in _YMD_CJK.finditer(text):
            iso = _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            if iso:
                named.append(DateCandidate(iso, m.group(0), i, True, labelled))
        for m in _DMONY.finditer(text):
            iso = _valid(_year(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)))
            if iso:
                named.append(DateCandidate(iso, m.group(0), i, len(m.group(3)) == 4, labelled))
        for m in _MONDY.finditer(text):
            iso = _valid(int(m.group(3)), MONTHS[m.group(1).lower()], int(m.group(2)))
            if iso:
                named.append(DateCandidate(iso, m.group(0), i, True, labelled))
        for m in _NUMERIC.finditer(text):
            a, _, b, c = m.groups()
            readings = numeric_orders(a, b, c)
            if readings:
                numeric.append((i, m.group(0), readings, labelled))

    # Evidence from the document: orders forced by some date's components.
    forced = {next(iter(r)) for _, _, r, _ in numeric if len(r) == 1}
    forced.discard("YMD")
    forced_by_document = len(forced) == 1
    if forced_by_document:
        preferred = forced.pop()
    elif language in DAY_FIRST_LANGUAGES:
        preferred = "DMY"
    elif country_order in ("DMY", "MDY"):
        preferred = country_order
    elif language == "en" and country_order is None:
        preferred = "MDY"
    else:
        preferred = "DMY"

    out = list(named)
    for i, text, readings, labelled in numeric:
        four_digit_year = bool(re.match(r"\d{4}", text)) or bool(re.search(r"\d{4}$", text))
        if len(readings) == 1:
            iso = next(iter(readings.values()))
            out.append(DateCandidate(iso, text, i, four_digit_year, labelled))
        else:
            iso = readings.get(preferred) or next(iter(readings.values()))
            same = readings.get("DMY") == readings.get("MDY")  # e.g. 05/05/2024
            # another date on the receipt fixing the order counts as the text itself
            settled = same or forced_by_document
            earliest = min(v for k, v in readings.items() if k in ("DMY", "MDY"))
            out.append(DateCandidate(iso, text, i, settled and four_digit_year, labelled, earliest))
    out.sort(key=lambda c: c.row)
    return out


def pick_date(candidates: list[DateCandidate]) -> DateCandidate | None:
    """The purchase date: a labelled date first, else the first date on the receipt."""
    if not candidates:
        return None
    labelled = [c for c in candidates if c.labelled]
    return (labelled or candidates)[0]
