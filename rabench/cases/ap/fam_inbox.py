"""Family D: the AP inbox. An invoice arrives with an e-mail thread; is the request genuine?

Every variant draws the same phrase features (urgency, "reply by e-mail", "call me on", a
request to skip a control, a thread history) with the same probabilities; what differs is who
really sent it (domain against the vendor master, Reply-To, Authentication-Results), which
account the invoice pays, whether the payee is an approved vendor and whether a callback went
to the number on file. Benign twins: urgent but genuine vendor mail, a genuine bank change with
a verified approval trail, a genuine executive asking to expedite an approved invoice.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from rabench.cases.ap import emails as em
from rabench.cases.ap.common import FRAUD_ACCEPT, World, add_policy, invoice_doc, make_label
from rabench.cases.ap.invoices import money, new_invoice
from rabench.cases.ap.ledger import approval_record, history, ledger_csv, vendor_master
from rabench.cases.ap.vendors import (
    AP_STAFF,
    EXECUTIVES,
    lookalike_domain,
    make_vendor,
    new_account,
    other_phone,
    paper_iban,
    slug,
)
from rabench.contracts.ap import APLabel

INBOX_VARIANTS = {
    "routine": 0.10,
    "urgent_genuine": 0.12,
    "bank_change_verified": 0.16,
    "exec_genuine": 0.12,
    "lookalike_bank": 0.10,
    "replyto_spoof": 0.08,
    "compromised_mailbox": 0.08,
    "ceo_fraud": 0.12,
    "callback_trap": 0.12,
}
SILENT_SWAP = 0.3  # of fraudulent bank changes: the doctored invoice alone carries the new account
# Relations that look like fraud on genuine mail (rates and sources: docs/ap.md, "Ambiguity"):
MIGRATED_DOMAIN = 0.15  # the vendor writes from a new or second domain the master does not list yet
TICKET_REPLY_TO = 0.15  # replies go to the vendor's ticketing / AR-automation address
FORWARD_DMARC_FAIL = 0.08  # forwarded through a list or a colleague's rule: DMARC fails on genuine mail
NEW_PHONE = 0.15  # the signature gives a direct line, not the switchboard on file
# ... and fraud that looks genuine:
VALID_LOOKING_TRAIL = 0.5  # of compromised-mailbox frauds: an approved change, called back on the mail's number
MASTER_PHONE_HIJACK = 0.5  # of callback traps: the phone on file was changed first, without a change reference
PHONE_CHANGED_PROPERLY = (
    0.4  # of verified genuine bank changes: the phone on file was changed months ago, with a reference
)
EXEC_MAILBOX_TAKEOVER = 0.3  # of CEO frauds: sent from the executive's real, compromised mailbox
_BANK = {"bank_change_verified", "lookalike_bank", "replyto_spoof", "callback_trap", "compromised_mailbox"}
_EXEC = {"exec_genuine", "ceo_fraud"}
_FRAUD = {"lookalike_bank", "replyto_spoof", "ceo_fraud", "callback_trap", "compromised_mailbox"}


def inbox_bec(w: World, variant: str) -> APLabel:
    rng, v, b = w.rng, w.vendor, w.buyer
    fraud = variant in _FRAUD
    # Phrase features: drawn first, alike for every variant.
    urgent = rng.random() < 0.5 or variant == "urgent_genuine"
    email_only = rng.random() < 0.3
    call_us = rng.random() < 0.35 or variant == "callback_trap"
    skip = rng.random() < 0.25
    history_len = int(rng.choice([1, 1, 2, 2, 3]))
    staff_name, staff_local = AP_STAFF[int(rng.integers(len(AP_STAFF)))]
    ap_addr = f"{staff_local}@{b.domain}"
    payee = v
    if variant == "ceo_fraud":
        payee = make_vendor(rng, f"V-{int(rng.integers(99000, 99999))}")  # not in the vendor master
    po = (
        f"PO-45{int(rng.integers(10000, 99999))}"
        if (variant != "ceo_fraud" and rng.random() < 0.8) or (variant == "ceo_fraud" and rng.random() < 0.3)
        else None
    )
    inv = new_invoice(rng, payee, b, w.issued, po_number=po)
    reasons: list[str] = []
    approval = None
    if variant in _BANK:
        new = new_account(
            rng, v.country if rng.random() < 0.75 or v.country == "US" else str(rng.choice(["GB", "NL", "DE"]))
        )
        inv = replace(inv, account=new)
        reasons.append("bank_account_changed")
        if new.country != v.country:
            reasons.append("bank_country_mismatch")
        requested = inv.issued - timedelta(days=int(rng.integers(0, 6)))
        if variant == "bank_change_verified":
            approval = approval_record(
                rng, v, new, requested, via="email", called=v.phone, outcome="confirmed", approver2=True
            )
        else:
            reasons.append("bank_change_unverified")
    contact = v.contacts[0]
    phone = v.phone
    if (fraud and variant != "ceo_fraud") or (not fraud and rng.random() < NEW_PHONE):
        phone = other_phone(rng, v)
    mv = v  # the vendor as the master shows it
    if variant == "callback_trap" and rng.random() < MASTER_PHONE_HIJACK:
        changed = inv.issued - timedelta(days=int(rng.integers(3, 20)))
        mv = replace(v, phone=phone, phone_changed=(changed.isoformat(), None, v.phone))
    if variant == "bank_change_verified" and rng.random() < PHONE_CHANGED_PROPERLY:
        phone = other_phone(rng, v)
        changed = inv.issued - timedelta(days=int(rng.integers(60, 400)))
        mv = replace(
            v, phone=phone, phone_changed=(changed.isoformat(), f"CDR-{int(rng.integers(10000, 99999))}", v.phone)
        )
        approval = approval_record(
            rng,
            mv,
            inv.account,
            inv.issued - timedelta(days=2),
            via="email",
            called=phone,
            outcome="confirmed",
            approver2=True,
        )
    if fraud and variant != "ceo_fraud":
        if variant == "callback_trap" or (variant == "compromised_mailbox" and rng.random() < VALID_LOOKING_TRAIL):
            approval = approval_record(
                rng,
                v,
                inv.account,
                inv.issued - timedelta(days=2),
                via="email",
                called=phone,
                outcome="confirmed",
                approver2=variant == "compromised_mailbox" or rng.random() < 0.5,
            )
        elif variant in ("lookalike_bank", "compromised_mailbox") and rng.random() < 0.3:
            approval = approval_record(
                rng, v, inv.account, inv.issued, via="email", called=None, outcome="", approver2=False
            )
    # Who sends the newest message.
    sender_name, sender, reply_to, aligned = contact.name, contact.email, None, True
    genuine_vendor_mail = not fraud and variant not in _EXEC
    if genuine_vendor_mail and rng.random() < MIGRATED_DOMAIN:
        sender = f"{contact.email.split('@')[0]}@{lookalike_domain(v.domain, rng)}"
    if genuine_vendor_mail and rng.random() < TICKET_REPLY_TO:
        reply_to = f"{str(rng.choice(['billing', 'ar', 'invoices', 'support']))}@{slug(v.name)}.{str(rng.choice(em.TICKETING))}"
    if not fraud and rng.random() < FORWARD_DMARC_FAIL:
        aligned = False
    if variant in ("lookalike_bank", "callback_trap"):
        sender = f"{contact.email.split('@')[0]}@{lookalike_domain(v.domain, rng)}"
    elif variant == "replyto_spoof":
        reply_to = (
            f"{slug(contact.name).replace('-', '.')}@{str(rng.choice(em.FREEMAIL))}"
            if rng.random() < 0.4
            else f"{str(rng.choice(['billing', 'ar', 'invoices']))}@{slug(v.name)}-{str(rng.choice(em.TICKETING))}"
            if rng.random() < 0.3
            else f"{contact.email.split('@')[0]}@{lookalike_domain(v.domain, rng)}"
        )
        aligned = rng.random() < 0.5  # a forged From fails DMARC; a spoofer's own relay may sign it
    exec_name, exec_title = EXECUTIVES[int(rng.integers(len(EXECUTIVES)))]
    if variant in _EXEC:
        sender_name = exec_name
        local = slug(exec_name).replace("-", ".")
        sender = f"{local}@{b.domain}"
        if variant == "ceo_fraud":
            reasons += ["executive_impersonation", "vendor_not_in_master"]
            if rng.random() >= EXEC_MAILBOX_TAKEOVER:
                sender = (
                    f"{local}@{lookalike_domain(b.domain, rng)}"
                    if rng.random() < 0.6
                    else f"{local}.office@{str(rng.choice(em.FREEMAIL))}"
                )
    # Sender codes name what the headers show against the master, for genuine and fraud mail alike.
    domain = sender.split("@")[1]
    if domain not in (v.domain, b.domain):
        reasons += ["sender_domain_mismatch", "display_name_spoof"]
        if domain not in em.FREEMAIL:
            reasons.append("lookalike_domain")
    if reply_to is not None and reply_to.split("@")[1] != domain:
        reasons.append("reply_to_mismatch")
    amount = money(inv.total, inv.currency, payee.country, code=True)
    parts: list[str] = []
    if variant in _EXEC:
        parts.append(str(rng.choice(em.EXEC_ASK)).format(vendor=payee.name))
        parts.append(f"Invoice {inv.number}, {amount}.")
    else:
        parts.append(str(rng.choice(em.SEND_INVOICE)).format(number=inv.number, amount=amount))
    shown = paper_iban(inv.account.number) if inv.account.is_iban else inv.account.number
    mention = rng.random()
    talks_bank = True
    if variant in _BANK and (variant == "bank_change_verified" or mention >= SILENT_SWAP):
        parts.append(str(rng.choice(em.BANK_CHANGE)).format(bank=inv.account.bank, account=shown))
        if rng.random() < 0.4:
            parts.append(str(rng.choice(em.BANK_FORM)))
    elif mention < (0.75 if variant in ("routine", "urgent_genuine") else 0.5):
        # Genuine mail talks about bank details too (and a silent swap may point at "the usual account").
        parts.append(str(rng.choice(em.BANK_SAME)).format(bank=inv.account.bank, account=shown))
    else:
        talks_bank = False
    if urgent:
        parts.append(str(rng.choice(em.URGENCY)))
        reasons.append("urgency_pressure")
    if skip:
        parts.append(str(rng.choice(em.SKIP_CONTROL)))
        reasons.append("policy_bypass_pressure")
    if email_only:  # what the mail says, whoever wrote it
        parts.append(str(rng.choice(em.EMAIL_ONLY)))
        reasons.append("callback_discouraged")
    if call_us:
        parts.append(str(rng.choice(em.CALL_US)).format(phone=phone))
    if (phone != mv.phone or (mv.phone_changed and mv.phone_changed[1] is None)) and variant not in _EXEC:
        reasons.append(
            "callback_number_changed"
        )  # not the number on file, or the one on file changed without a reference
    signature = [exec_title, b.entity] if variant in _EXEC else [v.name, phone, f"www.{v.domain}"]
    to_name = staff_name
    sent = datetime(
        w.submitted.year,
        w.submitted.month,
        w.submitted.day,
        int(rng.integers(6, 20)),
        int(rng.integers(0, 60)),
        tzinfo=UTC,
    )
    newest = em.Mail(
        sender_name,
        sender,
        to_name,
        ap_addr,
        sent,
        em.subject_for(
            rng,
            inv.number,
            reply=history_len > 1,
            kind="exec" if variant in _EXEC else ("bank" if talks_bank else "invoice"),
        ),
        em.body(rng, to_name, parts, sender_name, signature),
        reply_to=reply_to,
        mailer=em.MAILERS[int(rng.integers(len(em.MAILERS)))],
        auth=em.auth_results(b.domain, sender.split("@")[1], aligned=aligned),
    )
    mails = []
    if history_len > 1:  # an earlier, genuine exchange with the real vendor (threads get hijacked)
        earlier = sent - timedelta(days=int(rng.integers(20, 45)))
        old_number = f"{inv.number[:-2]}{int(rng.integers(10, 99))}"
        mails.append(
            em.Mail(
                contact.name,
                contact.email,
                to_name,
                ap_addr,
                earlier,
                em.subject_for(rng, old_number, reply=False, kind="invoice"),
                em.body(
                    rng,
                    to_name,
                    [
                        str(rng.choice(em.SEND_INVOICE)).format(
                            number=old_number, amount=money(inv.total // 2, inv.currency, v.country, code=True)
                        )
                    ],
                    contact.name,
                    [v.name, v.phone],
                ),
            )
        )
        if history_len > 2:
            mails.append(
                em.Mail(
                    staff_name,
                    ap_addr,
                    contact.name,
                    contact.email,
                    (earlier + timedelta(hours=int(rng.integers(2, 30)))),
                    "RE: " + mails[0].subject,
                    em.body(
                        rng, contact.name, [str(rng.choice(em.REPLY_OK))], staff_name, ["Accounts Payable", b.entity]
                    ),
                )
            )
    mails.append(newest)
    name, fields, items = invoice_doc(w, inv)
    inv_doc = w.docs[-1]
    w.add(
        "thread.eml",
        em.thread_eml(
            rng,
            mails,
            attachment=(f"{inv.number.replace('/', '-')}.{name.split('.')[-1]}", inv_doc.data, inv_doc.media_type),
        ),
        "message/rfc822",
        "email",
    )
    if approval is not None:
        w.add("approval.json", approval, "application/json", "approval")
    w.add("vendor_master.json", vendor_master([mv] + w.others[:4], w.submitted), "application/json", "vendor_master")
    entries = history(rng, v, w.ids, inv.issued, months=int(rng.integers(4, 14)))
    for o in w.others[:2]:
        entries += history(rng, o, w.ids, inv.issued, months=int(rng.integers(2, 8)))
    w.add("ledger.csv", ledger_csv(entries), "text/csv", "ledger")
    add_policy(w)
    difficulty = {
        "routine": "easy",
        "urgent_genuine": "medium",
        "bank_change_verified": "hard",
        "exec_genuine": "hard",
        "lookalike_bank": "hard",
        "compromised_mailbox": "expert",
        "replyto_spoof": "hard",
        "ceo_fraud": "medium",
        "callback_trap": "expert",
    }[variant]
    if fraud:
        outcome = "impersonation" if variant == "ceo_fraud" else "bank_fraud"
        return make_label(
            "inbox_bec",
            difficulty,
            outcome,
            "ESCALATE_FRAUD",
            FRAUD_ACCEPT,
            subject=name,
            fields=fields,
            items=items,
            reasons=reasons,
        )
    return make_label(
        "inbox_bec",
        difficulty,
        "safe",
        "PAY",
        ["PAY"],
        subject=name,
        fields=fields,
        items=items,
        reasons=reasons,
        twin=variant != "routine",
    )
