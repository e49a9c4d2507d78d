"""Does the EXIF thumbnail still show the image? Compared locally, block by block.

Why local: an edited receipt differs from its original in a few characters
(the total, the date), which moves the *mean* difference of a whole thumbnail
by almost nothing. We fit the thumbnail to the image (trying the stored
orientation and the EXIF-upright one, and stretch / letterbox / crop-to-fill
for aspect differences), take the best fit, and look at the worst block of a
grid of small blocks against the typical block: a re-compressed but unedited
image has a flat residual, an edit leaves a few blocks far above the rest.
"""

from __future__ import annotations

import io

import msgspec
import numpy as np
from PIL import Image

MAX_THUMB_PIXELS = 1_000_000
BLOCK = 6  # px of the thumbnail grid
# A block is "different" when its mean residual exceeds both the absolute floor
# (grey levels) and RATIO x the median block residual (the re-compression noise).
ABS_FLOOR = 14.0
RATIO = 5.0
MIN_OVERLAP_FRACTION = 0.5  # letterbox bars may cover at most half the thumbnail


class ThumbResult(msgspec.Struct, frozen=True):
    checked: bool
    mismatch: bool = False
    score: float = 0.0  # worst block residual / max(ABS_FLOOR, RATIO x median); >= 1 means mismatch
    worst_block: float = 0.0  # grey levels
    median_block: float = 0.0
    changed_fraction: float = 0.0  # share of blocks over the threshold
    boxes: list[tuple[float, float, float, float]] = []  # differing blocks, fractions of the upright image
    fit: str = ""
    detail: str = ""


def compare(thumb_bytes: bytes, image: Image.Image, orientation: int = 1) -> ThumbResult:
    """Compare an EXIF thumbnail with the primary image as stored (``image`` not yet transposed)."""
    try:
        t = Image.open(io.BytesIO(thumb_bytes))
        if t.width * t.height > MAX_THUMB_PIXELS or t.width < 16 or t.height < 16:
            return ThumbResult(False, detail=f"thumbnail of {t.width}x{t.height} px not compared")
        t = np.asarray(t.convert("L"), dtype=np.float32)
    except Exception as e:  # PIL raises many types on a broken JPEG
        return ThumbResult(False, detail=f"thumbnail could not be decoded: {type(e).__name__}")
    frames = [("stored", image)]
    if orientation != 1:
        frames.append(("upright", upright(image, orientation)))
    best: ThumbResult | None = None
    for frame_name, frame in frames:
        g = frame.convert("L")
        for fit in ("stretch", "letterbox", "fill"):
            r = _score(t, g, fit)
            if r is None:
                continue
            r = msgspec.structs.replace(r, fit=f"{frame_name}/{fit}")
            if frame_name == "stored" and orientation != 1:
                r = msgspec.structs.replace(r, boxes=[_orient_box(b, orientation) for b in r.boxes])
            if best is None or r.score < best.score:
                best = r
    if best is None:
        return ThumbResult(False, detail="thumbnail and image could not be aligned")
    return best


_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def upright(image: Image.Image, orientation: int) -> Image.Image:
    """The image as displayed under EXIF ``orientation`` (what ImageOps.exif_transpose does)."""
    method = _TRANSPOSE.get(orientation)
    return image.transpose(method) if method is not None else image


def _score(t: np.ndarray, g: Image.Image, fit: str) -> ThumbResult | None:
    th, tw = t.shape
    gw, gh = g.size
    if fit == "stretch":
        region = (0, 0, tw, th)
        m = g.resize((tw, th), Image.Resampling.BOX if gw >= tw else Image.Resampling.BILINEAR)
    elif fit == "letterbox":
        s = min(tw / gw, th / gh)
        cw, ch = max(1, round(gw * s)), max(1, round(gh * s))
        if cw == tw and ch == th or cw * ch < MIN_OVERLAP_FRACTION * tw * th:
            return None
        x0, y0 = (tw - cw) // 2, (th - ch) // 2
        region = (x0, y0, x0 + cw, y0 + ch)
        m = g.resize((cw, ch), Image.Resampling.BOX)
    else:  # fill: centre-crop the image to the thumbnail's aspect
        s = max(tw / gw, th / gh)
        cw, ch = tw / s, th / s
        if abs(cw - gw) < 1 and abs(ch - gh) < 1:
            return None
        left, top = (gw - cw) / 2, (gh - ch) / 2
        region = (0, 0, tw, th)
        m = g.resize((tw, th), Image.Resampling.BOX, box=(left, top, left + cw, top + ch))
    x0, y0, x1, y1 = region
    a = _blur(t[y0:y1, x0:x1])
    b = _blur(np.asarray(m, dtype=np.float32))
    if a.shape != b.shape or a.size < 64:
        return None
    # least-squares tone match: thumbnails are often re-toned / differently compressed
    bm, am = b.mean(), a.mean()
    var = ((b - bm) ** 2).mean()
    gain = float(((a - am) * (b - bm)).mean() / var) if var > 1e-6 else 1.0
    gain = min(max(gain, 0.5), 2.0)
    resid = np.abs(a - (am + gain * (b - bm)))
    blocks, boxes = _blocks(resid)
    med = float(np.median(blocks))
    worst = float(blocks.max())
    thresh = max(ABS_FLOOR, RATIO * med)
    over = blocks > thresh
    h, w = resid.shape
    frac_boxes = []
    for (i, j) in zip(*np.nonzero(over)):
        bx0, by0, bx1, by1 = boxes[i][j]
        frac_boxes.append((bx0 / w, by0 / h, bx1 / w, by1 / h))
    return ThumbResult(
        True,
        mismatch=bool(over.any()),
        score=worst / thresh,
        worst_block=worst,
        median_block=med,
        changed_fraction=float(over.mean()),
        boxes=frac_boxes[:64],
    )


def _blur(a: np.ndarray) -> np.ndarray:
    """3x3 box blur (edge-replicated): damps JPEG ringing and 1-px resampling shifts."""
    p = np.pad(a, 1, mode="edge")
    h, w = a.shape
    return sum(p[dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3)) / 9.0


def _blocks(resid: np.ndarray) -> tuple[np.ndarray, list[list[tuple[int, int, int, int]]]]:
    h, w = resid.shape
    ys = list(range(0, h, BLOCK))
    xs = list(range(0, w, BLOCK))
    out = np.zeros((len(ys), len(xs)), dtype=np.float32)
    boxes: list[list[tuple[int, int, int, int]]] = []
    for i, y in enumerate(ys):
        row = []
        for j, x in enumerate(xs):
            y1, x1 = min(h, y + BLOCK), min(w, x + BLOCK)
            out[i, j] = resid[y:y1, x:x1].mean()
            row.append((x, y, x1, y1))
        boxes.append(row)
    return out, boxes


def _orient_box(box: tuple[float, float, float, float], orientation: int) -> tuple[float, float, float, float]:
    """Map a fractional box from the stored frame to the EXIF-upright frame."""
    x0, y0, x1, y1 = box
    maps = {
        2: lambda x, y: (1 - x, y),
        3: lambda x, y: (1 - x, 1 - y),
        4: lambda x, y: (x, 1 - y),
        5: lambda x, y: (y, x),
        6: lambda x, y: (1 - y, x),
        7: lambda x, y: (1 - y, 1 - x),
        8: lambda x, y: (y, 1 - x),
    }
    f = maps.get(orientation)
    if f is None:
        return box
    pts = [f(x0, y0), f(x1, y1)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))
