"""How a receipt is printed: a ``Doc`` becomes rows of text in one of 8 layouts.

Rows are the one description both renderers (Pillow images in ``render``,
fpdf2 PDFs in ``pdfdoc``) draw from, so a PDF and an image of the same receipt
print the same words. Rows that print a label field carry ``field`` so fakes
can find and change exactly that field's pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rabench.cases.synth.document import Doc, format_date, money


@dataclass(frozen=True, slots=True)
class Row:
    kind: str  # text | kv | rule | space | barcode
    left: str = ""
    right: str = ""
    align: str = "left"  # for text rows: left | center | right
    size: float = 1.0  # relative to the style's base size
    bold: bool = False
    field: str | None = None  # label field the value (right side, or the text) prints


@dataclass(frozen=True, slots=True)
class Style:
    family: str  # mono | sans | serif | condensed
    base_px: int
    width_px: int
    paper: tuple[int, int, int]
    ink: tuple[int, int, int]
    margin_px: int
    line_gap: float  # line height as a multiple of the font size
    pdf_width_mm: float


_FAMILIES = {
    "thermal": ("mono", "mono", "condensed"),
    "supermarket": ("mono", "condensed", "mono"),
    "restaurant": ("serif", "sans", "mono"),
    "fuel": ("mono", "sans"),
    "hotel": ("serif", "sans"),
    "taxi": ("sans", "condensed"),
    "pharmacy": ("sans", "condensed", "mono"),
    "ecommerce": ("sans", "serif"),
}
_WIDE = {"hotel", "ecommerce"}


def pick_style(layout: str, rng: np.random.Generator) -> Style:
    fams = _FAMILIES[layout]
    family = fams[int(rng.integers(len(fams)))]
    wide = layout in _WIDE
    paper_kind = rng.random()
    if wide or paper_kind < 0.3:
        paper = tuple(int(v) for v in rng.integers(246, 256, size=3))
    elif paper_kind < 0.8:  # thermal paper: cool white
        base = int(rng.integers(236, 250))
        paper = (base - int(rng.integers(0, 6)), base, min(255, base + int(rng.integers(0, 6))))
    else:  # slightly yellowed
        base = int(rng.integers(238, 250))
        paper = (base, base - 3, base - int(rng.integers(10, 22)))
    ink_v = int(rng.integers(10, 70))
    ink = (ink_v, ink_v, ink_v + int(rng.integers(0, 20)))
    return Style(
        family=family,
        base_px=int(rng.integers(28, 33)),
        width_px=int(rng.integers(820, 900)) if wide else int(rng.integers(620, 740)),
        paper=paper,  # type: ignore[arg-type]
        ink=ink,
        margin_px=int(rng.integers(28, 48)),
        line_gap=float(rng.uniform(1.3, 1.55)),
        pdf_width_mm=190.0 if wide else 80.0,
    )


UPPERCASE_HEADS = ("thermal", "supermarket", "fuel", "pharmacy")


def printed_merchant(doc: Doc) -> str:
    """The merchant name as the layout prints it (till rolls print it in capitals)."""
    return doc.merchant.upper() if doc.layout in UPPERCASE_HEADS else doc.merchant


def build_rows(doc: Doc, rng: np.random.Generator) -> list[Row]:
    """The printed rows of ``doc`` in its layout's order and wording."""
    w = doc.words
    loc = doc.loc
    lay = doc.layout
    rows: list[Row] = []
    name = printed_merchant(doc)
    rows.append(Row("text", name, align="center" if lay not in ("ecommerce", "hotel") else "left", size=1.3,
                    bold=True, field="merchant"))
    for line in doc.address:
        rows.append(Row("text", line, align="center" if lay not in ("ecommerce", "hotel") else "left", size=0.9))
    rows.append(Row("rule"))
    date_txt = format_date(doc.when, doc.date_fmt, loc.language)
    if lay in ("ecommerce", "hotel"):
        heading = {"ecommerce": w["order"], "hotel": "Folio" if loc.language != "de" else "Rechnung"}[lay]
        if doc.receipt_number:
            rows.append(Row("kv", heading, doc.receipt_number, field="receipt_number", bold=True))
        rows.append(Row("kv", w["date"], date_txt, field="date"))
    else:
        rows.append(Row("kv", f"{w['date']} {doc.time}", date_txt, field="date"))
        if doc.receipt_number:
            rows.append(Row("kv", w["receipt"], doc.receipt_number, field="receipt_number"))
    for k, v in doc.extra:
        rows.append(Row("kv", k, v))
    rows.append(Row("rule"))
    for it in doc.items:
        rows.append(Row("kv", it.desc, money(it.total, loc)))
        if it.qty is not None and it.unit is not None:
            q = it.qty_fmt.format(it.qty)
            rows.append(Row("text", f"  {q} x {money(it.unit, loc)}", size=0.85))
    rows.append(Row("rule"))
    if doc.subtotal is not None:
        rows.append(Row("kv", w["subtotal"], money(doc.subtotal, loc), field="subtotal"))
    if doc.discount:
        rows.append(Row("kv", w["discount"], money(-doc.discount, loc)))
    if doc.tax is not None and not loc.tax_inclusive:
        rows.append(Row("kv", f"{loc.tax_label} {doc.tax_rate:g}%", money(doc.tax, loc), field="tax_total"))
    if doc.service:
        rows.append(Row("kv", w["service"], money(doc.service, loc)))
    if doc.tip:
        rows.append(Row("kv", w["tip"], money(doc.tip, loc)))
    rows.append(Row("kv", w["total"], money(doc.total, loc, symbol=True), size=1.2, bold=True, field="total"))
    if doc.tax is not None and loc.tax_inclusive:
        rows.append(Row("kv", f"{w['incl']} {loc.tax_label} {doc.tax_rate:g}%", money(doc.tax, loc), size=0.9,
                        field="tax_total"))
    rows.append(Row("space"))
    rows.append(Row("kv", w["card"] if doc.payment == "card" else w["cash"], money(doc.total, loc), size=0.9, field="total"))
    if doc.injection:
        rows.append(Row("space"))
        rows.append(Row("text", doc.injection, size=0.8, align="center"))
    rows.append(Row("space"))
    rows.append(Row("text", w["thanks"], align="center", size=0.9))
    if lay in ("supermarket", "thermal", "pharmacy") and rng.random() < 0.5:
        rows.append(Row("barcode"))
    return rows
