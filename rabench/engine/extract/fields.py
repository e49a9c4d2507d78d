"""Printed rows -> the receipt's fields, line items and the amounts the checks need.

One pass classifies every row by its label (``vocab.row_kind``) and reads the
row's amount (the right-most one, the way receipts print them). The totals
block (``summary``) gives total, subtotal, taxes, tips, discounts and rounding;
line items (``items``) are the amount rows above it. Both report their doubts
(rows they could not place, a gap where a line may be unread, an item count
that disagrees), which decide whether the arithmetic may be claimed as proof.
Everything keeps the row it came from, so reasons and visual forensics can
point at the pixels.
"""

from __future__ import annotations

import re

import msgspec

from rabench.contracts.labels import LineItem
from rabench.contracts.verdict import Fields
from rabench.engine.extract.amounts import Amount, find_amounts
from rabench.engine.extract.currency import country_date_order, decimals_for, detect_currency
from rabench.engine.extract.dates import DateCandidate, parse_dates, pick_date
from rabench.engine.extract.items import read_items
from rabench.engine.extract.layout import Box, Row
from rabench.engine.extract.merchant import merchant_name
from rabench.engine.extract.summary import amount_paid, read_summary
from rabench.engine.extract.vocab import detect_language, fold, row_kind


class Extraction(msgspec.Struct, frozen=True):
    """What the reader found, with enough detail for checks, plausibility and reasons."""

    fields: Fields
    line_items: list[LineItem]
    language: str | None = None
    # The date a proof (photo taken before the purchase) may rest on: set only when the receipt
    # attributes the date to the purchase (labelled, printed with a time, or alone in the header).
    date_unambiguous: bool = False
    date_earliest: str | None = None  # the earliest reading of the printed date (see dates.py)
    date_attributed: bool = False
    tax_rates: list[float] = []  # printed rates, percent
    taxes: list[float] = []  # every tax amount added to the subtotal
    tax_inclusive: bool = False  # taxes printed as "incl.": already inside the total
    tips: list[float] = []  # tips / service charges
    discounts: list[float] = []  # as positive numbers
    rounding: list[float] = []  # cash-rounding adjustments, signed ("Rounding Adj -0.02")
    deposits: list[float] = []  # bottle deposits in the totals block, signed ("Pfand 0,25", "Leergut -0,25")
    other_totals: list[float] = []  # amounts on other total-labelled rows
    table_tax: float | None = None  # a tax summary table's tax ("GST Summary", "MwSt Netto Brutto")
    table_net: float | None = None  # ... and its net amount
    item_count: float | None = None  # the number of items the receipt prints ("Total Qty: 7")
    printed_amounts: list[tuple[float, str]] = []  # every row's amount with the row's kind
    # Why the reading may be incomplete or wrong (unplaced rows, a gap where a line may be unread,
    # a printed item count that disagrees, an amount that looks misread). Empty = a clean reading:
    # only then may the arithmetic check claim a proof.
    doubts: list[str] = []
    minor_units: int = 2
    field_rows: dict[str, list[int]] = {}  # field -> row indexes it was read from
    field_boxes: dict[str, list[Box]] = {}  # field -> pixel boxes (OCR input coordinates)
    field_confidence: dict[str, float] = {}  # field -> lowest OCR confidence of what it was read from
    text: str = ""


_RECEIPT_NO = re.compile(
    r"(?<![a-z])(receipt|rcpt|beleg|bon|invoice|inv|rechnung|quittung|ticket|facture|factura|fattura|"
    r"trans(?:action)?|txn|order|bestellung|commande|pedido|folio|transaktion|vorgang|scontrino|documento|"
    r"doc|bill|check|chk)"
    r"\s*(?:no\.?|nr\.?|number|num\.?|n[°oº?]?\.?|#|id|-nr\.?)?\s*[:#.]?\s*"
    r"(?P<id>[a-z0-9](?:[a-z0-9\-/.]*[a-z0-9])?(?:\s{1,2}\d+)*)(?![a-z0-9])",
)
_RECEIPT_NO_BARE = re.compile(r"(?:^|\s)(?:no\.?|nr\.?|n[°o]|#)\s*[:.]?\s*(?P<id>[a-z0-9][a-z0-9\-/]{2,})")
_NOT_RECEIPT_NO = re.compile(
    r"(?<![a-z])(tel|phone|fax|vat|tax|abn|siret|siren|ust|st\.?-?nr|steuer|gstin|gst|table|tisch|"
    r"terminal|kasse|till|card|auth|tid|mid|iban|bic|cashier|kassierer|server|operator|pos|register|"
    r"store|filiale|zip|plz|hst|uid|nif|cif|p\.iva|partita)(?![a-z])"
)
# A totals row whose amount lost its decimal mark: "Subtotal  $55  00", "TOTAL  12 50"
_SPLIT_AMOUNT = re.compile(r"(?<![\d.,])(?P<sym>[$€£]|RM|EUR)?\s?(?P<int>[1-9]\d{0,4}|0)\s{1,2}(?P<dec>\d{2})\s*$")


def _row_amount(row: Row, minor: int) -> Amount | None:
    """The row's amount: the right-most amount in the row's text."""
    found = find_amounts(row.text, minor_units=minor)
    if not found or (found[-1].decimals == 0 and minor == 2):
        m = _SPLIT_AMOUNT.search(row.text) if minor == 2 else None
        # (not the tail of a registration number: "VAT NO: GB 220 4302 31")
        if (
            m
            and row_kind(row.text[: m.start()]) in ("total", "subtotal", "tax")
            and not re.search(r"\d[\s.-]*$", row.text[: m.start()])
        ):
            value = float(f"{m.group('int')}.{m.group('dec')}")
            return Amount(value=value, text=m.group(0).strip(), start=m.start(), end=m.end(), decimals=2)
    if not found:
        return _glued_amount(row.text, minor)
    amount = found[-1]
    if amount.decimals == 0 and not re.search(r"\D", amount.text):
        # a bare integer (currencies without minor units) counts only as its own right-hand column
        last = row.segments[-1].text.strip() if row.segments else ""
        if len(row.segments) < 2 or last != amount.text:
            return None
    return amount


_SUMMARY_LABEL_KINDS = ("total", "subtotal", "tax", "rounding")
# a currency code or sign and a till's tax letter, each a word of its own ("RM 12.50 SR"; not "CASH 50.00")
_ONLY_SYMBOLS = re.compile(r"^[\s:=*.\-]*(?:(?:[A-Z]{2,3}|Rp|[$€£¥])(?![A-Za-z]))?[\s:=*.\-]*(?:[A-Z]{1,2}\*?)?\s*$")


def _amount_only(row: Row, minor: int) -> bool:
    """A row that prints nothing but an amount (a currency sign or code and a till's tax letter allowed)."""
    found = find_amounts(row.text, minor_units=minor)
    if len(found) != 1 or (minor and not found[0].decimals):
        return False
    rest = row.text[: found[0].start] + " " + row.text[found[0].end :]
    return bool(_ONLY_SYMBOLS.match(rest))


def _whole_units(text: str) -> bool:
    """No currency recognised, and every amount is printed in thousands groups without minor units
    ("25.000", "1.250.000"): a currency without cents (rupiah, dong, won, ...), read as whole units."""
    grouped = re.findall(r"(?<![\d.,])\d{1,3}(?:[.,]\d{3})+(?![\d.,]*\d)", text)
    return len(grouped) >= 2 and not re.search(r"\d[.,]\d{2}(?![\d])", text)


def join_label_rows(rows: list[Row], minor: int) -> list[Row]:
    """A totals label whose amount is printed on the next line ("Gesamt" / "13,30", "TOTAL" / "RM 12.50",
    a two-line layout or an amount the row grouping put a line lower) becomes one row."""
    out: list[Row] = []
    i = 0
    while i < len(rows):
        row = rows[i]
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        if (
            nxt is not None
            and _row_amount(row, minor) is None
            and not re.search(r"\d", row.text)
            and len(row.text.split()) <= 5
            and row_kind(row.text) in _SUMMARY_LABEL_KINDS
            and _amount_only(nxt, minor)
        ):
            out.append(Row(segments=row.segments + nxt.segments, index=len(out)))
            i += 2
            continue
        out.append(Row(segments=row.segments, index=len(out)) if row.index != len(out) else row)
        i += 1
    return out


_GLUED_TAIL = re.compile(r"[A-Za-z](\d[\d.,]*[.,]\d{2})\s*$")
_GLUED_KINDS = ("total", "subtotal", "tax", "rounding", "payment", "discount", "tip")


def _glued_amount(text: str, minor: int) -> Amount | None:
    """An amount OCR ran into its totals label ("TOTAL12.50", "SUMME12,50", "TOTALRM12.50", and
    "Tota16.59": the label "Tota1", a misread "Total", then 6.59). Read only when what stands
    before it is a totals, tax or payment label; an item's "SOUP12.50" stays unread."""
    m = _GLUED_TAIL.search(text)
    if m is None:
        return None
    k = m.start(1)
    for cut in (k, k + 1) if text[k] == "1" else (k,):
        if row_kind(text[:cut]) not in _GLUED_KINDS:
            continue
        found = find_amounts(text[cut:], minor_units=minor)
        if found:
            a = found[-1]
            return Amount(value=a.value, text=a.text, start=a.start + cut, end=a.end + cut, decimals=a.decimals)
    return None


def _label_of(row: Row, amount: Amount | None) -> str:
    return row.text[: amount.start] if amount is not None else row.text


def _amount_segment(row: Row, amount: Amount) -> tuple[Box | None, float]:
    """The box and OCR confidence of the segment an amount was printed in."""
    for seg in reversed(row.segments):
        if amount.text.replace(" ", "") in seg.text.replace(" ", ""):
            return (seg.box or row.box), seg.confidence
    return row.box, min((s.confidence for s in row.segments), default=1.0)


def _receipt_number(rows: list[Row]) -> tuple[str | None, int | None]:
    best: tuple[int, str, int] | None = None
    for i, row in enumerate(rows):
        s = fold(row.text)
        for rank, rx in enumerate((_RECEIPT_NO, _RECEIPT_NO_BARE)):
            for m in rx.finditer(s):
                ident = m.group("id")
                ident = ident.strip()
                if not any(ch.isdigit() for ch in ident) or len(ident) < 3:
                    continue
                if re.fullmatch(r"[a-z]*[01][a-z01]*", ident) and sum(ch.isalpha() for ch in ident) >= 3:
                    continue  # a word with OCR's zero or one: "DOCUMENT0 COMMERCIALE" is not document no. "UMENT0"
                prefix = s[max(0, m.start() - 12) : m.start("id")]
                if _NOT_RECEIPT_NO.search(prefix):
                    continue
                if re.fullmatch(r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}", ident) or re.fullmatch(r"\d{1,2}:\d{2}", ident):
                    continue
                start = m.start("id")
                printed = re.sub(r"\s+", " ", _printed_span(row.text, s, start, len(ident)))
                key = (rank, printed, i)
                if best is None or key[0] < best[0]:
                    best = key
                break
    if best is None:
        return None, None
    return best[1], best[2]


def _printed_span(original: str, folded: str, start: int, length: int) -> str:
    """The printed form of a span found in the folded text (folding can change lengths)."""
    if len(original) == len(folded):
        return original[start : start + length]
    return folded[start : start + length].upper()


def _amount_doubts(rows: list[Row], used: dict[int, Amount], majority_mark: str | None) -> list[str]:
    """Amounts the arithmetic would use whose printed form looks misread: a decimal mark unlike
    the rest of the receipt's ("79,60" among "53.70"s), a space inside ("4. 96")."""
    out = []
    for i, a in sorted(used.items()):
        mark = _decimal_mark(a.text)
        if majority_mark and mark and mark != majority_mark:
            out.append(f'"{a.text}" on row "{rows[i].text.strip()}" uses another decimal mark than the receipt')
        elif re.search(r"\d[.,]\s+\d|\d\s+[.,]\s*\d", rows[i].text[max(0, a.start - 3) : a.end + 3]):
            out.append(f'a broken amount on row "{rows[i].text.strip()}"')
        elif a.decimals and not re.search(r"[.,]\d", a.text):
            out.append(f'an amount without its decimal mark on row "{rows[i].text.strip()}"')
    return out


def _decimal_mark(text: str) -> str | None:
    m = re.search(r"([.,])\d{1,2}(?!\d)\D*$", text)
    return m.group(1) if m else None


def extract_fields(rows: list[Row], *, ocr: bool | None = None) -> Extraction:
    """Read every field the receipt prints. ``ocr``: the rows come from OCR (boxes from an
    image, so a gap between rows can mean an unread line); default: any row has a box."""
    if ocr is None:
        ocr = any(r.box is not None for r in rows)
    full = "\n".join(r.text for r in rows)
    language = detect_language(full)
    currency = detect_currency(full, language)
    minor = decimals_for(currency)
    if currency is None and _whole_units(full):
        minor = 0
    rows = join_label_rows(rows, minor)
    texts = [r.text for r in rows]

    kinds: list[str] = []
    amounts: list[Amount | None] = []
    for row in rows:
        amount = _row_amount(row, minor)
        amounts.append(amount)
        if amount is not None:
            kinds.append(row_kind(_label_of(row, amount)))
        else:
            # a count may print no money ("Total Qty: 7"): it still ends the items
            k = row_kind(row.text) if re.search(r"\d", row.text) else "none"
            kinds.append("count" if k == "count" else "none")

    field_rows: dict[str, list[int]] = {}
    field_boxes: dict[str, list[Box]] = {}
    field_confidence: dict[str, float] = {}

    def mark(name: str, i: int, amount: Amount | None = None) -> None:
        field_rows.setdefault(name, []).append(i)
        if amount is not None:
            box, conf = _amount_segment(rows[i], amount)
        else:
            box, conf = rows[i].box, min((s.confidence for s in rows[i].segments), default=1.0)
        if box is not None:
            field_boxes.setdefault(name, []).append(box)
        field_confidence[name] = min(conf, field_confidence.get(name, 1.0))

    summary = read_summary(rows, amounts, kinds, minor)
    if summary.total_row is not None:
        mark("total", summary.total_row, amounts[summary.total_row])
    if summary.subtotal_row is not None:
        mark("subtotal", summary.subtotal_row, amounts[summary.subtotal_row])
    for i in summary.tax_rows:
        mark("tax_total", i, amounts[i])
    for name, idx in (
        ("tips", summary.tip_rows),
        ("discounts", summary.discount_rows),
        ("rounding", summary.rounding_rows),
        ("deposits", summary.deposit_rows),
    ):
        for i in idx:
            _, conf = _amount_segment(rows[i], amounts[i])  # type: ignore[arg-type]
            field_confidence[name] = min(conf, field_confidence.get(name, 1.0))

    first_amount = next((i for i, a in enumerate(amounts) if a is not None), len(rows))
    merchant, merchant_row = merchant_name(rows, first_amount)
    if merchant_row is not None:
        mark("merchant", merchant_row)

    dates = parse_dates(
        texts,
        language=language,
        country_order=country_date_order(currency),
        header_rows=min(first_amount, summary.first_summary),
    )
    date_c: DateCandidate | None = pick_date(dates)
    if date_c is not None:
        mark("date", date_c.row)
    number, number_row = _receipt_number(rows)
    if number_row is not None:
        mark("receipt_number", number_row)

    skip = {d.row for d in dates} | {x for x in (merchant_row, number_row) if x is not None}
    # the items end at the totals block, or at the first payment under them when no totals row was read
    # ("VISA 11.50" is what was paid, not one more item)
    first_item = next((i for i, a in enumerate(amounts) if a is not None and kinds[i] == "other"), len(rows))
    items_end = summary.first_summary
    if summary.first_summary == len(rows):  # (an item may be called "Protein Bar": only without a totals block)
        items_end = next((i for i in range(first_item + 1, len(rows)) if kinds[i] == "payment"), len(rows))
    reading = read_items(rows, amounts, kinds, start=0, end=items_end, skip=skip, minor=minor, ocr=ocr)
    for i in reading.rows:
        mark("line_items", i, amounts[i])
    for i in reading.qty_rows:
        mark("line_items", i)

    used = {
        i: amounts[i]
        for i in [
            *reading.rows,
            *summary.tax_rows,
            *summary.tip_rows,
            *summary.discount_rows,
            *summary.rounding_rows,
            *summary.deposit_rows,
            summary.total_row,
            summary.subtotal_row,
        ]
        if i is not None and amounts[i] is not None
    }
    marks = [m for m in (_decimal_mark(a.text) for a in amounts if a is not None and a.decimals) if m]
    majority = max(set(marks), key=marks.count) if marks and minor > 0 else None
    doubts = [*reading.doubts, *summary.doubts, *_amount_doubts(rows, used, majority)]  # type: ignore[arg-type]
    total = summary.total
    if total is None and summary.subtotal is None and summary.taxes and reading.items:
        # no total label and no subtotal read ("Tax 1.73" then "DRIVE THRU $21.73"): the row under the
        # tax whose amount is the items plus the tax
        want = round(sum(it.total for it in reading.items) + sum(summary.taxes), 6)
        for i in range(max(summary.tax_rows, default=summary.first_summary) + 1, len(rows)):
            a = amounts[i]
            if a is not None and kinds[i] in ("other", "none", "payment") and abs(a.value - want) <= 0.005:
                total = a.value
                mark("total", i, a)
                doubts.append("no row labelled as the total was read")
                break
    if total is None and reading.items:
        # no total read at all: what was paid (tendered less the change), when it is what the items (and
        # the tax) come to
        base = round(sum(it.total for it in reading.items), 6)
        want = {base, round(base + sum(summary.taxes), 6)} if not summary.inclusive else {base}
        paid = amount_paid(rows, amounts, kinds, items_end)
        if paid is not None and any(abs(paid[0] - w) <= 0.005 for w in want if w > 0):
            total = paid[0]
            mark("total", paid[1], amounts[paid[1]])
            doubts.append("no row labelled as the total was read")
    if summary.total_from_arithmetic:
        doubts.append("no row labelled as the total was read")

    attributed = bool(date_c and date_c.attributed)
    fields = Fields(
        merchant=merchant,
        date=date_c.iso if date_c else None,
        subtotal=summary.subtotal,
        tax_total=round(sum(summary.taxes), minor) if summary.taxes else None,
        total=total,
        currency=currency,
        receipt_number=number,
    )
    return Extraction(
        fields=fields,
        line_items=reading.items,
        language=language,
        date_unambiguous=bool(date_c and date_c.unambiguous and attributed),
        date_earliest=date_c.earliest_iso if date_c and attributed else None,
        date_attributed=attributed,
        tax_rates=summary.tax_rates,
        taxes=summary.taxes,
        tax_inclusive=summary.inclusive,
        tips=summary.tips,
        discounts=summary.discounts,
        rounding=summary.rounding,
        deposits=summary.deposits,
        other_totals=[v for _, v in summary.other_totals],
        table_tax=summary.table_tax,
        table_net=summary.table_net,
        item_count=reading.item_count,
        printed_amounts=[(a.value, kinds[i]) for i, a in enumerate(amounts) if a is not None],
        doubts=doubts,
        minor_units=minor,
        field_rows=field_rows,
        field_boxes=field_boxes,
        field_confidence=field_confidence,
        text=full,
    )
