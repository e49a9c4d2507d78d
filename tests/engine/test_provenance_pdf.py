"""PDF revisions: a real incremental update that changes the page is proof; clean, linearised,
signed and metadata-only-updated PDFs are not."""

from __future__ import annotations

import io

import pytest
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, NameObject

from rabench.contracts.verdict import Fields
from rabench.engine.provenance import file_signals


def receipt_pdf(total: str = "42.50") -> bytes:
    pdf = FPDF(format=(80, 160))
    pdf.set_creator("POS Station 4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    for line in ("CORNER MARKET", "2024-05-10  RECEIPT 10234", "BREAD 3.20", "MILK 7.80", f"TOTAL {total}"):
        pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def incremental(data: bytes, *, total: str | None = None, producer: str | None = None) -> bytes:
    """Append an incremental update (pypdf incremental writer) changing the total and/or metadata."""
    w = PdfWriter(io.BytesIO(data), incremental=True)
    if total is not None:
        page = w.pages[0]
        content = page.get_contents()
        new = content.get_data().replace(b"42.50", total.encode())
        stream = DecodedStreamObject()
        stream.set_data(new)
        page[NameObject("/Contents")] = w._add_object(stream)
    if producer is not None:
        w.add_metadata({"/Producer": producer, "/ModDate": "D:20240601120000"})
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def _sig(tmp_path, data):
    p = tmp_path / "r.pdf"
    p.write_bytes(data)
    return file_signals(
        p,
        "application/pdf",
        printed_date=None,
        extracted=Fields(total=92.5, date="2024-05-10", merchant="Corner Market"),
    )


def _proofs(sigs):
    return [s for s in sigs if s.kind == "proof"]


def test_clean_single_revision_pdf_has_no_proof(tmp_path):
    sigs = _sig(tmp_path, receipt_pdf())
    assert not _proofs(sigs)
    assert not any(
        s.name.startswith("pdf.") and s.name != "pdf.linearized" for s in sigs if s.name == "pdf.other_updates"
    )


def test_incremental_update_changing_the_total_is_proof_with_the_numbers(tmp_path):
    base = receipt_pdf()
    edited = incremental(base, total="92.50", producer="pypdf")
    assert edited.startswith(base) and edited.count(b"%%EOF") == 2  # a real appended update
    proofs = _proofs(_sig(tmp_path, edited))
    assert len(proofs) == 1 and proofs[0].proof_type == "pdf_modified"
    t = proofs[0].text
    assert "2 revisions" in t and "content stream changed" in t and "42.50" in t and "92.50" in t
    assert proofs[0].fields == ("total",)


def test_metadata_only_update_is_a_fact_not_proof(tmp_path):
    sigs = _sig(tmp_path, incremental(receipt_pdf(), producer="Acrobat Distiller"))
    assert not _proofs(sigs)
    assert any(s.name == "pdf.other_updates" and "metadata" in s.text for s in sigs)


def test_hand_appended_update_changing_the_page_is_proof(tmp_path):
    """An update written by hand (new content object, new xref section with /Prev)."""
    base = receipt_pdf()
    r = PdfReader(io.BytesIO(base))
    page_ref = r.trailer["/Root"]["/Pages"]["/Kids"][0]
    size = int(r.trailer["/Size"])
    page = page_ref.get_object()
    content = b"BT /F1 10 Tf 10 10 Td (TOTAL 99.99) Tj ET"
    prev = base.rfind(b"startxref")
    prev_off = int(base[prev + 9 :].split()[0])
    body = bytearray(base)
    off_content = len(body)
    body += f"{size} 0 obj\n<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream\nendobj\n"
    off_page = len(body)
    mb = " ".join(str(float(v)) for v in r.pages[0].mediabox)
    res = page.raw_get("/Resources").idnum
    body += (
        f"{page_ref.idnum} 0 obj\n<< /Type /Page /Parent {page.raw_get('/Parent').idnum} 0 R /MediaBox [{mb}] "
        f"/Resources {res} 0 R /Contents {size} 0 R >>\nendobj\n"
    ).encode()
    xref = len(body)
    body += (
        f"xref\n{page_ref.idnum} 1\n{off_page:010d} 00000 n \n{size} 1\n{off_content:010d} 00000 n \n"
        f"trailer\n<< /Size {size + 1} /Root {r.trailer.raw_get('/Root').idnum} 0 R /Prev {prev_off} >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    proofs = _proofs(_sig(tmp_path, bytes(body)))
    assert proofs and "99.99" in proofs[0].text


def test_linearised_pdf_is_not_an_edit(tmp_path):
    pikepdf = pytest.importorskip("pikepdf")
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(receipt_pdf())) as pdf:
        pdf.save(out, linearize=True)
    data = out.getvalue()
    assert b"/Linearized" in data[:1024] and data.count(b"%%EOF") >= 2
    sigs = _sig(tmp_path, data)
    assert not _proofs(sigs)
    assert any(s.name == "pdf.linearized" for s in sigs)


def test_signed_pdf_is_not_an_edit(tmp_path):
    pytest.importorskip("pyhanko")
    from _fx_certs import test_signer_files
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers

    key_pem, cert_pem, ca_pem = test_signer_files(tmp_path)
    signer = signers.SimpleSigner.load(str(key_pem), str(cert_pem), ca_chain_files=(str(ca_pem),))
    w = IncrementalPdfFileWriter(io.BytesIO(receipt_pdf()))
    out = io.BytesIO()
    signers.sign_pdf(w, signers.PdfSignatureMetadata(field_name="Sig1"), signer=signer, output=out)
    data = out.getvalue()
    assert data.count(b"%%EOF") == 2 and b"/ByteRange" in data
    sigs = _sig(tmp_path, data)
    assert not _proofs(sigs)
    assert any(s.name == "pdf.signed" for s in sigs)
    assert any(s.name == "pdf.other_updates" and "signature" in s.text for s in sigs)
