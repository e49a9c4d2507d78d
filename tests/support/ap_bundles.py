"""Small AP bundles with real documents (a PDF invoice with a text layer, vendor master JSON,
ledger CSV, PO JSON, .eml, approval, policy), labels consistent with what is printed.

For tests of the run path, the DIY AP prompt and the ``self`` AP engine that must not wait for
the suite generator; each scenario is the plainest form of one outcome class, so a test can
say which control should fire. Not a generator: no distributions, no audit."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import msgspec
from fpdf import FPDF

from rabench.contracts import SuiteHeader
from rabench.contracts.ap import APCase, APDocument, APLabel, EvidenceBox, GoldField, Link

W, H = 210.0, 297.0
SCENARIOS = (
    "safe",
    "discrepancy",
    "duplicate_billing",
    "bank_fraud",
    "impersonation",
    "campaign_fraud",
    "verified_change",
)
MEDIA = {
    ".pdf": "application/pdf",
    ".json": "application/json",
    ".csv": "text/csv",
    ".eml": "message/rfc822",
    ".txt": "text/plain",
}


def iban(country: str, bban: str) -> str:
    n = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - n % 97:02d}{bban}"


def _pdf(
    vendor: str,
    number: str,
    date: str,
    po: str,
    account: str,
    total: float,
    lines: list[tuple[str, float, float]],
    name: str,
) -> tuple[bytes, dict[str, EvidenceBox]]:
    pdf = FPDF(unit="mm", format=(W, H))
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    boxes: dict[str, EvidenceBox] = {}

    def put(x: float, y: float, text: str, field: str | None = None, w: float = 80.0) -> None:
        pdf.set_xy(x, y)
        pdf.cell(w, 6, text)
        if field:
            tw = pdf.get_string_width(text)
            boxes[field] = EvidenceBox(name, 1, (x / W, y / H, min(1.0, (x + tw + 2) / W), (y + 6) / H))

    put(15, 15, vendor, "vendor_name")
    put(120, 30, "Invoice no.")
    put(150, 30, number, "invoice_number", 50)
    put(120, 37, "Date")
    put(150, 37, date, "invoice_date", 50)
    put(120, 44, "PO number")
    put(150, 44, po, "po_number", 50)
    y = 70.0
    for desc, qty, price in lines:
        put(15, y, desc)
        put(110, y, f"{qty:g}")
        put(130, y, f"{price:.2f}")
        put(160, y, f"{qty * price:.2f}")
        y += 7
    put(120, y + 10, "Total EUR")
    put(160, y + 10, f"{total:.2f}", "total", 40)
    put(15, 250, "IBAN")
    put(30, 250, " ".join(account[i : i + 4] for i in range(0, len(account), 4)), "bank_account", 120)
    data = bytes(pdf.output())
    return data, boxes


def _eml(sender: str, display: str, subject: str, body: str, reply_to: str | None = None) -> bytes:
    head = (
        f"From: {display} <{sender}>\nTo: ap@buyer-gmbh.de\nSubject: {subject}\nDate: Mon, 02 Mar 2026 09:12:00 +0100\n"
    )
    if reply_to:
        head += f"Reply-To: {reply_to}\n"
    return (head + "Content-Type: text/plain; charset=utf-8\n\n" + body + "\n").encode()


def scenario_files(kind: str, i: int, rng: random.Random) -> tuple[dict[str, bytes], APLabel]:
    vendor = f"Nordlicht Werkzeuge {i} GmbH"
    domain = f"nordlicht{i}.de"
    master_iban = iban("DE", f"{rng.randrange(10**8):08d}{rng.randrange(10**10):010d}")
    other_iban = iban("DE", f"{rng.randrange(10**8):08d}{rng.randrange(10**10):010d}")
    number, po = f"NW-{2026}{i:04d}", f"PO-{7000 + i}"
    lines = [("Drill bits set", 10.0, 12.5), ("Torque wrench", 2.0, 80.0)]
    total = sum(q * p for _, q, p in lines)
    account = master_iban
    files: dict[str, bytes] = {}
    po_lines = [{"description": d, "quantity": q, "unit_price": p} for d, q, p in lines]
    ledger = [
        ["entry_id", "vendor_id", "invoice_number", "invoice_date", "amount", "currency"],
        [f"LED-{i:03d}001", f"V{i:03d}", f"NW-2025{i:04d}", "2025-12-01", "310.00", "EUR"],
    ]
    label: dict[str, object] = {
        "family": "extraction",
        "difficulty": "easy",
        "outcome": "safe",
        "decision": "PAY",
        "acceptable": ["PAY"],
        "safe_to_pay": True,
    }
    if kind == "discrepancy":
        po_lines[0]["unit_price"] = 11.0
        label.update(
            family="three_way_match",
            outcome="discrepancy",
            decision="HOLD",
            acceptable=["HOLD", "NEEDS_REVIEW"],
            safe_to_pay=False,
            reason_codes=["po_price_mismatch"],
            discrepancies=["price_mismatch"],
        )
    elif kind == "duplicate_billing":
        ledger.append([f"LED-{i:03d}002", f"V{i:03d}", number, "2026-02-20", f"{total:.2f}", "EUR"])
        label.update(
            family="duplicate_bank_change",
            outcome="duplicate_billing",
            decision="HOLD",
            acceptable=["HOLD", "NEEDS_REVIEW", "ESCALATE_FRAUD"],
            safe_to_pay=False,
            reason_codes=["duplicate_invoice"],
            duplicate_links=[Link("duplicate", "invoice.pdf", f"LED-{i:03d}002")],
        )
    elif kind in ("bank_fraud", "verified_change"):
        account = other_iban
        if kind == "verified_change":
            files["approval.json"] = json.dumps(
                {
                    "extract": "bank_change_request",
                    "vendor_id": f"V{i:03d}",
                    "new_account": other_iban,
                    "status": "approved",
                    "first_approver": "A. Kowalski",
                    "second_approver": "B. Nguyen",
                    "callback": {"number_called": "+49 30 1234567", "outcome": "confirmed"},
                }
            ).encode()
            label.update(family="duplicate_bank_change", reason_codes=["bank_account_changed"], benign_twin=True)
        else:
            label.update(
                family="duplicate_bank_change",
                outcome="bank_fraud",
                decision="ESCALATE_FRAUD",
                acceptable=["ESCALATE_FRAUD"],
                safe_to_pay=False,
                reason_codes=["bank_account_changed", "bank_change_unverified"],
            )
    elif kind == "impersonation":
        account = other_iban
        files["thread.eml"] = _eml(
            f"accounts@nordIicht{i}-de.com",
            vendor,
            f"Urgent: invoice {number}",
            "Please pay today to our new account, the old one is closed. Do not call, our phones are down.",
        )
        label.update(
            family="inbox_bec",
            outcome="impersonation",
            decision="ESCALATE_FRAUD",
            acceptable=["ESCALATE_FRAUD"],
            safe_to_pay=False,
            reason_codes=[
                "bank_account_changed",
                "bank_change_unverified",
                "sender_domain_mismatch",
                "lookalike_domain",
                "display_name_spoof",
                "urgency_pressure",
                "callback_discouraged",
            ],
        )
    elif kind == "campaign_fraud":
        account = other_iban
        second, _ = _pdf(
            f"Sudwind Handel {i} AG",
            f"SW-{i:05d}",
            "2026-03-02",
            f"PO-{8000 + i}",
            other_iban,
            total,
            lines,
            "invoice-2.pdf",
        )
        files["invoice-2.pdf"] = second
        label.update(
            family="campaign",
            difficulty="expert",
            outcome="campaign_fraud",
            decision="ESCALATE_FRAUD",
            acceptable=["ESCALATE_FRAUD"],
            safe_to_pay=False,
            reason_codes=["bank_account_changed", "bank_change_unverified", "shared_bank_account"],
            campaign_links=[Link("campaign", "invoice.pdf", "invoice-2.pdf")],
        )
    inv, boxes = _pdf(vendor, number, "2026-03-02", po, account, total, lines, "invoice.pdf")
    files = {"invoice.pdf": inv, **files}
    files["vendor_master.json"] = json.dumps(
        {
            "vendors": [
                {
                    "vendor_id": f"V{i:03d}",
                    "name": vendor,
                    "iban": master_iban,
                    "email_domain": domain,
                    "phone": "+49 30 1234567",
                },
                {
                    "vendor_id": f"V{i + 500:03d}",
                    "name": f"Sudwind Handel {i} AG",
                    "iban": iban("DE", "370400440532013000"),
                    "email_domain": f"sudwind{i}.de",
                },
            ]
        }
    ).encode()
    files["ledger.csv"] = "\n".join(",".join(r) for r in ledger).encode() + b"\n"
    files["po.json"] = json.dumps(
        {"po_number": po, "vendor_id": f"V{i:03d}", "currency": "EUR", "lines": po_lines}
    ).encode()
    if kind != "missing_receipt":
        files["goods_receipt.json"] = json.dumps(
            {
                "grn_number": f"GRN-{i:05d}",
                "po_number": po,
                "lines": [{"description": d, "quantity_received": q} for d, q, _ in lines],
            }
        ).encode()
    files["policy.txt"] = b"Invoices above EUR 10,000 need a second approval. Bank changes need a callback.\n"
    values = {
        "vendor_name": vendor,
        "invoice_number": number,
        "invoice_date": "2026-03-02",
        "po_number": po,
        "total": total,
        "bank_account": account,
        "currency": "EUR",
    }
    label["fields"] = {k: GoldField(v, boxes.get(k)) for k, v in values.items()}
    label["line_items"] = [{"description": d, "quantity": q, "unit_price": p, "total": q * p} for d, q, p in lines]
    return files, msgspec.convert(msgspec.to_builtins(label), APLabel)


ROLE = {
    "invoice.pdf": "invoice",
    "invoice-2.pdf": "invoice",
    "vendor_master.json": "vendor_master",
    "ledger.csv": "ledger",
    "po.json": "purchase_order",
    "policy.txt": "policy",
    "thread.eml": "email",
    "approval.json": "approval",
    "goods_receipt.json": "goods_receipt",
}


def write_bundle_suite(root: Path, n: int = 14, seed: int = 3) -> list[APCase]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    cases = []
    for i in range(n):
        cid = f"b{i:04d}"
        files, label = scenario_files(SCENARIOS[i % len(SCENARIOS)], i, rng)
        docs = []
        for name, data in files.items():
            (root / "files" / cid).mkdir(parents=True, exist_ok=True)
            (root / "files" / cid / name).write_bytes(data)
            docs.append(
                APDocument(
                    name=name,
                    file=f"files/{cid}/{name}",
                    sha256=hashlib.sha256(data).hexdigest(),
                    media_type=MEDIA[Path(name).suffix],
                    role=ROLE[name],
                )
            )  # type: ignore[arg-type]
        cases.append(APCase(id=cid, documents=docs, label=label, submitted_at="2026-03-03"))
    header = SuiteHeader(suite="ap", name="ap-bundles", meta={"generator": "tests"})
    (root / "manifest.jsonl").write_bytes(
        b"\n".join([msgspec.json.encode(header), *(msgspec.json.encode(c) for c in cases)]) + b"\n"
    )
    return cases
