"""Read every provenance fact from one file into ``FileFacts``, bounded and never raising.

Reading is kept apart from judging (``rules.py``): this module only says what
the file contains (EXIF, XMP, PNG text, C2PA, PDF revisions, the thumbnail
comparison, the capture time); the rules decide which facts are proof. Every
reader caps what it reads and records what it could not read in ``problems``.
Only third-party parsers (Pillow, pypdf, c2pa) are wrapped in broad handlers; our
own readers handle malformed content explicitly, so an exception from them is a bug
and propagates.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import msgspec
from PIL import Image

from rabench.engine.provenance import c2pa as c2pa_reader
from rabench.engine.provenance import containers, exif, pdf, png, thumbnail, xmp
from rabench.engine.provenance.photo_date import CaptureTime, parse_capture

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_IMAGE_PIXELS = 80_000_000


class FileFacts(msgspec.Struct):
    format: str = ""  # sniffed: jpeg | png | webp | tiff | pdf | unknown
    size: int = 0
    blocks: containers.Blocks | None = None
    exif: exif.ExifData | None = None
    xmp: list[xmp.XmpFacts] = []
    c2pa: c2pa_reader.C2paFacts | None = None
    pdf: pdf.PdfFacts | None = None
    thumb: thumbnail.ThumbResult | None = None
    capture: CaptureTime | None = None
    problems: list[str] = []


def sniff(data: bytes) -> str:
    if data.startswith(b"\xff\xd8"):
        return "jpeg"
    if data.startswith(png.PNG_SIG):
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if b"%PDF-" in data[:1024]:
        return "pdf"
    return "unknown"


_MEDIA = {
    "jpeg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "tiff": "image/tiff",
    "pdf": "application/pdf",
}


def read_file(path: Path, media_type: str) -> FileFacts:
    facts = FileFacts(xmp=[], problems=[])
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        facts.problems.append(f"file could not be read: {e.strerror or e}")
        return facts
    if len(data) > MAX_FILE_BYTES:
        facts.problems.append(f"file larger than {MAX_FILE_BYTES // 2**20} MiB; read the first part only")
        data = data[:MAX_FILE_BYTES]
    return read_bytes(data, media_type, facts)


def read_bytes(data: bytes, media_type: str, facts: FileFacts | None = None) -> FileFacts:
    facts = facts or FileFacts(xmp=[], problems=[])
    facts.size = len(data)
    facts.format = sniff(data)
    if facts.format == "unknown":
        facts.problems.append(f"file content is not a JPEG, PNG, WebP, TIFF or PDF (declared {media_type})")
        return facts
    if _MEDIA[facts.format] != media_type:
        facts.problems.append(f"declared {media_type} but the content is {facts.format.upper()}")
    _containers(data, facts)
    if facts.format == "pdf":
        facts.pdf = pdf.read_pdf(data)
        facts.problems += facts.pdf.problems
        for packet in facts.pdf.xmp:
            facts.xmp.append(xmp.parse_xmp(packet))
    for px in facts.xmp:
        facts.problems += px.problems
    b = facts.blocks
    if (b is not None and b.c2pa) or (facts.format == "pdf" and b"c2pa" in data):
        facts.c2pa = c2pa_reader.read_manifest(data, _MEDIA[facts.format])
        facts.problems += facts.c2pa.problems
    if facts.exif is not None:
        e = facts.exif
        facts.capture = parse_capture(
            e.exif.get("DateTimeOriginal") if isinstance(e.exif.get("DateTimeOriginal"), str) else None,
            e.exif.get("OffsetTimeOriginal") if isinstance(e.exif.get("OffsetTimeOriginal"), str) else None,
        )
        if e.thumbnail:
            _thumb(data, facts)
    return facts


def _containers(data: bytes, facts: FileFacts) -> None:
    walker = {
        "jpeg": containers.jpeg_blocks,
        "png": png.png_blocks,
        "webp": containers.webp_blocks,
        "tiff": containers.tiff_blocks,
    }.get(facts.format)
    if walker is None:
        return
    b = walker(data)
    facts.blocks = b
    facts.problems += b.problems
    if b.exif:
        facts.exif = exif.parse_tiff(b.exif)
        facts.problems += facts.exif.problems[:5]
        packet = facts.exif.ifd0.get("XMLPacket")
        if isinstance(packet, bytes):
            b.xmp.append(packet)
    for packet in b.xmp:
        facts.xmp.append(xmp.parse_xmp(packet))


def _thumb(data: bytes, facts: FileFacts) -> None:
    """Decode the primary image (Pillow, reduced by JPEG DCT scaling) and compare the thumbnail.

    Decoding is Pillow's parser on hostile bytes, so anything it raises is a fact about the
    file; the comparison is our own arithmetic and is not guarded (a bug there must surface)."""
    assert facts.exif is not None and facts.exif.thumbnail is not None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            if img.width * img.height > MAX_IMAGE_PIXELS:
                facts.thumb = thumbnail.ThumbResult(False, detail=f"image of {img.width}x{img.height} px not compared")
                return
            if img.format == "JPEG":
                t = Image.open(io.BytesIO(facts.exif.thumbnail))
                img.draft("L", (t.width * thumbnail.DRAFT_FACTOR, t.height * thumbnail.DRAFT_FACTOR))
            img.load()
    except Exception as e:  # Pillow's plugins raise many types on broken or hostile images
        facts.problems.append(
            f"the image could not be decoded to compare its thumbnail: {type(e).__name__}: {str(e)[:160]}"
        )
        return
    facts.thumb = thumbnail.compare(facts.exif.thumbnail, img, facts.exif.orientation)
