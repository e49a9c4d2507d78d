"""The AP prompt with the bundle inlined: what a DIY model reads for one AP case.

Why text inlined and one image: every wire carries one prompt text and one image
(``wire.build``). The first invoice's page goes as the image, prepared like a receipt;
JSON, CSV, e-mails and the policy are text and go in the prompt verbatim (cut at
``MAX_DOC_CHARS`` each); further invoices of the bundle (campaigns) go as their PDF's
text layer, or are named as not readable when they are images.
"""

from __future__ import annotations

from rabench.targets.ap_request import APInput, APRequest
from rabench.targets.diy.ap_answer import ap_prompt_text

MAX_DOC_CHARS = 20_000


def pdf_text(path: object) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    finally:
        pdf.close()


def _body(doc: APInput, first_image: bool) -> str:
    if doc.prepared is not None:
        if first_image:
            return "(the attached image)"
        if doc.media_type == "application/pdf":
            try:
                return pdf_text(doc.path)[:MAX_DOC_CHARS] or "(no text layer)"
            except Exception:  # pdfium refuses a file: say so, the model decides
                return "(unreadable PDF)"
        return "(an image, not attached: one image per request)"
    return doc.text(MAX_DOC_CHARS)


def ap_prompt(request: APRequest) -> str:
    parts = [ap_prompt_text()]
    if request.submitted_at:
        parts.append(f"The invoice reached AP on {request.submitted_at}.")
    first = True
    for doc in request.documents:
        is_first = first and doc.prepared is not None and doc.prepared == request.prepared
        if is_first:
            first = False
        parts.append(f"=== document: {doc.name} ({doc.role}, {doc.media_type}) ===\n{_body(doc, is_first)}")
    return "\n\n".join(parts)
