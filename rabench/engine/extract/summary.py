"""The totals block: total, subtotal, taxes, tips, discounts, rounding, and what is unclear.

Why its own module: the rows under the items are where a reading goes wrong in
ways that become false proofs — a tax-inclusive total read as exclusive, a
"Rounding Adj -0.02" row ignored, a GST summary table's "TOTAL: 26.00 1.56"
taken for the total, "Total Sales (Inclusive of GST)" next to "Total", the
tax row's amount read as the total. Each row's role comes from its label
(``vocab.row_kind``) and its place: a "Net Total" printed under the tax is the
amount due (Malaysia, Singapore), above it the net amount; a table under a
"GST Summary"/"MwSt" header is a tax breakdown, not totals; the total is the
amount after the rounding row when there is one, else the largest amount on a
total row (a grand total is never smaller than a partial one). Rows in the
totals block the reader cannot place are kept as doubts, so the arithmetic
check does not turn a misunderstanding into a proof.
"""

from __future__ import annotations

import re

import msgspec

from rabench.engine.extract.amounts import Amount, find_amounts, parse_number
from rabench.engine.extract.layout import Row
from rabench.engine.extract.vocab import (
    TAX_BASE,
    TIP,
    TOTAL,
    fold,
    near_total,
    row_kind,
    says_change,
    says_inclusive,
    unglue,
)

SUMMARY_KINDS = {"subtotal", "total", "tax", "count", "rounding"}
_TABLE_HEAD = re.compile(
    r"(gst|tax|vat|mwst|ust|tva|btw|iva|sst)\s*(summary|sumary|analysis|breakdown|code|ubersicht|detail|rate)"
    r"|(?<![a-z])(netto|net|ht|amount|amt|base|basis|excl)(?![a-z]).*(?<![a-z])"
    r"(mwst|tax|tva|gst|vat|btw|iva|steuer|moms|mva|dph|ptu)"
    # "IVA BASE IMPONIBLE CUOTA" (ES), "BTW OVER" (NL), "Moms % Moms Netto Brutto" (SE)
    r"|(?<![a-z])(mwst|tax|tva|gst|vat|btw|iva|steuer|moms|mva|dph|ptu)(?![a-z]).*(?<![a-z])"
    r"(netto|net|brutto|ht|ttc|amount|amt|base|basis|cuota|grundlag|underlag)(?![a-z])"
    r"|(?<![a-z])btw\s*over(?![a-z])"
)
_DATE_OR_TIME = re.compile(r"\d{1,2}:\d{2}|\d{1,4}[./-]\d{1,2}[./-]\d{2,4}")
_TIP_GUIDE_ROW = re.compile(r"(?<![\d.,])\d{1,2}(?:[.,]\d)?\s?%")
_SUGGESTED = re.compile(r"(?<![a-z])(suggest\w*|guide|vorschlag|suggere\w*|sugerid\w*|suggerit\w*)(?![a-z])")
# a tax word with its amount run into it ("TVA0,36", "MwSt1,90"); "Tax0.50" alone is handled below
_GLUED_TAX_AMOUNT = re.compile(
    r"(?i)(?<![a-z])(tax|vat|tva|mwst|ust|iva|gst|hst|btw|ptu|dph|moms|mva)(?=\d[\d.,]*[.,]\d)"
)
_TAX_TOTAL = re.compile(
    r"total|summe|gesamt|jumlah|(?<![a-z])(suma|somme|summa|celkem|razem|osszesen|yhteensa)(?![a-z])"
)
_TOTAL_INCLUDES_TAX = re.compile(
    r"(?<![a-z])total\s*(?:includes?|including|incl\.?|inc\.?|inkl\.?)\s*(?:gst|vat|tax|mwst|tva|iva|btw|moms|mva|ust|hst|ppn)"
    r"(?![a-z])"
)
MAX_TAX_SHARE = 0.3  # no tax is more than this share of a total (VAT rates stop at 27 %)
# the words of a total row that say it is the amount to be paid
_PAYABLE = re.compile(
    r"(?<![a-z])(payable|to pay|zu zahlen|zahlbetrag|a payer|te betalen|att betala|at betale|a betale|do zaplaty|"
    r"k uhrade|za platiti|za placanje|za placilo|total a pagar|perlu dibayar|fizetendo)(?![a-z])"
)
# (also India's "Net Amount" / "Net Payable" under the GST and "Round Off": the amount due)
_NET_TOTAL = re.compile(r"(?<![a-z])net+\s*(?:total|amount|amt|payable)|(?<![a-z])nett(?![a-z])")


class SummaryReading(msgspec.Struct, frozen=True):
    total: float | None = None
    total_row: int | None = None
    total_from_arithmetic: bool = False  # no total label read: the row that equals subtotal + tax
    subtotal: float | None = None
    subtotal_row: int | None = None
    taxes: list[float] = []
    tax_rows: list[int] = []
    tax_rates: list[float] = []
    inclusive: bool = False
    tips: list[float] = []
    tip_rows: list[int] = []
    discounts: list[float] = []  # as positive numbers
    discount_rows: list[int] = []
    rounding: list[float] = []  # signed, as printed
    rounding_rows: list[int] = []
    deposits: list[float] = []  # bottle deposits charged (or returned, negative) in the totals block
    deposit_rows: list[int] = []
    other_totals: list[tuple[int, float]] = []  # every total-labelled row's amount but the one chosen
    table_rows: list[int] = []  # rows of a tax summary table
    table_tax: float | None = None  # the tax the table gives (its total row, or its rows summed)
    table_net: float | None = None
    first_summary: int = 0  # the first row of the totals block (the items end above it)
    doubts: list[str] = []  # rows in the totals block whose role is unclear


def tax_amount(row: Row, minor: int) -> tuple[float | None, float | None]:
    """(tax amount, printed rate) from a tax row, including breakdown rows
    like ``19%  10,00  1,90  11,90`` (net, tax, gross)."""
    text = row.text
    rate = None
    m = re.search(r"(\d{1,2}(?:[.,]\d{1,3})?)\s?%", text)
    if m:
        rate = float(m.group(1).replace(",", "."))
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    # "TVA 5,50% HT 6,54 TVA0,36": OCR ran the amount into a tax word
    text = _GLUED_TAX_AMOUNT.sub(r"\1 ", text)
    amounts = [a.value for a in find_amounts(text, minor_units=minor)]
    if not amounts:  # "Tax0.50": OCR ran the amount into the label
        text = re.sub(r"(?<=[A-Za-z])(?=\d[\d.,]*[.,]\d{2}\s*$)", " ", text)
        amounts = [a.value for a in find_amounts(text, minor_units=minor)]
    if not amounts:
        return None, rate
    if len(amounts) >= 3:
        a, b, c = amounts[-3:]
        if abs(a + b - c) <= 0.011:
            return min(a, b), rate  # net + tax = gross, in either column order (no rate reaches 100 %)
    if len(amounts) == 2 and rate:
        a, b = amounts
        if abs(a * rate / 100 - b) <= max(0.02, 0.006 * b):
            return b, rate
    return amounts[-1], rate


def _table(rows: list[Row], minor: int, after: int) -> tuple[list[int], float | None, float | None]:
    """A tax summary table at or below row ``after``: its rows, its tax and its net amount."""
    for h in range(after, len(rows)):
        s = unglue(fold(rows[h].text))
        if not _TABLE_HEAD.search(s) or len(find_amounts(rows[h].text, minor_units=minor)) >= 2:
            continue
        body: list[int] = []
        nets: list[float] = []
        taxes: list[float] = []
        total_pair: tuple[float, float] | None = None
        misses = 0
        for j in range(h + 1, min(len(rows), h + 12)):
            text = rows[j].text
            masked = re.sub(r"\d{1,2}(?:[.,]\d{1,3})?\s?%", " ", text)
            found = find_amounts(masked, minor_units=minor)
            if len(found) < 2:
                misses += 1
                if misses > 1 or (body and not found):
                    break
                continue
            body.append(j)
            values = [a.value for a in found]
            if len(values) >= 3 and abs(values[-3] + values[-2] - values[-1]) <= 0.011:
                # net + tax = gross; Lidl and others print the tax before the net ("MWST + Netto = Brutto"):
                # the tax is the smaller (no rate reaches 100 %)
                net, tax = max(values[-3], values[-2]), min(values[-3], values[-2])
            else:
                net, tax = values[-2], values[-1]
            if re.search(r"(?<![a-z])(total|summe|jumlah|gesamt)", fold(text)):
                total_pair = (net, tax)
            else:
                nets.append(net)
                taxes.append(tax)
        if body:
            if total_pair is not None:
                return body, round(total_pair[1], 6), round(total_pair[0], 6)
            return body, round(sum(taxes), 6), round(sum(nets), 6)
    return [], None, None


# Currency codes a total row may name: a receipt printing its total in two currencies ("Total CHF 25.60" /
# "Total EUR 26.10" at Swiss tills; "UKUPNO 2,19 EUR" / "16,50 HRK" in Croatia's changeover year)
_CODE = re.compile(
    r"(?<![A-Za-z])(EUR|CHF|USD|GBP|PLN|CZK|HUF|SEK|NOK|DKK|HRK|BGN|RON|RSD|BAM|TRY|CAD|AUD|NZD|"
    r"SGD|MYR|HKD|JPY|CNY|INR|THB|IDR|PHP|AED|ZAR|MXN|BRL)(?![A-Za-z])"
)


def _own_currency_totals(rows: list[Row], total_rows: list[int]) -> list[int]:
    """Total rows in two currencies: keep those in the receipt's own (the code printed most often on
    the receipt, the first total's on a tie) and the rows that name no currency."""
    named = {i: m.group(1) for i in total_rows if (m := _CODE.search(rows[i].text))}
    if len(set(named.values())) < 2:
        return total_rows
    counts: dict[str, int] = {}
    for r in rows:
        for code in _CODE.findall(r.text):
            counts[code] = counts.get(code, 0) + 1
    first = {code: i for i, code in sorted(named.items(), reverse=True)}
    own = max(set(named.values()), key=lambda c: (counts.get(c, 0), -first[c]))
    return [i for i in total_rows if named.get(i, own) == own]


def amount_paid(
    rows: list[Row], amounts: list[Amount | None], kinds: list[str], start: int
) -> tuple[float, int] | None:
    """(amount paid, its row): the first payment row from ``start`` less the change given back under it."""
    for i in range(start, len(rows)):
        a = amounts[i]
        if a is None or kinds[i] != "payment" or a.value <= 0 or says_change(rows[i].text):
            continue
        change = 0.0
        for j in range(i + 1, min(len(rows), i + 4)):
            c = amounts[j]
            if c is not None and kinds[j] == "payment" and says_change(rows[j].text):
                change = abs(c.value)
                break
        return round(a.value - change, 6), i
    return None


def _due_under_tax(
    rows: list[Row], amounts: list[Amount | None], kinds: list[str], minor: int
) -> tuple[int, int] | None:
    """("Amount: 25.34" / "Tax Rate (9%): 2.28" / "Sub-Total: 27.62"): the one total row stands above the tax
    and a subtotal row under the tax is that total plus the tax, with no total under it. The upper row is
    then the net amount and the lower one what is due (tills that label the amount due "Sub-Total")."""
    totals = [i for i, k in enumerate(kinds) if k == "total" and amounts[i] is not None]
    if len(totals) != 1:
        return None
    top = totals[0]
    for t in (j for j in range(top + 1, len(rows)) if kinds[j] == "tax"):
        tax = tax_amount(rows[t], minor)[0]
        if not tax:
            continue
        for s in range(t + 1, min(len(rows), t + 3)):
            a = amounts[s]
            if kinds[s] == "subtotal" and a is not None and abs(amounts[top].value + tax - a.value) <= 0.011:  # type: ignore[union-attr]
                return top, s
    return None


# The amount of a total row as OCR mangles it: a colon or semicolon for the decimal mark ("6:91"), the mark
# doubled ("6..91"), a letter for a digit ("6.9l", "1O.50"), the mark lost ("691")
_MANGLED_TAIL = re.compile(r"(?<![A-Za-z\d])([\dOolI|]{1,6}(?:[.,:;]{1,2}[\dOolI|]{2}|))\s*[A-Z*]{0,2}\s*$")


def _mangled_value(text: str) -> float | None:
    """The value a total row's unreadable amount would have with OCR's damage undone, or None."""
    m = _MANGLED_TAIL.search(text)
    if m is None:
        return None
    tok = m.group(1).translate(str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1", "|": "1"}))
    if sum(ch.isdigit() for ch in tok) < 3:
        return None
    tok = re.sub(r"[.,:;]{1,2}", ".", tok)
    if "." not in tok:
        tok = tok[:-2] + "." + tok[-2:]
    parsed = parse_number(tok)
    return float(parsed[0]) if parsed is not None else None


def read_summary(rows: list[Row], amounts: list[Amount | None], kinds: list[str], minor: int) -> SummaryReading:
    """Read the totals block. ``kinds`` is each row's ``row_kind`` ("none" without an amount,
    except count rows, which may print only a number of items)."""
    kinds = list(kinds)
    n = len(rows)
    due_at = next((i for i, k in enumerate(kinds) if k in ("tax", "total", "rounding")), None)
    for i, k in enumerate(kinds):
        # "Net Total" under the tax, a total or the rounding is what is due (MY/SG tills); above, the net amount
        if k == "subtotal" and due_at is not None and i > due_at and _NET_TOTAL.search(unglue(fold(rows[i].text))):
            kinds[i] = "total"
    for i, k in enumerate(kinds):
        # a tip guide ("Suggested gratuity" / "18%  $7.20  Total $47.20"): the total with a tip the customer
        # may add, not the amount of the receipt; always under the receipt's own total
        first_total = next((j for j, kj in enumerate(kinds) if kj == "total" and amounts[j]), n)
        if (
            k == "total"
            and i > first_total
            and _TIP_GUIDE_ROW.search(rows[i].text)
            and len(find_amounts(rows[i].text, minor_units=minor)) >= 2
            and any(TIP.search(fold(r.text)) or _SUGGESTED.search(fold(r.text)) for r in rows[max(0, i - 4) : i + 1])
        ):
            kinds[i] = "info"
    if not any(k == "total" and amounts[i] for i, k in enumerate(kinds)):
        for i in range(n - 1):
            # "TOTAL AMOUNT" over "CASH  RM 50.00", "Total" over "VISA $23.45": a total label printed
            # without an amount, its amount on the payment line under it
            label = rows[i].text
            # (the exact amount: no change given back under it)
            change = any(
                amounts[j] is not None and amounts[j].value and says_change(rows[j].text)  # type: ignore[union-attr]
                for j in range(i + 2, min(n, i + 4))
            )
            if (
                amounts[i] is None
                and not re.search(r"\d", label)
                and len(label.split()) <= 4
                and row_kind(label) == "total"
                and kinds[i + 1] == "payment"
                and amounts[i + 1]
                and amounts[i + 1].value > 0
                and not change
            ):  # type: ignore[union-attr]
                kinds[i + 1] = "total"
                break
    mangled_total: int | None = None
    if minor == 2 and not any(k == "total" and amounts[i] for i, k in enumerate(kinds)):
        # a total row whose amount OCR mangled beyond money ("TOTAL  6:91", "6..91", "6.9l", "691"): read
        # only when what was paid under it (less the change) is that amount once the damage is undone
        for i in range(n - 1):
            if amounts[i] is not None or not re.search(r"\d", rows[i].text) or row_kind(rows[i].text) != "total":
                continue
            mangled = _mangled_value(rows[i].text)
            paid = amount_paid(rows, amounts, kinds, i + 1)
            if mangled is not None and paid is not None and paid[1] <= i + 3 and abs(paid[0] - mangled) <= 0.005:
                amounts = list(amounts)  # (the caller's list is left as it is)
                amounts[i] = Amount(
                    value=paid[0],
                    text=rows[i].text.split()[-1],
                    start=len(rows[i].text),
                    end=len(rows[i].text),
                    decimals=2,
                )
                kinds[i] = "total"
                mangled_total = i
            break
    blank_tip_total: int | None = None
    if not any(k == "total" and amounts[i] for i, k in enumerate(kinds)):
        # a card slip's "TIP ____" / "TOTAL ____" lines left for the customer to fill in (US tills): the
        # amount printed above them ("Subtotal: 79.17", "Amount: 41.45") is all the receipt says is due
        for i in range(1, n):
            if amounts[i] is not None or re.search(r"\d", rows[i].text) or row_kind(rows[i].text) != "total":
                continue
            tip = next((j for j in range(i - 1, max(-1, i - 3), -1) if row_kind(rows[j].text) == "tip"), None)
            if tip is None or any(amounts[j] is not None for j in range(tip, i + 1)):
                continue
            above = next((j for j in range(tip - 1, max(-1, tip - 3), -1) if amounts[j] is not None), None)
            printed = amounts[above] if above is not None else None
            later = [a for a in amounts[i + 1 : i + 4] if a is not None and a.value > 0]
            if (
                above is not None
                and printed is not None
                and printed.value > 0
                and not later
                and kinds[above] in ("subtotal", "other")
            ):
                kinds[above] = "total"
                blank_tip_total = above
                break
    misread_total: int | None = None
    if not any(k == "total" and amounts[i] for i, k in enumerate(kinds)):
        # still no total: a label OCR misread ("SUMNE 13,30", "T0TAL 12.50", "Gesarnt"), under an amount
        first_amount = next((i for i, a in enumerate(amounts) if a is not None), n)
        for i in range(first_amount + 1, n):
            a = amounts[i]
            if (
                a is not None
                and a.value > 0
                and kinds[i] == "other"
                and len(rows[i].text[: a.start].split()) <= 4
                and near_total(rows[i].text[: a.start])
            ):
                kinds[i] = "total"
                misread_total = i
                break
    if not any(k == "total" and amounts[i] for i, k in enumerate(kinds)):
        # a "tax" row that says total and comes to what was paid is the total, its "inclusive" unread
        # ("Total Sales (lnclvzive Gsl) 20.90", cash 21.00, change 0.20): no tax is half the bill
        paid = amount_paid(rows, amounts, kinds, next((i for i, a in enumerate(amounts) if a is not None), n))
        for i, k in enumerate(kinds):
            a = amounts[i]
            if (
                paid is not None
                and k == "tax"
                and a is not None
                and i < paid[1]
                and 0.5 * paid[0] <= a.value <= 1.1 * paid[0]
                and TOTAL.search(unglue(fold(rows[i].text[: a.start])))
            ):
                kinds[i] = "total"
                break
    if not any(k == "total" and amounts[i] for i, k in enumerate(kinds)):
        # a till that labels the amount due "Subtotal", under the tax ("GST 6%  RM5.45" / "SUBTOTAL  RM96.20" /
        # "CASH  RM100.00" / "CHANGE  RM3.80"): what was paid less the change is that amount
        tax_at = [i for i, k in enumerate(kinds) if k == "tax" and amounts[i] is not None]
        sub_last = max((i for i, k in enumerate(kinds) if k == "subtotal" and amounts[i] is not None), default=None)
        if tax_at and sub_last is not None and sub_last > max(tax_at):
            paid = amount_paid(rows, amounts, kinds, sub_last + 1)
            if paid is not None and paid[1] <= sub_last + 3 and abs(paid[0] - amounts[sub_last].value) <= 0.005:  # type: ignore[union-attr]
                kinds[sub_last] = "total"
    sub_at = next((i for i, k in enumerate(kinds) if k == "subtotal" and amounts[i]), None)
    total_at = next((i for i, k in enumerate(kinds) if k == "total" and amounts[i]), n)
    for i, k in enumerate(kinds):
        if k != "tax" or sub_at is None or i <= sub_at or amounts[i] is None:
            continue
        if not amounts[i].value >= amounts[sub_at].value > 0:  # type: ignore[union-attr]
            continue
        # a "tax" row at least as large as the subtotal is never the tax: the total when it says
        # total ("Total In ofGST 6.00", "Total After Adj Inci GST 42.50") or, above any total,
        # "inclusive" ("al ndusive GST: 635.00"); else, above any total, the subtotal with its tax
        # ("Sub w/Tax 39.19"). Under a total, "incl. VAT 5.00" stays a (misread) tax note.
        label = unglue(fold(rows[i].text))
        if TOTAL.search(label) or (i < total_at and says_inclusive(label)):
            kinds[i] = "total"
        elif i < total_at:
            kinds[i] = "with_tax"
    for i, k in enumerate(kinds):
        # "Total includes GST $0.41" (Australia), "Total incl. VAT 1.17" under "TOTAL 9.55": the tax inside the
        # total, not another total — a total with its tax is never under a third of another total row. Only
        # the phrase itself, and only when no other row prints a smaller tax: "Total 6% supplies (Inc. GST)
        # 13.74" over "GST 0.78" is one tax group's gross amount
        a = amounts[i]
        if (
            k == "total"
            and a is not None
            and a.value > 0
            and _TOTAL_INCLUDES_TAX.search(unglue(fold(rows[i].text[: a.start])))
            and any(
                kinds[j] == "total" and b is not None and b.value >= a.value / MAX_TAX_SHARE
                for j, b in enumerate(amounts)
                if j != i
            )
            and not any(kinds[j] == "tax" and b is not None and 0 < b.value < a.value for j, b in enumerate(amounts))
        ):
            kinds[i] = "tax"
    due_under_tax = _due_under_tax(rows, amounts, kinds, minor)
    if due_under_tax is not None:
        kinds[due_under_tax[0]], kinds[due_under_tax[1]] = "subtotal", "total"
    big = 0.5 if minor > 0 else 50.0
    for i, k in enumerate(kinds):
        if k == "rounding" and amounts[i] is not None and abs(amounts[i].value) > big:  # type: ignore[union-attr]
            kinds[i] = "total"  # "Rounding  RM 182.00": the rounded total, not an adjustment
    first_summary = next((i for i, k in enumerate(kinds) if k in SUMMARY_KINDS), n)
    table_rows, table_tax, table_net = _table(rows, minor, first_summary)
    in_table = set(table_rows)

    def value(i: int) -> float:
        return amounts[i].value  # type: ignore[union-attr]

    total_rows = [i for i, k in enumerate(kinds) if k == "total" and amounts[i] and value(i) > 0 and i not in in_table]
    total_rows = _own_currency_totals(rows, total_rows)
    rounding_rows = [i for i, k in enumerate(kinds) if k == "rounding" and amounts[i] and i not in in_table]
    total = total_row = None
    if total_rows:
        pool = total_rows
        # a discount, voucher or deposit paid between total rows ("Total 50.00" / "Remise -5,00" / "Net à
        # payer 45,00", "Gross Total" / "Member Discount" / "Net Total"): the totals under it are what is due
        cut = max(
            (
                i
                for i, k in enumerate(kinds)
                if k in ("discount", "deposit") and amounts[i] and i not in in_table and i > total_rows[0]
            ),
            default=None,
        )
        if cut is not None and any(i > cut for i in total_rows):
            pool = [i for i in total_rows if i > cut]
        largest = max(pool, key=lambda j: (value(j), -j))
        # "Total 6% supplies (Inc. GST) 29.33" / "Total 0% supplies -2.13" / "Total Payable 27.20": a total
        # row that says it is what is to be paid, under every other one, is the amount due, however large
        # the partial totals above it ("Total Payable", "Net à payer", "Zu zahlen"; not "Balance due", which
        # may be what is left after a payment)
        payable = [i for i in pool if _PAYABLE.search(unglue(fold(rows[i].text[: amounts[i].start])))]  # type: ignore[union-attr]
        if payable and payable[-1] == max(pool) and len(pool) > 1:
            largest = payable[-1]
        # the amount due is the first total under "Rounding Adj" ("Total Rounded"), when it is
        # the rounded form of the totals above; otherwise the largest total
        after_rounding = [
            i for i in total_rows if rounding_rows and i > rounding_rows[0] and abs(value(i) - value(largest)) <= 0.1
        ]
        total_row = after_rounding[0] if after_rounding else largest
        total = value(total_row)
    sub_rows = [i for i, k in enumerate(kinds) if k == "subtotal" and amounts[i] and i not in in_table]
    subtotal = subtotal_row = None
    if sub_rows:
        subtotal_row = sub_rows[0]
        subtotal = value(subtotal_row)

    taxes: list[float] = []
    tax_rows: list[int] = []
    rates: list[float] = []
    inclusive = False
    tax_total_row: tuple[int, float] | None = None
    seen_tax: set[float] = set()
    big_tax: list[int] = []  # "tax" rows too large to be a tax on the total
    for i, k in enumerate(kinds):
        if k != "tax" or i in in_table:
            continue
        tax, rate = tax_amount(rows[i], minor)
        if tax is None:
            continue
        if total is not None and tax > MAX_TAX_SHARE * total:
            # "GST TA AMT  RM90.75" over "GST6%  RM5.45" and a total of 96.20: the taxed amount, not a tax
            big_tax.append(i)
            continue
        s = unglue(fold(rows[i].text))
        if _TAX_TOTAL.search(s):  # "Total Tax", "Summe MwSt", "SUMA PTU", "Somme TVA", "Celkem DPH"
            tax_total_row = (i, tax)
        if says_inclusive(s):
            inclusive = True
        if rate is not None:
            rates.append(rate)
        if tax in seen_tax and rate is None:
            continue  # a repeated summary line
        seen_tax.add(tax)
        taxes.append(tax)
        tax_rows.append(i)
    if tax_total_row is not None:
        taxes = [tax_total_row[1]]
    if not taxes and table_tax:
        taxes = [table_tax]  # only the GST summary prints it: inside the prices
        inclusive = True
    if tax_rows and total_row is not None and min(tax_rows) > total_row:
        inclusive = True  # printed under the total: already inside it (VAT receipts)
    tax_total = round(sum(taxes), minor) if taxes else None
    if inclusive and subtotal is not None and total is not None and tax_total is not None:
        if abs(subtotal + tax_total - total) <= 0.011:
            inclusive = False  # printed "incl." yet added: the arithmetic says exclusive

    # a tip or service line under the total ("18% gratuity $25.56" suggested) is not inside it
    tip_rows = [
        i
        for i, k in enumerate(kinds)
        if k == "tip" and amounts[i] and i not in in_table and (total_row is None or i < total_row)
    ]
    disc_rows = [i for i, k in enumerate(kinds) if k == "discount" and amounts[i] and i not in in_table]
    rounding = [value(i) for i in rounding_rows]
    # in the items a deposit is an item of its own; under the subtotal it is a charge on the total
    dep_rows = [
        i for i, k in enumerate(kinds) if k == "deposit" and amounts[i] and i >= first_summary and i not in in_table
    ]

    from_arithmetic = False
    if total is None and (subtotal is not None or taxes):
        # no total label read ("TOT"I,", or only SUBTOTAL then CASH): the row under the subtotal/tax
        # whose amount is their sum (a payment of exactly that amount included)
        base = subtotal if subtotal is not None else 0.0
        want = {round(base + t + r, 6) for t in {0.0, sum(taxes)} for r in {0.0, sum(rounding)}}
        below = max([x for x in [subtotal_row, *tax_rows] if x is not None], default=first_summary)
        for i in range(below + 1, n):
            a = amounts[i]
            # a second "Subtotal" under the rounding row is the rounded amount due (some tills print no total)
            after_rounding = kinds[i] == "subtotal" and bool(rounding_rows) and i > rounding_rows[0]
            if (
                a is not None
                and (kinds[i] in ("other", "none", "total", "payment") or after_rounding)
                and i not in in_table
                and any(abs(a.value - w) <= 0.005 for w in want if w > 0)
            ):
                total, total_row, from_arithmetic = a.value, i, True
                break

    doubts: list[str] = []
    last = total_row if total_row is not None else first_summary
    for i in range(first_summary, min(n, last + 1)):
        if i in in_table:
            continue
        text = rows[i].text.strip()
        if amounts[i] is not None and kinds[i] in ("other", "info") and not TAX_BASE.search(fold(text)):
            doubts.append(f'a row in the totals the reader could not place: "{text}"')
        elif amounts[i] is None and re.search(r"\d", text) and kinds[i] != "count" and not _DATE_OR_TIME.search(text):
            doubts.append(f'a number in the totals the reader could not read as money: "{text}"')
    first_amount = next((i for i, a in enumerate(amounts) if a is not None), n)
    for i in range(first_amount, min(n, last)):
        if amounts[i] is None and row_kind(rows[i].text) in ("subtotal", "tax", "tip", "discount", "rounding", "total"):
            doubts.append(f'"{rows[i].text.strip()}" is printed without an amount the reader could read')
    for i in big_tax:
        doubts.append(f'a tax row larger than any tax on the total: "{rows[i].text.strip()}"')
    for i, k in enumerate(kinds):
        if k == "with_tax" and subtotal is not None and abs(value(i) - subtotal - sum(taxes)) > 0.011:
            doubts.append(f'"{rows[i].text.strip()}" is not the subtotal plus the tax read')
    if blank_tip_total is not None and total_row == blank_tip_total:
        doubts.append(
            f'the total is the amount printed above a tip line left blank: "{rows[blank_tip_total].text.strip()}"'
        )
    if mangled_total is not None and total_row == mangled_total:
        doubts.append(
            f"the total's amount was read only with OCR's damage undone: \"{rows[mangled_total].text.strip()}\""
        )
    if misread_total is not None and total_row == misread_total:
        doubts.append(f'the total\'s label was read only approximately: "{rows[misread_total].text.strip()}"')
    others = [(i, value(i)) for i in total_rows if i != total_row]
    return SummaryReading(
        total=total,
        total_row=total_row,
        total_from_arithmetic=from_arithmetic,
        subtotal=subtotal,
        subtotal_row=subtotal_row,
        taxes=taxes,
        tax_rows=tax_rows if tax_total_row is None else [tax_total_row[0]],
        tax_rates=rates,
        inclusive=inclusive,
        tips=[value(i) for i in tip_rows],
        tip_rows=tip_rows,
        discounts=[abs(value(i)) for i in disc_rows],
        discount_rows=disc_rows,
        rounding=rounding,
        rounding_rows=rounding_rows,
        deposits=[value(i) for i in dep_rows],
        deposit_rows=dep_rows,
        other_totals=others,
        table_rows=table_rows,
        table_tax=table_tax,
        table_net=table_net,
        first_summary=first_summary,
        doubts=doubts,
    )
