"""Duplicate transforms: new bytes, same receipt, deterministic given the RNG."""

from __future__ import annotations

import io
from datetime import datetime

import numpy as np
import piexif
import pytest
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from rabench.cases.transforms import TransformError, apply_transform, load_image

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


def _receipt_image() -> Image.Image:
    img = Image.new("RGB", (640, 900), (250, 250, 246))
    d = ImageDraw.Draw(img)
    f = ImageFont.truetype(FONT, 26)
    lines = [
        "CORNER MARKET",
        "2025-03-14 12:31",
        "Milk 1L        1.29",
        "Bread          2.49",
        "SUBTOTAL       3.78",
        "VAT 7%         0.26",
        "TOTAL          4.04",
    ]
    for i, text in enumerate(lines):
        d.text((40, 60 + i * 90), text, font=f, fill=(20, 20, 20))
    return img


def _jpeg(img: Image.Image, exif: bytes | None = None) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=90, **({"exif": exif} if exif else {}))
    return buf.getvalue()


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _pdf() -> bytes:
    pdf = FPDF(format=(80, 160))
    pdf.set_creation_date(datetime(2025, 1, 1))
    pdf.add_page()
    pdf.set_font("Courier", size=11)
    for text in ["CORNER MARKET", "TOTAL 4.04"]:
        pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _decode(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


def _similarity(a: Image.Image, b: Image.Image) -> float:
    """Pearson correlation of two greyscale images resized to one small grid."""
    x = np.asarray(a.convert("L").resize((64, 96)), dtype=float).ravel()
    y = np.asarray(b.convert("L").resize((64, 96)), dtype=float).ravel()
    return float(np.corrcoef(x, y)[0, 1])


@pytest.fixture(scope="module")
def receipt() -> Image.Image:
    return _receipt_image()


@pytest.mark.parametrize("kind", ["reencode", "crop", "reshoot"])
@pytest.mark.parametrize("fmt", ["jpeg", "png"])
def test_transform_makes_new_bytes_of_the_same_receipt(receipt, kind, fmt, ocr):
    data, mt = (_jpeg(receipt), "image/jpeg") if fmt == "jpeg" else (_png(receipt), "image/png")
    out, out_mt = apply_transform(data, mt, kind, np.random.default_rng(1))
    assert out != data
    img = _decode(out)
    assert {"JPEG": "image/jpeg", "PNG": "image/png"}[img.format] == out_mt
    if kind == "reencode":
        assert img.size == receipt.size
        assert _similarity(img, receipt) > 0.97
    elif kind == "crop":
        w, h = img.size
        assert 0.85 * receipt.width <= w < receipt.width and 0.93 * receipt.height <= h < receipt.height
        # The crop trims margins only: the key lines are still readable.
        text = "".join(ocr(out)).replace(" ", "")
        assert "CORNERMARKET" in text and "TOTAL" in text and "4.04" in text
    else:
        assert out_mt == "image/jpeg"


def test_same_rng_same_bytes_different_rng_different_bytes(receipt):
    data = _jpeg(receipt)
    for kind in ("reencode", "crop", "reshoot"):
        a = apply_transform(data, "image/jpeg", kind, np.random.default_rng(7))
        b = apply_transform(data, "image/jpeg", kind, np.random.default_rng(7))
        c = apply_transform(data, "image/jpeg", kind, np.random.default_rng(8))
        assert a == b
        assert a[0] != c[0]


def test_reshoot_writes_new_camera_exif_with_thumbnail_after_the_original(receipt, ocr):
    old_exif = piexif.dump(
        {"0th": {piexif.ImageIFD.Make: b"OldCam"}, "Exif": {piexif.ExifIFD.DateTimeOriginal: b"2025:03:14 12:40:00"}}
    )
    out, mt = apply_transform(_jpeg(receipt, old_exif), "image/jpeg", "reshoot", np.random.default_rng(3))
    exif = piexif.load(out)
    assert exif["0th"][piexif.ImageIFD.Make] != b"OldCam"
    taken = datetime.strptime(exif["Exif"][piexif.ExifIFD.DateTimeOriginal].decode(), "%Y:%m:%d %H:%M:%S")
    assert taken > datetime(2025, 3, 14, 12, 40)
    assert exif["Exif"][piexif.ExifIFD.OffsetTimeOriginal]
    thumb = _decode(exif["thumbnail"])
    assert max(thumb.size) <= 160
    # The photo is tilted and lit differently but is still this receipt, and still legible.
    text = "".join(ocr(out)).replace(" ", "")
    assert "CORNERMARKET" in text and "4.04" in text


def test_reshoot_honours_an_explicit_capture_time(receipt):
    when = datetime(2025, 6, 1, 9, 30)
    out, _ = apply_transform(_png(receipt), "image/png", "reshoot", np.random.default_rng(0), taken=when)
    raw = piexif.load(out)["Exif"][piexif.ExifIFD.DateTimeOriginal]
    assert raw == b"2025:06:01 09:30:00"


def test_reencode_jpeg_sometimes_becomes_png_and_png_becomes_jpeg(receipt):
    jpeg_kinds = {
        apply_transform(_jpeg(receipt), "image/jpeg", "reencode", np.random.default_rng(s))[1] for s in range(12)
    }
    assert jpeg_kinds == {"image/jpeg", "image/png"}
    _, mt = apply_transform(_png(receipt), "image/png", "reencode", np.random.default_rng(0))
    assert mt == "image/jpeg"


@pytest.mark.parametrize("kind", ["reencode", "crop", "reshoot"])
def test_pdf_is_rasterised_first(kind):
    out, mt = apply_transform(_pdf(), "application/pdf", kind, np.random.default_rng(2))
    assert mt in ("image/jpeg", "image/png")
    img = _decode(out)
    assert img.width >= 500
    # Dark text pixels survive rasterisation.
    assert np.asarray(img.convert("L")).min() < 100


def test_pdf_raster_is_upright_page():
    img = load_image(_pdf(), "application/pdf")
    assert img.height > img.width  # 80 x 160 mm page


def test_unreadable_input_is_a_clear_error():
    with pytest.raises(TransformError):
        apply_transform(b"not an image", "image/jpeg", "crop", np.random.default_rng(0))
    with pytest.raises(TransformError):
        apply_transform(b"%PDF-1.7 broken", "application/pdf", "crop", np.random.default_rng(0))
    with pytest.raises(ValueError):
        apply_transform(_png(_receipt_image()), "image/png", "mirror", np.random.default_rng(0))  # type: ignore[arg-type]
