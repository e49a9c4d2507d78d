"""Deterministic checks: do the printed amounts add up?

``totals_add_up`` is the one check RA-Bench scores. It is arithmetic a
reviewer can redo with a pencil, so a failure is *proof* (spec, "Evidence"):
the reason carries every number. Three relations are checked when their
amounts are printed: quantity × unit price -> the line's amount (within half a
minor unit), line items -> subtotal, and subtotal + tax + tip/service −
discounts -> total, strictly within 0.01, i.e. to the cent (to the unit for
currencies without decimals): a total one cent off is a printing slip, and the
check reports it. Where a receipt is ambiguous about what a line means (tax printed
"incl." or added; a discount already inside the subtotal or taken after it)
every reading a till could have printed is tried, and the check fails only
when none adds up. When the amounts are not there, or were read with low OCR
confidence, the check reports ``not_run``: a misread digit must not become a
false proof.
"""

from __future__ import annotations

from itertools import product

import msgspec

from rabench.contracts.verdict import Check
from rabench.engine.extract.fields import Extraction
from rabench.engine.signals import Signal

MIN_CONFIDENCE = 0.80  # OCR confidence below which an amount is not trusted for a proof
CHECK = "totals_add_up"


class CheckResult(msgspec.Struct, frozen=True):
    check: Check
    signal: Signal | None = None


def _tol(minor_units: int) -> float:
    """Printed amounts add up when they agree to the last printed digit: a total one
    cent off is a slip the check must report (strictly within 0.01)."""
    return 0.5 * 10 ** (-minor_units) if minor_units > 0 else 0.5


def _fmt(value: float, minor_units: int) -> str:
    return f"{value:,.{max(minor_units, 0)}f}"


def totals_add_up(ex: Extraction, *, min_confidence: float = MIN_CONFIDENCE) -> CheckResult:
    f = ex.fields
    mu = ex.minor_units
    tol = _tol(mu)
    items_sum = round(sum(i.total for i in ex.line_items), 6) if ex.line_items else None
    if f.total is None or (f.subtotal is None and items_sum is None):
        return CheckResult(Check(name=CHECK, status="not_run", detail="total or subtotal/line items not printed"))
    low = [
        name for name in ("total", "subtotal", "tax_total")
        if ex.field_confidence.get(name, 1.0) < min_confidence
    ]
    if low:
        return CheckResult(
            Check(name=CHECK, status="not_run", detail=f"amounts read with low confidence: {', '.join(low)}")
        )

    tax = sum(ex.taxes)
    tips = sum(ex.tips)
    disc = sum(ex.discounts)
    numbers: dict[str, float] = {"total": f.total}
    if f.subtotal is not None:
        numbers["subtotal"] = f.subtotal
    if ex.taxes:
        numbers["tax"] = round(tax, 6)
    if ex.tips:
        numbers["tip_service"] = round(tips, 6)
    if ex.discounts:
        numbers["discounts"] = round(disc, 6)
    if items_sum is not None:
        numbers["line_items_sum"] = items_sum

    base = f.subtotal
    # Relation 1: line items -> subtotal (a discount line may sit inside either side).
    items_ok = True
    if base is not None and items_sum is not None:
        items_ok = any(abs(items_sum - d - base) <= tol for d in {0.0, disc})
    # Relation 0: quantity x unit price -> the line's amount (within half a minor unit of rounding).
    half = 0.5 * 10 ** (-mu) + 1e-6
    bad_lines = [
        i for i in ex.line_items
        if i.quantity is not None and i.unit_price is not None and abs(i.quantity * i.unit_price - i.total) > half
    ]
    if base is None:
        base = items_sum
    assert base is not None
    # Relation 2: subtotal + tax + tips - discounts -> total, over every reading.
    # a tax may always be read as included in the prices (VAT): only adding it is optional
    tax_options = {0.0, tax} if ex.taxes else {0.0}
    disc_options = {0.0, disc}
    tip_options = {tips, 0.0} if ex.tips else {0.0}
    expected = None
    total_ok = False
    for t, d, tip in product(sorted(tax_options, reverse=True), sorted(disc_options), sorted(tip_options, reverse=True)):
        value = base + t + tip - d
        if expected is None:
            expected = value
        if abs(value - f.total) <= tol:
            total_ok = True
            expected = value
            break
    assert expected is not None
    if items_ok and total_ok and not bad_lines:
        return CheckResult(Check(name=CHECK, status="passed", fields=["total", "subtotal"], numbers=numbers))

    parts = []
    if not items_ok:
        parts.append(
            f"the line items add up to {_fmt(items_sum or 0.0, mu)} but the subtotal printed is {_fmt(f.subtotal or 0.0, mu)}"
            f" (off by {_fmt(abs((items_sum or 0.0) - (f.subtotal or 0.0)), mu)})"
        )
    for item in bad_lines[:3]:
        parts.append(
            f"line \"{item.description}\": {item.quantity:g} × {_fmt(item.unit_price or 0.0, mu)}"
            f" = {_fmt((item.quantity or 0.0) * (item.unit_price or 0.0), mu)}, but {_fmt(item.total, mu)} is printed"
        )
    if not total_ok:
        terms = [f"{'subtotal' if f.subtotal is not None else 'line items'} {_fmt(base, mu)}"]
        if ex.taxes and not ex.tax_inclusive:
            terms.append(f"tax {_fmt(tax, mu)}")
        if ex.tips:
            terms.append(f"tip/service {_fmt(tips, mu)}")
        text = " + ".join(terms)
        if ex.discounts:
            text += f" − discounts {_fmt(disc, mu)}"
        parts.append(
            f"{text} = {_fmt(expected, mu)}, but the total printed is {_fmt(f.total, mu)}"
            f" (off by {_fmt(abs(expected - f.total), mu)})"
        )
        numbers["expected_total"] = round(expected, 6)
        numbers["difference"] = round(f.total - expected, 6)
    sentence = "Printed amounts don't add up: " + "; ".join(parts) + "."
    check = Check(name=CHECK, status="failed", fields=["total", "subtotal"], numbers=numbers, detail=sentence)
    # Strength for the risk model: how far off, relative to the total (5 % off or more = 1).
    # A one-cent rounding slip and a doubled total are both proof, but not equally damning.
    off = max(
        [abs(numbers.get("difference", 0.0))]
        + [abs((items_sum or 0.0) - (f.subtotal or 0.0)) if not items_ok else 0.0]
        + [abs((i.quantity or 0.0) * (i.unit_price or 0.0) - i.total) for i in bad_lines]
    )
    strength = min(1.0, max(0.05, 20.0 * off / max(abs(f.total), 10 ** (-mu) if mu else 1.0)))
    signal = Signal(
        name="check.totals_add_up",
        kind="proof",
        proof_type="arithmetic",
        text=sentence,
        fields=("total", "subtotal"),
        value=round(strength, 4),
        check=CHECK,
    )
    return CheckResult(check, signal)
