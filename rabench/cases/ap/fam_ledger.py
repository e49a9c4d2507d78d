"""Family C: duplicates and bank changes against the vendor master and the paid ledger.

Fraud and look-alikes from the same draws: a re-sent invoice (exact duplicate) and an altered
copy (near duplicate) beside recurring same-amount invoices and a re-issue after a credit note
(both genuinely payable); an unverified bank change, or one "verified" by calling the number
the request gave, beside a change verified by a callback to the number on file with a second
approver, and a change already approved into the vendor master weeks ago.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from rabench.cases.ap.common import FRAUD_ACCEPT, HOLD_ACCEPT, World, add_policy, invoice_doc, make_label
from rabench.cases.ap.invoices import new_invoice, priced
from rabench.cases.ap.ledger import Entry, approval_record, history, ledger_csv, vendor_master
from rabench.cases.ap.vendors import new_account, other_phone, with_new_account
from rabench.contracts.ap import APLabel, Link

LEDGER_VARIANTS = {
    "clean": 0.10,
    "recurring": 0.10,
    "credit_reissue": 0.12,
    "exact_duplicate": 0.12,
    "near_duplicate": 0.12,
    "bank_unverified": 0.13,
    "bank_verified": 0.12,
    "bank_wrong_callback": 0.09,
    "master_updated": 0.10,
}
# Ledger noise drawn for every variant (rates: docs/ap.md, "Ambiguity"): credit notes against
# other, older invoices of the vendor (a credit note is no sign of a re-issue by itself), and
# another vendor's paid invoice with the same number (sequential numbering schemes collide
# across suppliers; a duplicate is the same vendor's number).
OTHER_CREDIT_NOTE = 0.30
CROSS_VENDOR_NUMBER = 0.20
# Genuine invoices reach AP late too (found at a statement reconciliation, resent after a lost mail):
# an old invoice date is what every exact duplicate shows, so it must not be a label by itself.
LATE_SHARE = 0.35


def _alter_number(number: str, rng) -> str:  # type: ignore[no-untyped-def]
    kind = int(rng.integers(3))
    if kind == 0:
        return number + str(rng.choice(["A", "-1", "/2", "B"]))
    if kind == 1:
        return (
            number.replace("-", "", 1)
            if "-" in number
            else number[:-1] + str((int(number[-1]) + 1) % 10)
            if number[-1].isdigit()
            else number + "1"
        )
    digits = [i for i, c in enumerate(number) if c.isdigit()]
    i = digits[-2] if len(digits) > 1 else digits[-1]
    return number[:i] + str((int(number[i]) + 1) % 10) + number[i + 1 :]


def duplicate_bank_change(w: World, variant: str) -> APLabel:
    rng, v = w.rng, w.vendor
    if variant != "exact_duplicate" and rng.random() < LATE_SHARE:
        w.issued -= timedelta(days=int(rng.integers(20, 120)))
    po = f"PO-45{int(rng.integers(10000, 99999))}" if rng.random() < 0.7 else None
    months = int(rng.integers(5, 16))
    recurring = None
    inv = new_invoice(rng, v, w.buyer, w.issued, po_number=po)
    if variant == "recurring" or (variant in ("exact_duplicate", "near_duplicate", "clean") and rng.random() < 0.3):
        inv = replace(inv, period=f"{inv.issued:%m/%Y}")
        recurring = inv.total
    entries = history(rng, v, w.ids, inv.issued - timedelta(days=20), months=months, recurring=recurring)
    for o in w.others[:3]:
        entries += history(rng, o, w.ids, inv.issued, months=int(rng.integers(2, 9)))
    master = v
    reasons: list[str] = []
    dup: list[Link] = []
    outcome, decision, acceptable, difficulty, twin = "safe", "PAY", ["PAY"], "easy", False
    approval: bytes | None = None
    refs: dict[str, str] = {}
    cur = v.c.currency

    def posted(number: str, issued, amount: int, status: str = "paid", doc_type: str = "invoice") -> Entry:  # type: ignore[no-untyped-def]
        return Entry(
            w.ids(issued + timedelta(days=2)),
            issued + timedelta(days=2),
            v,
            doc_type,
            number,
            issued,
            po or "",
            amount,
            cur,
            v.account.number,
            status,
            issued + timedelta(days=v.payment_terms) if status == "paid" else None,
        )

    if variant in ("exact_duplicate", "near_duplicate"):
        first_issue = inv.issued - timedelta(days=int(rng.integers(20, 120)))
        orig = posted(inv.number, first_issue, inv.total)
        entries.append(orig)
        if variant == "near_duplicate":
            inv = replace(inv, number=_alter_number(inv.number, rng))
            if rng.random() < 0.4:  # a small change to the amount too
                lines = list(inv.lines)
                lines[0] = replace(
                    lines[0], quantity=lines[0].quantity + 1, total=(lines[0].quantity + 1) * lines[0].unit
                )
                inv = priced(inv, tuple(lines))  # the ledger keeps the original amount
            reasons, dup = ["near_duplicate"], [Link("near_duplicate", "invoice", orig.entry_id)]
            outcome, decision, acceptable, difficulty = (
                "duplicate_billing",
                "HOLD",
                HOLD_ACCEPT + ["ESCALATE_FRAUD"],
                "hard",
            )
        else:
            inv = replace(inv, issued=first_issue, due=first_issue + timedelta(days=v.payment_terms))
            reasons, dup = ["duplicate_invoice"], [Link("duplicate", "invoice", orig.entry_id)]
            outcome, decision, acceptable, difficulty = "duplicate_billing", "HOLD", HOLD_ACCEPT, "medium"
    elif variant == "credit_reissue":
        first_issue = inv.issued - timedelta(days=int(rng.integers(10, 60)))
        orig = posted(_alter_number(inv.number, rng), first_issue, inv.total, status="credited")
        cn_number = f"CN-{inv.number}"
        cn = posted(
            cn_number,
            first_issue + timedelta(days=int(rng.integers(2, 9))),
            -inv.total,
            status="credited",
            doc_type="credit_note",
        )
        entries += [orig, cn]
        cn_inv = replace(inv, kind="credit_note", number=cn_number, issued=cn.issued, refers_to=orig.number)
        invoice_doc(w, cn_inv, "credit_note", role="credit_note")
        dup = [Link("credit_note", cn.entry_id, orig.entry_id)]
        difficulty, twin = "hard", True
    elif variant in ("bank_unverified", "bank_verified", "bank_wrong_callback", "master_updated"):
        foreign = variant != "master_updated" and rng.random() < 0.25
        new = new_account(
            rng, str(rng.choice(["GB", "NL", "ES", "DE"])) if foreign and v.country != "US" else v.country
        )
        requested = inv.issued - timedelta(days=int(rng.integers(1, 15)))
        via = str(rng.choice(["email", "letter", "supplier portal"]))
        if variant == "master_updated":
            changed = inv.issued - timedelta(days=int(rng.integers(20, 90)))
            master = with_new_account(v, new, changed.isoformat())
            refs[v.vendor_id] = f"BCR-{int(rng.integers(10000, 99999))}"
            twin, difficulty = True, "medium"
        else:
            reasons = ["bank_account_changed"] + (["bank_country_mismatch"] if new.country != v.country else [])
            if variant == "bank_verified":
                approval = approval_record(
                    rng, v, new, requested, via=via, called=v.phone, outcome="confirmed", approver2=True
                )
                twin, difficulty = True, "hard"
                if new.country != v.country:
                    reasons.remove("bank_country_mismatch")
                    new = new_account(rng, v.country)
                    approval = approval_record(
                        rng, v, new, requested, via=via, called=v.phone, outcome="confirmed", approver2=True
                    )
            else:
                reasons.append("bank_change_unverified")
                outcome, decision, acceptable = "bank_fraud", "ESCALATE_FRAUD", FRAUD_ACCEPT
                if variant == "bank_wrong_callback":
                    approval = approval_record(
                        rng,
                        v,
                        new,
                        requested,
                        via=via,
                        called=other_phone(rng, v),
                        outcome="confirmed",
                        approver2=rng.random() < 0.5,
                    )
                    reasons.append("callback_number_changed")
                    difficulty = "expert"
                else:
                    difficulty = "medium"
                    if rng.random() < 0.5:
                        approval = approval_record(
                            rng, v, new, requested, via=via, called=None, outcome="", approver2=False
                        )
        inv = replace(inv, account=new)
    mine = [e for e in entries if e.vendor is v and e.doc_type == "invoice" and e.status == "paid"]
    if mine and rng.random() < OTHER_CREDIT_NOTE:
        e = mine[int(rng.integers(len(mine)))]
        day = e.issued + timedelta(days=int(rng.integers(5, 25)))
        entries.append(
            Entry(
                w.ids(day),
                day,
                v,
                "credit_note",
                f"CN-{e.number}",
                day,
                e.po_number,
                -(e.amount // int(rng.choice([1, 2, 4, 10]))),
                cur,
                v.account.number,
                "credited",
                None,
            )
        )
    if w.others and rng.random() < CROSS_VENDOR_NUMBER:
        o = w.others[0]
        day = inv.issued - timedelta(days=int(rng.integers(5, 200)))
        entries.append(
            Entry(
                w.ids(day),
                day,
                o,
                "invoice",
                inv.number,
                day - timedelta(days=2),
                "",
                inv.total if rng.random() < 0.3 else inv.total // 3 + 1,
                o.c.currency,
                o.account.number,
                "paid",
                day,
            )
        )
    name, fields, items = invoice_doc(w, inv)
    dup = [Link(x.kind, name if x.source == "invoice" else x.source, x.target) for x in dup]
    if approval is not None:
        w.add("approval.json", approval, "application/json", "approval")
    w.add(
        "vendor_master.json",
        vendor_master([master] + w.others[:4], w.submitted, refs=refs),
        "application/json",
        "vendor_master",
    )
    w.add("ledger.csv", ledger_csv(entries), "text/csv", "ledger")
    add_policy(w)
    return make_label(
        "duplicate_bank_change",
        difficulty,
        outcome,
        decision,
        acceptable,
        subject=name,
        fields=fields,
        items=items,
        reasons=reasons,
        dup=dup,
        twin=twin,
    )
