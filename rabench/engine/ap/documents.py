"""The bundle's other documents read into plain facts: vendor master, ledger, purchase order,
goods receipt, approvals, e-mails, policy.

Why schema-tolerant: an AP analyst reads whatever export the ERP produced; the engine finds
records by what their keys mean (a key holding "iban" or "account" is a bank account, "name"
a name, "domain"/"email" a domain, "qty"/"quantity" a quantity), never by one exact layout.
"""

from __future__ import annotations

import csv
import email
import email.policy
import email.utils
import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from rabench.engine.ap.reading import amount, fold
from rabench.targets.ap_request import APInput


def records(obj: Any) -> list[dict[str, Any]]:
    """Every JSON object inside ``obj`` (depth first), the outer one included."""
    out: list[dict[str, Any]] = []
    if isinstance(obj, dict):
        out.append(obj)
        for v in obj.values():
            out += records(v)
    elif isinstance(obj, list):
        for v in obj:
            out += records(v)
    return out


def pick(rec: dict[str, Any], *parts: str, avoid: tuple[str, ...] = ()) -> Any:
    """The value of the first key containing one of ``parts`` (and none of ``avoid``)."""
    for part in parts:
        for k, v in rec.items():
            kl = k.lower()
            if part in kl and not any(a in kl for a in avoid) and v not in (None, "", [], {}):
                return v
    return None


def norm_account(value: Any) -> str:
    return re.sub(r"[^A-Z0-9]", "", str(value).upper())


def norm_id(value: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", fold(str(value)))


def domain_of(value: Any) -> str | None:
    text = str(value).strip().lower()
    if "@" in text:
        text = text.rsplit("@", 1)[1]
    text = text.strip("<> ").removeprefix("www.")
    return text if re.fullmatch(r"[a-z0-9.-]+\.[a-z]{2,}", text) else None


@dataclass
class Vendor:
    vendor_id: str
    name: str
    accounts: set[str] = field(default_factory=set)
    domains: set[str] = field(default_factory=set)
    phones: set[str] = field(default_factory=set)
    vat_id: str = ""
    country: str = ""


def read_json(doc: APInput) -> Any:
    try:
        return json.loads(doc.text())
    except ValueError:
        return None


def _leaves(obj: Any, path: str = "") -> list[tuple[str, Any]]:
    """(dotted key path, value) of every scalar inside ``obj``."""
    if isinstance(obj, dict):
        return [x for k, v in obj.items() for x in _leaves(v, f"{path}.{k}".lower())]
    if isinstance(obj, list):
        return [x for v in obj for x in _leaves(v, path)]
    return [(path, obj)]


def vendors(doc: APInput) -> list[Vendor]:
    """Vendor records: objects with a name and, somewhere inside, a bank account or domain."""
    out = []
    for rec in records(read_json(doc)):
        name = rec.get("name") or rec.get("legal_name") or rec.get("vendor_name")
        leaves = _leaves(rec)
        has_bank = any(("iban" in p or "account" in p) and "holder" not in p for p, _ in leaves)
        if not isinstance(name, str) or not has_bank or not any("vendor" in k or k == "id" for k in rec):
            continue
        v = Vendor(vendor_id=str(pick(rec, "vendor_id", "id") or name), name=name)
        for path, x in leaves:
            if x is None or isinstance(x, bool):
                continue
            last = path.rsplit(".", 1)[-1]
            if (
                ("iban" in last or "account" in last)
                and "holder" not in last
                and "name" not in last
                and "change" not in last
                and len(norm_account(x)) >= 6
            ):
                v.accounts.add(norm_account(x))
            elif "domain" in last or "email" in last or (isinstance(x, str) and "@" in x):
                d = domain_of(x)
                if d:
                    v.domains.add(d)
            elif "phone" in last or last in ("tel", "telephone"):
                v.phones.add(re.sub(r"\D", "", str(x))[-9:])
            elif "vat" in last:
                v.vat_id = norm_account(x)
            elif last == "country":
                v.country = str(x).upper()
        out.append(v)
    return out


@dataclass
class Approval:
    """A bank-change request's trail: which account, who approved, whom the callback reached."""

    account: str
    approved: bool
    callback_confirmed: bool
    number_called: str
    approvers: set[str]


def approvals(doc: APInput) -> list[Approval]:
    out = []
    for rec in records(read_json(doc)):
        acct = pick(rec, "new_account", "new_iban", "account", "iban", avoid=("old",))
        if acct is None or isinstance(acct, (dict, list)):
            continue
        cb = rec.get("callback") if isinstance(rec.get("callback"), dict) else {}
        outcome = str(cb.get("outcome") or rec.get("callback") or "")
        status = str(rec.get("status") or "")
        out.append(
            Approval(
                account=norm_account(acct),
                approved=bool(re.search(r"approv|complet|verified", status, re.I)),
                callback_confirmed=bool(re.search(r"confirm|complet|verified|ok", outcome, re.I)),
                number_called=re.sub(r"\D", "", str(cb.get("number_called") or ""))[-9:],
                approvers={str(rec[k]) for k in rec if "approver" in k.lower() and rec[k]},
            )
        )
    return out


@dataclass
class LedgerEntry:
    entry_id: str
    vendor: str
    number: str
    amount: float | None
    date: str
    account: str
    raw: dict[str, str]
    cancelled: bool = False  # a credit note, or an invoice a credit note cancelled


def ledger(doc: APInput) -> list[LedgerEntry]:
    text = doc.text()
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error:
        return []
    out = []
    for r in rows:
        low = {k.lower(): (v or "") for k, v in r.items() if k}
        entry = pick(low, "entry", "ledger", "id")
        number = pick(low, "invoice_number", "invoice_no", "number", "reference", avoid=("entry", "vendor", "po"))
        amt = pick(low, "amount", "total", "gross")
        kind = " ".join(str(low.get(k, "")) for k in ("document_type", "type", "status"))
        out.append(
            LedgerEntry(
                entry_id=str(entry or ""),
                vendor=str(pick(low, "vendor_name", "vendor", "supplier") or ""),
                number=str(number or ""),
                amount=_float(amt),
                date=str(pick(low, "date") or ""),
                account=norm_account(pick(low, "iban", "account") or ""),
                raw=low,
                cancelled=bool(re.search(r"credit|cancel|void|revers", kind, re.I)),
            )
        )
    return out


def _float(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return amount(str(value))


@dataclass
class OrderLine:
    description: str
    quantity: float | None
    unit_price: float | None
    line: str = ""  # the PO line number a goods receipt refers to


def order_lines(doc: APInput) -> tuple[str, list[OrderLine]]:
    """A purchase order or goods receipt: its PO number and its lines (receipts: one per
    posting, with the PO line it books against)."""
    data = read_json(doc)
    number = str(data.get("po_number") or "") if isinstance(data, dict) else ""
    lines = []
    for rec in records(data):
        if rec is data:
            continue
        desc = pick(rec, "description", "item", "text")
        qty = pick(rec, "quantity_received", "received", "quantity", "qty")
        line = pick(rec, "po_line", "line")
        if qty is not None and (isinstance(desc, str) or line is not None):
            lines.append(
                OrderLine(
                    str(desc or ""),
                    _float(qty),
                    _float(pick(rec, "unit_price", "price")),
                    str(line if line is not None else ""),
                )
            )
    return number, lines


@dataclass
class Mail:
    sender: str
    display: str
    reply_to: str
    subject: str
    body: str

    @property
    def domain(self) -> str | None:
        return domain_of(self.sender)


def mails(doc: APInput) -> list[Mail]:
    """Every message of an .eml thread (forwarded or quoted ones as their own text)."""
    msg = email.message_from_bytes(doc.path.read_bytes(), policy=email.policy.default)
    display, sender = email.utils.parseaddr(str(msg.get("From", "")))
    _, reply = email.utils.parseaddr(str(msg.get("Reply-To", "")))
    parts = []
    for part in msg.walk() if msg.is_multipart() else [msg]:
        if part.get_content_type() == "text/plain":
            try:
                parts.append(str(part.get_content()))
            except (LookupError, ValueError):
                parts.append(part.get_payload(decode=True).decode("utf-8", "replace"))  # type: ignore[union-attr]
    return [
        Mail(
            sender=sender.lower(),
            display=display,
            reply_to=reply.lower(),
            subject=str(msg.get("Subject", "")),
            body="\n".join(parts),
        )
    ]


def policy_thresholds(doc: APInput) -> dict[str, float]:
    """Approval limits the policy states, per currency ("EUR 10,000; GBP 8,000")."""
    out: dict[str, float] = {}
    for cur, num in re.findall(r"\b(EUR|GBP|USD|CHF|SEK|PLN|DKK|NOK)\s?([\d][\d,.' ]*\d)", doc.text()):
        digits = re.sub(r"[^\d]", "", re.sub(r"[.,]\d{2}$", "", num))
        if digits and cur not in out:
            out[cur] = float(digits)
    return out
