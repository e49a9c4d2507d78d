"""Deterministic AP controls over one bundle, each a fact a reviewer can re-check by hand:
IBAN / ABA check digits, the invoice's account against the vendor master and the approval
trail, duplicates against the paid ledger (a credit note cancelling the earlier invoice makes
a re-issue benign), three-way match against the PO and goods receipt, the printed arithmetic,
the e-mail's sender against the vendor's domain, and campaign patterns across the bundle's
invoices (one account behind several vendors, amounts split under the approval threshold,
several vendors invoicing on one day).

Then the decision: fraud signals -> ESCALATE_FRAUD; a duplicate, a discrepancy or a bad
check digit -> HOLD; nothing -> PAY. The probabilities are a fixed table per strongest
finding (stated in ``FORECASTS``), not a fitted model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from rabench.contracts.ap import Link
from rabench.engine.ap.documents import Approval, LedgerEntry, Mail, OrderLine, Vendor, norm_account, norm_id
from rabench.engine.ap.reading import Found, Line, amount, fold

URGENCY = (
    "urgent",
    "today",
    "immediately",
    "asap",
    "as soon as possible",
    "right away",
    "dringend",
    "sofort",
    "heute",
    "urgente",
    "immédiatement",
    "inmediato",
    "hoy",
    "vandaag",
    "direct",
    "spoed",
)
NO_CALLBACK = (
    "do not call",
    "don't call",
    "dont call",
    "phones are down",
    "not reachable by phone",
    "only by email",
    "only reply",
    "nicht anrufen",
    "ne pas appeler",
    "no llame",
    "niet bellen",
    "unreachable",
)
BYPASS = (
    "skip",
    "bypass",
    "without approval",
    "no need for",
    "exception to",
    "override",
    "ohne freigabe",
    "sans validation",
    "sin aprobación",
    "zonder goedkeuring",
    "confidential",
    "keep this between",
)
EXECUTIVE = (
    "ceo",
    "cfo",
    "chief executive",
    "chief financial",
    "managing director",
    "geschäftsführer",
    "président",
    "director general",
    "directeur",
)


def iban_ok(iban: str) -> bool:
    s = norm_account(iban)
    if len(s) < 15 or not (s[:2].isalpha() and s[2:4].isdigit()):
        return True  # not an IBAN: nothing to check here
    return int("".join(str(int(c, 36)) for c in s[4:] + s[:4])) % 97 == 1


def aba_ok(code: str) -> bool:
    d = re.sub(r"\D", "", code)
    if len(d) != 9:
        return True
    return sum(int(c) * w for c, w in zip(d, (3, 7, 1) * 3)) % 10 == 0


@dataclass
class Findings:
    codes: set[str] = field(default_factory=set)
    discrepancies: set[str] = field(default_factory=set)
    duplicate_links: list[Link] = field(default_factory=list)
    campaign_links: list[Link] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def match_vendor(fields: dict[str, Found], lines: list[Line], master: list[Vendor]) -> Vendor | None:
    """The vendor-master record this invoice claims to come from: its VAT id, else its name."""
    vat = norm_account(fields["vendor_vat_id"].value) if "vendor_vat_id" in fields else ""
    for v in master:
        if vat and v.vat_id and v.vat_id == vat:
            return v
    text = fold(" ".join(ln.text for ln in lines))
    named = [v for v in master if fold(v.name) in text]
    if named:
        return max(named, key=lambda v: len(v.name))
    name = fold(str(fields["vendor_name"].value)) if "vendor_name" in fields else ""
    best = max(master, key=lambda v: Levenshtein.normalized_similarity(fold(v.name), name), default=None)
    if best is not None and Levenshtein.normalized_similarity(fold(best.name), name) >= 0.85:
        return best
    return None


def bank(f: Findings, fields: dict[str, Found], vendor: Vendor | None, approvals: list[Approval]) -> str | None:
    """Check digits and the account against the vendor master; returns the invoice's account.

    A change counts as verified only as the policy defines it: an approved request for this
    account, two different approvers, and a confirmed callback to a number *on file* in the
    vendor master (a callback to the number the request gave proves nothing)."""
    acct = norm_account(fields["bank_account"].value) if "bank_account" in fields else ""
    if acct and not iban_ok(acct):
        f.codes.add("iban_checksum_invalid")  # a mistyped (or misread) number, not a new account
        f.notes.append(f"the printed IBAN {acct} fails its mod-97 check digits")
    if "bank_code" in fields and not aba_ok(str(fields["bank_code"].value)):
        f.codes.add("iban_checksum_invalid")
    if vendor is None:
        f.codes.add("vendor_not_in_master")
        return acct or None
    if acct and vendor.accounts and acct not in vendor.accounts and "iban_checksum_invalid" not in f.codes:
        f.codes.add("bank_account_changed")
        verified = any(
            a.account
            and (a.account in acct or acct in a.account)
            and a.approved
            and a.callback_confirmed
            and len(a.approvers) >= 2
            and (not vendor.phones or a.number_called in vendor.phones)
            for a in approvals
        )
        if not verified:
            f.codes.add("bank_change_unverified")
            f.notes.append(f"account {acct} is not the vendor master's and no verified change covers it")
        if vendor.country and acct[:2].isalpha() and acct[:2] != vendor.country[:2] and iban_ok(acct):
            f.codes.add("bank_country_mismatch")
    return acct or None


def duplicates(
    f: Findings, inv_name: str, fields: dict[str, Found], entries: list[LedgerEntry], credit_texts: list[str]
) -> None:
    number = norm_id(fields["invoice_number"].value) if "invoice_number" in fields else ""
    total = fields["total"].value if "total" in fields else None
    if not number:
        return
    credited = {norm_id(e.number) for e in entries if e.cancelled}
    cancelled = " ".join(norm_id(t) for t in credit_texts)
    for e in entries:
        n = norm_id(e.number)
        if (
            not n
            or not e.entry_id
            or (e.amount is not None and e.amount < 0)
            or "credit" in e.raw.get("document_type", "")
        ):
            continue
        same_amount = isinstance(total, float) and e.amount is not None and abs(e.amount - total) <= 0.01
        if n == number and (n in credited or n in cancelled):
            f.duplicate_links.append(Link("credit_note", inv_name, e.entry_id))
            f.notes.append(f"{e.entry_id} was credited: a re-issue, not a duplicate")
        elif n == number:
            f.codes.add("duplicate_invoice")
            f.duplicate_links.append(Link("duplicate", inv_name, e.entry_id))
        elif same_amount and Levenshtein.distance(n, number) <= 2 and len(number) >= 5:
            f.codes.add("near_duplicate")
            f.duplicate_links.append(Link("near_duplicate", inv_name, e.entry_id))


def three_way(
    f: Findings,
    fields: dict[str, Found],
    lines: list[Line],
    po: tuple[str, list[OrderLine]] | None,
    grn: tuple[str, list[OrderLine]] | None,
) -> None:
    """Invoice against PO (price within 2%, quantity) and goods receipts (quantity invoiced <=
    quantity received); receipts book against PO lines by line number or description."""
    if po is None:  # no PO in the bundle says nothing about whether one exists
        return
    po_no, po_lines = po
    if po_no and "po_number" in fields and norm_id(po_no) != norm_id(fields["po_number"].value):
        f.codes.add("no_purchase_order")
        f.discrepancies.add("missing_purchase_order")
    received: dict[str, float] = {}
    if grn is not None:  # no receipt document in the bundle is not a missing receipt (services, extracts)
        for g in grn[1]:
            key = g.line or fold(g.description)
            received[key] = received.get(key, 0.0) + (g.quantity or 0.0)
    for pl in po_lines:
        row = _invoice_row(lines, pl.description)
        if row is None:
            continue
        nums = [n for n in (amount(x) for x in re.findall(r"\d[\d.,' ]*", row)) if n is not None]
        qty = _first_number(row)
        if (
            pl.unit_price is not None
            and nums
            and not any(abs(n - pl.unit_price) <= 0.02 * pl.unit_price + 0.005 for n in nums)
        ):
            f.codes.add("po_price_mismatch")
            f.discrepancies.add("price_mismatch")
        if qty is None:
            continue
        got = received.get(pl.line) if pl.line else None
        got = got if got is not None else received.get(fold(pl.description))
        if (got is not None and qty > got + 1e-6) or (pl.quantity is not None and qty > pl.quantity + 1e-6):
            f.codes.add("po_quantity_mismatch")
            f.discrepancies.add("quantity_mismatch")


def _invoice_row(lines: list[Line], description: str) -> str | None:
    d = fold(description)
    for i, ln in enumerate(lines):
        if fold(ln.text).startswith(d[: max(8, len(d) // 2)]):
            c = (ln.box[1] + ln.box[3]) / 2
            same = [x.text for x in lines[i:] + lines[:i] if abs((x.box[1] + x.box[3]) / 2 - c) <= 0.006]
            return " | ".join(same[1:])
    return None


def _first_number(row: str) -> float | None:
    m = re.match(r"\s*\|?\s*(\d+(?:[.,]\d+)?)\b", row)
    return float(m.group(1).replace(",", ".")) if m else None


def arithmetic(f: Findings, fields: dict[str, Found]) -> None:
    sub, tax, tot = (fields[k].value if k in fields else None for k in ("subtotal", "tax", "total"))
    if isinstance(sub, float) and isinstance(tax, float) and isinstance(tot, float) and abs(sub + tax - tot) > 0.015:
        f.codes.add("total_mismatch")
        f.discrepancies.add("total_mismatch")


def inbox(f: Findings, mails: list[Mail], vendor: Vendor | None, master: list[Vendor], buyer_domains: set[str]) -> None:
    known = set().union(*(v.domains for v in master)) | buyer_domains if master else set(buyer_domains)
    own = vendor.domains if vendor is not None else set()
    for m in mails:
        d = m.domain
        text = fold(f"{m.subject}\n{m.body}")
        if d and d not in known:
            f.codes.add("sender_domain_mismatch")
            if any(_lookalike(d, k) for k in known):
                f.codes.add("lookalike_domain")
            names = [fold(v.name) for v in master]
            if fold(m.display) and any(fold(m.display) in n or n in fold(m.display) for n in names if n):
                f.codes.add("display_name_spoof")
        elif d and own and d not in own and d not in buyer_domains:
            f.codes.add("sender_domain_mismatch")
        if m.reply_to and m.sender and m.reply_to.split("@")[-1] != m.sender.split("@")[-1]:
            f.codes.add("reply_to_mismatch")
        if any(w in text for w in URGENCY):
            f.codes.add("urgency_pressure")
        if any(w in text for w in NO_CALLBACK):
            f.codes.add("callback_discouraged")
        if any(w in text for w in BYPASS):
            f.codes.add("policy_bypass_pressure")
        if any(w in fold(m.display) or f" {w} " in f" {text} " for w in EXECUTIVE):
            f.codes.add("executive_impersonation")
        if vendor is not None and vendor.phones:
            phones = {re.sub(r"\D", "", p)[-9:] for p in re.findall(r"\+?\d[\d ()/-]{7,}\d", m.body)}
            if phones and not phones & vendor.phones:
                f.codes.add("callback_number_changed")


def _core(domain: str) -> str:
    """The name part of a domain, letters and digits only: ``acme-gmbh.de`` -> ``acmegmbh``."""
    return re.sub(r"[^a-z0-9]", "", domain.rsplit(".", 1)[0])


def _glyphs(text: str) -> str:
    """Letters that look alike in a mail client read as one: rn -> m, vv -> w, 0 -> o, 1/i -> l."""
    for a, b in (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l")):
        text = text.replace(a, b)
    return text


def _lookalike(domain: str, known: str) -> bool:
    """``domain`` imitates ``known`` (a letter swapped, a hyphen or TLD added, l -> I)."""
    a, b = _core(_glyphs(domain)), _core(_glyphs(known))
    return (
        domain != known
        and bool(a)
        and bool(b)
        and (Levenshtein.normalized_similarity(a, b) >= 0.8 or a.startswith(b) or b.startswith(a))
    )


def campaign(
    f: Findings,
    invoices: list[tuple[str, dict[str, Found], str | None, str]],
    threshold: float | None,
    master: list[Vendor],
) -> None:
    """Across the bundle's invoices: (name, fields, account, vendor name)."""
    if len(invoices) < 2:
        return
    owners: dict[str, set[str]] = {}
    for _, _, acct, vname in invoices:
        if acct:
            owners.setdefault(acct, set()).add(fold(vname))
    on_file = {fold(v.name): v.accounts for v in master}
    # one account behind several vendors, unless the master lists it for each of them (a shared
    # remittance account the vendors declared)
    shared = {
        a for a, names in owners.items() if len(names) >= 2 and not all(a in on_file.get(n, set()) for n in names)
    }
    if shared:
        f.codes.add("shared_bank_account")
    totals = [flds["total"].value for _, flds, _, _ in invoices if "total" in flds]
    if (
        threshold
        and len(totals) >= 2
        and all(isinstance(t, float) and 0.8 * threshold <= t < threshold for t in totals)
    ):
        f.codes.add("threshold_splitting")
    dates = [flds["invoice_date"].value for _, flds, _, _ in invoices if "invoice_date" in flds]
    vendors_seen = {fold(v) for *_, v in invoices}
    if len(dates) >= 2 and len(set(dates)) == 1 and len(vendors_seen) >= 2:
        f.codes.add("coordinated_timing")
    if f.codes & {"shared_bank_account", "threshold_splitting", "coordinated_timing"}:
        first = invoices[0][0]
        for name, *_ in invoices[1:]:
            f.campaign_links.append(Link("campaign", first, name))


HOLD = {
    "duplicate_invoice",
    "near_duplicate",
    "iban_checksum_invalid",
    "po_price_mismatch",
    "po_quantity_mismatch",
    "no_goods_receipt",
    "no_purchase_order",
    "tax_calculation_error",
    "total_mismatch",
    "vat_id_mismatch",
}
# Strongest finding -> the probabilities over the outcome classes (fixed, not fitted).
FORECASTS: dict[str, dict[str, float]] = {
    "campaign_fraud": {
        "campaign_fraud": 0.7,
        "bank_fraud": 0.1,
        "impersonation": 0.05,
        "safe": 0.05,
        "discrepancy": 0.05,
        "duplicate_billing": 0.05,
    },
    "impersonation": {
        "impersonation": 0.6,
        "bank_fraud": 0.2,
        "safe": 0.1,
        "campaign_fraud": 0.04,
        "discrepancy": 0.03,
        "duplicate_billing": 0.03,
    },
    "bank_fraud": {
        "bank_fraud": 0.65,
        "impersonation": 0.15,
        "safe": 0.1,
        "campaign_fraud": 0.04,
        "discrepancy": 0.03,
        "duplicate_billing": 0.03,
    },
    "duplicate_billing": {
        "duplicate_billing": 0.75,
        "safe": 0.1,
        "discrepancy": 0.05,
        "bank_fraud": 0.04,
        "impersonation": 0.03,
        "campaign_fraud": 0.03,
    },
    "discrepancy": {
        "discrepancy": 0.75,
        "safe": 0.12,
        "duplicate_billing": 0.04,
        "bank_fraud": 0.03,
        "impersonation": 0.03,
        "campaign_fraud": 0.03,
    },
    "safe": {
        "safe": 0.8,
        "discrepancy": 0.08,
        "bank_fraud": 0.04,
        "impersonation": 0.03,
        "duplicate_billing": 0.03,
        "campaign_fraud": 0.02,
    },
}


def decide(f: Findings) -> tuple[str, str]:
    """(decision, the outcome class the forecast centres on)."""
    codes = f.codes
    if codes & {"shared_bank_account", "threshold_splitting"} or f.campaign_links:
        return "ESCALATE_FRAUD", "campaign_fraud"
    mail_fraud = codes & {
        "lookalike_domain",
        "display_name_spoof",
        "executive_impersonation",
        "callback_discouraged",
        "policy_bypass_pressure",
    }
    if mail_fraud and (codes & {"sender_domain_mismatch", "bank_account_changed", "vendor_not_in_master"}):
        return "ESCALATE_FRAUD", "impersonation"
    if codes & {"bank_change_unverified", "vendor_not_in_master"}:
        return "ESCALATE_FRAUD", "bank_fraud"
    if codes & {"duplicate_invoice", "near_duplicate"}:
        return "HOLD", "duplicate_billing"
    if codes & HOLD or f.discrepancies:
        return "HOLD", "discrepancy"
    return "PAY", "safe"
