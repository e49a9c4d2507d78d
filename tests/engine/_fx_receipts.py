"""Crafted receipt images and files for the provenance / forensics / dupes tests (made here, not shipped)."""

from __future__ import annotations

import io

import numpy as np
import piexif
from PIL import Image, ImageDraw, ImageFont


def receipt(
    *,
    total: str = "42.50",
    number: str = "10234",
    items: tuple[str, ...] = ("3.20", "7.80", "12.00", "19.50"),
    date: str = "2024-05-10",
    merchant: str = "CORNER MARKET",
    size: tuple[int, int] = (600, 1100),
    noise: float = 3.0,
    seed: int = 0,
    lines: list | None = None,
) -> tuple[Image.Image, dict[str, list[tuple[int, int, int, int]]]]:
    """A receipt-like grey image (RGB) and the boxes of its printed fields; ``lines`` (if given)
    receives the box of every printed text, as a reader's line boxes."""
    w, h = size
    im = Image.new("L", size, 236)
    d = ImageDraw.Draw(im)
    big, f = ImageFont.load_default(size=34), ImageFont.load_default(size=22)
    boxes: dict[str, list[tuple[int, int, int, int]]] = {}

    def put(x, y, text, name=None, font=f):
        d.text((x, y), text, fill=28, font=font)
        box = tuple(int(v) for v in d.textbbox((x, y), text, font=font))
        if name:
            boxes.setdefault(name, []).append(box)
        if lines is not None:
            lines.append(box)

    put(w // 2 - 130, 30, merchant, "merchant", big)
    put(40, 90, "12 HIGH STREET, SPRINGFIELD")
    put(40, 130, "DATE")
    put(w - 190, 130, date, "date")
    put(40, 170, "RECEIPT NO")
    put(w - 190, 170, number, "receipt_number")
    y = 240
    for i, amt in enumerate(items):
        put(40, y, f"ITEM {i + 1} GOODS")
        put(w - 140, y, amt)
        y += 44
    sub = sum(float(a) for a in items)
    put(40, y + 20, "SUBTOTAL")
    put(w - 140, y + 20, f"{sub:.2f}", "subtotal")
    put(40, y + 64, "TAX")
    put(w - 140, y + 64, "0.00", "tax_total")
    put(40, y + 108, "TOTAL")
    put(w - 140, y + 108, total, "total")
    put(40, y + 190, "THANK YOU FOR SHOPPING")
    put(40, y + 230, "PLEASE KEEP THIS RECEIPT")
    a = np.asarray(im, dtype=np.float32)
    if noise:
        a = a + np.random.default_rng(seed).normal(0, noise, a.shape)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).convert("RGB"), boxes


def jpeg_bytes(img: Image.Image, quality: int = 90, exif: bytes | None = None) -> bytes:
    buf = io.BytesIO()
    if exif is None:
        img.save(buf, "JPEG", quality=quality)
    else:
        img.save(buf, "JPEG", quality=quality, exif=exif)
    return buf.getvalue()


def exif_with_thumbnail(
    thumb_src: Image.Image | None,
    *,
    orientation: int = 1,
    software: str | None = None,
    make: str | None = "Apple",
    model: str | None = "iPhone 13",
    taken: str | None = None,
    offset: str | None = None,
    thumb_px: int = 160,
) -> bytes:
    zeroth: dict = {piexif.ImageIFD.Orientation: orientation}
    if make:
        zeroth[piexif.ImageIFD.Make] = make
    if model:
        zeroth[piexif.ImageIFD.Model] = model
    if software:
        zeroth[piexif.ImageIFD.Software] = software
    exif_ifd: dict = {}
    if taken:
        exif_ifd[piexif.ExifIFD.DateTimeOriginal] = taken
    if offset:
        exif_ifd[piexif.ExifIFD.OffsetTimeOriginal] = offset
    d = {"0th": zeroth, "Exif": exif_ifd, "1st": {}, "thumbnail": None}
    if thumb_src is not None:
        t = thumb_src.copy()
        t.thumbnail((thumb_px, thumb_px))
        d["thumbnail"] = jpeg_bytes(t, quality=85)
        d["1st"] = {piexif.ImageIFD.Compression: 6}
    return piexif.dump(d)
