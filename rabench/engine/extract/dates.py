"""Printed dates -> ISO dates, with day-first vs month-first decided by evidence.

``03/04/2024`` is the 3rd of April in Paris and March 4th in New York. The
order is decided, strongest evidence first, by: a component above 12 in this
date; another numeric date on the same receipt whose order is unambiguous;
month names; the receipt's language (German, French, Spanish... are
day-first); the currency's country (USD is month-first, JPY year-first).
``parse_dates`` also says whether the order was *proven* by the text itself,
because a proof that rests on a date (photo taken before purchase) must only
use a date that parses unambiguously, and whether the receipt *attributes* the
date to the purchase: a date-labelled row, a date printed with a time, or a
date standing on its own in the header. A digit run inside an item code
("XE11-22-30") or a card's expiry date is not the purchase date, and no proof
may rest on it.

OCR glues a time to a date: "25.04.2009:38" is the 25th of April 2020 at 09:38
(a two-digit year then the hour: a four-digit year is never followed by ":mm"),
"10/03/20185:41:06" is 2018 at 5:41, and "09:3825.04.2020" a time then a date.
"""

from __future__ import annotations

import datetime as dt
import re

import msgspec

MONTHS: dict[str, int] = {}
for _num, _names in enumerate(
    [
        # (then Portuguese, Scandinavian, Polish, Czech, Indonesian, Malay and Turkish names and the short
        # forms tills print: "14 avr. 2023", "14. Mär. 2023", "14 mag 2023", "14 de março de 2023",
        # "14 augusti 2023", "14 Agu 2023", "14 Disember 2023", "14 Ekim 2023")
        "january jan janvier janv januar jän jaen enero ene gennaio gen januari 1月 janeiro stycznia ledna ocak",
        "february feb février fevrier févr fevr februar febrero febbraio februari"
        " fevereiro lutego února unora şubat subat",
        "march mar mars märz maerz marz marzo mrt maart mär mrz março marco marts marca března brezna mac mart",
        "april apr avril abril aprile apri1 avr abr kwietnia dubna nisan",
        "may mai mayo maggio mei mag maio maj maja května kvetna mayıs mayis",
        "june jun juin juni junio giugno giu junho czerwca června cervna haziran",
        "july jul juillet juil juli julio luglio ju1 ju1y lug julho lipca července cervence julai temmuz",
        "august aug août aout august agosto ago augustus augusti sierpnia srpna agustus agu ogos ogo ağustos",
        "september sep sept septembre septiembre settembre set setiembre setembro września wrzesnia září zari sett eylül eylul",
        "october oct octobre oktober okt octubre ottobre ott 0ct 0ctober 0kt outubro października pazdziernika ekim"
        " října rijna",
        "november nov novembre noviembre n0v novembro listopada listopadu nopember nop kasım kasim",
        "december dec décembre decembre déc dezember dez diciembre dic dicembre dezembro grudnia prosince desember des disember aralık aralik",
    ],
    start=1,
):
    for _n in _names.split():
        MONTHS[_n] = _num

_MONTH_RE = "|".join(sorted((re.escape(m) for m in MONTHS if "月" not in m), key=len, reverse=True))

DAY_FIRST_LANGUAGES = {"de", "fr", "es", "it", "nl", "pt", "pl", "cs", "tr", "da", "no"}


class DateCandidate(msgspec.Struct, frozen=True):
    iso: str
    text: str
    row: int  # row index it was found in
    unambiguous: bool  # the text alone fixes day, month and year
    labelled: bool = False  # on a row that says "Date"/"Datum"/"Fecha"...
    timed: bool = False  # printed with a time of day (the till's timestamp)
    header: bool = False  # standing on its own in the header, above the first amount
    other_purpose: bool = False  # an expiry, "valid until", "return by", "best before" date
    # The earliest date the printed text can mean (day-first or month-first). Whatever the
    # order, the purchase was not before it: a photo taken a day before *this* was taken
    # before the purchase, so a proof can rest on it when the order itself is unsettled.
    earliest: str = ""  # "" = the same as iso

    @property
    def earliest_iso(self) -> str:
        return self.earliest or self.iso

    @property
    def attributed(self) -> bool:
        """The receipt says this is when the purchase happened (a proof may rest on it)."""
        return not self.other_purpose and (self.labelled or self.timed or self.header)


# the year group may run on into a glued time ("25.04.2009:38"): split by _year_and_time
_NUMERIC = re.compile(r"(?<!\d)(\d{1,4})([./\-])(\d{1,2})\2(\d{2,6})(?!(?![/,-]\s?\d{1,2}:\d{2})[\d.,/-]?\d)")
# OCR's small damage to a printed date, mended before dates are parsed: a letter for a digit
# ("25.04.2O20"), a comma for one of the dots ("25,04.2020"), a space beside a separator
# ("25.04 .2020"). Only in the shape of a day-month-year date with a four-digit year of this era.
_DAMAGED_DATE = re.compile(
    r"(?<![\dA-Za-z])([0-3OoIl]?[\dOoIl])\s?([.,/-])\s?([01OoIl]?[\dOoIl])\s?([.,/-])\s?((?:19|2[0O])[\dOoIl]{2})(?![\d])"
)
_DATE_LOOKALIKE = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1"})


def _mend(text: str) -> str:
    def fix(m: re.Match[str]) -> str:
        d, s1, mo, s2, y = m.groups()
        if {s1, s2} - {".", ","} and s1 != s2:
            return m.group(0)  # "12/04-2020": not one date
        sep = "." if "." in (s1, s2) or "," in (s1, s2) else s1
        return f"{d}{sep}{mo}{sep}{y}".translate(_DATE_LOOKALIKE)

    return _DAMAGED_DATE.sub(fix, text)


_TIME = re.compile(r"(?<![\d.,])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:\s?[ap]\.?m\.?)?(?![\d.,]?\d)", re.I)
_TIME_THEN_DATE = re.compile(r"(\d{1,2}:\d{2}(?::\d{2})?(?:[ap]m?)?)(?=\d{1,2}[./\-]\d{1,2}[./\-]\d{2})", re.I)
_OTHER_PURPOSE = re.compile(
    r"(?<![a-z])(exp|expiry|expires|expiration|valid|gultig|gueltig|until|bis|best before|use by|mhd|"
    r"return by|returns? until|retour|ruckgabe|umtausch|vence|vencimiento|scadenza|valable|jusqu|"
    r"due date|due by|member since|since|birthday|geburtstag|dob)(?![a-z])",
    re.I,
)
_YMD_CJK = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
# Japan's era years ("令和元年5月21日", "平成30年12月1日"): the era's first year is 元 (1)
_ERA_START = {"令和": 2018, "平成": 1988}
_ERA_CJK = re.compile(r"(令和|平成)\s*(元|\d{1,2})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
# the year group may run on into a glued time ("30 Dec 1718:40:57", "05Jan201712:41pm"): see _year_and_time
_DMONY = re.compile(
    r"(?<!\d)(?<!\d:)(\d{1,2})\.?[\s/-]*(?:de\s+)?(" + _MONTH_RE + r")(?![a-z])\.?,?[\s/-]*(?:de\s+)?'?(\d{2,6})(?!\d)",
    re.I,
)
_MONDY = re.compile(r"(?<![A-Za-z])(" + _MONTH_RE + r")\.?\s*(\d{1,2})(?:st|nd|rd|th)?,?\s*(\d{4,6})(?!\d)", re.I)
# A till's transaction code with the date run into it, then the time ("0044001003625032018 13:11:54"):
# read only when nothing else on the receipt is a date, and never as the base of a proof
_GLUED_CODE_DATE = re.compile(r"(?<!\d)\d*?(\d{8})\s{0,2}(?=(?:[01]?\d|2[0-3]):[0-5]\d)")
# ... or a printed date run into the number before it, the time glued after ("0rder986206/08/1911:45AM")
# ... or a date whose second separator OCR lost, a time after it ("02/2219 20:31:12": 02/22/19): the
# four digits are not a year of this era, so they are the day and a two-digit year
_LOST_SEPARATOR_DATE = re.compile(r"(?<![\d./-])(\d{1,2})([./-])(\d{2})(\d{2})(?=\s{0,3}(?:[01]?\d|2[0-3]):[0-5]\d)")
_GLUED_NUMERIC_DATE = re.compile(r"(?<=\d)(\d{2})([./-])(\d{2})\2(\d{2}|\d{4})(?=\s?(?:[01]?\d|2[0-3]):[0-5]\d)")
# The restaurant tills' "Aug23'19 12:07PM", "Jan21'1708:56P", and with the apostrophe lost and the
# time glued on, "Jun221807:59PM" (June 22nd '18 at 07:59): month, day, two-digit year
_MONDY_SHORT = re.compile(
    r"(?<![A-Za-z])("
    + _MONTH_RE
    + r")\.?\s?(\d{1,2})\s?(['’‘`´°\u201d\u201c])?\s?(\d{2}|\d{3,4}(?=:[0-5]\d))(?![\d.,/-]?\d)",
    re.I,
)
_DATE_LABEL = re.compile(r"(?<![a-z])(date|datum|fecha|data|le|dated|issued|ausgestellt)(?![a-z])|日付", re.I)
MAX_YEAR = dt.date.today().year + 5  # a receipt is not printed decades ahead


def _year(y: str) -> int:
    n = int(y)
    return n + 2000 if n < 100 else n


# The Buddhist Era (Thailand, also Laos, Cambodia, Sri Lanka) counts 543 years ahead: "21/05/2562" is
# 21 May 2019. A four-digit year in that band is no year of this era (they stop at MAX_YEAR).
BUDDHIST_OFFSET = 543


def _valid(y: int, m: int, d: int) -> str | None:
    if 1990 + BUDDHIST_OFFSET <= y <= MAX_YEAR + BUDDHIST_OFFSET:
        y -= BUDDHIST_OFFSET
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


def _year_and_time(c: str, after: str) -> tuple[str, bool] | None:
    """The year digits of a numeric date's last group, and whether a time was glued to it.

    ``c`` is the run of digits after the second separator, ``after`` the text that follows.
    A clean year is 2 or 4 digits not followed by ":"; otherwise the run is a year glued to
    an hour ("2009" + ":38" -> year "20", 09:38; "20185" + ":41" -> 2018, 5:41).
    """
    if not after.startswith(":"):
        return (c, False) if len(c) in (2, 4) else None
    for ylen in (4, 2):
        hour = c[ylen:]
        if 1 <= len(hour) <= 2 and int(hour) <= 23 and re.match(r":[0-5]\d", after):
            return c[:ylen], True
    return None


def _context(text: str, start: int, end: int) -> tuple[bool, bool]:
    """(glued to letters before it, a time of day elsewhere on the row)."""
    glued = start > 0 and text[start - 1].isalpha()
    rest = text[:start] + " " * (end - start) + text[end:]
    return glued, bool(_TIME.search(rest))


def parse_dates(
    rows: list[str],
    *,
    language: str | None = None,
    country_order: str | None = None,
    header_rows: int = 0,
) -> list[DateCandidate]:
    """Every date printed on the receipt, with the numeric ones resolved by evidence.

    ``header_rows``: how many rows stand above the first amount (a date alone there is the
    receipt's own date).
    """
    named: list[DateCandidate] = []
    numeric: list[tuple[int, str, dict[str, str], bool, bool, bool, bool, bool]] = []
    for i, raw in enumerate(rows):
        text = _TIME_THEN_DATE.sub(r"\1 ", _mend(raw))
        labelled = bool(_DATE_LABEL.search(text))
        other = bool(_OTHER_PURPOSE.search(text.lower()))
        header = i < header_rows

        def cand(iso: str, m: re.Match[str], unambiguous: bool, glued_time: bool = False) -> DateCandidate:
            glued, timed = _context(text, m.start(), m.end())
            return DateCandidate(
                iso, m.group(0), i, unambiguous, labelled, timed or glued_time, header and not glued, other
            )

        for m in _YMD_CJK.finditer(text):
            iso = _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            if iso:
                named.append(cand(iso, m, True))
        for m in _ERA_CJK.finditer(text):
            year = _ERA_START[m.group(1)] + (1 if m.group(2) == "元" else int(m.group(2)))
            iso = _valid(year, int(m.group(3)), int(m.group(4)))
            if iso:
                named.append(cand(iso, m, True))
        for m in _DMONY.finditer(text):
            split = _year_and_time(m.group(3), text[m.end() :])
            iso = split and _valid(_year(split[0]), MONTHS[m.group(2).lower()], int(m.group(1)))
            if iso and split:
                named.append(cand(iso, m, len(split[0]) == 4, glued_time=split[1]))
        for m in _MONDY.finditer(text):
            split = _year_and_time(m.group(3), text[m.end() :])
            iso = split and len(split[0]) == 4 and _valid(int(split[0]), MONTHS[m.group(1).lower()], int(m.group(2)))
            if iso:
                named.append(cand(iso, m, True, glued_time=bool(split and split[1])))
        for m in _MONDY_SHORT.finditer(text):
            run, after = m.group(4), text[m.end() :]
            if len(run) > 2:  # year then the hour: "1807" + ":59"
                year, glued_time = run[:2], True
                if int(run[2:]) > 23:
                    continue
            elif m.group(3) or re.match(r"\s{0,2}\d{1,2}:[0-5]\d", after):
                year, glued_time = run, False
            else:
                continue  # "Jun 22 18" alone: not sure it is a year
            iso = _valid(_year(year), MONTHS[m.group(1).lower()], int(m.group(2)))
            if iso:
                named.append(cand(iso, m, False, glued_time=glued_time))
        for m in _NUMERIC.finditer(text):
            a, sep, b, c = m.groups()
            split = _year_and_time(c, text[m.end() :])
            if split is None:
                continue
            year, glued_time = split
            glued, timed = _context(text, m.start(), m.end())
            if glued and not labelled:
                continue  # digits inside a code ("XE11-22-30"), not a date
            readings = numeric_orders(a, b, year)
            if readings:
                printed = f"{a}{sep}{b}{sep}{year}"
                numeric.append(
                    (
                        i,
                        printed,
                        readings,
                        labelled,
                        timed or glued_time,
                        header and not glued,
                        other,
                        len(year) == 4 or len(a) == 4,
                    )
                )

    # Evidence from the document: orders forced by some date's components.
    forced = {next(iter(r)) for _, _, r, *_ in numeric if len(r) == 1}
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
    for i, text, readings, labelled, timed, header, other, four_digit_year in numeric:
        if len(readings) == 1:
            iso = next(iter(readings.values()))
            out.append(DateCandidate(iso, text, i, four_digit_year, labelled, timed, header, other))
        else:
            iso = readings.get(preferred) or next(iter(readings.values()))
            same = readings.get("DMY") == readings.get("MDY")  # e.g. 05/05/2024
            # another date on the receipt fixing the order counts as the text itself
            settled = same or forced_by_document
            earliest = min(v for k, v in readings.items() if k in ("DMY", "MDY"))
            out.append(
                DateCandidate(iso, text, i, settled and four_digit_year, labelled, timed, header, other, earliest)
            )
    if not out:
        out = _dates_in_codes(rows, preferred)
    out.sort(key=lambda c: c.row)
    return out


def _dates_in_codes(rows: list[str], preferred: str) -> list[DateCandidate]:
    """The last eight digits of a digit run printed before a time, when they are a date
    (day-month-year or year-month-day; only one of the two may be a real date)."""
    out = []
    for i, text in enumerate(rows):
        for m in _GLUED_CODE_DATE.finditer(text):
            d8 = m.group(1)
            readings = {
                iso
                for iso in (
                    _valid(int(d8[4:]), int(d8[2:4]), int(d8[:2])),
                    _valid(int(d8[:4]), int(d8[4:6]), int(d8[6:])),
                )
                if iso
            }
            if len(readings) == 1:
                out.append(DateCandidate(readings.pop(), d8, i, False))
        for m in _GLUED_NUMERIC_DATE.finditer(text):
            a, _, b, c = m.groups()
            orders = numeric_orders(a, b, c)
            iso = orders.get(preferred) or next(iter(orders.values()), None)
            if iso:
                out.append(DateCandidate(iso, m.group(0), i, False))
        for m in _LOST_SEPARATOR_DATE.finditer(text):
            a, _, b, c = m.groups()
            if (b + c).startswith(("19", "20")):
                continue  # "05/2019 10:00": a month and a year, or a card's expiry
            orders = numeric_orders(a, b, c)
            iso = orders.get(preferred) or next(iter(orders.values()), None)
            if iso:
                out.append(DateCandidate(iso, m.group(0), i, False))
    return out[-1:]


def pick_date(candidates: list[DateCandidate]) -> DateCandidate | None:
    """The purchase date: a labelled date first, then one printed with a time, then one in the
    header, else the first date on the receipt; never an expiry or "valid until" date when
    another is printed."""
    if not candidates:
        return None
    usable = [c for c in candidates if not c.other_purpose] or candidates
    for pick in (lambda c: c.labelled and c.timed, lambda c: c.labelled, lambda c: c.timed, lambda c: c.header):
        chosen = [c for c in usable if pick(c)]
        if chosen:
            return chosen[0]
    return usable[0]
