"""Hostile files, built in memory: bombs, truncations, corruptions, absurd metadata, lies about type.

Each builder returns the bytes of one file made to hurt a reader that trusts
what a file says about itself (sizes, counts, offsets, nesting, its type).
``HOSTILE`` lists every kind with the file name and media type a suite would
declare for it.
"""

from __future__ import annotations

import io
import struct
import zlib

from hostile_images import many_scans_jpeg, wide_png
from PIL import Image, ImageDraw, ImageFont

MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


def receipt_image(seed: int = 0, size: tuple[int, int] = (420, 300)) -> Image.Image:
    """A small receipt that OCR reads (total 8.50): the honest file the hostile ones are made from."""
    im = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(im)
    font = ImageFont.truetype(MONO, 20)
    lines = [f"CORNER SHOP {seed}", "2025-03-14", "TEA          5.00", "CAKE         3.50", "TOTAL        8.50"]
    for i, line in enumerate(lines):
        draw.text((24, 24 + 48 * i), line, font=font, fill="black")
    return im


def receipt_jpeg(seed: int = 0, **save) -> bytes:
    buf = io.BytesIO()
    receipt_image(seed).save(buf, "JPEG", quality=90, **save)
    return buf.getvalue()


def receipt_png(seed: int = 0) -> bytes:
    buf = io.BytesIO()
    receipt_image(seed).save(buf, "PNG")
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bomb(side: int = 40_000) -> bytes:
    """A valid 1-bit PNG of side x side pixels (1.6 Gpx, ~200 MB of pixel data) in ~200 kB."""
    row = b"\x00" + b"\x00" * ((side + 7) // 8)
    comp = zlib.compressobj(9)
    parts = [comp.compress(row) for _ in range(side)]
    parts.append(comp.flush())
    idat = b"".join(parts)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0))
        + _chunk(b"IDAT", idat)
        + _chunk(b"IEND", b"")
    )


def jpeg_bomb(side: int = 65_000) -> bytes:
    """A small JPEG whose frame header claims side x side pixels (4 Gpx)."""
    data = bytearray(receipt_jpeg())
    pos = 2
    while pos < len(data):
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            data[pos + 5 : pos + 9] = struct.pack(">HH", side, side)
            return bytes(data)
        pos += 2 + length
    raise AssertionError("no SOF marker")


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    return data[: int(len(data) * keep)]


def corrupt_jpeg() -> bytes:
    """Header intact, the Huffman tables replaced by garbage: the scan cannot be decoded."""
    data = bytearray(receipt_jpeg())
    pos = 2
    while pos < len(data):
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if marker == 0xC4:  # DHT
            data[pos + 4 : pos + 2 + length] = bytes((i * 97 + 13) % 256 for i in range(length - 2))
        if marker == 0xDA:
            break
        pos += 2 + length
    return bytes(data)


def corrupt_png() -> bytes:
    """Chunks intact, the compressed pixel stream overwritten with garbage."""
    data = bytearray(receipt_png())
    pos = data.find(b"IDAT") + 4
    data[pos + 2 : pos + 200] = bytes((i * 131 + 7) % 256 for i in range(198))
    return bytes(data)


def _pdf(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF from numbered object bodies (1-based), with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def receipt_pdf(pages: int = 1) -> bytes:
    """A text PDF with ``pages`` pages, each a small receipt (shared content stream and font)."""
    content = b"BT /F1 12 Tf 20 260 Td (CORNER SHOP) Tj 0 -20 Td (2025-03-14) Tj 0 -20 Td (TOTAL 8.50) Tj ET"
    first_page = 5
    kids = " ".join(f"{first_page + i} 0 R" for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> >> >>"
    objects += [page] * pages
    return _pdf(objects)


def pdf_deep_nesting(depth: int = 200_000) -> bytes:
    """A one-page PDF whose page dictionary holds an array nested ``depth`` levels deep."""
    nested = b"[" * depth + b"1" + b"]" * depth
    content = b"BT /F1 12 Tf 20 260 Td (TOTAL 8.50) Tj ET"
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> >> /Junk "
            + nested
            + b" >>",
        ]
    )


def corrupt_pdf() -> bytes:
    """Starts like a PDF, then nothing a PDF reader can use."""
    return b"%PDF-1.7\n" + bytes((i * 53 + 11) % 256 for i in range(4000))


def _jpeg_with_app1(payload: bytes) -> bytes:
    data = receipt_jpeg()
    assert len(payload) + 2 <= 0xFFFF
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:]


def jpeg_absurd_exif() -> bytes:
    """An EXIF block whose IFD claims 65535 entries, each with a count of 2^32-1 at offset 2^32-1,
    and a next-IFD pointer into itself (a loop)."""
    entries = b"".join(struct.pack("<HHII", 0x010F + i, 2, 0xFFFFFFFF, 0xFFFFFFFF) for i in range(400))
    ifd = struct.pack("<H", 0xFFFF) + entries + struct.pack("<I", 8)  # next IFD = itself
    tiff = b"II*\x00" + struct.pack("<I", 8) + ifd
    return _jpeg_with_app1(b"Exif\x00\x00" + tiff)


def jpeg_malformed_xmp() -> bytes:
    """An XMP packet with invalid UTF-8, an entity-expansion bomb ("billion laughs") and unclosed tags."""
    lol = (
        b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(b'<!ENTITY %c "%s">' % (ord("b") + i, (b"&%c;" % (ord("a") + i)) * 10) for i in range(8))
        + b"]>"
    )
    packet = (
        b"http://ns.adobe.com/xap/1.0/\x00"
        + b'<?xpacket begin="\xef\xbb\xbf"?>'
        + lol
        + b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        + b'<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="\xff\xfe\xc3\x28&i;">'
        + b"<xmp:Junk>" * 5000
        + b"\xed\xa0\x80 broken"
    )
    return _jpeg_with_app1(packet)


def not_an_image() -> bytes:
    """HTML with a .jpg name and an image/jpeg media type."""
    return b"<!doctype html><html><body><script>alert('receipt')</script></body></html>\n" * 20


HOSTILE: dict[str, tuple[str, str]] = {
    # kind: (file name, declared media type)
    "png_bomb": ("bomb.png", "image/png"),
    "jpeg_bomb": ("bomb.jpg", "image/jpeg"),
    "truncated_jpeg": ("truncated.jpg", "image/jpeg"),
    "corrupt_jpeg": ("corrupt.jpg", "image/jpeg"),
    "truncated_png": ("truncated.png", "image/png"),
    "corrupt_png": ("corrupt.png", "image/png"),
    "truncated_pdf": ("truncated.pdf", "application/pdf"),
    "corrupt_pdf": ("corrupt.pdf", "application/pdf"),
    "pdf_many_pages": ("pages.pdf", "application/pdf"),
    "pdf_deep_nesting": ("nested.pdf", "application/pdf"),
    "absurd_exif": ("exif.jpg", "image/jpeg"),
    "malformed_xmp": ("xmp.jpg", "image/jpeg"),
    "zero_bytes": ("empty.jpg", "image/jpeg"),
    "not_an_image": ("page.jpg", "image/jpeg"),
    "wide_png": ("wide.png", "image/png"),
    "many_scans_jpeg": ("scans.jpg", "image/jpeg"),
}


def build(kind: str) -> bytes:
    if kind == "png_bomb":
        return png_bomb()
    if kind == "jpeg_bomb":
        return jpeg_bomb()
    if kind == "truncated_jpeg":
        return truncated(receipt_jpeg(), 0.4)
    if kind == "corrupt_jpeg":
        return corrupt_jpeg()
    if kind == "truncated_png":
        return truncated(receipt_png(), 0.5)
    if kind == "corrupt_png":
        return corrupt_png()
    if kind == "truncated_pdf":
        return truncated(receipt_pdf(), 0.3)
    if kind == "corrupt_pdf":
        return corrupt_pdf()
    if kind == "pdf_many_pages":
        return receipt_pdf(pages=5000)
    if kind == "pdf_deep_nesting":
        return pdf_deep_nesting()
    if kind == "absurd_exif":
        return jpeg_absurd_exif()
    if kind == "malformed_xmp":
        return jpeg_malformed_xmp()
    if kind == "zero_bytes":
        return b""
    if kind == "not_an_image":
        return not_an_image()
    if kind == "wide_png":
        return wide_png()  # 100,000 x 1 px
    if kind == "many_scans_jpeg":
        return many_scans_jpeg()  # 2,006 scans of 3000 x 3000 px
    raise KeyError(kind)
