"""Printed rows -> the receipt's fields, line items and the amounts the checks need.

One pass classifies every row by its label (``vocab.row_kind``) and reads the
row's amount (the right-most one, the way receipts print them). The total is
the largest amount on a total row (a grand total is never smaller than a
partial one); taxes on several rows add up unless a row gives their total;
a tax printed "incl." is part of the total, not added to it. Line items are
the amount rows above the first subtotal/total/tax row. Everything keeps the
row it came from, so reasons and visual forensics can point at the pixels.
"""

from __future__ import annotations

import re

import msgspec

from rabench.contracts.labels import LineItem
from rabench.contracts.verdict import Fields
from rabench.engine.extract.amounts import Amount, find_amounts
from rabench.engine.extract.currency import country_date_order, decimals_for, detect_currency
from rabench.engine.extract.dates import DateCandidate, parse_dates, pick_date
from rabench.engine.extract.layout import Box, Row
from rabench.engine.extract.vocab import INCLUSIVE, detect_language, fold, row_kind


class Money(msgspec.Struct, frozen=True):
    value: float
    row: int


class Extraction(msgspec.Struct, frozen=True):
    """What the reader found, with enough detail for checks, plausibility and reasons."""

    fields: Fields
    line_items: list[LineItem]
    language: str | None = None
    date_unambiguous: bool = False
    date_earliest: str | None = None  # the earliest reading of the printed date (see dates.py)
    tax_rates: list[float] = []  # printed rates, percent
    taxes: list[float] = []  # every tax amount added to the subtotal
    tax_inclusive: bool = False  # taxes printed as "incl.": already inside the total
    tips: list[float] = []  # tips / service charges
    discounts: list[float] = []  # as positive numbers
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
_HEADER_SKIP = re.compile(
    r"(?<![a-z])(receipt|tax invoice|invoice|rechnung|quittung|kassenbon|facture|factura|ticket|"
    r"welcome|willkommen|bienvenue|bienvenido|order confirmation|confirmation|folio|bill|www|http|"
    r"recu|beleg|purchase|your trip|your order|order details|details|payment|paiement|zahlung|"
    r"tel|phone|fax|email|e-mail|vat|ust|siret|abn|gst|date|datum|fecha|copy|duplicate|"
    r"thank|merci|danke|gracias)(?![a-z])|@|領収|レシート"
)


_STREET = re.compile(
    r"(?<![a-z])(st|rd|ave|avenue|street|road|lane|blvd|boulevard|strasse|str|weg|gasse|platz|rue|calle|"
    r"avenida|via|piazza|plaza|straat|laan|chemin|place|allee)(?![a-z])|stra(ss|ß)e(?![a-z])"
)


def _row_amount(row: Row, minor: int) -> Amount | None:
    """The row's amount: the right-most amount in the row's text."""
    found = find_amounts(row.text, minor_units=minor)
    if not found:
        return None
    amount = found[-1]
    if amount.decimals == 0 and not re.search(r"\D", amount.text):
        # a bare integer (currencies without minor units) counts only as its own right-hand column
        last = row.segments[-1].text.strip() if row.segments else ""
        if len(row.segments) < 2 or last != amount.text:
            return None
    return amount


def _label_of(row: Row, amount: Amount | None) -> str:
    return row.text[: amount.start] if amount is not None else row.text


def _amount_segment(row: Row, amount: Amount) -> tuple[Box | None, float]:
    """The box and OCR confidence of the segment an amount was printed in."""
    for seg in reversed(row.segments):
        if amount.text.replace(" ", "") in seg.text.replace(" ", ""):
            return (seg.box or row.box), seg.confidence
    return row.box, min((s.confidence for s in row.segments), default=1.0)


def _tax_amount(row: Row, minor: int) -> tuple[float | None, float | None]:
    """(tax amount, printed rate) from a tax row, including breakdown rows
    like ``19%  10,00  1,90  11,90`` (net, tax, gross)."""
    text = row.text
    rate = None
    m = re.search(r"(\d{1,2}(?:[.,]\d{1,3})?)\s?%", text)
    if m:
        rate = float(m.group(1).replace(",", "."))
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    amounts = [a.value for a in find_amounts(text, minor_units=minor)]
    if not amounts:
        return None, rate
    if len(amounts) >= 3:
        a, b, c = amounts[-3:]
        if abs(a + b - c) <= 0.011:
            return b, rate
    if len(amounts) == 2 and rate:
        a, b = amounts
        if abs(a * rate / 100 - b) <= max(0.02, 0.006 * b):
            return b, rate
    return amounts[-1], rate


def _merchant(rows: list[Row], first_amount_row: int) -> tuple[str | None, int | None]:
    limit = min(len(rows), max(1, min(first_amount_row, 6)))
    candidates: list[tuple[float, int, str]] = []
    for i, row in enumerate(rows[:limit]):
        text = row.text.strip()
        letters = sum(ch.isalpha() for ch in text)
        digits = sum(ch.isdigit() for ch in text)
        if letters < 3 or digits > letters or _HEADER_SKIP.search(fold(text)):
            continue
        if re.search(r"\d{4,}|^\s*\d+[a-z]?[ ,]", text, re.I) or _STREET.search(fold(text)):
            continue  # an address or a number line
        score = (row.height or 10.0) * (1.0 - 0.15 * len(candidates))
        candidates.append((score, i, " ".join(s.text for s in row.segments)))
    if not candidates:
        return None, None
    score, i, text = max(candidates, key=lambda c: (c[0], -c[1]))
    return text.strip(" *-=#"), i


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
                prefix = s[max(0, m.start() - 12): m.start("id")]
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
        return original[start: start + length]
    return folded[start: start + length].upper()


_QTY_ROW = re.compile(
    r"^\s*(?P<q>\d+(?:[.,]\d+)?)\s*(?:[a-zA-Z]{1,3}\.?)?\s*[xX×@*]\s*(?P<p>\S*\d[.,]?\d*\s?\S{0,3})\s*$"
)
_QTY = re.compile(
    r"(?:(?P<q1>\d+(?:[.,]\d+)?)\s*(?:x|×|@|\*)\s*(?P<p1>[^\s]*\d[.,]\d{1,2}))"
    r"|(?:(?:qty|menge|qte|cant)\.?\s*:?\s*(?P<q2>\d+))",
    re.I,
)


def _line_item(row: Row, amount: Amount, minor: int) -> LineItem | None:
    label = _label_of(row, amount)
    qty = unit = None
    m = _QTY.search(label)
    if m:
        q = m.group("q1") or m.group("q2")
        qty = float(q.replace(",", ".")) if q else None
        if m.group("p1"):
            found = find_amounts(m.group("p1"), minor_units=minor, allow_integers=True)
            unit = found[-1].value if found else None
        label = label[: m.start()] + label[m.end():]
    # drop other printed prices from the description (not bare integers: "Room 316 - 4 nights")
    for a in reversed(find_amounts(label, minor_units=minor)):
        if a.decimals > 0 or not a.text.isdigit():
            label = label[: a.start] + label[a.end:]
    desc = re.sub(r"\s{2,}", " ", label).strip(" .:-*#\t")
    lead = re.match(r"^(\d{1,3})\s+(?=[^\d\s])", desc)
    if lead and qty is None:  # "2 Coffee  7.00": a leading count is the quantity
        qty = float(lead.group(1))
        desc = desc[lead.end():]
    if sum(ch.isalpha() for ch in desc) < 2:
        return None
    return LineItem(description=desc, total=amount.value, quantity=qty, unit_price=unit)


def extract_fields(rows: list[Row]) -> Extraction:
    """Read every field the receipt prints."""
    texts = [r.text for r in rows]
    full = "\n".join(texts)
    language = detect_language(full)
    currency = detect_currency(full, language)
    minor = decimals_for(currency)

    kinds: list[str] = []
    amounts: list[Amount | None] = []
    for row in rows:
        amount = _row_amount(row, minor)
        amounts.append(amount)
        kinds.append(row_kind(_label_of(row, amount)) if amount is not None else "none")

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

    # totals
    total_rows = [i for i, k in enumerate(kinds) if k == "total" and amounts[i] and amounts[i].value > 0]
    total = None
    if total_rows:
        i = max(total_rows, key=lambda j: (amounts[j].value, -j))  # type: ignore[union-attr]
        total = amounts[i].value  # type: ignore[union-attr]
        mark("total", i, amounts[i])
    sub_rows = [i for i, k in enumerate(kinds) if k == "subtotal" and amounts[i]]
    subtotal = None
    if sub_rows:
        i = sub_rows[0]
        subtotal = amounts[i].value  # type: ignore[union-attr]
        mark("subtotal", i, amounts[i])

    taxes: list[float] = []
    rates: list[float] = []
    inclusive = False
    tax_total_row = None
    seen_tax: set[float] = set()
    for i, k in enumerate(kinds):
        if k != "tax":
            continue
        value, rate = _tax_amount(rows[i], minor)
        if value is None:
            continue
        s = fold(rows[i].text)
        if re.search(r"(total|summe|gesamt)", s) or re.search(r"(tax|vat|tva|mwst)\s*(total|summe)", s):
            tax_total_row = (i, value)
        if INCLUSIVE.search(s):
            inclusive = True
        if rate is not None:
            rates.append(rate)
        if value in seen_tax and rate is None:
            continue  # a repeated summary line
        seen_tax.add(value)
        taxes.append(value)
        mark("tax_total", i, amounts[i])
    if tax_total_row is not None:
        taxes = [tax_total_row[1]]
    tax_rows = field_rows.get("tax_total", [])
    total_row_i = field_rows.get("total", [None])[0]
    if tax_rows and total_row_i is not None and min(tax_rows) > total_row_i:
        inclusive = True  # printed under the total: already inside it (VAT receipts)
    tax_total = round(sum(taxes), minor) if taxes else None
    if inclusive and subtotal is not None and total is not None and tax_total is not None:
        if abs(subtotal + tax_total - total) <= 0.011:
            inclusive = False  # printed "incl." yet added: the arithmetic says exclusive

    tips = [amounts[i].value for i, k in enumerate(kinds) if k == "tip" and amounts[i]]  # type: ignore[union-attr]
    discounts = [abs(amounts[i].value) for i, k in enumerate(kinds) if k == "discount" and amounts[i]]  # type: ignore[union-attr]

    # line items: amount rows above the first summary row
    summary_kinds = {"subtotal", "total", "tax"}
    first_summary = next((i for i, k in enumerate(kinds) if k in summary_kinds), len(rows))
    first_amount = next((i for i, a in enumerate(amounts) if a is not None), len(rows))
    merchant, merchant_row = _merchant(rows, first_amount)
    if merchant_row is not None:
        mark("merchant", merchant_row)

    dates = parse_dates(texts, language=language, country_order=country_date_order(currency))
    date_c: DateCandidate | None = pick_date(dates)
    if date_c is not None:
        mark("date", date_c.row)
    number, number_row = _receipt_number(rows)
    if number_row is not None:
        mark("receipt_number", number_row)

    items: list[LineItem] = []
    item_rows: list[int] = []
    pending_desc: str | None = None
    date_rows = {d.row for d in dates}
    for i in range(len(rows)):
        if i >= first_summary:
            break
        a = amounts[i]
        qty_row = _QTY_ROW.match(rows[i].text)
        if qty_row and items:
            # "  2 x 1,50" under the item it prices
            unit = find_amounts(qty_row.group("p"), minor_units=minor, allow_integers=True)
            if unit:
                last = items[-1]
                items[-1] = LineItem(last.description, last.total,
                                     float(qty_row.group("q").replace(",", ".")), unit[-1].value)
                mark("line_items", i, unit[-1])
                continue
        # above the totals a "payment" word is part of an item's name ("SD Card 128GB")
        if a is None or kinds[i] in ("tip", "discount", "info") or i in date_rows or i in (merchant_row, number_row):
            text = rows[i].text.strip()
            pending_desc = text if a is None and sum(ch.isalpha() for ch in text) >= 2 else None
            continue
        item = _line_item(rows[i], a, minor)
        if item is None and pending_desc:
            item = LineItem(description=pending_desc, total=a.value)
            m = _QTY.search(_label_of(rows[i], a))
            if m and m.group("q1"):
                found = find_amounts(m.group("p1"), minor_units=minor, allow_integers=True)
                item = LineItem(
                    description=pending_desc, total=a.value,
                    quantity=float(m.group("q1").replace(",", ".")),
                    unit_price=found[-1].value if found else None,
                )
        pending_desc = None
        if item is not None:
            items.append(item)
            mark("line_items", i, a)

    fields = Fields(
        merchant=merchant,
        date=date_c.iso if date_c else None,
        subtotal=subtotal,
        tax_total=tax_total,
        total=total,
        currency=currency,
        receipt_number=number,
    )
    return Extraction(
        fields=fields,
        line_items=items,
        language=language,
        date_unambiguous=bool(date_c and date_c.unambiguous),
        date_earliest=date_c.earliest_iso if date_c else None,
        tax_rates=rates,
        taxes=taxes,
        tax_inclusive=inclusive,
        tips=tips,
        discounts=discounts,
        minor_units=minor,
        field_rows=field_rows,
        field_boxes=field_boxes,
        field_confidence=field_confidence,
        text=full,
    )
