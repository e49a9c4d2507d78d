"""Duplicate transforms: the same receipt submitted again as a different file.

RA-Bench's duplicates task asks whether a target recognises "someone else
submitted this receipt before" when the second file is a re-encoded, cropped or
re-shot copy. The synthetic generator and the importers (``rabench cases
derive``) both make these copies here, so a transform looks the same whatever
made the original.

``apply_transform`` is pure given its ``numpy.random.Generator``: the same
input bytes and the same generator state give the same output bytes.
PDFs are rasterised first (pypdfium2): a duplicate of a PDF receipt is in
practice a screenshot or a photo of it.
"""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from typing import Literal

import numpy as np
import piexif
from PIL import Image, ImageOps

from rabench.cases.synth import camera as cam

TransformKind = Literal["reencode", "crop", "reshoot"]
TRANSFORMS: tuple[TransformKind, ...] = ("reencode", "crop", "reshoot")

_RASTER_TARGET_WIDTH = 1000  # px for a rasterised PDF page: legible, not huge


class TransformError(ValueError):
    """The input could not be decoded as the media type it claims."""


def rasterise_pdf(data: bytes, *, target_width: int = _RASTER_TARGET_WIDTH) -> Image.Image:
    """First page of a PDF as an RGB image about ``target_width`` px wide."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise TransformError(f"not a readable PDF: {exc}") from None
    try:
        if len(pdf) == 0:
            raise TransformError("PDF has no pages")
        page = pdf[0]
        width_pt = page.get_width()
        scale = min(4.0, max(1.0, target_width / max(1.0, width_pt)))
        bitmap = page.render(scale=scale)
        img = bitmap.to_pil().convert("RGB")
        page.close()
        return img
    finally:
        pdf.close()


def load_image(data: bytes, media_type: str) -> Image.Image:
    """Decode ``data`` (image or PDF) to an upright RGB image."""
    if media_type == "application/pdf":
        return rasterise_pdf(data)
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as exc:  # PIL raises many kinds for bad input
        raise TransformError(f"not a readable image ({media_type}): {exc}") from None
    img = ImageOps.exif_transpose(img)
    if img.mode in ("RGBA", "LA", "P"):
        rgba = img.convert("RGBA")
        bg = Image.new("RGB", rgba.size, (255, 255, 255))
        bg.paste(rgba, mask=rgba.getchannel("A"))
        return bg
    return img.convert("RGB")


def _exif_of(data: bytes, media_type: str) -> dict | None:
    if media_type != "image/jpeg":
        return None
    try:
        d = piexif.load(data)
    except Exception:
        return None
    return d if d.get("0th") or d.get("Exif") else None


def _original_taken(exif: dict | None) -> datetime | None:
    if not exif:
        return None
    raw = exif.get("Exif", {}).get(piexif.ExifIFD.DateTimeOriginal)
    try:
        return datetime.strptime(raw.decode(), "%Y:%m:%d %H:%M:%S") if raw else None
    except (ValueError, AttributeError):
        return None


def _reencode(img: Image.Image, data: bytes, media_type: str, rng: np.random.Generator) -> tuple[bytes, str]:
    """New JPEG quality, or PNG<->JPEG; the pixels are the receipt's, the bytes are new."""
    if media_type == "image/jpeg" and rng.random() < 0.3:
        return cam.encode_png(img, compress_level=int(rng.integers(3, 10))), "image/png"
    quality = int(rng.integers(55, 94))
    exif_bytes = None
    old = _exif_of(data, media_type)
    if old is not None and rng.random() < 0.5:  # some apps keep EXIF, some strip it
        old = dict(old)
        old["thumbnail"] = None
        old["1st"] = {}
        try:
            exif_bytes = piexif.dump(old)
        except Exception:
            exif_bytes = None
    out = cam.encode_jpeg(img, quality, exif=exif_bytes, subsampling=int(rng.choice([0, 2])))
    if out == data:  # same settings by chance: nudge the quality so the bytes differ
        out = cam.encode_jpeg(img, quality - 3 if quality > 60 else quality + 3, exif=exif_bytes)
    return out, "image/jpeg"


def _crop(img: Image.Image, media_type: str, rng: np.random.Generator) -> tuple[bytes, str]:
    """Trim the margins (at most ~6 % a side, less at top and bottom where merchant and total sit)."""
    w, h = img.size
    left = int(w * rng.uniform(0.01, 0.06))
    right = int(w * rng.uniform(0.01, 0.06))
    top = int(h * rng.uniform(0.005, 0.025))
    bottom = int(h * rng.uniform(0.005, 0.025))
    out = img.crop((left, top, w - right, h - bottom))
    if media_type == "image/png":
        return cam.encode_png(out), "image/png"
    return cam.encode_jpeg(out, int(rng.integers(75, 95))), "image/jpeg"


def _reshoot(
    img: Image.Image, data: bytes, media_type: str, rng: np.random.Generator, taken: datetime | None
) -> tuple[bytes, str]:
    """Photograph the receipt again: new angle, light, blur, noise, rotation and camera EXIF."""
    photo = cam.photograph(img, rng, strength=float(rng.uniform(0.6, 1.0)))
    if taken is None:
        before = _original_taken(_exif_of(data, media_type))
        if before is not None:
            taken = before + timedelta(days=int(rng.integers(0, 20)), minutes=int(rng.integers(5, 900)))
        else:
            # No earlier capture date known: a recent, fixed-window date (after any synthetic print date).
            taken = datetime(2026, 1, 5, 8, 0) + timedelta(minutes=int(rng.integers(0, 60 * 24 * 100)))
    camera = cam.pick_camera(rng)
    offset = str(rng.choice(["+00:00", "+01:00", "+02:00", "-05:00", "+09:00"]))
    exif = cam.camera_exif(camera, taken, offset, photo.size, thumbnail=cam.thumbnail_jpeg(photo))
    return cam.encode_jpeg(photo, int(rng.integers(80, 94)), exif=exif), "image/jpeg"


def apply_transform(
    data: bytes,
    media_type: str,
    transform: TransformKind,
    rng: np.random.Generator,
    *,
    taken: datetime | None = None,
) -> tuple[bytes, str]:
    """Return (new file bytes, new media type) for a duplicate of ``data``.

    - ``reencode``: a new JPEG quality (EXIF kept or stripped) or PNG<->JPEG;
    - ``crop``: margins trimmed, the merchant and totals kept in frame;
    - ``reshoot``: a new phone photo (perspective, light, blur, noise, small
      rotation) with new EXIF camera data; ``taken`` sets DateTimeOriginal
      (default: after the original's, or a fixed recent window).
    """
    if transform not in TRANSFORMS:
        raise ValueError(f"unknown transform {transform!r}; expected one of {', '.join(TRANSFORMS)}")
    img = load_image(data, media_type)
    if transform == "reencode":
        if media_type == "application/pdf":
            # A PDF "re-encoded" is a saved screenshot/export: PNG or JPEG of the page.
            if rng.random() < 0.5:
                return cam.encode_png(img), "image/png"
            return cam.encode_jpeg(img, int(rng.integers(70, 93))), "image/jpeg"
        return _reencode(img, data, media_type, rng)
    if transform == "crop":
        return _crop(img, "image/jpeg" if media_type == "application/pdf" else media_type, rng)
    return _reshoot(img, data, media_type, rng, taken)
