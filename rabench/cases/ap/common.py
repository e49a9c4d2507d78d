"""What every family builder shares: the case's world (vendor, buyer, other vendors, dates),
rendering an invoice into a document with its labelled fields, and the label itself.

Why one world per case: a bundle is self-contained (its own vendor master and ledger), so no
case depends on another and targets can run cases in any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

import numpy as np

from rabench.cases.ap.invoices import Invoice, minor_to_float
from rabench.cases.ap.ledger import POLICY_TEXT, EntryIds
from rabench.cases.ap.render import Look, boxes_to_evidence, pick_look, rasterise, render_pdf
from rabench.cases.ap.vendors import Buyer, Vendor, buyer_for, make_vendor
from rabench.contracts.ap import APLabel, GoldField, GoldLineItem, Link

EXT = {"application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png"}
# Invoice file formats: drawn from their own stream, alike for every variant of a family.
FORMAT_WEIGHTS = {"pdf": 0.6, "scan": 0.25, "png": 0.15}
EXTRACTION_FORMAT_WEIGHTS = {"pdf": 0.4, "scan": 0.4, "png": 0.2}


@dataclass(frozen=True, slots=True)
class Doc:
    name: str
    data: bytes
    media_type: str
    role: str


@dataclass
class World:
    """The case's parties and clock, drawn before the variant decides anything."""

    rng: np.random.Generator
    vendor: Vendor
    buyer: Buyer
    others: list[Vendor]
    issued: date
    submitted: date
    ids: EntryIds
    fmt: str  # invoice file format: pdf | scan | png
    look: Look
    docs: list[Doc] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, data: bytes, media_type: str, role: str) -> None:
        self.docs.append(Doc(name, data, media_type, role))


def make_world(
    rng: np.random.Generator, fmt_rng: np.random.Generator, *, extraction: bool = False, country: str | None = None
) -> World:
    vid = int(rng.integers(10000, 99000))
    vendor = make_vendor(rng, f"V-{vid}", country=country)
    others = [
        make_vendor(rng, f"V-{vid + 1 + 7 * k + int(rng.integers(0, 6))}") for k in range(int(rng.integers(3, 8)))
    ]
    issued = date(2024, 1, 1) + timedelta(days=int(rng.integers(0, 640)))
    submitted = issued + timedelta(days=int(rng.choice([0, 1, 1, 2, 3, 5, 7, 10, 14, 21])))
    weights = EXTRACTION_FORMAT_WEIGHTS if extraction else FORMAT_WEIGHTS
    fmt = str(fmt_rng.choice(list(weights), p=list(weights.values())))
    return World(rng, vendor, buyer_for(rng, vendor), others, issued, submitted, EntryIds(rng), fmt, pick_look(fmt_rng))


def invoice_doc(
    w: World, inv: Invoice, stem: str = "invoice", *, role: str = "invoice", fmt: str | None = None
) -> tuple[str, dict[str, GoldField], list[GoldLineItem]]:
    """Render ``inv`` into the bundle; returns its document name, labelled fields and line items."""
    created = datetime(inv.issued.year, inv.issued.month, inv.issued.day, 8) + timedelta(
        minutes=int(w.rng.integers(0, 600))
    )
    pdf, boxes = render_pdf(inv, w.look, created)
    kind = fmt or w.fmt
    if kind == "pdf":
        data, media = pdf, "application/pdf"
    else:
        data, media = rasterise(pdf, w.rng, kind)
    name = f"{stem}.{EXT[media]}"
    w.add(name, data, media, role)
    w.tags.setdefault("language", inv.language)
    ev = boxes_to_evidence(name, boxes)
    acct = inv.account
    values: dict[str, str | float | None] = {
        "vendor_name": inv.vendor.name,
        "vendor_vat_id": inv.vat_id,
        "invoice_number": inv.number,
        "invoice_date": inv.issued.isoformat(),
        "due_date": inv.due.isoformat() if inv.kind == "invoice" else None,
        "currency": inv.currency,
        "subtotal": minor_to_float(inv.subtotal),
        "tax": minor_to_float(inv.tax),
        "total": minor_to_float(inv.total),
        "po_number": inv.po_number,
        "bank_account": acct.number,
        "bank_code": acct.code,
    }
    if inv.vendor.country == "US" and inv.tax == 0:
        values["tax"] = None  # the US layout prints no tax line
    fields = {k: GoldField(v, ev.get(k) if v is not None else None) for k, v in values.items()}
    items = [
        GoldLineItem(x.description, float(x.quantity), minor_to_float(x.unit), minor_to_float(x.total))
        for x in inv.lines
    ]
    return name, fields, items


def add_policy(w: World) -> None:
    w.add("policy.txt", POLICY_TEXT.encode("utf-8"), "text/plain", "policy")


def make_label(
    family: str,
    difficulty: str,
    outcome: str,
    decision: str,
    acceptable: list[str],
    *,
    subject: str,
    fields: dict[str, GoldField],
    items: list[GoldLineItem],
    reasons: Sequence[str] = (),
    discrepancies: Sequence[str] = (),
    dup: Sequence[Link] = (),
    campaign: Sequence[Link] = (),
    twin: bool = False,
) -> APLabel:
    acc = [decision] + [a for a in acceptable if a != decision]
    return APLabel(
        family=family,
        difficulty=difficulty,
        outcome=outcome,
        decision=decision,
        acceptable=acc,  # type: ignore[arg-type]
        safe_to_pay="PAY" in acc,
        fields=fields,
        subject=subject,
        line_items=items,  # type: ignore[arg-type]
        reason_codes=sorted(set(reasons)),
        discrepancies=sorted(set(discrepancies)),  # type: ignore[arg-type]
        duplicate_links=list(dup),
        campaign_links=list(campaign),
        benign_twin=twin,
    )


FRAUD_ACCEPT = ["ESCALATE_FRAUD"]
HOLD_ACCEPT = ["HOLD", "NEEDS_REVIEW"]
