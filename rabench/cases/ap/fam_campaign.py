"""Family E: campaigns. A payment batch of 3-5 pending invoices; is it one scheme?

Fraud: one purchase split into invoices just under the approval limit (same PO, consecutive
numbers, one day), or several vendors paying into one account nobody approved (a changed
account on each invoice, or shell vendors onboarded with the same account). Benign twins drawn
from the same amounts and batch sizes: a vendor's separate deliveries against separate POs,
a group of vendors that really do remit to one factoring account (notice on file), and a
quarter-end batch of unrelated vendors submitted together.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from itertools import combinations

import numpy as np

from rabench.cases.ap.common import FRAUD_ACCEPT, World, add_policy, invoice_doc, make_label
from rabench.cases.ap.invoices import Invoice, Line, new_invoice, priced
from rabench.cases.ap.ledger import history, ledger_csv, vendor_master
from rabench.cases.ap.vendors import BUYERS, Account, Vendor, make_vendor, new_account, with_new_account
from rabench.contracts.ap import APLabel, GoldField, GoldLineItem, Link

CAMPAIGN_VARIANTS = {
    "split_fraud": 0.25,
    "shared_account_fraud": 0.25,
    "split_benign": 0.20,
    "shared_account_benign": 0.15,
    "batch_benign": 0.15,
}
BLANKET_PO = 0.5  # of genuine split batches: call-offs invoiced against one blanket PO (docs/ap.md, "Ambiguity")
CAMPAIGN_COUNTRIES = ("DE", "FR", "ES", "NL", "GB", "US", "AT", "IE")
FACTORS = ("Allianz Trade Finance", "Eurofactor", "Close Brothers Invoice Finance", "Bibby Financial Services")
_NOTE = "Receivables assigned: please pay only to our factoring partner {factor}, account {account}."


def _near(rng: np.random.Generator, inv: Invoice, gross: int) -> Invoice:
    """``inv`` with its line quantities scaled so that the gross total is close to (and at most) ``gross``."""
    scale = gross / max(inv.total, 1)
    lines = tuple(
        Line(x.description, max(1, int(x.quantity * scale)), x.unit, max(1, int(x.quantity * scale)) * x.unit, x.sku)
        for x in inv.lines
    )
    out = priced(inv, lines)
    while out.total > gross and any(x.quantity > 1 for x in out.lines):
        k = max(range(len(out.lines)), key=lambda i: out.lines[i].unit if out.lines[i].quantity > 1 else -1)
        x = out.lines[k]
        ls = list(out.lines)
        ls[k] = replace(x, quantity=x.quantity - 1, total=(x.quantity - 1) * x.unit)
        out = priced(out, tuple(ls))
    return out


def _amount(rng: np.random.Generator, limit: int, near: bool) -> int:
    share = rng.uniform(0.82, 0.99) if near else rng.uniform(0.15, 0.8)
    return int(limit * 100 * share)


def campaign(w: World, variant: str) -> APLabel:
    rng = w.rng
    v = w.vendor
    buyer = next(b for b in BUYERS if b.currency == v.c.currency)
    w.buyer = buyer
    k = int(rng.integers(3, 6))
    day = w.issued
    # How far apart the batch's invoices were issued: one distribution for every variant (a splitter
    # may spread over days, a genuine vendor may deliver several orders in one week).
    spread = int(rng.choice([0, 1, 2, 4, 7, 14, 21, 30]))

    def when() -> date:
        return day - timedelta(days=int(rng.integers(0, spread + 1)))

    near_share = 0.6  # amounts just under the limit: in fraud splits and, as often as not, in genuine batches
    reasons: list[str] = []
    fraud = variant.endswith("_fraud")
    invs: list[Invoice] = []
    master: list[Vendor] = [v] + w.others[:3]
    notes: dict[str, str] = {}
    history_vendors: list[Vendor] = [v]
    if variant in ("split_fraud", "split_benign"):
        po = f"PO-45{int(rng.integers(10000, 99999))}"
        base = new_invoice(rng, v, buyer, day, po_number=po)
        seq = int(rng.integers(100, 9000))
        blanket = rng.random() < BLANKET_PO
        for i in range(k):
            near = variant == "split_fraud" or rng.random() < near_share
            if variant == "split_fraud":
                issued = when()
                number = base.number[:-4] + f"{seq + i:04d}" if base.number[-4:].isdigit() else f"{base.number}-{i + 1}"
                inv = new_invoice(rng, v, buyer, issued, po_number=po if rng.random() < 0.8 else None)
                inv = replace(inv, number=number)
            else:  # call-offs under one blanket PO as often as not, else one PO per order
                issued = when()
                inv = new_invoice(
                    rng, v, buyer, issued, po_number=po if blanket else f"PO-45{int(rng.integers(10000, 99999))}"
                )
            invs.append(_near(rng, inv, _amount(rng, buyer.threshold, near)))
        if variant == "split_fraud":
            reasons = ["threshold_splitting"]
    else:
        group = [v] + [
            make_vendor(rng, f"V-{int(rng.integers(10000, 99000))}", country=v.country)
            for _ in range(k - 1 if variant == "batch_benign" else int(rng.integers(1, 3)))
        ]
        shared: Account | None = None
        if variant == "shared_account_benign":
            reasons.append("shared_bank_account")  # the accounts are shared (to a factor): an observation
        if variant == "shared_account_fraud":
            shared = new_account(rng, str(rng.choice(["GB", "NL", "DE", "ES"])) if v.country != "US" else "US")
            if rng.random() < 0.5:  # shell vendors onboarded with one account
                group = [
                    with_new_account(g, shared, (day - timedelta(days=int(rng.integers(10, 60)))).isoformat())
                    for g in group
                ]
                group = [
                    replace(g, previous_accounts=(), since=g.bank_changed or g.since, bank_changed=None) for g in group
                ]
            else:
                reasons += ["bank_account_changed", "bank_change_unverified"]
            reasons += ["shared_bank_account"]
        elif variant == "shared_account_benign":
            shared = new_account(rng, v.country)
            factor = str(rng.choice(FACTORS))
            since = (day - timedelta(days=int(rng.integers(200, 900)))).isoformat()
            group = [
                with_new_account(g, Account(shared.number, shared.code, factor, shared.country), since) for g in group
            ]
            for g in group:
                notes[g.vendor_id] = f"Factoring notice on file since {since}: receivables assigned to {factor}."
        master = group + w.others[:2]
        history_vendors = list(group)
        for i in range(k):
            g = group[i % len(group)]
            issued = when()
            inv = new_invoice(
                rng,
                g,
                buyer,
                issued,
                po_number=f"PO-45{int(rng.integers(10000, 99999))}" if rng.random() < 0.7 else None,
            )
            inv = _near(rng, inv, _amount(rng, buyer.threshold, rng.random() < near_share))
            if shared is not None:
                inv = replace(inv, account=g.account if variant == "shared_account_benign" else shared)
                if variant == "shared_account_benign" or rng.random() < 0.5:
                    factor = g.account.bank if variant == "shared_account_benign" else str(rng.choice(FACTORS))
                    inv = replace(inv, notes=(_NOTE.format(factor=factor, account=inv.account.number),))
            invs.append(inv)
    invs.sort(key=lambda x: (x.issued, x.number))
    if spread <= 4:  # the batch was issued within a few days: what the dates show, fraud or not
        reasons.append("coordinated_timing")
    w.submitted = max(x.issued for x in invs) + (w.submitted - w.issued)
    names: list[str] = []
    first: tuple[str, dict[str, GoldField], list[GoldLineItem]] | None = None
    for i, inv in enumerate(invs):
        res = invoice_doc(w, inv, f"invoice-{i + 1}")
        names.append(res[0])
        first = first or res
    assert first is not None
    entries = []
    for g in history_vendors[:3]:
        entries += history(rng, g, w.ids, day - timedelta(days=25), months=int(rng.integers(3, 12)))
    for o in w.others[:2]:
        entries += history(rng, o, w.ids, day, months=int(rng.integers(2, 8)))
    w.add("vendor_master.json", vendor_master(master, w.submitted, notes=notes), "application/json", "vendor_master")
    w.add("ledger.csv", ledger_csv(entries), "text/csv", "ledger")
    add_policy(w)
    links = [Link("campaign", a, b) for a, b in combinations(names, 2)] if fraud else []
    name, fields, items = first
    difficulty = "expert" if variant in ("shared_account_fraud", "shared_account_benign") else "hard"
    if fraud:
        return make_label(
            "campaign",
            difficulty,
            "campaign_fraud",
            "ESCALATE_FRAUD",
            FRAUD_ACCEPT,
            subject=name,
            fields=fields,
            items=items,
            reasons=reasons,
            campaign=links,
        )
    return make_label(
        "campaign",
        difficulty,
        "safe",
        "PAY",
        ["PAY"],
        subject=name,
        fields=fields,
        items=items,
        reasons=reasons,
        twin=True,
    )
