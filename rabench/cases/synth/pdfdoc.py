"""Native PDF receipts (fpdf2, real text layer) and their later revisions (pypdf incremental updates).

Why core fonts (Courier, Helvetica, Times): they are not embedded, so an edited
revision can reuse the page's font resources exactly, as a PDF editor does,
and the file stays small. Dates are fixed from the case so bytes are stable.

Revisions: ``append_revision`` keeps the original bytes untouched and appends
an update section (new content stream and/or Info dictionary). Genuine PDFs
get metadata-only updates too (a viewer re-saving), so "has two %%EOF" is not a
label; only a changed *page content* between revisions shows tampering.
"""

from __future__ import annotations

import io
from datetime import datetime, UTC

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ContentStream

from rabench.cases.synth.layouts import Row, Style

CORE = {"mono": "Courier", "sans": "Helvetica", "condensed": "Helvetica", "serif": "Times"}
_PT = 0.3528  # mm per point


def pdf_date(d: datetime) -> str:
    return d.strftime("D:%Y%m%d%H%M%S+00'00'")


def render_pdf(
    rows: list[Row],
    style: Style,
    *,
    created: datetime,
    producer: str | None,
    creator: str | None,
    title: str | None = None,
    logo: bytes | None = None,
    xmp: str | None = None,
) -> bytes:
    """A one-page PDF sized to its rows (80 mm till roll or A4-wide document), with an optional logo image."""
    fam = CORE[style.family]
    base_pt = 9.0 if style.pdf_width_mm < 100 else 10.5
    lh = base_pt * _PT * 1.45
    height = 16 + sum({"rule": lh * 0.8, "space": lh * 0.6, "barcode": lh * 2.2}.get(r.kind, lh * r.size) for r in rows)
    height += lh * sum(max(0, len(r.left) // 48) for r in rows if r.kind == "text")
    height += lh * sum(max(0, len(r.left) // (22 if style.pdf_width_mm < 100 else 60)) for r in rows if r.kind == "kv")
    logo_h = 14.0 if logo else 0.0
    height += logo_h + (3 if logo else 0)
    pdf = FPDF(unit="mm", format=(style.pdf_width_mm, max(60.0, height + 10)))
    pdf.core_fonts_encoding = "windows-1252"
    pdf.set_creation_date(created.replace(tzinfo=UTC))
    pdf.set_producer(producer or "")
    if creator:
        pdf.set_creator(creator)
    if title:
        pdf.set_title(title)
    if xmp:
        pdf.set_xmp_metadata(xmp)
    pdf.set_auto_page_break(False)
    pdf.set_margins(6, 6, 6)
    pdf.add_page()
    inner = style.pdf_width_mm - 12
    if logo:
        pdf.image(io.BytesIO(logo), x=6, y=6, h=logo_h)
        pdf.set_y(6 + logo_h + 3)
    ink = style.ink
    pdf.set_text_color(*ink)
    for r in rows:
        size = base_pt * r.size
        pdf.set_font(fam, style="B" if r.bold else "", size=size)
        h = lh * r.size
        if r.kind == "rule":
            y = pdf.get_y() + lh * 0.4
            pdf.set_draw_color(*ink)
            pdf.set_dash_pattern(dash=1, gap=1)
            pdf.line(6, y, 6 + inner, y)
            pdf.set_dash_pattern()
            pdf.ln(lh * 0.8)
        elif r.kind == "space":
            pdf.ln(lh * 0.6)
        elif r.kind == "barcode":
            x, y = 6 + inner * 0.15, pdf.get_y() + 1
            k = sum(ord(c) for c in rows[0].left)
            while x < 6 + inner * 0.85:
                bw = 0.3 + (k % 5) * 0.15
                pdf.set_fill_color(*ink)
                pdf.rect(x, y, bw, lh * 1.8, style="F")
                k = (k * 1103515245 + 12345) % (2**31)
                x += bw + 0.3 + (k % 4) * 0.2
            pdf.ln(lh * 2.2)
        elif r.kind == "text":
            align = {"left": "L", "center": "C", "right": "R"}[r.align]
            pdf.multi_cell(inner, h, r.left, align=align, new_x="LMARGIN", new_y="NEXT")
        elif r.kind == "table":
            y = pdf.get_y()
            pdf.cell(inner * 0.37, h, r.left)
            colw = inner * 0.21
            for j, col in enumerate(r.cols):
                pdf.set_xy(6 + inner - (len(r.cols) - j) * colw, y)
                pdf.cell(colw, h, col, align="R")
            pdf.set_xy(6, y + h)
        else:  # kv: a long label wraps under itself, the value stays on its first line
            right_w = pdf.get_string_width(r.right) + 2
            y = pdf.get_y()
            pdf.set_xy(6 + inner - right_w, y)
            pdf.cell(right_w, h, r.right, align="R")
            pdf.set_xy(6, y)
            pdf.multi_cell(max(20.0, inner - right_w - 2), h, r.left, align="L", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def xmp_for_pdf(tool: str, when: datetime, doc_id: str, padding: int) -> str:
    """An XMP metadata packet as PDF producers and viewers write it, with the usual whitespace padding.

    Why: many producers write XMP at creation and viewers add or rewrite it on save, so PDF byte
    sizes vary by kilobytes for reasons that have nothing to do with tampering.
    """
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    body = (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"'
        ' xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f"<pdf:Producer>{tool}</pdf:Producer><xmp:CreatorTool>{tool}</xmp:CreatorTool>"
        f"<xmp:CreateDate>{stamp}</xmp:CreateDate><xmp:MetadataDate>{stamp}</xmp:MetadataDate>"
        f"<xmpMM:DocumentID>uuid:{doc_id}</xmpMM:DocumentID><xmpMM:InstanceID>uuid:{doc_id}-1</xmpMM:InstanceID>"
        "<dc:format>application/pdf</dc:format></rdf:Description></rdf:RDF></x:xmpmeta>"
    )
    pad = "\n".join(" " * 99 for _ in range(padding // 100))
    return body + "\n" + pad + "\n"  # without the <?xpacket?> wrapper (fpdf2 adds its own)


def append_revision(
    original: bytes, *, new_content_from: bytes | None, info: dict[str, str], xmp: str | None = None
) -> bytes:
    """Append an incremental update: optionally page 1's content from another PDF, plus Info changes.

    The original bytes stay a prefix of the result (the earlier revision is still inside).
    """
    writer = PdfWriter(io.BytesIO(original), incremental=True)
    if new_content_from is not None:
        data = PdfReader(io.BytesIO(new_content_from)).pages[0].get_contents().get_data()
        cs = ContentStream(None, writer)
        cs.set_data(data)
        writer.pages[0].replace_contents(cs)
        writer.pages[0].compress_content_streams()
    if info:
        writer.add_metadata(info)
    if xmp:
        packet = f'<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>{xmp}<?xpacket end="w"?>'
        writer.xmp_metadata = packet.encode("utf-8")  # type: ignore[assignment]
    out = io.BytesIO()
    writer.write(out)
    data = out.getvalue()
    assert data.startswith(original)
    return data
