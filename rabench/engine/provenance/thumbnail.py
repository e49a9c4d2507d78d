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
MAX_COMPARE_PX = 320
DRAFT_FACTOR = 4  # the primary image is decoded at >= this many times the thumbnail (JPEG DCT scaling)
BLOCK = 8  # px of the thumbnail grid (blocks overlap by half)
# A block differs when its structure decorrelates (1 - NCC >= NCC_LIMIT, textured blocks)
# or its mean grey level moves by ABS_FLOOR (flat blocks), and it stands out from the
# typical textured block by RATIO (so a noisy, low-quality thumbnail is not all "different").
ABS_FLOOR = 24.0
NCC_LIMIT = 0.15
RATIO = 6.0
TEXTURE_STD = 8.0
GLOBAL_NCC = 0.15  # median 1 - NCC at which the whole thumbnail is a different picture
MIN_OVERLAP_FRACTION = 0.2  # the image must cover at least this share of a letterboxed thumbnail


class ThumbResult(msgspec.Struct, frozen=True):
    checked: bool
    mismatch: bool = False
    score: float = 0.0  # worst block score; >= 1 means that block differs
    worst_block: float = 0.0  # worst 1 - NCC over textured blocks
    median_block: float = 0.0  # median 1 - NCC over textured blocks
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
        if max(t.size) > MAX_COMPARE_PX:  # thresholds were set at <= 320 px; finer detail only adds filter noise
            t.draft("L", (MAX_COMPARE_PX, MAX_COMPARE_PX))
            t = t.convert("L")
            t.thumbnail((MAX_COMPARE_PX, MAX_COMPARE_PX), Image.Resampling.BOX)
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
        # clamped: tw / (tw / gw) can exceed gw by a rounding error, and Pillow refuses a box
        # outside the image ("box offset can't be negative")
        left, top = max(0.0, (gw - cw) / 2), max(0.0, (gh - ch) / 2)
        region = (0, 0, tw, th)
        m = g.resize((tw, th), Image.Resampling.BOX, box=(left, top, min(float(gw), left + cw), min(float(gh), top + ch)))
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
    fitted = am + gain * (b - bm)
    scores, boxes, worst_ncc, med_ncc = _block_scores(a, fitted)
    over = scores >= 1.0
    h, w = a.shape
    frac_boxes = [(bx0 / w, by0 / h, bx1 / w, by1 / h) for (bx0, by0, bx1, by1), o in zip(boxes, over) if o]
    return ThumbResult(
        True,
        mismatch=bool(over.any()),
        score=float(scores.max()) if len(scores) else 0.0,
        worst_block=worst_ncc,
        median_block=med_ncc,
        changed_fraction=float(over.mean()) if len(over) else 0.0,
        boxes=frac_boxes[:64],
    )


def _block_scores(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int, int, int]], float, float]:
    """Per overlapping block: max of (1 - NCC) / NCC_LIMIT on textured blocks and mean |diff| / ABS_FLOOR.

    NCC (structure) ignores the contrast loss of resampling on text edges, which
    a plain difference would read as change; flat paper blocks use the difference."""
    h, w = a.shape
    if h < BLOCK or w < BLOCK:
        return np.zeros(0, np.float32), [], 0.0, 0.0
    step = BLOCK // 2
    win = np.lib.stride_tricks.sliding_window_view
    pa = win(a, (BLOCK, BLOCK))[::step, ::step].reshape(-1, BLOCK * BLOCK)
    pb = win(b, (BLOCK, BLOCK))[::step, ::step].reshape(-1, BLOCK * BLOCK)
    ny = len(range(0, h - BLOCK + 1, step))
    nx = len(range(0, w - BLOCK + 1, step))
    diff = np.abs(pa - pb).mean(axis=1)
    va, vb = pa - pa.mean(axis=1, keepdims=True), pb - pb.mean(axis=1, keepdims=True)
    den = np.sqrt((va * va).sum(axis=1) * (vb * vb).sum(axis=1)) + 1e-6
    dncc = 1.0 - (va * vb).sum(axis=1) / den
    textured = np.maximum(pa.std(axis=1), pb.std(axis=1)) >= TEXTURE_STD
    scores = diff / ABS_FLOOR
    scores = np.where(textured, np.maximum(scores, dncc / NCC_LIMIT), scores).astype(np.float32)
    nccs = dncc[textured]
    med = float(np.median(nccs)) if nccs.size else 0.0
    if nccs.size and RATIO * med > NCC_LIMIT:  # noisy thumbnail: a block must stand out from the typical one
        scores = scores * (NCC_LIMIT / (RATIO * med))
    if med >= GLOBAL_NCC:  # the typical block already differs: a different picture altogether
        scores = np.maximum(scores, np.float32(med / GLOBAL_NCC))
    boxes = [(x, y, x + BLOCK, y + BLOCK) for y in range(0, ny * step, step) for x in range(0, nx * step, step)]
    return scores, boxes, float(nccs.max()) if nccs.size else 0.0, med


def _blur(a: np.ndarray) -> np.ndarray:
    """Two 3x3 box blurs (edge-replicated): damp JPEG ringing, 1-px resampling shifts and the
    aliasing of fine patterns (barcodes) that different thumbnail filters produce."""
    for _ in range(2):
        p = np.pad(a, 1, mode="edge")
        h, w = a.shape
        a = sum(p[dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3)) / 9.0
    return a


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
