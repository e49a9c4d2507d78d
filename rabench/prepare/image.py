"""Turn one submitted file into the image every target gets: upright, <= 3072 px, <= 3.75 MB.

Why: API size limits must not count against any target (spec, "DIY targets get
the same file preparation as our engine"), and every target must see the same
pixels. This module is pure (bytes in, bytes out, no I/O, no cache) so that it
can run in a worker thread and be tested directly; ``rabench.prepare.cache``
adds the disk cache and the once-per-file guarantee.

Rules, in order:

* PDFs are rasterised (first page, pypdfium2) at up to 200 dpi.
* A JPEG/PNG/WebP that is already upright (no EXIF rotation), within
  ``MAX_SIDE`` and ``MAX_BYTES`` is passed through byte for byte (re-encoding
  would only lose information); it is still fully decoded once, so a corrupt
  file is caught here rather than by a target.
* Anything else is decoded, EXIF orientation applied, scaled so the longest
  side is at most ``MAX_SIDE``, flattened onto white if it has transparency and
  encoded as JPEG, stepping quality down and then the size down until the bytes
  fit ``MAX_BYTES``.

Decoding is bounded: from the header alone, before any pixel is decoded, images
over ``MAX_PIXELS`` (decompression bombs), longer than ``MAX_ASPECT`` times their
width (a 100,000 x 1 strip: no receipt, and OCR of it allocates gigabytes) and
JPEGs of more than ``MAX_JPEG_SCANS`` progressive scans (each scan is a pass over
every block: 2,000 scans of a 3000 x 3000 px white page, 99 kB, take ~40 s to
decode) are refused. Any unreadable file becomes a ``PreparationError`` with one
clear line, which the runner records as a per-case ``error`` outcome. Time and
memory of what is left are bounded by the worker process that runs this
(``rabench.prepare.worker``).
"""

from __future__ import annotations

import io
import threading

import msgspec
from PIL import Image, ImageOps, UnidentifiedImageError

PREP_VERSION = 1  # bump when the output of prepare_bytes changes for the same input
MAX_SIDE = 3072
MAX_BYTES = 3_750_000  # 3.75 MB (decimal; also below 3.75 MiB)
MAX_PIXELS = 80_000_000  # refuse to decode more (below Pillow's own bomb warning at ~89 Mpx)
MAX_ASPECT = 20  # longest side / shortest side (a 80 mm till slip 1.6 m long); real receipts: <= 3.7
MAX_JPEG_SCANS = 100  # libjpeg writes 10 for a progressive JPEG, mozjpeg ~20
PDF_DPI = 200
JPEG_QUALITIES = (92, 85, 75, 65)
SHRINK_STEP = 0.8
PASS_THROUGH = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
EXIF_ORIENTATION = 0x0112

# pdfium is not thread-safe: one rasterisation at a time per process.
_PDFIUM_LOCK = threading.Lock()


class PreparationError(Exception):
    """The file cannot be prepared (corrupt, not an image, too many pixels); one line."""


class Prepared(msgspec.Struct, frozen=True):
    data: bytes
    media_type: str  # image/jpeg | image/png | image/webp
    width: int
    height: int
    passed_through: bool  # the original bytes, unchanged


def prepare_bytes(data: bytes, media_type: str = "") -> Prepared:
    """Prepare one file's bytes; raises PreparationError with a one-line reason."""
    if not data:
        raise PreparationError("empty file")
    try:
        if data[:5] == b"%PDF-" or media_type == "application/pdf":
            return _encode(_rasterise_pdf(data))
        return _prepare_image(data)
    except PreparationError:
        raise
    except Image.DecompressionBombError as exc:
        raise PreparationError(f"image refused as a decompression bomb: {exc}") from None
    except UnidentifiedImageError:  # its message names a BytesIO object at a memory address
        raise PreparationError("unreadable file: not an image format Pillow can read, nor a PDF") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise PreparationError(f"unreadable file: {_one_line(exc)}") from None


def check_dimensions(width: float, height: float, what: str = "image") -> None:
    """Refuse, from its size alone, an image too large or too elongated to decode and read safely."""
    if width <= 0 or height <= 0:
        raise PreparationError(f"{what} has no pixels")
    if width * height > MAX_PIXELS:
        raise PreparationError(f"{what} too large to decode safely: {width:g}x{height:g} px is over {MAX_PIXELS:,} px")
    if max(width, height) > MAX_ASPECT * min(width, height):
        raise PreparationError(f"{what} too elongated to read: {width:g}x{height:g} px is more than {MAX_ASPECT}:1")


def jpeg_scan_count(data: bytes) -> int:
    """The number of scans (SOS segments) in a JPEG, walking its markers; never decodes."""
    count, pos, n = 0, 2, len(data)
    while pos + 4 <= n:
        if data[pos] != 0xFF:
            return count  # not a marker: the decoder will say what is wrong
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xD9:  # EOI
            return count
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # no length
            pos += 2
            continue
        pos += 2 + int.from_bytes(data[pos + 2 : pos + 4], "big")
        if marker != 0xDA:
            continue
        count += 1
        while True:  # entropy-coded data: ends at the first 0xFF not followed by 0x00 or RSTn
            pos = data.find(b"\xff", pos)
            if pos < 0 or pos + 1 >= n:
                return count
            nxt = data[pos + 1]
            if nxt == 0x00 or 0xD0 <= nxt <= 0xD7:
                pos += 2
                continue
            break
    return count


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _prepare_image(data: bytes) -> Prepared:
    im = Image.open(io.BytesIO(data))
    w, h = im.size
    check_dimensions(w, h)
    # data.count is an upper bound at C speed (FF DA never occurs in entropy-coded data, only
    # perhaps inside an APP segment); the exact walk only when it is over the cap
    if im.format == "JPEG" and data.count(b"\xff\xda") > MAX_JPEG_SCANS and jpeg_scan_count(data) > MAX_JPEG_SCANS:
        raise PreparationError(
            f"JPEG with more than {MAX_JPEG_SCANS} scans refused (each one is a pass over the whole image)"
        )
    orientation = im.getexif().get(EXIF_ORIENTATION, 1)
    fmt = im.format or ""
    if (
        fmt in PASS_THROUGH
        and orientation in (0, 1)
        and max(w, h) <= MAX_SIDE
        and len(data) <= MAX_BYTES
        and not getattr(im, "is_animated", False)
    ):
        im.load()  # catch truncated / corrupt pixel data now
        return Prepared(data, PASS_THROUGH[fmt], w, h, True)
    if fmt == "JPEG" and max(w, h) > MAX_SIDE:
        # Let libjpeg decode at a reduced DCT scale (never below the target size).
        scale = MAX_SIDE / max(w, h)
        im.draft("RGB", (max(1, int(w * scale)), max(1, int(h * scale))))
    im.load()
    return _encode(ImageOps.exif_transpose(im))


def _rasterise_pdf(data: bytes) -> Image.Image:
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise PreparationError(f"unreadable PDF: {_one_line(exc)}") from None
        try:
            if len(pdf) < 1:
                raise PreparationError("PDF has no pages")
            page = pdf[0]
            pw, ph = page.get_size()  # points (1/72 in)
            if pw <= 0 or ph <= 0:
                raise PreparationError("PDF page has no size")
            scale = min(PDF_DPI / 72.0, MAX_SIDE / max(pw, ph))
            if pw * ph * scale * scale > MAX_PIXELS:
                raise PreparationError("PDF page too large to rasterise")
            check_dimensions(pw, ph, "PDF page")
            bitmap = page.render(scale=scale)
            im = bitmap.to_pil()
            im.load()
            page_image: Image.Image = im.copy()
            return page_image
        except pdfium.PdfiumError as exc:
            raise PreparationError(f"unreadable PDF: {_one_line(exc)}") from None
        finally:
            pdf.close()


def _flatten(im: Image.Image) -> Image.Image:
    """RGB or L, transparency composited onto white (JPEG has no alpha)."""
    if im.mode in ("RGB", "L"):
        return im
    if im.mode == "P":
        im = im.convert("RGBA")
    if im.mode in ("RGBA", "LA", "PA"):
        rgba = im if im.mode == "RGBA" else im.convert("RGBA")
        base = Image.new("RGB", im.size, (255, 255, 255))
        base.paste(rgba, mask=rgba.getchannel("A"))  # one RGBA copy at most, not two
        return base
    if im.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        # 16-bit greyscale: keep the top 8 bits instead of clipping at 255.
        import numpy as np

        a = np.clip(np.asarray(im, dtype=np.float64), 0, 65535)
        return Image.fromarray((a / 257.0).round().astype(np.uint8), "L")
    return im.convert("RGB")


def _encode(im: Image.Image) -> Prepared:
    im = _flatten(im)
    w, h = im.size
    if max(w, h) > MAX_SIDE:
        scale = MAX_SIDE / max(w, h)
        im = im.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS)
    while True:
        for quality in JPEG_QUALITIES:
            buf = io.BytesIO()
            im.save(buf, "JPEG", quality=quality, optimize=True)
            if buf.tell() <= MAX_BYTES:
                return Prepared(buf.getvalue(), "image/jpeg", im.size[0], im.size[1], False)
        w, h = im.size
        if max(w, h) <= 16:
            raise PreparationError("cannot encode the image under the size limit")
        im = im.resize((max(1, int(w * SHRINK_STEP)), max(1, int(h * SHRINK_STEP))), Image.Resampling.LANCZOS)
