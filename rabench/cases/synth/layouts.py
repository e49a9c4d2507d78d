"""How a receipt is printed: a ``Doc`` becomes rows of text in one of 8 layouts.

Rows are the one description both renderers (Pillow images in ``render``,
fpdf2 PDFs in ``pdfdoc``) draw from, so a PDF and an image of the same receipt
print the same words. Rows that print a label field carry ``field`` so fakes
can find and change exactly that field's pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rabench.cases.synth.document import Doc, Item, before_rounding, format_date, money
from rabench.cases.synth.till import unit_word


@dataclass(frozen=True, slots=True)
class Row:
    kind: str  # text | kv | table | rule | space | barcode
    left: str = ""
    right: str = ""
    align: str = "left"  # for text rows: left | center | right
    size: float = 1.0  # relative to the style's base size
    bold: bool = False
    field: str | None = None  # label field the value (right side, the text, or column ``field_col``) prints
    cols: tuple[str, ...] = ()  # table rows: right-aligned columns after ``left``
    field_col: int = -1

    @property
    def value(self) -> str:
        """The printed text of the row's field value."""
        if self.kind == "table":
            return self.cols[self.field_col]
        return self.right if self.kind == "kv" else self.left


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
    """The printed rows of ``doc`` in its layout's order and its till's wording."""
    w = doc.words
    loc = doc.loc
    lay = doc.layout
    tpl = doc.tpl
    up = str.upper if tpl.upper else str

    def amt(v: int) -> str:
        return money(v, loc, symbol=tpl.symbol_all, sym=tpl.symbol)

    rows: list[Row] = []
    align = "center" if lay not in ("ecommerce", "hotel") else "left"
    rows.append(Row("text", printed_merchant(doc), align=align, size=1.3, bold=True, field="merchant"))
    head = list(tpl.head)
    if head and head[0].startswith("("):  # a company registration number sits under the name
        rows.append(Row("text", head.pop(0), align=align, size=0.9))
    for line in doc.address:
        rows.append(Row("text", line, align=align, size=0.9))
    for line in head:
        rows.append(Row("text", line, align=align, size=0.9))
    rows.append(Row("rule"))
    date_txt = format_date(doc.when, doc.date_fmt, loc.language)
    if lay in ("ecommerce", "hotel"):
        heading = {"ecommerce": w["order"], "hotel": "Folio" if loc.language != "de" else "Rechnung"}[lay]
        if doc.receipt_number:
            rows.append(Row("kv", heading, doc.receipt_number, field="receipt_number", bold=True))
        rows.append(Row("kv", w["date"], date_txt, field="date"))
    else:
        rows.append(Row("kv", up(f"{w['date']} {doc.time}"), date_txt, field="date"))
        if doc.receipt_number:
            rows.append(Row("kv", up(w["receipt"]), doc.receipt_number, field="receipt_number"))
    for k, v in doc.extra:
        rows.append(Row("kv", up(k), v))
    rows.append(Row("rule"))
    for it in doc.items:
        rows.extend(_item_rows(it, doc, amt))
    rows.append(Row("rule"))
    rows.extend(_total_rows(doc, amt, up))
    rows.append(Row("space"))
    if doc.tendered is not None and doc.change is not None:
        rows.append(Row("kv", up(w["cash"]), amt(doc.tendered), size=0.9))
        rows.append(Row("kv", up(w["change"]), amt(doc.change), size=0.9))
    else:
        rows.append(
            Row(
                "kv",
                up(w["card"] if doc.payment == "card" else w["cash"]),
                money(doc.total, loc),
                size=0.9,
                field="total",
            )
        )
    if tpl.tax_style == "summary" and doc.tax is not None:
        rows.append(Row("space"))
        rows.extend(_summary_rows(doc, up))
    if doc.injection:
        rows.append(Row("space"))
        rows.append(Row("text", doc.injection, size=0.8, align="center"))
    rows.append(Row("space"))
    rows.append(Row("text", up(w["thanks"]), align="center", size=0.9))
    if lay in ("supermarket", "thermal", "pharmacy") and rng.random() < 0.5:
        rows.append(Row("barcode"))
    return rows


def _qty(it: Item, doc: Doc) -> str:
    q = it.qty_fmt.format(it.qty)
    return q.replace(".", doc.loc.decimal) if doc.loc.decimal != "." else q


def _item_rows(it: Item, doc: Doc, amt) -> list[Row]:
    """An item line plus, for a quantity, the till's info line (unit price) above or below it."""
    tpl, loc = doc.tpl, doc.loc
    whole = it.qty is None or float(it.qty).is_integer()
    desc = it.desc
    if tpl.qty_column and whole:
        desc = f"{int(it.qty or 1)} {desc}"
    line = Row("kv", desc, amt(it.total))
    if it.qty is None or it.unit is None:
        return [line]
    q, unit = _qty(it, doc), money(it.unit, loc)
    style = tpl.qty_style if whole else "below"
    if style == "at":
        info = f"  @{tpl.symbol or ''}{unit}" if tpl.symbol else f"  {q} @ {unit}"
    elif style == "unit_word":
        info = f"  {unit_word(loc.language)} {loc.currency.code} {unit}"
    elif whole:
        info = f"  {q} x {unit}"
    else:
        info = f"  {q} x {unit} {loc.currency.symbol}/{q.split()[-1]}"
    info_row = Row("text", info, size=0.85)
    return [info_row, line] if style == "above" else [line, info_row]


_INCL_WORDS = {
    "en": ("incl. {tax} {rate}%", "{tax} @{rate}% included in total", "Incl. {tax} {rate}%"),
    "de": ("enth. {tax} {rate}%", "enthaltene {tax} {rate}%", "inkl. {tax} {rate}%"),
    "fr": ("dont {tax} {rate}%", "dont {tax} {rate}%", "TVA incluse {rate}%"),
    "es": ("{tax} incl. {rate}%", "{tax} incluido {rate}%", "incl. {tax} {rate}%"),
}
_TOTAL_INCL = {
    "en": ("Total (Inclusive of {tax})", "Total Incl. {tax}@{rate}%", "TOTAL INCL. {tax}"),
    "de": ("SUMME inkl. {tax}", "Gesamt inkl. {tax}", "SUMME (inkl. {tax})"),
    "fr": ("TOTAL TTC", "Total TTC", "TOTAL TTC"),
    "es": ("TOTAL (IVA incluido)", "Total IVA incl.", "TOTAL CON IVA"),
}
_ROUNDING = (
    ("Total", "Rounding Adj", "Total Rounded"),
    ("Bill Total", "Rounding", "NET TOTAL"),
    ("Total", "Rounding Adjustment", "Total After Rounding"),
)
_SUBTOTAL_EXCL = ("Sub Total", "SUB-TOTAL (EX)", "Total Excl. {tax}")


def _total_rows(doc: Doc, amt, up) -> list[Row]:
    """Subtotal, discount, tax, service and tip, the total (after any rounding line) and an included-tax line."""
    w, loc, tpl = doc.words, doc.loc, doc.tpl
    fill = {"tax": loc.tax_label, "rate": f"{doc.tax_rate:g}"}
    rows: list[Row] = []
    sub_word = w["subtotal"]
    if doc.locale == "my" and not doc.inclusive:
        sub_word = _SUBTOTAL_EXCL[tpl.variant].format(**fill)
    if doc.subtotal is not None:
        rows.append(Row("kv", up(sub_word), amt(doc.subtotal), field="subtotal"))
    if doc.discount:
        rows.append(Row("kv", up(w["discount"]), amt(-doc.discount)))
    if doc.tax is not None and not doc.inclusive:
        rows.append(Row("kv", up(f"{loc.tax_label} {doc.tax_rate:g}%"), amt(doc.tax), field="tax_total"))
    if doc.service:
        rows.append(Row("kv", up(w["service"]), amt(doc.service)))
    if doc.tip:
        rows.append(Row("kv", up(w["tip"]), amt(doc.tip)))
    lang = loc.language if loc.language in _TOTAL_INCL else "en"
    total_word = w["total"]
    if doc.inclusive and tpl.tax_style == "total_incl":
        total_word = _TOTAL_INCL[lang][tpl.variant].format(**fill)
    elif doc.locale == "my" and not doc.inclusive and tpl.variant == 2:
        total_word = f"Total Incl. {loc.tax_label}"
    total_text = money(doc.total, loc, symbol=True, sym=tpl.symbol)
    if doc.locale == "my" and tpl.rounding_line:
        before, adj, after = _ROUNDING[tpl.variant]
        rows.append(Row("kv", up(total_word if total_word != w["total"] else before), amt(before_rounding(doc))))
        rows.append(Row("kv", up(adj), amt(doc.rounding)))
        rows.append(Row("kv", up(after), total_text, size=1.2, bold=True, field="total"))
    else:
        rows.append(Row("kv", up(total_word), total_text, size=1.2, bold=True, field="total"))
    if doc.tax is not None and doc.inclusive and tpl.tax_style != "summary":
        pattern = _INCL_WORDS[lang][tpl.variant if tpl.tax_style == "incl_line" else 0]
        rows.append(Row("kv", up(pattern.format(**fill)), amt(doc.tax), size=0.9, field="tax_total"))
    return rows


_SUMMARY_HEAD = {
    "en": ("{tax} Summary", "Net", "Tax", "Gross"),
    "de": ("MwSt%", "Netto", "MwSt", "Brutto"),
    "fr": ("Taux", "HT", "TVA", "TTC"),
    "es": ("IVA%", "Base", "Cuota", "Total"),
}


def _summary_rows(doc: Doc, up) -> list[Row]:
    """A tax summary table: rate, net, tax and gross per rate (a zero-rated line on some Malaysian tills)."""
    loc = doc.loc
    head = _SUMMARY_HEAD.get(loc.language, _SUMMARY_HEAD["en"])
    fill = {"tax": loc.tax_label}
    assert doc.tax is not None
    taxable = (doc.subtotal if doc.subtotal is not None else sum(i.total for i in doc.items)) - doc.discount
    net = taxable - doc.tax if doc.inclusive else taxable
    gross = net + doc.tax
    code = "SR" if doc.locale == "my" else "A"
    rows = [
        Row("table", up(head[0].format(**fill)), cols=tuple(up(h) for h in head[1:]), size=0.85),
        Row(
            "table",
            f"{code} {doc.tax_rate:g}%",
            cols=(money(net, loc), money(doc.tax, loc), money(gross, loc)),
            size=0.85,
            field="tax_total",
            field_col=1,
        ),
    ]
    if doc.locale == "my" and doc.tpl.variant != 1:
        zero = money(0, loc)
        rows.append(Row("table", "ZR 0%", cols=(zero, zero, zero), size=0.85))
    return rows
