"""Line items, and an account of every row between the header and the totals.

Why an account: an arithmetic proof says "the items don't add up to the
subtotal", which is only true if every item row was read, repeated rows were
counted, and no info line ("Einzelpreis EUR 9,95", "Unit price USD 2.06",
"2 x 1,50") was taken for an item. The reader therefore keeps, besides the
items, every reason it has to doubt that the list is complete: a row in the
item zone it could not place, a printed item count that disagrees, a gap in
the rows where a line may have gone unread, a row with several prices that
don't fit a quantity x price pattern. ``checks.totals_add_up`` only claims a
proof when this list is empty.
"""

from __future__ import annotations

import re
import statistics

import msgspec

from rabench.contracts.labels import LineItem
from rabench.engine.extract.amounts import Amount, find_amounts, parse_number
from rabench.engine.extract.layout import Row
from rabench.engine.extract.vocab import COUNT_WORDS, fold, unglue

# "2 x 1,50", "59,72L×1,81/L", "0.731lb×2.31$/lb", "1.835 kg x 2.22 £/kg", "2pc@9.89", "3 @ 2.40"
QTY_ROW = re.compile(
    r"^\s*(?P<q>\d+(?:[.,]\d+)?)\s*(?:[a-zA-Z]{1,3}\.?)?\s*[xX×@*]\s*(?P<p>\S{0,4}\s?\d[\d.,]*\s?\S{0,8})\s*$"
)
QTY = re.compile(
    r"(?:(?P<q1>\d+(?:[.,]\d+)?)\s*(?:[a-z]{1,3}\.?)?\s*(?:x|×|@|\*)\s*(?P<p1>[^\s]*\d[.,]\d{1,2}))"
    r"|(?:(?:qty|menge|qte|cant)\.?\s*:?\s*(?P<q2>\d+))",
    re.I,
)
# An info line giving an item's unit price: not an item of its own.
UNIT_INFO = re.compile(
    r"(?<![a-z])(einzelpreis|stuckpreis|stk\.?-?preis|unit price|unit|each|ea|je|pro stk|per unit|per|"
    r"prix unitaire|prix unit|p\.u\.?|pu|precio unitario|precio unit|p\. unit|prezzo unitario|prezzo unit|"
    r"stukprijs|per stuk|u/p|u\.p\.|u\.price|unit pr|a|à)(?![a-z])|/\s?(kg|lb|l|st|stk|pc|pcs|ea)(?![a-z])|^\s*@"
)
# Words a quantity row may carry around its numbers ("2 Stk x 0,95", "3 pcs @ 1.20").
_QTY_WORDS = re.compile(r"(?<![a-z])(stk|st|pcs|pc|x|kg|lb|l|g|oz|ea|each|je|a|à|@|eur|usd|rm)(?![a-z])")


_PRICE_LIKE = re.compile(r"(?<![\d.,])\d{1,6}[.,]\d{2}(?![\d.,]?\d)")


class ItemReading(msgspec.Struct, frozen=True):
    items: list[LineItem]
    rows: list[int]  # the row each item's amount was read from
    qty_rows: list[int] = []  # quantity / unit-price rows attached to an item
    doubts: list[str] = []  # why the list may be incomplete or wrong (empty = complete)
    item_count: float | None = None  # the number of items the receipt prints, if it does


def _printed_count(rows: list[Row], kinds: list[str]) -> list[float]:
    """Counts the receipt prints ("Total Qty: 7", "Item(s): 5  Qty(s): 5", "12 Artikel")."""
    counts: list[float] = []
    for i, row in enumerate(rows):
        s = unglue(fold(row.text))
        if kinds[i] != "count" and not (
            COUNT_WORDS.search(s) and re.search(r"(?<![a-z])(total|count|anzahl|jumlah|no\.|number|summe)", s)
        ):
            continue
        for m in re.finditer(
            r"(?:items?|item\(s\)|qty|qty\(s\)|quantity|count|artikel|anzahl|pcs|stuck)\s*[:.]?\s*"
            r"(\d{1,3}(?:[.,]0{1,3})?)(?![\d.,]*\d)",
            s,
        ):
            counts.append(float(m.group(1).replace(",", ".")))
        m = re.match(r"^\s*\*?\s*(\d{1,3})\s+(?:items?|item\(s\)|artikel|articles?|pcs)", s)
        if m:
            counts.append(float(m.group(1)))
    return counts


def _prices_fit(amounts: list[Amount], qty: float | None) -> bool:
    """A row printing several prices is understood when they are the unit price and the
    line's amount (quantity x unit = amount), or the same amount repeated (excl./incl.
    columns at 0 %), or a discount column of zero."""
    *others, last = [a.value for a in amounts]
    q = qty if qty is not None else 1.0
    for a in others:
        if abs(a - last) <= 0.005 or abs(a) <= 0.005:
            continue
        if abs(a * q - last) <= 0.006:
            continue
        if qty is None and last and abs(round(last / a) * a - last) <= 0.006 and 1 < round(last / a) <= 99:
            continue  # "Coffee  3  2.40  7.20" with the count read as part of the description
        return False
    return True


def _gaps(rows: list[Row], indexes: list[int]) -> list[str]:
    """Vertical gaps in a run of printed rows where a line may have gone unread."""
    boxes = [(i, rows[i].box) for i in indexes if rows[i].box is not None]
    if len(boxes) < 3:
        return []
    centres = [((b[1] + b[3]) / 2, b[3] - b[1]) for _, b in boxes]  # type: ignore[index]
    steps = [centres[k + 1][0] - centres[k][0] for k in range(len(centres) - 1)]
    pitch = statistics.median(steps)
    height = statistics.median(h for _, h in centres)
    out = []
    for k, step in enumerate(steps):
        if step > max(1.8 * pitch, 2.2 * height):
            out.append(
                f'a gap between rows "{rows[boxes[k][0]].text.strip()}" and '
                f'"{rows[boxes[k + 1][0]].text.strip()}" where a line may be unread'
            )
    return out


def read_items(
    rows: list[Row],
    amounts: list[Amount | None],
    kinds: list[str],
    *,
    start: int,
    end: int,
    skip: set[int],
    minor: int,
    ocr: bool,
) -> ItemReading:
    """Items are the amount rows in ``rows[start:end]`` (the header above, the first summary
    row below); ``skip`` are rows already read as something else (date, merchant, number)."""
    items: list[LineItem] = []
    item_rows: list[int] = []
    qty_rows: list[int] = []
    doubts: list[str] = []
    pending_desc: str | None = None
    zone_rows: list[int] = []
    consumed: set[int] = set()  # description rows printed under their amount row
    pending_qty: list[tuple[int, float, float]] = []  # (row, quantity, unit price)
    for i in range(start, end):
        if i in consumed:
            continue
        row = rows[i]
        text = row.text.strip()
        a = amounts[i]
        folded = fold(text)
        qty_row = QTY_ROW.match(text)
        if qty_row:
            unit = _unit_price(qty_row.group("p"), minor)
            if unit is not None:
                # "2 x 1,50": attached once the items around it are known (it may print above or below)
                pending_qty.append((i, float(qty_row.group("q").replace(",", ".")), unit))
                qty_rows.append(i)
                zone_rows.append(i)
                pending_desc = None
                continue
        if a is not None and kinds[i] == "other" and _is_unit_info(folded, text, a):
            # "Einzelpreis EUR 9,95", "Unit price USD 2.06": the previous item's unit price
            if items and item_rows[-1] >= i - 2:
                last = items[-1]
                q = last.quantity
                if q is None and a.value and abs(round(last.total / a.value) * a.value - last.total) <= 0.006:
                    q = float(round(last.total / a.value))
                items[-1] = LineItem(last.description, last.total, q, a.value)
                qty_rows.append(i)
                zone_rows.append(i)
                continue
            doubts.append(f'a unit-price line "{text}" with no item above it')
            continue
        if a is None:
            if (
                i not in skip
                and kinds[i] == "none"
                and re.search(r"\d[.,]\d{2}(?!\d)", text)
                and not re.search(r"\d{1,2}[./-]\d{1,2}[./-]\d{2}", text)
            ):
                doubts.append(f'a row with a price the reader could not place: "{text}"')
            pending_desc = text if sum(ch.isalpha() for ch in text) >= 2 and i not in skip else None
            continue
        if kinds[i] in ("tip", "discount", "info", "rounding") or i in skip:
            pending_desc = None
            continue
        zone_rows.append(i)
        item = _line_item(row, a, minor)
        if item is None and pending_desc:
            m = QTY.search(_label(row, a))
            qty = unit_price = None
            if m and m.group("q1"):
                found = find_amounts(m.group("p1"), minor_units=minor, allow_integers=True)
                qty = float(m.group("q1").replace(",", "."))
                unit_price = found[-1].value if found else None
            else:
                lead = re.match(r"^\s*(\d{1,3})(?:[.,]0{1,3})?\s", text)
                qty = float(lead.group(1)) if lead and len(find_amounts(text, minor_units=minor)) >= 2 else None
            item = LineItem(description=pending_desc, total=a.value, quantity=qty, unit_price=unit_price)
        if item is None and i + 1 < end and amounts[i + 1] is None and i + 1 not in skip and kinds[i + 1] == "none":
            below = rows[i + 1].text.strip()
            if sum(ch.isalpha() for ch in below) >= 3:  # "9555017370017  1  26.00" / "LION FILE 220*307"
                lead = re.match(r"^\s*(\d{1,3})(?:[.,]0{1,3})?\s", text)
                qty = float(lead.group(1)) if lead and len(find_amounts(text, minor_units=minor)) >= 2 else None
                item = LineItem(description=below.strip(" -*"), total=a.value, quantity=qty)
                consumed.add(i + 1)
        pending_desc = None
        if item is None:
            doubts.append(f'an amount row with no description: "{text}"')
            continue
        all_amounts = [
            x
            for x in find_amounts(row.text, minor_units=minor)
            if x.start < a.end and (minor > 0 or not x.text.isdigit())
        ]  # "Room 140 - 2 nights": not prices
        if len(all_amounts) >= 2 and not _prices_fit(all_amounts, item.quantity):
            doubts.append(f'several prices on one row: "{text}"')
        elif minor > 0 and len(_PRICE_LIKE.findall(row.text)) > len(find_amounts(row.text, minor_units=minor)):
            doubts.append(f'a price on the row "{text}" the reader could not read')
        items.append(item)
        item_rows.append(i)
    _attach_quantities(items, item_rows, pending_qty, rows, doubts, minor)
    if ocr:
        doubts.extend(_gaps(rows, sorted(set(zone_rows))))
    counts = _printed_count(rows, kinds)
    item_count = counts[0] if counts else None
    if counts and items:
        n_rows = float(len(items))
        n_qty = sum((it.quantity if it.quantity and float(it.quantity).is_integer() else 1.0) for it in items)
        if not any(abs(c - n) < 0.01 for c in counts for n in (n_rows, n_qty)):
            doubts.append(
                f"the receipt counts {', '.join(f'{c:g}' for c in counts)} items, the reader found "
                f"{len(items)} rows ({n_qty:g} pieces)"
            )
    return ItemReading(items, item_rows, qty_rows, doubts, item_count)


def _unit_price(text: str, minor: int) -> float | None:
    """The unit price in a quantity row's tail ("1,53/kg", "2.18 £/kg", "1.75 CHF/kg", "$2.40")."""
    m = re.search(r"\d+(?:[.,'\u00a0 ]\d{3})*[.,]\d{1,3}|\d+", text)
    if not m:
        return None
    parsed = parse_number(m.group(0), minor_units=minor if minor != 2 else 3)
    return float(parsed[0]) if parsed else None


def _attach_quantities(
    items: list[LineItem],
    item_rows: list[int],
    pending: list[tuple[int, float, float]],
    rows: list[Row],
    doubts: list[str],
    minor: int,
) -> None:
    """Give each "q x unit" row to the neighbouring item it prices: the item within two rows
    above or below whose amount is q x unit (layouts print it under or over the item); when
    neither fits, the item above, and the check then sees a line that does not multiply."""
    half = 0.5 * 10 ** (-minor) + 1e-6 if minor > 0 else 0.5
    for r, q, unit in pending:
        above = [k for k, ir in enumerate(item_rows) if r - 2 <= ir < r]
        below = [k for k, ir in enumerate(item_rows) if r < ir <= r + 2]
        near = ([above[-1]] if above else []) + ([below[0]] if below else [])
        fits = [k for k in near if abs(q * unit - items[k].total) <= half and items[k].quantity in (None, q)]
        if fits:
            k = fits[0]
        elif near:
            k = near[0]
            doubts.append(f'a quantity line "{rows[r].text.strip()}" that prices neither item beside it')
        else:
            doubts.append(f'a quantity line "{rows[r].text.strip()}" with no item beside it')
            continue
        it = items[k]
        items[k] = LineItem(it.description, it.total, q, unit)


def _is_unit_info(folded: str, text: str, amount: Amount) -> bool:
    label = folded[: amount.start] if len(folded) == len(text) else folded
    m = UNIT_INFO.search(unglue(label))
    if not m:
        return False
    # what is left once the unit words, currency and numbers are gone: an item name has letters
    rest = UNIT_INFO.sub(" ", label)
    rest = re.sub(r"(eur|usd|gbp|chf|rm|\$|€|£|[\d.,:/%@x×*()-])", " ", rest)
    return sum(ch.isalpha() for ch in rest) <= 2


def _label(row: Row, amount: Amount) -> str:
    return row.text[: amount.start]


def _line_item(row: Row, amount: Amount, minor: int) -> LineItem | None:
    label = _label(row, amount)
    qty = unit = None
    m = QTY.search(label)
    if m:
        q = m.group("q1") or m.group("q2")
        qty = float(q.replace(",", ".")) if q else None
        if m.group("p1"):
            found = find_amounts(m.group("p1"), minor_units=minor, allow_integers=True)
            unit = found[-1].value if found else None
        label = label[: m.start()] + label[m.end() :]
    # drop other printed prices from the description (not bare integers: "Room 316 - 4 nights")
    for a in reversed(find_amounts(label, minor_units=minor)):
        if a.decimals > 0 or not a.text.isdigit():
            label = label[: a.start] + label[a.end :]
    desc = re.sub(r"\s{2,}", " ", label).strip(" .:-*#\t")
    lead = re.match(r"^(\d{1,3})\s*(?=[^\d\s.,])", desc)
    if lead and qty is None and not re.match(r"^\d{1,3}\s*(?:[a-z]{1,3}|%)(?![a-z])", desc, re.I):
        qty = float(lead.group(1))  # "2 Coffee  7.00", "3SABASHIOYAKI SET": a leading count
        desc = desc[lead.end() :]
    if sum(ch.isalpha() for ch in desc) < 2:
        return None
    return LineItem(description=desc.strip(), total=amount.value, quantity=qty, unit_price=unit)
