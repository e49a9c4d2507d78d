"""Deterministic checks: do the printed amounts add up, and may a failure be called proof?

``totals_add_up`` is the one check RA-Bench scores. It is arithmetic a
reviewer can redo with a pencil, so a failure is *proof* (spec, "Evidence"):
the reason carries every number. Three relations are checked when their
amounts are printed: quantity × unit price -> the line's amount (within half a
minor unit), line items -> subtotal, and subtotal + tax + tip/service −
discounts + rounding -> total, strictly within 0.01, i.e. to the cent (to the
unit for currencies without decimals). Where a receipt is ambiguous about what
a line means (tax printed "incl." or added; a discount already inside the
subtotal or taken after it; a rounding line applied or not) every reading a
till could have printed is tried, and the check fails only when none adds up.

A proof must be right, and on real receipts most "don't add up" results are
misreadings: an identical item row not read, an info line ("Einzelpreis EUR
9,95") taken for an item, a subtotal misread, a total taken from the wrong
row. So a failure is claimed as proof only when the reading is complete and
confident: the reader has no doubts (every row of the item zone and the
totals block placed, no gap where a line may be unread, a printed item count
that agrees), every amount used was read with high confidence, exactly one
printed amount is the odd one out, and the difference is not itself an amount
printed on the receipt (a missed or an extra row) nor cash rounding.
Otherwise the check reports ``not_run`` with the numbers and the opinion
``check.amounts_unreconciled`` ("amounts could not be reconciled"), which does
not floor the risk. A quantity × price line that doesn't match is never proof
on its own (weights, per-unit discounts and misread quantities look alike).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

import msgspec

from rabench.contracts.verdict import Check
from rabench.engine.extract.fields import Extraction
from rabench.engine.signals import Signal

MIN_CONFIDENCE = 0.80  # below this an amount is not used at all (not_run)
PROOF_CONFIDENCE = 0.88  # every amount a proof rests on was read at least this surely
ODD_ONE_CONFIDENCE = 0.93  # ... and the one amount that disagrees with the others, at least this
MAX_TAX_SHARE = 0.3  # VAT/GST/sales tax rates stop at 27 % (Hungary): more is a misreading
CHECK = "totals_add_up"
UNRECONCILED = "check.amounts_unreconciled"
# Cash is paid in steps of the smallest coin, and tills that round a cash total to it do not always
# print the rounding row (or OCR loses it): a total that far off, in those steps, is no proof.
# Sources: the central banks' coin withdrawals — Sveriges Riksbank (50 öre withdrawn 2010: whole
# kronor), Norges Bank (50 øre withdrawn 2012: whole kroner), Danmarks Nationalbank (25 øre
# withdrawn 2008: 50 øre steps), Czech National Bank (50 haléř withdrawn 2008: whole koruna),
# Magyar Nemzeti Bank (1 and 2 forint withdrawn 2008: 5 forint steps), Reserve Bank of India
# (coins under 50 paise withdrawn 2011; tills print "Round off" to the rupee), Reserve Bank of New
# Zealand (5 c withdrawn 2006: 10 c steps), South African Reserve Bank (1 and 2 c withdrawn 2002:
# 10 c steps). Every other currency: 0.05 (Swiss 5 Rappen, Australia, Canada, Malaysia, the euro
# countries that round cash: Netherlands, Belgium, Finland, Ireland, Italy, Slovakia).
CASH_STEP = {"SEK": 1.0, "NOK": 1.0, "CZK": 1.0, "INR": 1.0, "DKK": 0.5, "HUF": 5.0, "NZD": 0.1, "ZAR": 0.1}


class CheckResult(msgspec.Struct, frozen=True):
    check: Check
    signal: Signal | None = None


def _tol(minor_units: int) -> float:
    """Printed amounts add up when they agree to the last printed digit: a total one
    cent off is a slip the check must report (strictly within 0.01)."""
    return 0.5 * 10 ** (-minor_units) if minor_units > 0 else 0.5


def _fmt(value: float, minor_units: int) -> str:
    return f"{value:,.{max(minor_units, 0)}f}"


class _Relations(msgspec.Struct):
    items_sum: float | None
    items_ok: bool
    total_ok: bool
    expected: float
    base: float
    base_is_items: bool
    bad_lines: list[int]
    total_ok_from_items: bool  # items (not the printed subtotal) + tax ... = total


def _readings(ex: Extraction, base: float) -> Iterator[float]:
    """``base`` + tax + tips − discounts + rounding + deposits in every reading a till could have
    printed (each of those rows applied or not), the likeliest first."""
    tax, tips, disc, rnd = sum(ex.taxes), sum(ex.tips), sum(ex.discounts), sum(ex.rounding)
    dep = sum(ex.deposits)
    tax_options = sorted({0.0, tax} if ex.taxes else {0.0}, reverse=not ex.tax_inclusive)
    for t, d, tip, r, p in product(
        tax_options,
        sorted({0.0, disc}),
        sorted({tips, 0.0}, reverse=True),
        sorted({rnd, 0.0}, reverse=True),
        sorted({dep, 0.0}, reverse=True),
    ):
        yield base + t + tip - d + r + p


def _total_matches(ex: Extraction, base: float, tol: float) -> tuple[bool, float]:
    """Does ``base`` + tax + tips − discounts + rounding give the total, in any reading a till
    could have printed? Returns (matches, the expected total of the first/matching reading)."""
    total = ex.fields.total
    assert total is not None
    expected = None
    for value in _readings(ex, base):
        if expected is None:
            expected = value
        if abs(value - total) <= tol:
            return True, value
    assert expected is not None
    return False, expected


def sums_of_the_printed_amounts(ex: Extraction) -> list[float]:
    """Every total the amounts read could make (from the printed subtotal, or from the line items
    when there is no subtotal), in any reading a till could have printed; [] when neither was read."""
    f = ex.fields
    base = f.subtotal if f.subtotal is not None else (sum(i.total for i in ex.line_items) if ex.line_items else None)
    return [] if base is None else list(_readings(ex, base))


def _relations(ex: Extraction, tol: float) -> _Relations:
    f = ex.fields
    mu = ex.minor_units
    items_sum = round(sum(i.total for i in ex.line_items), 6) if ex.line_items else None
    disc = sum(ex.discounts)
    items_ok = True
    if f.subtotal is not None and items_sum is not None:
        # items priced with their tax and a net subtotal (Malaysian GST tills) also add up
        tax = sum(ex.taxes)
        items_ok = any(abs(items_sum - d - f.subtotal - t) <= tol for d in {0.0, disc} for t in {0.0, tax})
    half = 0.5 * 10 ** (-mu) + 1e-6
    bad = [
        k
        for k, i in enumerate(ex.line_items)
        if i.quantity is not None and i.unit_price is not None and abs(i.quantity * i.unit_price - i.total) > half
    ]
    base = f.subtotal if f.subtotal is not None else items_sum
    assert base is not None
    total_ok, expected = _total_matches(ex, base, tol)
    from_items = False
    if items_sum is not None and f.subtotal is not None and not items_ok:
        from_items = _total_matches(ex, items_sum, tol)[0] or _total_matches(ex, items_sum - disc, tol)[0]
    return _Relations(items_sum, items_ok, total_ok, expected, base, f.subtotal is None, bad, from_items)


def _conf(ex: Extraction, name: str) -> float:
    return ex.field_confidence.get(name, 1.0)


def _proof_doubts(ex: Extraction, rel: _Relations, tol: float) -> list[str]:
    """Why a failure may be a misreading rather than what the paper says (empty = proof)."""
    f = ex.fields
    mu = ex.minor_units
    doubts = list(ex.doubts)
    used = ["total"]
    if f.subtotal is not None:
        used.append("subtotal")
    if ex.taxes:
        used.append("tax_total")
    if rel.items_sum is not None and (rel.base_is_items or not rel.items_ok):
        used.append("line_items")
    used += [
        n
        for n, v in (
            ("tips", ex.tips),
            ("discounts", ex.discounts),
            ("rounding", ex.rounding),
            ("deposits", ex.deposits),
        )
        if v
    ]
    low = [n for n in used if _conf(ex, n) < PROOF_CONFIDENCE]
    if low:
        doubts.append(f"read with OCR confidence below {PROOF_CONFIDENCE:.2f}: {', '.join(low)}")

    if ex.taxes and rel.base > 0 and sum(ex.taxes) > MAX_TAX_SHARE * rel.base:
        doubts.append(
            f"a tax of {_fmt(sum(ex.taxes), mu)} on {_fmt(rel.base, mu)} is more than any country charges: "
            "a tax row may be misread"
        )
    # which one printed amount is the odd one out?
    odd = None
    if rel.items_ok and not rel.total_ok:
        odd = "total"
    elif not rel.items_ok and rel.total_ok:
        doubts.append("the subtotal and the total agree and only the items don't: an item row may be misread or missed")
    elif rel.total_ok_from_items:
        odd = "subtotal"
    elif not rel.items_ok:
        doubts.append(
            "the items, the subtotal and the total disagree with each other (more than one amount "
            "would have to be wrong)"
        )
    if odd is not None and _conf(ex, odd) < ODD_ONE_CONFIDENCE:
        doubts.append(f"the {odd}, the one amount that disagrees, was read with OCR confidence {_conf(ex, odd):.2f}")

    # the difference is an amount printed on the receipt: a row missed, repeated or misplaced
    if not rel.items_ok and f.subtotal is not None and rel.items_sum is not None:
        diffs = [rel.items_sum - f.subtotal, rel.items_sum - sum(ex.discounts) - f.subtotal]
        doubts += _diff_doubts(ex, diffs, tol, items_too=True, exclude={f.subtotal})
    if not rel.total_ok and f.total is not None:
        exclude = {f.total}
        doubts += _diff_doubts(ex, [f.total - rel.expected], tol, items_too=rel.base_is_items, exclude=exclude)
        for other in ex.other_totals:
            if ex.rounding and abs(f.total - other - sum(ex.rounding)) > 0.05 + tol and other < f.total:
                continue  # the total before "Rounding Adj": the rounded total is what disagrees
            if abs(other - rel.expected) <= tol or any(abs(other - rel.base - t) <= tol for t in ex.taxes):
                doubts.append(f"another total row shows {_fmt(other, mu)}, which does add up")
                break
        step = CASH_STEP.get(f.currency or "", 0.05)
        if abs(f.total - rel.expected) <= step / 2 + tol and abs(round(f.total / step) - f.total / step) < 1e-6:
            doubts.append(
                f"a difference of {_fmt(abs(f.total - rel.expected), mu)} on a total in steps of "
                f"{step:g} may be cash rounding"
            )
        if ex.table_tax is not None and ex.taxes and abs(ex.table_tax - sum(ex.taxes)) > tol:
            doubts.append(f"the tax summary gives tax {_fmt(ex.table_tax, mu)}, the tax row {_fmt(sum(ex.taxes), mu)}")
    return list(dict.fromkeys(doubts))


def _diff_doubts(ex: Extraction, diffs: list[float], tol: float, *, items_too: bool, exclude: set[float]) -> list[str]:
    mu = ex.minor_units
    candidates = [
        (v, k) for v, k in ex.printed_amounts if k != "payment" and not any(abs(v - e) <= tol for e in exclude)
    ]
    if items_too:
        # a repeated row missed (twice or three times an item), or category subtotals read as items
        # ("Food 56.80", "Liquor 24.00" under the items they sum): up to three items together
        amounts = [i.total for i in ex.line_items]
        candidates += [(a * m, "item") for a in amounts for m in (2, 3)]
        if len(amounts) <= 40:
            candidates += [(sum(c), "item") for r in (2, 3) for c in combinations(amounts, r)]
    for d in diffs:
        if abs(d) <= tol:
            continue
        for v, kind in candidates:
            if v and abs(abs(d) - abs(v)) <= tol:
                what = "an item row" if kind in ("other", "item") else f"a {kind} row"
                return [
                    f"the difference {_fmt(abs(d), mu)} equals an amount printed on {what}: a row may have been "
                    "missed, repeated or read in the wrong role"
                ]
    return []


def _sentence(ex: Extraction, rel: _Relations) -> tuple[str, dict[str, float]]:
    f = ex.fields
    mu = ex.minor_units
    numbers: dict[str, float] = {"total": f.total or 0.0}
    if f.subtotal is not None:
        numbers["subtotal"] = f.subtotal
    if ex.taxes:
        numbers["tax"] = round(sum(ex.taxes), 6)
    if ex.tips:
        numbers["tip_service"] = round(sum(ex.tips), 6)
    if ex.discounts:
        numbers["discounts"] = round(sum(ex.discounts), 6)
    if ex.rounding:
        numbers["rounding"] = round(sum(ex.rounding), 6)
    if ex.deposits:
        numbers["deposits"] = round(sum(ex.deposits), 6)
    if rel.items_sum is not None:
        numbers["line_items_sum"] = rel.items_sum
    parts = []
    if not rel.items_ok:
        items_sum, sub = rel.items_sum or 0.0, f.subtotal or 0.0
        parts.append(
            f"the line items add up to {_fmt(items_sum, mu)} but the subtotal printed is {_fmt(sub, mu)}"
            f" (off by {_fmt(abs(items_sum - sub), mu)})"
        )
    for k in rel.bad_lines[:3]:
        item = ex.line_items[k]
        parts.append(
            f'line "{item.description}": {item.quantity:g} × {_fmt(item.unit_price or 0.0, mu)}'
            f" = {_fmt((item.quantity or 0.0) * (item.unit_price or 0.0), mu)}, but {_fmt(item.total, mu)} is printed"
        )
    if not rel.total_ok:
        terms = [f"{'line items' if rel.base_is_items else 'subtotal'} {_fmt(rel.base, mu)}"]
        if ex.taxes and not ex.tax_inclusive:
            terms.append(f"tax {_fmt(sum(ex.taxes), mu)}")
        if ex.tips:
            terms.append(f"tip/service {_fmt(sum(ex.tips), mu)}")
        if ex.rounding:
            terms.append(f"rounding {_fmt(sum(ex.rounding), mu)}")
        if ex.deposits:
            terms.append(f"deposit {_fmt(sum(ex.deposits), mu)}")
        text = " + ".join(terms)
        if ex.discounts:
            text += f" − discounts {_fmt(sum(ex.discounts), mu)}"
        # the sum of exactly the terms named (no reading adds up, so the one shown is the one
        # as printed; ``rel.expected``, the first reading tried, may leave a term out)
        shown = (
            rel.base
            + (sum(ex.taxes) if ex.taxes and not ex.tax_inclusive else 0.0)
            + sum(ex.tips)
            + sum(ex.rounding)
            + sum(ex.deposits)
            - sum(ex.discounts)
        )
        parts.append(
            f"{text} = {_fmt(shown, mu)}, but the total printed is {_fmt(f.total or 0.0, mu)}"
            f" (off by {_fmt(abs(shown - (f.total or 0.0)), mu)})"
        )
        numbers["expected_total"] = round(shown, 6)
        numbers["difference"] = round((f.total or 0.0) - shown, 6)
    return "; ".join(parts), numbers


def totals_add_up(ex: Extraction, *, min_confidence: float = MIN_CONFIDENCE) -> CheckResult:
    f = ex.fields
    mu = ex.minor_units
    tol = _tol(mu)
    if f.total is None or (f.subtotal is None and not ex.line_items):
        return CheckResult(Check(name=CHECK, status="not_run", detail="total or subtotal/line items not printed"))
    low = [name for name in ("total", "subtotal", "tax_total") if _conf(ex, name) < min_confidence]
    if low:
        return CheckResult(
            Check(name=CHECK, status="not_run", detail=f"amounts read with low confidence: {', '.join(low)}")
        )
    rel = _relations(ex, tol)
    if rel.items_ok and rel.total_ok and not rel.bad_lines:
        _, numbers = _sentence(ex, rel)
        return CheckResult(Check(name=CHECK, status="passed", fields=["total", "subtotal"], numbers=numbers))

    what, numbers = _sentence(ex, rel)
    off = max(
        [abs(numbers.get("difference", 0.0))]
        + [abs((rel.items_sum or 0.0) - (f.subtotal or 0.0)) if not rel.items_ok else 0.0]
        + [
            abs((i.quantity or 0.0) * (i.unit_price or 0.0) - i.total)
            for k, i in enumerate(ex.line_items)
            if k in rel.bad_lines
        ]
    )
    # strength for the risk model: how far off, relative to the total (5 % off or more = 1)
    strength = round(min(1.0, max(0.05, 20.0 * off / max(abs(f.total), 10 ** (-mu) if mu else 1.0))), 4)
    doubts = (
        _proof_doubts(ex, rel, tol)
        if not (rel.items_ok and rel.total_ok)
        else ["only a quantity × price line disagrees (weights, per-unit discounts and misread quantities look alike)"]
    )
    if not doubts:
        sentence = "Printed amounts don't add up: " + what + "."
        check = Check(name=CHECK, status="failed", fields=["total", "subtotal"], numbers=numbers, detail=sentence)
        return CheckResult(
            check,
            Signal(
                name="check.totals_add_up",
                kind="proof",
                proof_type="arithmetic",
                text=sentence,
                fields=("total", "subtotal"),
                value=strength,
                check=CHECK,
            ),
        )
    sentence = f"Amounts could not be reconciled: {what}. Not claimed as proof: {doubts[0]}."
    check = Check(name=CHECK, status="not_run", fields=["total", "subtotal"], numbers=numbers, detail=sentence)
    return CheckResult(
        check,
        Signal(
            name=UNRECONCILED,
            kind="opinion",
            text=sentence,
            fields=("total", "subtotal"),
            value=strength,
            check=CHECK,
        ),
    )
