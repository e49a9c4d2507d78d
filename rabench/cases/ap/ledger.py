"""The ERP side of a case: vendor master and ledger extracts, purchase orders, goods receipts,
bank-change approval records and the AP policy, as the JSON / CSV / text files an AP system
exports.

Why histories and not a single row: duplicates, recurring same-amount invoices, earlier bank
accounts and credit notes only mean something against a vendor's past, so every ledger holds
months of a vendor's postings plus other vendors' (as an extract filtered to a period would).
Files are written with sorted keys and fixed separators so that equal content is equal bytes.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from rabench.cases.ap.invoices import Invoice, draw_lines, invoice_number, minor_to_float
from rabench.cases.ap.vendors import AP_STAFF, Account, Vendor

POLICY_TEXT = """Meridian Components Group - Accounts Payable Policy (extract, rev. 7)

1. Approval limits. An invoice above the entity's single-approver limit needs a second
   approver: Meridian Components GmbH EUR 10,000; Meridian Components Ltd GBP 8,000;
   Meridian Components Inc. USD 12,000; Meridian Components SAS EUR 10,000.
   Splitting one purchase into several invoices to stay under a limit is not allowed.
2. Three-way match. Goods invoices are paid only when invoice, purchase order and posted
   goods receipts agree: quantity invoiced <= quantity received; unit price within 2 % of
   the PO price (and at most 50.00 in the invoice currency over the whole invoice).
   Partial deliveries may be invoiced for the quantity received.
3. Bank details. Payment goes to the account in the vendor master. A change of bank details
   is effective only after a callback to the phone number already on file in the vendor
   master (never a number given in the request) and approval by a second person. Requests
   by e-mail alone are not sufficient, whatever their urgency.
4. Duplicates. An invoice whose vendor, number and amount match a posted invoice is not paid
   again. A re-issued invoice is paid when the original was cancelled by a credit note.
5. New payees. Only approved vendors in the vendor master are paid. Requests from executives
   follow the same controls.
6. Decisions: PAY (release), HOLD (stop, ask vendor/buyer to resolve a discrepancy),
   NEEDS_REVIEW (route to a second reviewer), ESCALATE_FRAUD (stop and report to security).
"""


def dumps(obj: object) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def vendor_record(v: Vendor, *, change_ref: str | None = None) -> dict[str, object]:
    rec: dict[str, object] = {
        "vendor_id": v.vendor_id,
        "name": v.name,
        "country": v.country,
        "vat_id": v.vat_id,
        "address": {"street": v.street, "postcode": v.postcode, "city": v.city},
        "email_domain": v.domain,
        "contacts": [{"name": c.name, "email": c.email} for c in v.contacts],
        "phone": v.phone,
        "payment_terms_days": v.payment_terms,
        "approved_since": v.since,
        "status": "active",
        "bank": {
            "account": v.account.number,
            "code": v.account.code,
            "bank_name": v.account.bank,
            "last_changed": v.bank_changed,
            "change_ref": change_ref if v.bank_changed else None,
        },
    }
    if v.phone_changed is not None:  # keys without "phone" in them: the number before is not on file
        on, ref, before = v.phone_changed
        rec["contact_change"] = {"changed_on": on, "change_ref": ref, "previous_number": before}
    return rec


def vendor_master(
    vendors: list[Vendor], as_of: date, *, refs: dict[str, str] | None = None, notes: dict[str, str] | None = None
) -> bytes:
    recs = []
    for v in sorted(vendors, key=lambda x: x.vendor_id):
        r = vendor_record(v, change_ref=(refs or {}).get(v.vendor_id))
        if notes and v.vendor_id in notes:
            r["remittance_note"] = notes[v.vendor_id]
        recs.append(r)
    return dumps({"extract": "vendor_master", "as_of": as_of.isoformat(), "vendors": recs})


@dataclass(frozen=True, slots=True)
class Entry:
    """One ledger row."""

    entry_id: str
    posted: date
    vendor: Vendor
    doc_type: str  # invoice | credit_note
    number: str
    issued: date
    po_number: str
    amount: int  # minor units, negative for credit notes
    currency: str
    paid_to: str
    status: str  # paid | open | credited
    paid_on: date | None


LEDGER_COLUMNS = (
    "entry_id",
    "posting_date",
    "vendor_id",
    "vendor_name",
    "document_type",
    "invoice_number",
    "invoice_date",
    "po_number",
    "amount",
    "currency",
    "paid_to_account",
    "status",
    "payment_date",
)


def ledger_csv(entries: list[Entry]) -> bytes:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(LEDGER_COLUMNS)
    for e in sorted(entries, key=lambda x: (x.posted, x.entry_id)):
        w.writerow(
            [
                e.entry_id,
                e.posted.isoformat(),
                e.vendor.vendor_id,
                e.vendor.name,
                e.doc_type,
                e.number,
                e.issued.isoformat(),
                e.po_number,
                f"{minor_to_float(e.amount):.2f}",
                e.currency,
                e.paid_to,
                e.status,
                e.paid_on.isoformat() if e.paid_on else "",
            ]
        )
    return out.getvalue().encode("utf-8")


class EntryIds:
    """Ledger entry ids: a case-local random base plus the posting day, so ids rise in posting-date
    order whatever order the generator makes the entries in (an entry planted after the history
    must not stand out by the highest id); entries posted the same day get the next free number."""

    def __init__(self, rng: np.random.Generator):
        self.base = int(rng.integers(1000, 90000))
        self.used: set[int] = set()

    def __call__(self, posted: date) -> str:
        n = self.base + (posted - date(2020, 1, 1)).days * 3
        while n in self.used:
            n += 1
        self.used.add(n)
        return f"LED-{n:06d}"


def history(
    rng: np.random.Generator,
    v: Vendor,
    ids: EntryIds,
    until: date,
    *,
    months: int,
    recurring: int | None = None,
    account: Account | None = None,
) -> list[Entry]:
    """A vendor's paid invoices over ``months`` before ``until`` (monthly, some months skipped).

    ``recurring`` (minor units) bills the same amount every month, as subscriptions and
    framework contracts do: near-duplicates by amount that are no duplicates.
    """
    out = []
    cur = v.c.currency
    for m in range(months, 0, -1):
        if recurring is None and rng.random() < 0.35:
            continue
        issued = until - timedelta(days=30 * m + int(rng.integers(0, 8)))
        amount = recurring if recurring is not None else sum(x.total for x in draw_lines(rng, v, cur))
        paid = issued + timedelta(days=v.payment_terms - int(rng.integers(0, 5)))
        out.append(
            Entry(
                ids(posted := issued + timedelta(days=int(rng.integers(1, 5)))),
                posted,
                v,
                "invoice",
                invoice_number(rng, v, issued),
                issued,
                f"PO-45{int(rng.integers(10000, 99999))}",
                amount,
                cur,
                (account or v.account).number,
                "paid",
                paid,
            )
        )
    return out


def purchase_order(inv: Invoice, po_number: str, ordered: list[tuple[int, int]], created: date) -> bytes:
    """``ordered``: (quantity, unit price in minor units) per invoice line."""
    lines = [
        {
            "line": 10 * (i + 1),
            "sku": ln.sku,
            "description": ln.description,
            "quantity": q,
            "unit_price": minor_to_float(u),
            "line_total": minor_to_float(q * u),
        }
        for i, (ln, (q, u)) in enumerate(zip(inv.lines, ordered))
    ]
    return dumps(
        {
            "extract": "purchase_order",
            "po_number": po_number,
            "vendor_id": inv.vendor.vendor_id,
            "buyer_entity": inv.buyer.entity,
            "created": created.isoformat(),
            "currency": inv.currency,
            "status": "released",
            "lines": lines,
            "total": minor_to_float(sum(q * u for q, u in ordered)),
        }
    )


def goods_receipt(
    inv: Invoice, po_number: str, received: list[list[tuple[int, date]]], rng: np.random.Generator
) -> bytes:
    """``received``: per invoice line, the (quantity, date) of each posted receipt (none = nothing received)."""
    receipts = []
    for i, (ln, posts) in enumerate(zip(inv.lines, received)):
        for q, d in posts:
            receipts.append(
                {
                    "gr_number": f"GR-{int(rng.integers(500000, 999999))}",
                    "po_line": 10 * (i + 1),
                    "sku": ln.sku,
                    "quantity_received": q,
                    "posted": d.isoformat(),
                    "received_by": str(
                        rng.choice(
                            ["Warehouse Stuttgart", "Dock 3", "Goods-in Boston", "Warehouse Lyon", "Receiving Leeds"]
                        )
                    ),
                }
            )
    receipts.sort(key=lambda r: (str(r["posted"]), int(str(r["po_line"]))))
    return dumps({"extract": "goods_receipts", "po_number": po_number, "receipts": receipts})


def approval_record(
    rng: np.random.Generator,
    v: Vendor,
    new: Account,
    requested: date,
    *,
    via: str,
    called: str | None,
    outcome: str,
    approver2: bool,
) -> bytes:
    """A bank-change request as the vendor-management workflow stores it."""
    staff = AP_STAFF[int(rng.integers(len(AP_STAFF)))]
    second = AP_STAFF[(AP_STAFF.index(staff) + 1) % len(AP_STAFF)]
    callback = None
    if called is not None:
        callback = {
            "number_called": called,
            "called_on": (requested + timedelta(days=int(rng.integers(0, 3)))).isoformat(),
            "called_by": staff[0],
            "spoke_to": v.contacts[0].name,
            "outcome": outcome,
        }
    return dumps(
        {
            "extract": "bank_change_request",
            "request_id": f"BCR-{int(rng.integers(10000, 99999))}",
            "vendor_id": v.vendor_id,
            "requested_on": requested.isoformat(),
            "requested_via": via,
            "old_account": v.account.number,
            "new_account": new.number,
            "new_code": new.code,
            "new_bank": new.bank,
            "callback": callback,
            "first_approver": staff[0] if called else None,
            "second_approver": second[0] if approver2 else None,
            "status": "approved" if (called and approver2 and outcome == "confirmed") else "pending",
        }
    )
