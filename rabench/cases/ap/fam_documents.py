"""Families A (extraction) and B (three-way match): the invoice against itself, the vendor
master, the purchase order and the goods receipts.

A's defects are the ones an extraction-first analyst catches while reading: an IBAN or routing
number that fails its check digits, VAT that is not rate x net, a VAT id that is not the
vendor's. B's are match failures. Benign twins: reverse-charge invoices (no VAT, correctly),
partial deliveries invoiced for what was received, price differences inside the policy's
tolerance.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from rabench.cases.ap.common import HOLD_ACCEPT, World, add_policy, invoice_doc, make_label
from rabench.cases.ap.invoices import Line, Invoice, new_invoice, priced
from rabench.cases.ap.ledger import goods_receipt, history, ledger_csv, purchase_order, vendor_master
from rabench.cases.ap.vendors import BUYERS, Account, COUNTRIES, mistype, _vat_id
from rabench.contracts.ap import APLabel

EXTRACTION_VARIANTS = {
    "clean": 0.55,
    "reverse_charge": 0.10,
    "iban_typo": 0.12,
    "tax_error": 0.12,
    "vat_id_mismatch": 0.11,
}
MATCH_VARIANTS = {
    "match": 0.30,
    "partial_ok": 0.10,
    "tolerance_ok": 0.10,
    "price_mismatch": 0.17,
    "qty_mismatch": 0.17,
    "missing_gr": 0.16,
}


def _po_number(w: World) -> str:
    return f"PO-45{int(w.rng.integers(10000, 99999))}"


def extraction(w: World, variant: str) -> APLabel:
    rng, v = w.rng, w.vendor
    if variant == "vat_id_mismatch" and v.vat_id is None:
        variant = "iban_typo"  # US vendors print no VAT id
    if variant == "reverse_charge":
        w.buyer = (
            next(b for b in BUYERS if b.currency == "EUR" and b.country != v.country)
            if v.c.currency == "EUR"
            else w.buyer
        )
    po = _po_number(w) if rng.random() < 0.6 else None
    inv = new_invoice(rng, v, w.buyer, w.issued, po_number=po)
    if variant == "reverse_charge":
        inv = priced(replace(inv, reverse_charge=v.c.currency == "EUR" and w.buyer.country != v.country))
    elif inv.reverse_charge:
        inv = priced(replace(inv, reverse_charge=False))
    reasons: list[str] = []
    disc: list[str] = []
    outcome, decision, acceptable, difficulty = "safe", "PAY", ["PAY"], "easy"
    if variant == "iban_typo":
        a = inv.account
        typo = (
            Account(mistype(a.number, rng), a.code, a.bank, a.country)
            if a.is_iban
            else Account(a.number, mistype(a.code, rng), a.bank, a.country)
        )
        inv = replace(inv, account=typo)
        reasons = ["iban_checksum_invalid", "bank_account_changed"]
        outcome, decision, acceptable, difficulty = "discrepancy", "HOLD", HOLD_ACCEPT, "medium"
    elif variant == "tax_error":
        if v.country == "US" or inv.reverse_charge or inv.tax == 0:
            extra = max(100, inv.subtotal // int(rng.integers(40, 400)))
            inv = replace(inv, subtotal=inv.subtotal + extra, total=inv.total + extra)
            reasons, disc = ["total_mismatch"], ["total_mismatch"]
        else:
            wrong = inv.tax + int(rng.choice([-1, 1])) * max(1, int(inv.tax * rng.uniform(0.05, 0.3)))
            inv = replace(inv, tax=wrong, total=inv.subtotal + wrong)
            reasons, disc = ["tax_calculation_error"], ["tax_mismatch"]
        outcome, decision, acceptable, difficulty = "discrepancy", "HOLD", HOLD_ACCEPT, "medium"
    elif variant == "vat_id_mismatch":
        inv = replace(inv, vat_id=_vat_id(rng, v.country))
        reasons = ["vat_id_mismatch"]
        outcome, decision, acceptable, difficulty = "discrepancy", "NEEDS_REVIEW", ["HOLD"], "hard"
    if w.fmt != "pdf" and difficulty == "easy":
        difficulty = "medium"
    if inv.language != COUNTRIES[v.country].language or v.c.currency != "EUR":
        difficulty = {"easy": "medium", "medium": "hard"}.get(difficulty, difficulty)
    name, fields, items = invoice_doc(w, inv)
    w.add("vendor_master.json", vendor_master([v] + w.others[:3], w.submitted), "application/json", "vendor_master")
    if po is not None and rng.random() < 0.5:
        w.add(
            "po.json",
            purchase_order(
                inv,
                po,
                [(x.quantity, x.unit) for x in inv.lines],
                inv.issued - timedelta(days=int(rng.integers(5, 40))),
            ),
            "application/json",
            "purchase_order",
        )
    add_policy(w)
    return make_label(
        "extraction",
        difficulty,
        outcome,
        decision,
        acceptable,
        subject=name,
        fields=fields,
        items=items,
        reasons=reasons,
        discrepancies=disc,
        twin=inv.reverse_charge,
    )


def three_way_match(w: World, variant: str) -> APLabel:
    rng, v = w.rng, w.vendor
    po = _po_number(w)
    inv = new_invoice(rng, v, w.buyer, w.issued, po_number=po)
    ordered = [(x.quantity, x.unit) for x in inv.lines]
    received: list[list[tuple[int, object]]] = []
    gr_day = inv.issued - timedelta(days=int(rng.integers(1, 12)))
    for x in inv.lines:
        if x.quantity > 3 and rng.random() < 0.3:
            first = int(x.quantity * rng.uniform(0.3, 0.7))
            received.append([(first, gr_day - timedelta(days=int(rng.integers(3, 15)))), (x.quantity - first, gr_day)])
        else:
            received.append([(x.quantity, gr_day)])
    k = int(rng.integers(len(inv.lines)))
    ln = inv.lines[k]
    reasons: list[str] = []
    disc: list[str] = []
    twin = False
    if variant == "tolerance_ok":
        d = min(int(ln.unit * 0.019), 4900 // max(ln.quantity, 1))
        if d >= 1:
            ordered[k] = (ln.quantity, ln.unit - d)
            twin = True
    elif variant == "partial_ok":
        extra = max(1, int(ln.quantity * rng.uniform(0.2, 1.0)))
        ordered[k] = (ln.quantity + extra, ln.unit)
        twin = True
    elif variant == "price_mismatch":
        lo = max(int(ln.unit * 0.05), 5000 // max(ln.quantity, 1) + 1, 1)
        d = max(lo, int(ln.unit * rng.uniform(0.05, 0.15)))
        ordered[k] = (ln.quantity, max(1, ln.unit - d))
        reasons, disc = ["po_price_mismatch"], ["price_mismatch"]
    elif variant == "qty_mismatch":
        if ln.quantity < 2:
            lines = list(inv.lines)
            lines[k] = Line(ln.description, 2, ln.unit, 2 * ln.unit, ln.sku)
            inv = priced(inv, tuple(lines))
            ln = inv.lines[k]
            ordered[k] = (ln.quantity, ln.unit)
        short = max(1, int(ln.quantity * rng.uniform(0.1, 0.5)))
        received[k] = [(ln.quantity - short, gr_day)]
        reasons, disc = ["po_quantity_mismatch"], ["quantity_mismatch"]
    elif variant == "missing_gr":
        received = [[] for _ in inv.lines]
        reasons, disc = ["no_goods_receipt"], ["missing_goods_receipt"]
    risky = bool(reasons)
    difficulty = "easy" if variant == "match" else ("medium" if not twin else "hard")
    if len(inv.lines) > 3 and risky:
        difficulty = "hard"
    name, fields, items = invoice_doc(w, inv)
    w.add(
        "po.json",
        purchase_order(inv, po, ordered, inv.issued - timedelta(days=int(rng.integers(15, 60)))),
        "application/json",
        "purchase_order",
    )
    w.add(
        "goods_receipt.json",
        goods_receipt(inv, po, received, rng),
        "application/json",  # type: ignore[arg-type]
        "goods_receipt",
    )
    w.add("vendor_master.json", vendor_master([v] + w.others[:3], w.submitted), "application/json", "vendor_master")
    entries = history(rng, v, w.ids, inv.issued, months=int(rng.integers(4, 14)))
    for o in w.others[:2]:
        entries += history(rng, o, w.ids, inv.issued, months=int(rng.integers(2, 8)))
    w.add("ledger.csv", ledger_csv(entries), "text/csv", "ledger")
    add_policy(w)
    if risky:
        return make_label(
            "three_way_match",
            difficulty,
            "discrepancy",
            "HOLD",
            HOLD_ACCEPT,
            subject=name,
            fields=fields,
            items=items,
            reasons=reasons,
            discrepancies=disc,
        )
    return make_label(
        "three_way_match", difficulty, "safe", "PAY", ["PAY"], subject=name, fields=fields, items=items, twin=twin
    )


__all__ = ["EXTRACTION_VARIANTS", "MATCH_VARIANTS", "Invoice", "extraction", "three_way_match"]
