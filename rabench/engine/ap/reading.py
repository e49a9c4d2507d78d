"""An invoice's printed text as lines with boxes in page fractions, and its fields.

Why the receipt engine's readers: a PDF's text layer is read by ``extract.pdf.pdf_text_lines``
and an image invoice by the receipt OCR (``ocr.read_file``, in the target's worker pool), so
AP extraction has the receipt engine's reading behaviour. Boxes are divided by the page's (or
image's) size: evidence is then in the label's frame (page fractions) whatever the resolution.

Fields are found the way an AP clerk reads an invoice: a printed label ("Invoice no.",
"Rechnungsnr.", "Facture n°", "Factura nº", "Factuurnummer", ...) and the value right of it on
the same row; IBANs, BICs and VAT ids by their shapes; the vendor as the vendor-master name
printed on the page.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata

import msgspec

Box = tuple[float, float, float, float]


class Line(msgspec.Struct, frozen=True):
    text: str
    box: Box  # page fractions, origin top left


class Found(msgspec.Struct, frozen=True):
    value: str | float | None
    box: Box | None = None


def pdf_lines(path: str) -> list[Line]:
    """Page 1 of a PDF's text layer, boxes in page fractions (empty for a scan without text)."""
    import pypdfium2 as pdfium

    from rabench.engine.extract.pdf import PdfUnreadable, pdf_text_lines
    from rabench.prepare.image import _PDFIUM_LOCK

    # pdfium is not thread-safe: one lock for the whole process, the one preparation holds
    # (several bundles read at once crashed the process without it)
    with _PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(path)
            try:
                w, h = doc[0].get_size()
            finally:
                doc.close()
            raw = pdf_text_lines(path, max_pages=1)
        except (PdfUnreadable, Exception):
            return []
    return [Line(ln.text, (ln.box[0] / w, ln.box[1] / h, ln.box[2] / w, ln.box[3] / h)) for ln in raw]


def image_lines(path: str) -> list[Line]:
    """OCR of a prepared invoice image (runs in a worker of the target's pool)."""
    from PIL import Image

    from rabench.engine.ocr import read_image

    with Image.open(path) as im:
        im.load()
        w, h = im.size
        result = read_image(im)
    return [Line(ln.text, (ln.box[0] / w, ln.box[1] / h, ln.box[2] / w, ln.box[3] / h)) for ln in result.lines]


# --- labels as printed, five languages plus common variants -------------------------------
LABELS: dict[str, tuple[str, ...]] = {
    "invoice_number": (
        "invoice no",
        "invoice number",
        "invoice #",
        "rechnungsnr",
        "rechnungsnummer",
        "facture n",
        "factura n",
        "factuurnummer",
        "credit note no",
        "gutschrift-nr",
        "avoir n",
        "rectificativa n",
        "creditnota nr",
    ),
    "invoice_date": ("invoice date", "rechnungsdatum", "date de facture", "fecha de factura", "factuurdatum", "date"),
    "due_date": ("due date", "fällig am", "échéance", "vencimiento", "vervaldatum"),
    "po_number": ("po number", "purchase order", "bestellnummer", "bon de commande", "pedido n", "inkoopordernr"),
    "subtotal": ("subtotal", "nettobetrag", "total ht", "base imponible", "subtotaal", "net amount"),
    "tax": ("vat", "ust", "tva", "iva", "btw", "tax", "mwst"),
    "total": ("total due", "gesamtbetrag", "total ttc", "total factura", "te betalen", "amount due", "total"),
    "vendor_vat_id": ("vat no", "ust-idnr", "tva intracom", "nif/cif", "btw-nr", "tax id"),
    "bank_code": ("bic/swift", "bic", "swift", "routing no", "blz", "code banque", "entidad", "bankcode"),
    "bank_account": ("iban", "account no", "konto", "compte", "cuenta", "rekening"),
}
IBAN_RE = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)\b")
AMOUNT_RE = re.compile(r"-?\d{1,3}(?:[.,'\u202f\u00a0 ]\d{3})*[.,]\d{2}(?!\d)|-?\d+[.,]\d{2}(?!\d)")
CURRENCIES = ("EUR", "GBP", "USD", "CHF", "SEK", "PLN", "DKK", "NOK", "CZK", "JPY")
SYMBOLS = {"€": "EUR", "£": "GBP", "$": "USD"}
DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%m/%d/%Y", "%d-%m-%Y", "%d %B %Y", "%B %d, %Y", "%d %b %Y")


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()


def amount(text: str) -> float | None:
    """The last amount printed in ``text`` ("1.234,50", "1,234.50", "1 234,50", "234.50")."""
    found = AMOUNT_RE.findall(text)
    if not found:
        return None
    s = re.sub(r"[\s'\u202f\u00a0]", "", found[-1])
    dec = s[-3]
    whole = s[:-3].replace(",", "").replace(".", "")
    try:
        return float(f"{whole}.{s[-2:]}") if dec in ",." else None
    except ValueError:
        return None


def iban_valid(text: str) -> bool:
    s = re.sub(r"[^A-Z0-9]", "", text.upper())
    return len(s) > 4 and s[:2].isalpha() and int("".join(str(int(c, 36)) for c in s[4:] + s[:2] + s[2:4])) % 97 == 1


def parse_date(text: str, us: bool = False) -> str | None:
    t = text.strip().strip(":").strip()
    for fmt in (("%m/%d/%Y",) if us else ()) + DATE_FORMATS:
        try:
            return _dt.datetime.strptime(t, fmt).date().isoformat()
        except ValueError:
            continue
    m = re.search(r"(\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{4})", text)
    return parse_date(m.group(1), us) if m and m.group(1) != t else None


def _rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into printed rows (vertical centres within half a line height)."""
    rows: list[list[Line]] = []
    for ln in sorted(lines, key=lambda x: ((x.box[1] + x.box[3]) / 2, x.box[0])):
        c = (ln.box[1] + ln.box[3]) / 2
        if rows:
            last = rows[-1][0]
            lc, lh = (last.box[1] + last.box[3]) / 2, max(1e-4, last.box[3] - last.box[1])
            if abs(c - lc) <= lh / 2:
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return [sorted(r, key=lambda x: x.box[0]) for r in rows]


def _labelled(rows: list[list[Line]], field: str) -> tuple[str, Box] | None:
    """The value printed right of (or after) a label of ``field``, with its box."""
    for label in LABELS[field]:  # most specific labels first
        for row in rows:
            for k, ln in enumerate(row):
                t = fold(ln.text)
                if not t.startswith(label) or (field == "tax" and "total" in t):
                    continue
                rest = ln.text[len(label) :].strip(" :.#°º")
                if k + 1 < len(row):
                    nxt = row[-1] if field in ("subtotal", "tax", "total") else row[k + 1]
                    return nxt.text.strip(), nxt.box
                if len(rest) >= 2 and field not in ("subtotal", "tax", "total"):
                    return rest, ln.box
                if field in ("subtotal", "tax", "total") and amount(ln.text) is not None:
                    return ln.text, ln.box
    return None


def read_fields(lines: list[Line], vendor_names: list[str]) -> dict[str, Found]:
    """The invoice fields this reader finds (absent = not found)."""
    rows = _rows(lines)
    text = "\n".join(ln.text for ln in lines)
    out: dict[str, Found] = {}
    us = bool(re.search(r"routing|ABA", text))
    for field in ("invoice_number", "po_number", "vendor_vat_id"):
        got = _labelled(rows, field)
        if got is not None:
            out[field] = Found(got[0], got[1])
    for field in ("invoice_date", "due_date"):
        got = _labelled(rows, field)
        if got is not None and (d := parse_date(got[0], us)) is not None:
            out[field] = Found(d, got[1])
    for field in ("subtotal", "tax", "total"):
        got = _labelled(rows, field)
        if got is not None and (a := amount(got[0])) is not None:
            out[field] = Found(a, got[1])
    got = _labelled(rows, "bank_account")  # the value printed beside "IBAN" / "Account no."
    if got is not None and len(re.sub(r"\W", "", got[0])) >= 6:
        out["bank_account"] = Found(re.sub(r"\s", "", got[0]).upper(), got[1])
    else:  # an IBAN by its shape, only when its check digits hold (a VAT id has the same shape)
        for ln in lines:
            for m in IBAN_RE.finditer(ln.text.upper()):
                cand = m.group(1).replace(" ", "")
                if "bank_account" not in out and len(cand) >= 15 and iban_valid(cand):
                    out["bank_account"] = Found(cand, ln.box)
    got = _labelled(rows, "bank_code")
    if got is not None:
        out["bank_code"] = Found(got[0].replace(" ", ""), got[1])
    codes = [c for c in CURRENCIES if re.search(rf"\b{c}\b", text)]
    symbols = [v for k, v in SYMBOLS.items() if k in text]
    if codes or symbols:
        out["currency"] = Found((codes or symbols)[0])
    best = None
    for name in vendor_names:
        for ln in lines:
            if fold(name) in fold(ln.text) and (best is None or ln.box[1] < best[1][1]):
                best = (name, ln.box)
    if best is not None:
        out["vendor_name"] = Found(best[0], best[1])
    elif lines:
        top = min(lines, key=lambda x: (x.box[1], x.box[0]))
        out["vendor_name"] = Found(top.text, top.box)
    return out
