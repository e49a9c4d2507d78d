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


def vendors(doc: APInput) -> list[Vendor]:
    out = []
    for rec in records(read_json(doc)):
        name = pick(rec, "legal_name", "vendor_name", "name", avoid=("bank", "contact", "file"))
        acct = pick(rec, "iban", "account", avoid=("holder", "name", "type"))
        if not isinstance(name, str) or acct is None and pick(rec, "domain", "email") is None:
            continue
        v = Vendor(vendor_id=str(pick(rec, "vendor_id", "id") or name), name=name)
        for key, value in rec.items():
            kl = key.lower()
            vals = value if isinstance(value, list) else [value]
            for x in vals:
                if isinstance(x, dict):
                    x = pick(x, "iban", "account", avoid=("holder", "name")) if "bank" in kl or "account" in kl else None
                if x is None:
                    continue
                if ("iban" in kl or "account" in kl or "bank" in kl) and "holder" not in kl and "name" not in kl:
                    if len(norm_account(x)) >= 6:
                        v.accounts.add(norm_account(x))
                elif "domain" in kl or "email" in kl:
                    d = domain_of(x)
                    if d:
                        v.domains.add(d)
                elif "phone" in kl or "tel" in kl:
                    v.phones.add(re.sub(r"\D", "", str(x))[-9:])
                elif "vat" in kl:
                    v.vat_id = norm_account(x)
                elif kl == "country":
                    v.country = str(x).upper()
        out.append(v)
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
        out.append(LedgerEntry(entry_id=str(entry or ""), vendor=str(pick(low, "vendor", "supplier") or ""),
                               number=str(number or ""), amount=_float(amt), date=str(pick(low, "date") or ""),
                               account=norm_account(pick(low, "iban", "account") or ""), raw=low))
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


def order_lines(doc: APInput) -> tuple[str, list[OrderLine]]:
    """A purchase order or goods receipt: its number (PO number for both) and its lines."""
    data = read_json(doc)
    number = ""
    lines = []
    for rec in records(data):
        if not number and isinstance(pick(rec, "po_number", "po", "order"), str):
            number = str(pick(rec, "po_number", "po", "order"))
        desc = pick(rec, "description", "item", "text", "name")
        qty = pick(rec, "quantity_received", "received", "quantity", "qty")
        if isinstance(desc, str) and qty is not None:
            lines.append(OrderLine(desc, _float(qty), _float(pick(rec, "unit_price", "price"))))
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
    return [Mail(sender=sender.lower(), display=display, reply_to=reply.lower(), subject=str(msg.get("Subject", "")),
                 body="\n".join(parts))]


def policy_threshold(doc: APInput) -> float | None:
    """The approval threshold the policy text states (the first amount after above/over/ab/...)."""
    text = doc.text()
    m = re.search(r"(?:above|over|exceeding|ab|über|au-delà de|supérieur[es]* à|más de|boven)\D{0,12}"
                  r"(\d[\d.,' ]*\d)", text, re.I)
    if not m:
        return None
    digits = re.sub(r"[^\d]", "", m.group(1).split(".")[0].split(",")[0]) if re.search(r"[.,]\d{2}$", m.group(1)) \
        else re.sub(r"[^\d]", "", m.group(1))
    return float(digits) if digits else None
