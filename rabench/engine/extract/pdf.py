"""Native PDFs: read the text layer instead of running OCR.

A PDF that an e-commerce site or a till wrote carries its text exactly; OCR
could only add errors and cost a second. pdfium's text rectangles give each
run of text with its box, which we turn into the same ``OcrLine`` shape OCR
produces (boxes scaled to the rendered page size the caller asks for), so
the rest of extraction, and visual forensics, cannot tell the difference.
A PDF without a text layer (a scan wrapped in a PDF) returns no lines and the
caller falls back to OCR.
"""

from __future__ import annotations

from pathlib import Path

from rabench.engine.ocr import OcrLine


class PdfUnreadable(Exception):
    """The file is not a PDF pdfium can open (truncated, encrypted, not a PDF)."""


def pdf_text_lines(path: Path | str | bytes, *, page_width_px: int | None = None, max_pages: int = 4) -> list[OcrLine]:
    """Text runs of the first ``max_pages`` pages as OcrLines, top to bottom.

    Boxes are in pixels of page 1 rendered ``page_width_px`` wide (points if None);
    later pages are stacked below the first.
    """
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(path if not isinstance(path, Path) else str(path))
    except Exception as exc:  # pdfium raises PdfiumError with a code
        raise PdfUnreadable(str(exc) or type(exc).__name__) from None
    lines: list[OcrLine] = []
    try:
        if len(doc) == 0:
            raise PdfUnreadable("the PDF has no pages")
        y_offset = 0.0
        scale = 1.0
        for index in range(min(len(doc), max_pages)):
            page = doc[index]
            width, height = page.get_size()
            if index == 0 and page_width_px:
                scale = page_width_px / width
            textpage = page.get_textpage()
            for r in range(textpage.count_rects()):
                left, bottom, right, top = textpage.get_rect(r)
                text = textpage.get_text_bounded(left, bottom, right, top).strip()
                if not text:
                    continue
                box = (
                    int(left * scale),
                    int((y_offset + height - top) * scale),
                    int(round(right * scale)),
                    int(round((y_offset + height - bottom) * scale)),
                )
                for part in text.splitlines():
                    if part.strip():
                        lines.append(OcrLine(text=part.strip(), box=box, confidence=1.0))
            y_offset += height
    finally:
        doc.close()
    return lines
