"""Cash tendered less the change given back must be the total: an opinion, never a proof.

A forger who edits only the total leaves the payment block as the till printed it: "CASH 51.00",
"CHANGE 20.10" says 30.90 was paid, while the edited total reads 38.90. A reviewer can redo the
subtraction with a pencil, yet the check stays an **opinion** (``check.change_mismatch``, it never
floors the risk): a payment block is easy to misread (a voucher or a card paying part, a tip
written after the total, a rounding row, a change row OCR read as "20.10" for "28.10"), and a
proof that is wrong is the worst output this product can give.

It speaks only when the reading is clear, and is silent otherwise:

- one total row, read with confidence (OCR ≥ 0.88), that is not itself what was paid (a total
  found from the payment is no total to compare);
- under it one cash amount tendered (cash, tendered, paid, payment, bayar, tunai, bar, gegeben,
  efectivo, espèces, contanti, kontant, ...; the same amount printed again, or "Paid" showing
  tendered − change, counts once) and a change row under that (vocab.says_change: change words, a bare "CG"; monnaie, vuelto),
  both read with confidence and printed plainly (not mended from look-alike letters, not run into a
  word), larger than the change (and at least the total only if ``COVER_REQUIRED``);
- no other payment anywhere under the total (a card, a voucher, a gift card, points, a second
  different cash amount: a split tender), no tip, rounding, discount, deposit, subtotal or second
  total of another amount between the total and the change, no amount there the reader cannot
  place;
- tendered − change differs from the total by more than the currency's cash step (``CASH_STEP``)
  plus half a minor unit; the difference is not the amount of a discount, deposit, tip, rounding
  or tax row (a row the payment left out, or the reader placed wrong), and no other total row
  shows what was paid (the reader may have taken the wrong total).
"""

from __future__ import annotations

import re

from rabench.engine.checks import CASH_STEP, PROOF_CONFIDENCE, _fmt, _tol, sums_of_the_printed_amounts
from rabench.engine.extract.amounts import Amount
from rabench.engine.extract.fields import Extraction, _amount_segment, _label_of, _row_amount, join_label_rows
from rabench.engine.extract.layout import Row
from rabench.engine.extract.vocab import fold, row_kind, says_change, unglue
from rabench.engine.signals import Signal

SIGNAL = "check.change_mismatch"
CONFIDENCE = PROOF_CONFIDENCE  # the total, the tendered amount and the change each read at least this surely
# Must the cash tendered cover the total? Cash short of it may be one part of a split tender whose other
# part (a card, a voucher) the reader did not see at all (a card row it saw keeps the check silent). Off
# since round 6 (issue 14): the commonest forgery inflates a total paid exactly in cash ("CASH 5.30",
# "CHANGE 0.00" under a total made 10.60), 30/62 dev total edits caught against 8/62, and allowing it
# fired on none of 435 genuine dev files (docs/engine.md). The check stays an opinion either way.
COVER_REQUIRED = False
SEARCH_ROWS = 8  # the change row is at most this many rows under the tendered amount

_W = r"(?<![a-z])(?:{})(?![a-z])"
# Money handed over in cash (or just "paid"/"tendered", which on a till with change means cash)
TENDER = re.compile(
    _W.format(
        "|".join(
            [
                r"cash",
                r"tunai",
                r"tendered",
                r"tender",
                r"tend",
                r"tnd",
                r"paid",
                r"payment",
                r"zahlung",
                r"paiement",
                r"pago",
                r"betaling",
                r"bayar",
                r"dibayar",
                r"pembayaran",
                r"bar",
                r"bargeld",
                r"gegeben",
                r"erhalten",
                r"efectivo",
                r"entregado",
                r"entrega",
                r"recibido",
                r"especes",
                r"espece",
                r"contanti",
                r"contante",
                r"contant",
                r"kontant",
                r"kontanter",
                r"gotowka",
                r"hotove",
                r"hotovost",
                r"kateinen",
                r"received",
                r"pagado",
                r"pagato",
                r"paye",
                r"bezahlt",
                r"betaald",
                r"dinheiro",
                r"numerario",
                r"お預り",
                r"お預かり",
                r"現金",
                r"amount tendered",
            ]
        )
    )
)
# Money given back: vocab.says_change plus words that mean change only under a tendered amount
CHANGE_MORE = re.compile(_W.format(r"monnaie|vuelto|change\s*due|rendu|devuelto|cambio"))
# A payment that is not cash: its presence under the total means a split tender
NON_CASH = re.compile(
    _W.format(
        "|".join(
            [
                r"card",
                r"visa",
                r"master\s*card",
                r"mastercard",
                r"amex",
                r"maestro",
                r"debit",
                r"credit",
                r"ec",
                r"karte",
                r"girocard",
                r"kartenzahlung",
                r"eftpos",
                r"interac",
                r"tarjeta",
                r"carte",
                r"cb",
                r"kad",
                r"kartu",
                r"karta",
                r"kort",
                r"bankkort",
                r"dankort",
                r"pin",
                r"pinnen",
                r"bancontact",
                r"bancomat",
                r"multibanco",
                r"contactless",
                r"apple\s*pay",
                r"google\s*pay",
                r"paypal",
                r"gift",
                r"voucher",
                r"coupon",
                r"cheque",
                r"check",
                r"gutschein",
                r"bon",
                r"ticket",
                r"e-?wallet",
                r"grab\s*pay",
                r"touch\s*n\s*go",
                r"boost",
                r"alipay",
                r"wechat",
                r"qr",
                r"points?",
                r"loyalty",
                r"deposit",
                r"a/c",
                r"account",
                r"credit\s*note",
                r"pankkikortti",
                r"platba\s*kartou",
            ]
        )
    )
)
# rows under the total that change what is due or was paid: the check has nothing clear to compare
_EXPLAINING_KINDS = ("discount", "deposit", "tip", "rounding", "tax")
_BLOCKING_KINDS = {"tip", "rounding", "discount", "deposit", "total", "subtotal", "with_tax"}


def _plain(text: str, a: Amount) -> bool:
    """The amount stands in the row as printed: not mended from look-alike letters ("5l.00"), not
    run into a word ("CASH V53.35": a digit read as a letter, or a letter glued to it)."""
    before = text[a.start - 1] if a.start > 0 else " "
    after = text[a.end] if a.end < len(text) else " "
    return text[a.start : a.end] == a.text and not before.isalpha() and not after.isalnum()


def _is_change(label: str) -> bool:
    s = unglue(fold(label))
    return says_change(label) or bool(CHANGE_MORE.search(s))


def change_signal(ex: Extraction, rows: list[Row]) -> Signal | None:
    """``check.change_mismatch`` when cash tendered − change ≠ the total (see the module text),
    else None. ``rows``: the printed rows the extraction was read from."""
    found = assess(ex, rows)
    return found if isinstance(found, Signal) else None


def assess(ex: Extraction, rows: list[Row]) -> Signal | str:
    """The signal, or why the check is silent (one phrase, for surveys and tests)."""
    f = ex.fields
    total_rows = ex.field_rows.get("total", [])
    if f.total is None or f.total <= 0 or len(total_rows) != 1:
        return "no total, or several total rows"
    if ex.field_confidence.get("total", 0.0) < CONFIDENCE:
        return "the total read with low confidence"
    if "no row labelled as the total was read" in ex.doubts:
        return "no row labelled as the total"
    minor = ex.minor_units
    tol = _tol(minor)
    rows = join_label_rows(rows, minor)
    top = total_rows[0]
    amounts: list[Amount | None] = [_row_amount(r, minor) for r in rows]
    if top >= len(rows) or amounts[top] is None or abs(amounts[top].value - f.total) > tol:  # type: ignore[union-attr]
        return "the rows are not the ones the total was read from"

    tenders: list[tuple[int, float]] = []  # cash amounts under the total (one, or it printed again)
    change: tuple[int, float] | None = None
    blocked = False
    for i in range(top + 1, len(rows)):
        a = amounts[i]
        if a is None:
            continue
        label = _label_of(rows[i], a)
        s = unglue(fold(label))
        if NON_CASH.search(s) and not _is_change(label):
            if a.value != 0:
                return "a card, voucher or gift card under the total: a split tender"
            continue
        if change is not None:
            continue  # under the change: a footer, a tax table; it does not change what was paid
        kind = row_kind(label)
        if _is_change(label):
            if not tenders or i - tenders[-1][0] > SEARCH_ROWS:
                return "a change row with no cash tendered above it"
            change = (i, abs(a.value))
        elif kind == "total" and abs(a.value - f.total) <= tol:
            continue  # the total printed again ("Total Rounded", "Amount due")
        elif a.value == 0:
            continue  # "Rounding 0.00", "Discount 0.00": nothing changes
        elif kind in _BLOCKING_KINDS:
            blocked = True
        elif TENDER.search(s) and kind in ("payment", "other", "none"):
            tenders.append((i, abs(a.value)))
        elif kind not in ("tax", "info", "count"):
            blocked = True  # an amount in the payment block the reader cannot place
    if blocked:
        return "a tip, rounding, discount, second total or unplaced amount between the total and the change"
    if not tenders or change is None:
        return "no cash tendered and change under the total"
    back = change[1]
    # the amount tendered: the one every other cash row repeats, or shows less the change ("Paid 30.90")
    tender = next(
        (t for t in tenders if all(abs(v - t[1]) <= tol or abs(v - (t[1] - back)) <= tol for _, v in tenders)), None
    )
    if tender is None:
        return "two different cash amounts: a split tender, or a misreading"
    tendered = tender[1]
    paid = round(tendered - back, 6)
    if not (tendered > 0 and back < tendered and (tendered + tol >= f.total or not COVER_REQUIRED)):
        return "the cash tendered is short of the total or of the change"
    confidences = [_amount_segment(rows[i], amounts[i])[1] for i in (tender[0], change[0])]  # type: ignore[arg-type]
    if min(confidences) < CONFIDENCE:
        return "the cash or the change read with low confidence"
    if not all(_plain(rows[i].text, amounts[i]) for i in (top, tender[0], change[0])):  # type: ignore[arg-type]
        return "an amount read only by mending OCR damage"
    diff = f.total - paid
    step = CASH_STEP.get(f.currency or "", 0.05)
    if abs(diff) <= step + tol:
        return "paid = total" if abs(diff) <= tol else "within the cash step"
    # the difference is a discount, deposit, tip, rounding or tax row's amount: a row the payment left out or
    # the reader placed wrong; another total row shows what was paid: the reader may have taken the wrong total
    if any(abs(abs(diff) - abs(v)) <= tol for v, k in ex.printed_amounts if k in _EXPLAINING_KINDS):
        return "the difference is an amount printed on another row"
    if any(abs(v - paid) <= tol for v in ex.other_totals):
        return "another total row shows what was paid"
    mu = minor
    text = (
        f"What was paid does not match the total: tendered {_fmt(tendered, mu)} − change {_fmt(back, mu)} = "
        f"{_fmt(paid, mu)}, but the total printed is {_fmt(f.total, mu)} (off by {_fmt(abs(diff), mu)})."
    )
    # Corroborated: the other printed amounts add up to what was paid (and in no reading to the total),
    # so two independent sums agree and the total is the one amount that disagrees with both.
    sums = sums_of_the_printed_amounts(ex)
    used = ["subtotal" if f.subtotal is not None else "line_items"] + (["tax_total"] if ex.taxes else [])
    corroborated = (
        any(abs(v - paid) <= tol for v in sums)
        and not any(abs(v - f.total) <= tol for v in sums)
        and min(ex.field_confidence.get(k, 1.0) for k in used) >= CONFIDENCE
    )
    if corroborated:
        text += (
            f" The other printed amounts add up to what was paid, {_fmt(paid, mu)}: the total is the one that differs."
        )
    strength = round(min(1.0, max(0.05, 20.0 * abs(diff) / max(f.total, 10 ** (-mu) if mu else 1.0))), 4)
    return Signal(name=SIGNAL, kind="opinion", text=text, fields=("total",), value=strength, corroborated=corroborated)
