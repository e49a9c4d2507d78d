"""Find where a receipt prints its labelled total, date and merchant, and its line amounts.

Why match the *label* against the OCR instead of trusting the OCR: the label is
the ground truth the forged case will carry, so the forge edits a printed value
only where the OCR text shows exactly that value (the total as an amount equal
to the labelled total on a row that says "total"; the date as a date that reads
as the labelled date; a merchant word that is in both the label and the printed
name). Anything it cannot match exactly is reported as a reason and not edited.

Everything here works on OCR text with its spaces removed: RapidOCR often drops
them ("25/12/20188:13:39PM"), and ``cells`` indexes characters the same way.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from rabench.engine.ocr import OcrLine

_AMOUNT = re.compile(r"(?<![\d.,/:])(\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3})+|\d+)([.,])(\d{2})(?![\d])(?![.,]\d)")
_TOTAL_WORDS = re.compile(
    r"total|jumlah|amountdue|grand|nett|payable|balancedue|topay|summe|gesamt|betrag|totale|"
    r"amount(?:rm|\(rm\))?:?$"
)
_NOT_TOTAL = re.compile(r"sub|qty|quantity|item|disc|sav|tender|excl|exclud|before|pts|point")
_SUBTOTAL = re.compile(r"sub-?total|zwischensumme|sous-?total")
_TAX_WORDS = re.compile(r"gst|sst|tax|vat|mwst|ust|tva|iva|cukai|service|\d%")  # "SR = 6%" rows are tax too
_TENDER = re.compile(r"cash|tunai|tender|paid|visa|master|card|credit|debit|bayar|payment|received|bezahlt|gegeben")
_CHANGE = re.compile(r"change|baki|kembali|rückgeld|ruckgeld|wechselgeld|rendu")
_ROUNDING = re.compile(r"round|bundar|pembundaran|rundung")

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_END = r"(?=$|\D|\d{1,2}[:.\u00b7]\d{2})"  # OCR runs the time on: "25/12/20188:13:39PM"
_MON = "(" + "|".join(MONTHS) + r")([a-z]*)"
_DATE_PATTERNS = [
    (order, re.compile(pat, re.IGNORECASE))
    for year in (r"(\d{4})", r"(\d{2})")
    for order, pat in (
        ("num", r"(?<!\d)(\d{1,2})([/.\-])(\d{1,2})\2" + year + _END),
        ("ymd", r"(?<!\d)" + year + r"([/.\-])(\d{1,2})\2(\d{1,2})" + _END),
        ("dMy", r"(?<!\d)(\d{1,2})([\-/.,]?)" + _MON + r"\2" + year + _END),
        ("Mdy", r"(?<![a-z])" + _MON + r"(\d{1,2}),?" + year + _END),
    )
]


def squash(text: str) -> str:
    return "".join(c for c in text if not c.isspace())


@dataclass(frozen=True, slots=True)
class Spot:
    """A value as printed: characters ``start:end`` of OCR line ``line`` (spaces removed)."""

    line: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Amount:
    spot: Spot
    value: float
    row: int


@dataclass(frozen=True, slots=True)
class DateSpot:
    spot: Spot
    order: str  # "dmy" | "mdy" | "ymd" | "dMy" (month name)
    parts: tuple[str, ...]  # the printed groups, for re-printing in the same format


@dataclass
class Found:
    """What the forge may edit on one receipt; ``why`` says why a field is missing."""

    rows: list[list[int]] = field(default_factory=list)  # OCR line indices per row, top to bottom
    amounts: list[Amount] = field(default_factory=list)
    total: list[Amount] = field(default_factory=list)  # every printing of the labelled total
    date: list[DateSpot] = field(default_factory=list)
    merchant: tuple[Spot, str] | None = None  # a word of the merchant name: its spot, the label word
    items: list[Amount] = field(default_factory=list)  # line amounts that add up to the total
    subtotal_rows: list[Amount] = field(default_factory=list)
    change: Amount | None = None
    tender: Amount | None = None
    tax_printed: bool = False
    why: dict[str, str] = field(default_factory=dict)

    @property
    def adds_up(self) -> bool:
        """The OCR shows line amounts that sum exactly to the labelled total."""
        return bool(self.items)


def group_rows(lines: list[OcrLine]) -> list[list[int]]:
    """OCR lines on the same printed row (vertical overlap of at least half a line)."""
    order = sorted(range(len(lines)), key=lambda i: (lines[i].y_center, lines[i].box[0]))
    rows: list[list[int]] = []
    for i in order:
        ln = lines[i]
        if rows:
            last = rows[-1]
            ref = lines[last[0]]
            overlap = min(ref.box[3], ln.box[3]) - max(ref.box[1], ln.box[1])
            if overlap >= 0.5 * min(ref.height, ln.height):
                last.append(i)
                continue
        rows.append([i])
    for r in rows:
        r.sort(key=lambda i: lines[i].box[0])
    return rows


def parse_amount(m: re.Match[str]) -> float:
    whole = re.sub(r"[.,]", "", m.group(1))
    return float(f"{whole}.{m.group(3)}")


def find_amounts(lines: list[OcrLine], rows: list[list[int]]) -> list[Amount]:
    row_of = {i: r for r, idx in enumerate(rows) for i in idx}
    out = []
    for i, ln in enumerate(lines):
        text = squash(ln.text)
        for m in _AMOUNT.finditer(text):
            sign = (
                -1.0
                if (m.start() > 0 and text[m.start() - 1] in "-\u2212") or text[m.end() : m.end() + 1] == "-"
                else 1.0
            )
            out.append(Amount(Spot(i, m.start(), m.end(), m.group(0)), sign * parse_amount(m), row_of[i]))
    return out


def row_text(lines: list[OcrLine], row: list[int]) -> str:
    return squash(" ".join(lines[i].text for i in row)).lower()


def _year(y: str) -> int:
    return int(y) + (2000 if len(y) == 2 else 0)


def _date_matches(text: str) -> list[tuple[int, int, str, tuple[str, ...], dt.date]]:
    """(start, end, order, printed groups, date) for every reading of every date in ``text``."""
    out = []
    for kind, pat in _DATE_PATTERNS:
        for m in pat.finditer(text):
            g = m.groups()
            readings: list[tuple[str, int, int, int]] = []
            if kind == "num":
                readings = [("dmy", _year(g[3]), int(g[2]), int(g[0])), ("mdy", _year(g[3]), int(g[0]), int(g[2]))]
            elif kind == "ymd":
                readings = [("ymd", _year(g[0]), int(g[2]), int(g[3]))]
            elif kind == "dMy":
                readings = [("dMy", _year(g[4]), MONTHS.index(g[2].lower()) + 1, int(g[0]))]
            else:
                readings = [("Mdy", _year(g[3]), MONTHS.index(g[0].lower()) + 1, int(g[2]))]
            for order, y, mo, d in readings:
                try:
                    out.append((m.start(), m.end(), order, tuple(g), dt.date(y, mo, d)))
                except ValueError:
                    pass
    return out


def find_dates(lines: list[OcrLine], label_date: str) -> list[DateSpot]:
    """Every printing of the labelled date (all readings that give exactly that date)."""
    want = dt.date.fromisoformat(label_date)
    out: list[DateSpot] = []
    for i, ln in enumerate(lines):
        text = squash(ln.text)
        seen: set[tuple[int, int]] = set()
        for start, end, order, parts, day in _date_matches(text):
            if day == want and (start, end) not in seen:
                seen.add((start, end))
                out.append(DateSpot(Spot(i, start, end, text[start:end]), order, parts))
    return out


def _alnum(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


_LEGAL = {
    "sdn",
    "bhd",
    "ltd",
    "llc",
    "inc",
    "gmbh",
    "co",
    "corp",
    "plc",
    "the",
    "and",
    "enterprise",
    "trading",
    "restaurant",
    "sdnbhd",
    "ag",
    "kg",
    "sa",
    "sarl",
    "bv",
    "pty",
    "company",
}


def find_merchant(lines: list[OcrLine], label: str, image_height: int) -> tuple[Spot, str] | None:
    """A word of the labelled merchant name printed once in the name line near the top."""
    from rapidfuzz import fuzz

    want = _alnum(label)
    if len(want) < 4:
        return None
    best: tuple[float, int] | None = None
    for i, ln in enumerate(lines):
        if ln.box[1] > 0.45 * image_height:
            continue
        got = _alnum(ln.text)
        if len(got) < 4:
            continue
        score = fuzz.ratio(got, want)
        if score >= 80 and (best is None or score > best[0]):
            best = (score, i)
    if best is None:
        return None
    i = best[1]
    text = squash(lines[i].text)
    words = [w for w in re.findall(r"[A-Za-z]{3,}", label) if w.lower() not in _LEGAL]
    for w in sorted(words, key=len, reverse=True):
        if text.count(w) == 1 and label.count(w) == 1:
            start = text.index(w)
            return Spot(i, start, start + len(w), w), w
    return None


def _is_total_row(text: str) -> bool:
    return (
        bool(_TOTAL_WORDS.search(text)) and not _NOT_TOTAL.search(text) or bool(re.search(r"(grand|nett?)total", text))
    )


def locate(
    lines: list[OcrLine], *, total: float | None, date: str | None, merchant: str | None, image_height: int
) -> Found:
    """Match the label's total, date and merchant to the OCR lines; find the amounts that add up."""
    f = Found()
    f.rows = group_rows(lines)
    f.amounts = find_amounts(lines, f.rows)
    texts = [row_text(lines, r) for r in f.rows]
    f.tax_printed = any(
        _TAX_WORDS.search(t) and any(a.row == k and a.value > 0 for a in f.amounts) for k, t in enumerate(texts)
    )
    if total is None:
        f.why["total"] = "total not labelled"
    else:
        f.total = [a for a in f.amounts if abs(a.value - total) < 0.005 and _is_total_row(texts[a.row])]
        f.subtotal_rows = [a for a in f.amounts if abs(a.value - total) < 0.005 and _SUBTOTAL.search(texts[a.row])]
        unread = _unread_total_rows(f, texts)
        if not f.total:
            f.why["total"] = "the labelled total is not printed on a row that says total"
        elif unread:
            # e.g. "Total Incl. GST 2700" (the point not read): editing the other printings
            # would leave this one showing the old total under a label that says otherwise
            f.why["total"] = f"a total row's amount could not be read ({unread})"
            f.total = []
        else:
            _arithmetic(f, lines, texts, total)
    if date is None:
        f.why["date"] = "date not labelled"
    else:
        f.date = find_dates(lines, date)
        unread = _unread_dates(lines, f.date, date)
        if not f.date:
            f.why["date"] = "the labelled date is not found in the OCR text"
        elif unread:
            f.why["date"] = f"the date may be printed again where it could not be read ({unread})"
            f.date = []
    if merchant is None:
        f.why["merchant"] = "merchant not labelled"
    else:
        f.merchant = find_merchant(lines, merchant, image_height)
        if f.merchant is None:
            f.why["merchant"] = "no word of the labelled merchant is printed once in the name line"
    return f


def _unread_total_rows(f: Found, texts: list[str]) -> str:
    """The text of a total row whose number did not read as an amount ("" if none)."""
    for k, t in enumerate(texts):
        if not _is_total_row(t):
            continue
        rest = t
        for a in f.amounts:
            if a.row == k:
                rest = rest.replace(a.spot.text.lower(), " ")
        if re.search(r"\d{3,}|\d+[.,]\d(?!\d)", rest):
            return t
    return ""


def _unread_dates(lines: list[OcrLine], spots: list[DateSpot], date: str) -> str:
    """A line that is not one of ``spots`` but prints this day and month side by side."""
    d = dt.date.fromisoformat(date)
    pat = re.compile(rf"(?<!\d)0?({d.day}[/.\-]0?{d.month}|{d.month}[/.\-]0?{d.day})(?!\d)")
    found = {s.spot.line for s in spots}
    for i, ln in enumerate(lines):
        if i not in found and pat.search(squash(ln.text)):
            return squash(ln.text)
    return ""


def _arithmetic(f: Found, lines: list[OcrLine], texts: list[str], total: float) -> None:
    """Line amounts above the first total row that sum exactly to the total, and the tender rows."""
    first = min(a.row for a in f.total + f.subtotal_rows)
    by_row: dict[int, Amount] = {}
    for a in f.amounts:
        if a.row < first:
            cur = by_row.get(a.row)
            if cur is None or _x(lines, a) > _x(lines, cur):
                by_row[a.row] = a  # the rightmost amount of a row is its line amount
    items = [
        by_row[r]
        for r in sorted(by_row)
        if not (
            _TOTAL_WORDS.search(texts[r])
            or _TAX_WORDS.search(texts[r])
            or _ROUNDING.search(texts[r])
            or _TENDER.search(texts[r])
            or _CHANGE.search(texts[r])
        )
    ]
    f.items = _adding_run(items, total)
    if not f.items:
        f.items = _via_subtotal(f, items, texts, total, first)
    last_total = max(a.row for a in f.total)
    for a in f.amounts:
        if a.row > last_total:
            if f.tender is None and _TENDER.search(texts[a.row]) and not _CHANGE.search(texts[a.row]):
                f.tender = a
            elif f.change is None and _CHANGE.search(texts[a.row]):
                f.change = a


def _adding_run(items: list[Amount], target: float) -> list[Amount]:
    """The run of item rows just above the totals whose amounts sum exactly to ``target``."""
    while items and abs(sum(a.value for a in items) - target) > 0.005:
        items = items[1:]
    return items if items and all(a.value >= 0 for a in items) else []


def _via_subtotal(f: Found, items: list[Amount], texts: list[str], total: float, first: int) -> list[Amount]:
    """Items that sum to a printed subtotal which, with the tax, service and rounding rows printed
    between it and the total, makes the total exactly."""
    subs = [a for a in f.amounts if a.row < first and _SUBTOTAL.search(texts[a.row])]
    if not subs:
        return []
    sub = subs[0]
    run = _adding_run([a for a in items if a.row < sub.row], sub.value)
    extras = [
        a
        for a in f.amounts
        if sub.row < a.row < first and (_TAX_WORDS.search(texts[a.row]) or _ROUNDING.search(texts[a.row]))
    ]
    if run and abs(sub.value + sum(a.value for a in extras) - total) <= 0.005:
        return run
    return []


def _x(lines: list[OcrLine], a: Amount) -> tuple[int, int]:
    """Position of an amount within its row: its line's left edge, then its character."""
    return lines[a.spot.line].box[0], a.spot.start
