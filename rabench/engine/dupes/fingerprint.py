"""A receipt's fingerprint: the file hash, a perceptual hash of the normalised page, and a text key.

Why three parts: the file hash catches the identical file; the perceptual hash
catches a re-encoded, cropped or re-shot copy -- but receipts printed from one
template look alike, so it can only *support* a match, never make one alone;
the text key (merchant, date, amounts, receipt number, item amounts) is what
says two images show the same purchase. The perceptual hash is computed on a
normalised image -- grey, cropped to the printed content, deskewed -- so that
margins, framing and a few degrees of rotation do not move it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import msgspec
import numpy as np
from PIL import Image

from rabench.contracts.labels import LineItem
from rabench.contracts.verdict import Fields

FINGERPRINT_VERSION = 2  # 2: + pixels (identical decoded image)
WORK_PX = 384  # the normalisation runs on an image at most this tall/wide
HASH_PX = 32
SKEW_ANGLES = tuple(a / 2 for a in range(-8, 9))  # -4 .. 4 degrees


class Fingerprint(msgspec.Struct, frozen=True):
    sha256: str  # of the file bytes
    phash: int  # 64-bit DCT perceptual hash of the normalised page (unsigned)
    merchant: str = ""  # normalised (spec: lowercase, accents stripped, & -> and, no punctuation)
    date: str | None = None  # ISO
    total: int | None = None  # cents (minor units x 100 for every currency)
    subtotal: int | None = None
    tax_total: int | None = None
    receipt_number: str | None = None  # letters and digits, lowercase
    items: tuple[int, ...] = ()  # line-item amounts in cents, sorted
    # sha256 of the decoded image (mode, size, pixels): the "identical image hash" of the spec's
    # exact recall, which a lossless re-encode (JPEG -> PNG, PNG re-saved) keeps and sha256 doesn't.
    pixels: str = ""
    version: int = FINGERPRINT_VERSION


def normalise_merchant(name: str | None) -> str:
    if not name:
        return ""
    s = unicodedata.normalize("NFKD", name)
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).lower().replace("&", " and ")
    s = re.sub(r"[^\w\s]", " ", s)
    return " ".join(s.split())


def normalise_number(value: str | None) -> str | None:
    if not value:
        return None
    s = re.sub(r"[^0-9a-z]", "", value.lower())
    return s or None


def cents(value: float | None) -> int | None:
    return None if value is None else int(round(value * 100))


def make_fingerprint(
    file_bytes: bytes, image: Image.Image, fields: Fields, line_items: list[LineItem] | None
) -> Fingerprint:
    """Fingerprint one submission: ``image`` is the receipt as checked (upright), ``fields`` what was read."""
    items = tuple(sorted(c for c in (cents(li.total) for li in line_items or []) if c is not None and c != 0))
    return Fingerprint(
        sha256=hashlib.sha256(file_bytes).hexdigest(),
        phash=phash(image),
        merchant=normalise_merchant(fields.merchant),
        date=fields.date or None,
        total=cents(fields.total),
        subtotal=cents(fields.subtotal),
        tax_total=cents(fields.tax_total),
        receipt_number=normalise_number(fields.receipt_number),
        items=items,
        pixels=pixel_hash(image),
    )


def pixel_hash(image: Image.Image) -> str:
    """sha256 over the decoded image as checked: its mode, size and raw pixel bytes."""
    h = hashlib.sha256(f"{image.mode}:{image.width}x{image.height}:".encode())
    h.update(image.tobytes())
    return h.hexdigest()


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


# --- perceptual hash -------------------------------------------------------------------------


def _dct_matrix(n: int) -> np.ndarray:
    k = np.arange(n)[:, None]
    i = np.arange(n)[None, :]
    m = np.cos(np.pi * (2 * i + 1) * k / (2 * n)) * np.sqrt(2 / n)
    m[0] /= np.sqrt(2)
    return m


_DCT = _dct_matrix(HASH_PX)


def normalise(image: Image.Image) -> np.ndarray:
    """Grey, cropped to the printed content, deskewed; float32 in [0, 255], dark ink on light paper."""
    g = image.convert("L")
    g.thumbnail((WORK_PX, WORK_PX * 3), Image.Resampling.BOX)
    a = np.asarray(g, dtype=np.float32)
    framed = _crop_to_paper(a)
    photo = framed.shape != a.shape  # paper on a background: its edges and shadows are not print
    a = framed
    ink = _ink_mask(a)
    angle = _skew(ink)
    if angle:
        img = Image.fromarray(a.astype(np.uint8)).rotate(
            angle, resample=Image.Resampling.BILINEAR, expand=True, fillcolor=int(np.median(a))
        )
        a = np.asarray(img, dtype=np.float32)
        ink = _ink_mask(a)
    return _crop_to_ink(a, ink, edges=photo)


def phash(image: Image.Image) -> int:
    a = normalise(image)
    small = np.asarray(
        Image.fromarray(a.astype(np.uint8)).resize((HASH_PX, HASH_PX), Image.Resampling.BOX), dtype=np.float64
    )
    coeffs = (_DCT @ small @ _DCT.T)[:8, :8].ravel()
    med = np.median(coeffs[1:])
    bits = coeffs > med
    out = 0
    for b in bits:
        out = (out << 1) | int(b)
    return out


def _crop_to_paper(a: np.ndarray) -> np.ndarray:
    """Drop background around the paper: rows/columns mostly darker than the paper."""
    hi = np.percentile(a, 90)
    bright = a > hi * 0.75
    rows = np.nonzero(bright.mean(axis=1) > 0.5)[0]
    cols = np.nonzero(bright.mean(axis=0) > 0.5)[0]
    if len(rows) < 8 or len(cols) < 8:
        return a
    return a[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def _ink_mask(a: np.ndarray) -> np.ndarray:
    """Ink = clearly darker than the local paper (a coarse max-filtered background), so shading
    and uneven light across a photo do not read as ink."""
    from PIL import ImageFilter

    h, w = a.shape
    small = Image.fromarray(a.astype(np.uint8)).resize((max(1, w // 16), max(1, h // 16)), Image.Resampling.BOX)
    bg = small.filter(ImageFilter.MaxFilter(3)).resize((w, h), Image.Resampling.BILINEAR)
    bg = np.maximum(np.asarray(bg, dtype=np.float32), 1.0)
    return a / bg < 0.6


def _skew(ink: np.ndarray) -> float:
    if ink.sum() < 50:
        return 0.0
    img = Image.fromarray((ink * 255).astype(np.uint8))
    best, best_score = 0.0, -1.0
    for ang in sorted(SKEW_ANGLES, key=abs):  # ties go to the smaller angle
        r = np.asarray(img.rotate(ang, resample=Image.Resampling.NEAREST, expand=True), dtype=np.float32)
        score = float(r.sum(axis=1).var())
        if score > best_score * 1.0001:
            best, best_score = ang, score
    return best if abs(best) >= 0.5 else 0.0


def _crop_to_ink(a: np.ndarray, ink: np.ndarray, *, edges: bool) -> np.ndarray:
    """Crop to the printed text: ink pixel extent (0.3-99.7 percentiles), ignoring columns and rows
    that are mostly "ink" (paper edges, shadows, ruled borders)."""
    ink = ink.copy()
    h, w = ink.shape
    if edges:
        my, mx = max(1, h * 3 // 100), max(1, w * 3 // 100)  # paper edges and their shadows live here
        ink[:my], ink[-my:], ink[:, :mx], ink[:, -mx:] = False, False, False, False
    ink[:, ink.mean(axis=0) > 0.5] = False
    ink[ink.mean(axis=1) > 0.5, :] = False
    ys, xs = np.nonzero(ink)
    if len(ys) < 20:
        return a
    y0, y1 = np.percentile(ys, [0.3, 99.7]).astype(int)
    x0, x1 = np.percentile(xs, [0.3, 99.7]).astype(int)
    if y1 - y0 < 8 or x1 - x0 < 8:
        return a
    return a[y0 : y1 + 1, x0 : x1 + 1]
