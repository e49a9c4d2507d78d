"""Render an invoice or credit note as a PDF (fpdf2, DejaVu fonts, real text layer) or as a scanned
or exported image, and record the box of every labelled field.

Why boxes in page fractions: the renderer knows exactly where it printed each value (in mm);
dividing by the page size gives a box that stays right when the page is rasterised at any
resolution, so evidence is scored the same for PDF and image invoices. Three layouts (a
classic letterhead, a coloured band, a German DIN-style letter), three font families and five
languages are drawn independently of the label.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
from fpdf import FPDF
from PIL import Image, ImageFilter

from rabench.cases.ap.invoices import Invoice, money, print_date
from rabench.cases.ap.vendors import paper_iban
from rabench.contracts.ap import EvidenceBox

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = {"sans": "DejaVuSans", "serif": "DejaVuSerif", "condensed": "DejaVuSansCondensed"}
LAYOUTS = ("classic", "band", "letter")
PRODUCERS = (
    "Microsoft Word for Microsoft 365",
    "SAP NetWeaver",
    "Sage 50",
    "Xero",
    "QuickBooks Online",
    "DATEV Unternehmen online",
    "LibreOffice 7.6",
    "Odoo 17.0",
    "lexoffice",
    "Zoho Invoice",
)


@dataclass(frozen=True, slots=True)
class Look:
    layout: str
    font: str
    accent: tuple[int, int, int]
    producer: str


def pick_look(rng: np.random.Generator) -> Look:
    accent = tuple(int(x) for x in rng.integers(20, 160, 3))
    return Look(
        str(rng.choice(LAYOUTS)),
        str(rng.choice(list(FONTS))),
        (accent[0], accent[1], accent[2]),
        str(rng.choice(PRODUCERS)),
    )


class _Page:
    """An fpdf2 page that records where labelled values are printed."""

    def __init__(self, inv: Invoice, look: Look, created: datetime):
        self.letter = inv.vendor.country == "US"
        self.w, self.h = (215.9, 279.4) if self.letter else (210.0, 297.0)
        pdf = FPDF(unit="mm", format=(self.w, self.h))
        fam = FONTS[look.font]
        pdf.add_font("body", "", f"{FONT_DIR}/{fam}.ttf")
        pdf.add_font("body", "B", f"{FONT_DIR}/{fam}-Bold.ttf")
        pdf.set_creation_date(created.replace(tzinfo=UTC))
        pdf.set_producer(look.producer)
        pdf.set_creator(look.producer)
        pdf.set_title(f"{inv.words[inv.kind]} {inv.number}")
        pdf.set_auto_page_break(False)
        pdf.c_margin = 0  # cells start exactly where boxes are recorded
        pdf.add_page()
        self.pdf = pdf
        self.boxes: dict[str, tuple[float, float, float, float]] = {}

    def text(
        self,
        x: float,
        y: float,
        w: float,
        s: str,
        *,
        size: float = 9.0,
        bold: bool = False,
        align: str = "L",
        key: str | None = None,
        colour: tuple[int, int, int] = (20, 20, 20),
    ) -> None:
        pdf = self.pdf
        pdf.set_font("body", "B" if bold else "", size)
        pdf.set_text_color(*colour)
        h = size * 0.3528 * 1.35
        pdf.set_xy(x, y)
        pdf.cell(w, h, s, align=align)
        if key:
            sw = pdf.get_string_width(s)
            x0 = x if align == "L" else (x + w - sw if align == "R" else x + (w - sw) / 2)
            self.boxes[key] = (
                max(0.0, (x0 - 0.4) / self.w),
                max(0.0, (y - 0.2) / self.h),
                min(1.0, (x0 + sw + 0.4) / self.w),
                min(1.0, (y + h + 0.2) / self.h),
            )

    def rule(self, y: float, colour: tuple[int, int, int], width: float = 0.3) -> None:
        self.pdf.set_draw_color(*colour)
        self.pdf.set_line_width(width)
        self.pdf.line(15, y, self.w - 15, y)


def _meta_rows(inv: Invoice) -> list[tuple[str, str, str | None]]:
    w = inv.words
    c = inv.vendor.country
    rows: list[tuple[str, str, str | None]] = [
        (w["cn_number"] if inv.kind == "credit_note" else w["number"], inv.number, "invoice_number"),
        (w["date"], print_date(inv.issued, c), "invoice_date"),
    ]
    if inv.kind == "invoice":
        rows.append((w["due"], print_date(inv.due, c), "due_date"))
    if inv.po_number:
        rows.append((w["po"], inv.po_number, "po_number"))
    if inv.refers_to:
        rows.append((w["refers"], inv.refers_to, None))
    if inv.period:
        rows.append((w["period"], inv.period, None))
    return rows


def _vendor_block(
    p: _Page, inv: Invoice, x: float, y: float, *, name_size: float, colour: tuple[int, int, int]
) -> float:
    v = inv.vendor
    p.text(x, y, 100, v.name, size=name_size, bold=True, key="vendor_name", colour=colour)
    y += name_size * 0.3528 * 1.6
    for s in (v.street, f"{v.postcode} {v.city}", v.phone, f"{v.contacts[1].email} · www.{v.domain}"):
        p.text(x, y, 100, s, size=8)
        y += 3.8
    return y


def _buyer_block(p: _Page, inv: Invoice, x: float, y: float) -> float:
    b = inv.buyer
    p.text(x, y, 80, inv.words["customer"], size=7.5, bold=True)
    y += 4
    for s in (b.entity, "Accounts Payable", b.street, f"{b.postcode} {b.city}"):
        p.text(x, y, 80, s, size=9)
        y += 4.2
    return y


def _table(p: _Page, inv: Invoice, y: float, look: Look) -> float:
    w, c, cur = inv.words, inv.vendor.country, inv.currency
    cols = (15.0, 105.0, 125.0, 160.0, p.w - 15)
    p.pdf.set_fill_color(*[min(255, 200 + a // 4) for a in look.accent])
    if look.layout == "band":
        p.pdf.rect(15, y - 1, p.w - 30, 6.5, style="F")
    for label, x0, x1, al in (
        (w["desc"], cols[0], cols[1], "L"),
        (w["qty"], cols[1], cols[2], "R"),
        (w["unit"], cols[2], cols[3], "R"),
        (w["amount"], cols[3], cols[4], "R"),
    ):
        p.text(x0, y, x1 - x0, label, size=8.5, bold=True, align=al)
    y += 7
    p.rule(y - 1, look.accent, 0.2)
    for i, ln in enumerate(inv.lines):
        p.text(cols[0], y, cols[1] - cols[0] - 2, ln.description, size=8.5, key=f"line{i}.description")
        p.text(
            cols[1],
            y,
            cols[2] - cols[1],
            f"{ln.quantity:,}".replace(",", " "),
            size=8.5,
            align="R",
            key=f"line{i}.quantity",
        )
        p.text(cols[2], y, cols[3] - cols[2], money(ln.unit, cur, c), size=8.5, align="R", key=f"line{i}.unit_price")
        p.text(cols[3], y, cols[4] - cols[3], money(ln.total, cur, c), size=8.5, align="R", key=f"line{i}.total")
        y += 5.6
    p.rule(y, look.accent, 0.2)
    y += 3
    rate = f"{inv.tax_rate:g}".replace(".", "," if inv.vendor.c.decimal == "," else ".")
    rows = [
        (w["subtotal"], money(inv.subtotal, cur, c), "subtotal", False),
        (f"{w['tax']} {0 if inv.reverse_charge else rate} %", money(inv.tax, cur, c), "tax", False),
        (
            f"{w['credit_total' if inv.kind == 'credit_note' else 'total']} ({cur})",
            money(inv.total, cur, c, code=True),
            "total",
            True,
        ),
    ]
    if inv.vendor.country == "US" and inv.tax == 0:
        rows.pop(1)
    for label, value, key, bold in rows:
        p.text(115, y, 45, label, size=9.5 if bold else 9, bold=bold)
        p.text(160, y, p.w - 175, value, size=9.5 if bold else 9, bold=bold, align="R", key=key)
        y += 5.4
    if inv.reverse_charge:
        p.text(15, y + 1, 150, inv.words["reverse"], size=7.5)
        y += 5
    return y


def _bank_block(p: _Page, inv: Invoice, x: float, y: float, *, footer: bool) -> None:
    w, a = inv.words, inv.account
    p.text(x, y, 90, w["bank"], size=7.5 if footer else 8.5, bold=True)
    y += 4
    p.text(x, y, 90, a.bank, size=8)
    y += 3.8
    if a.is_iban:
        p.text(x, y, 15, w["iban"], size=8)
        p.text(x + 15, y, 75, paper_iban(a.number), size=8, key="bank_account")
        y += 3.8
        p.text(x, y, 15, w["bic"], size=8)
        p.text(x + 15, y, 60, a.code, size=8, key="bank_code")
    else:
        p.text(x, y, 30, w["routing"], size=8)
        p.text(x + 30, y, 40, a.code, size=8, key="bank_code")
        y += 3.8
        p.text(x, y, 30, w["account"], size=8)
        p.text(x + 30, y, 40, a.number, size=8, key="bank_account")


def _vat_line(p: _Page, inv: Invoice, x: float, y: float) -> None:
    if inv.vat_id:
        label = inv.words["vat_id"]
        p.text(x, y, 28, label, size=8)
        p.text(x + 28, y, 60, inv.vat_id, size=8, key="vendor_vat_id")


def _terms(inv: Invoice) -> str:
    """Payment terms on an invoice; a credit note names the invoice it credits instead."""
    w = inv.words
    return w["terms"].format(n=inv.vendor.payment_terms) if inv.kind == "invoice" else f"{w['refers']} {inv.refers_to}"


def render_pdf(
    inv: Invoice, look: Look, created: datetime
) -> tuple[bytes, dict[str, tuple[float, float, float, float]]]:
    """The invoice as a one-page PDF and the page-fraction box of each printed field."""
    p = _Page(inv, look, created)
    w = inv.words
    title = w[inv.kind]
    if look.layout == "band":
        p.pdf.set_fill_color(*look.accent)
        p.pdf.rect(0, 0, p.w, 32, style="F")
        p.text(15, 9, 120, inv.vendor.name, size=16, bold=True, key="vendor_name", colour=(255, 255, 255))
        p.text(
            15,
            18,
            140,
            f"{inv.vendor.street} · {inv.vendor.postcode} {inv.vendor.city} · {inv.vendor.phone}",
            size=8,
            colour=(240, 240, 240),
        )
        p.text(p.w - 75, 10, 60, title, size=15, bold=True, align="R", colour=(255, 255, 255))
        y = _buyer_block(p, inv, 15, 42)
        my = 42.0
        for label, value, key in _meta_rows(inv):
            p.text(110, my, 40, label, size=8.5, bold=True)
            p.text(150, my, p.w - 165, value, size=8.5, align="R", key=key)
            my += 5
        _vat_line(p, inv, 110, my + 1)
        y = _table(p, inv, max(y, my) + 14, look)
        _bank_block(p, inv, 15, max(y + 8, p.h - 58), footer=False)
        p.text(110, max(y + 12, p.h - 54), 85, _terms(inv), size=8)
    elif look.layout == "letter":
        v = inv.vendor
        p.text(20, 12, 120, v.name, size=14, bold=True, key="vendor_name", colour=look.accent)
        p.text(20, 45, 90, f"{v.name} · {v.street} · {v.postcode} {v.city}", size=6.5)
        _buyer_block(p, inv, 20, 50)
        my = 50.0
        for label, value, key in _meta_rows(inv):
            p.text(125, my, 35, label, size=8)
            p.text(160, my, 35, value, size=8, align="R", key=key)
            my += 4.6
        p.text(20, 98, 120, f"{title} {inv.number}", size=12, bold=True)
        y = _table(p, inv, 110, look)
        p.text(20, y + 6, 150, _terms(inv), size=8.5)
        p.rule(p.h - 30, look.accent, 0.2)
        p.text(20, p.h - 27, 60, v.name, size=7)
        p.text(20, p.h - 23.5, 60, f"{v.street}, {v.postcode} {v.city}", size=7)
        _vat_line(p, inv, 20, p.h - 20)
        _bank_block(p, inv, 105, p.h - 27, footer=True)
    else:  # classic
        y = _vendor_block(p, inv, 15, 15, name_size=13, colour=look.accent)
        _vat_line(p, inv, 15, y)
        p.text(p.w - 85, 15, 70, title, size=18, bold=True, align="R", colour=look.accent)
        my = 28.0
        for label, value, key in _meta_rows(inv):
            p.text(p.w - 95, my, 40, label, size=8.5)
            p.text(p.w - 55, my, 40, value, size=8.5, align="R", key=key)
            my += 4.8
        y = _buyer_block(p, inv, 15, max(y + 10, my + 6))
        y = _table(p, inv, y + 10, look)
        p.text(15, y + 6, 150, _terms(inv), size=8.5)
        _bank_block(p, inv, 15, max(y + 16, p.h - 45), footer=False)
    for note_i, note in enumerate(inv.notes):
        p.text(15, p.h - 14 + 3.5 * note_i, p.w - 30, note, size=7.5)
    p.text(p.w - 45, p.h - 8, 30, w["page"], size=7, align="R")
    return bytes(p.pdf.output()), p.boxes


def rasterise(pdf: bytes, rng: np.random.Generator, kind: str) -> tuple[bytes, str]:
    """A scanned (JPEG, greyish, slightly soft) or exported (PNG) image of the PDF's page."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    dpi = float(rng.choice([100, 110, 125])) if kind == "scan" else float(rng.choice([96, 110, 130]))
    img = doc[0].render(scale=dpi / 72).to_pil().convert("RGB")
    doc.close()
    if kind == "scan":
        a = np.asarray(img, dtype=np.float64)
        a = a * rng.uniform(0.9, 0.98) + rng.uniform(4, 18) + rng.normal(0, rng.uniform(0.8, 2.0), a.shape)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        if rng.random() < 0.5:
            img = img.convert("L")
        img = img.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.2, 0.6))))
        out = io.BytesIO()
        img.save(out, "JPEG", quality=int(rng.integers(65, 86)), optimize=False)
        return out.getvalue(), "image/jpeg"
    out = io.BytesIO()
    img.convert("P", palette=Image.Palette.ADAPTIVE, colors=64).save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue(), "image/png"


def boxes_to_evidence(doc: str, boxes: dict[str, tuple[float, float, float, float]]) -> dict[str, EvidenceBox]:
    return {k: EvidenceBox(doc, 1, b) for k, b in boxes.items()}
