"""Does the EXIF thumbnail still show the image? Compared at the thumbnail's scale, window by window.

A camera writes the thumbnail from the picture it saves, so a thumbnail that no
longer shows the image proves the image was changed afterwards. What differs
between an honest pair is how each was made: the device's reduction filter
(area, bilinear, Lanczos, even point sampling, which aliases receipt print into
speckle), JPEG quality, sharpening, tone curves, a few pixels of crop, and what
editors and messaging apps do to the image later (re-encoding, resizing). None
of that may look like an edit. An edit is an *area* whose print changed (a
repainted total, a new line) or a different picture. So, at the thumbnail's
resolution (at most ``MAX_COMPARE_PX``):

1. Fit: the image (as stored, and EXIF-upright) is area-resampled onto the
   thumbnail, stretched, letterboxed (where the thumbnail has flat bars) or
   centre-cropped; the two fits that correlate best are aligned.
2. Align: affine ECC from two starts at two blurs, best correlation kept (crops
   of a few percent, sub-pixel offsets); then the reduction filter (box,
   bilinear, Lanczos) that reproduces the thumbnail best.
3. Residual: both blurred (``BLUR``, more for an aliased thumbnail), the image
   refiltered to the thumbnail by one gain per frequency band (sharpening,
   softening), fitted locally in grey level (guided filter: tone curves), and
   shading slower than print removed (``HIGHPASS``).
4. Windows the size of an amount (``WINDOW`` per 160 px): the residual's energy
   over the energy of the print in both images, about 1 - the window's
   correlation. A resampling filter, sharpening or aliasing raises it on all
   print alike; an edit in one window. So a window differs when it reaches
   ``LOCAL_STANDOUT`` times this pair's own 95th percentile (its noise,
   calibrated per pair) and ``LOCAL_FLOOR``, raised in proportion to the
   thumbnail's aliasing (point sampling scrambles print unevenly); a different picture is a
   correlation below ``DIFFERENT_CORR`` after alignment. A crop (the image lacks
   part of what the thumbnail shows) is reported, never proof.

The bars were set on genuine pairs made from real receipts and are 1.5 times
what the worst of them reached (docs/engine.md, "Thumbnail mismatch").
"""

from __future__ import annotations

import io

import cv2
import msgspec
import numpy as np
from PIL import Image

MAX_THUMB_PIXELS = 1_000_000
MAX_COMPARE_PX = 320
DRAFT_FACTOR = 4  # the primary image is decoded at >= this many times the thumbnail (JPEG DCT scaling)
MIN_SIDE = 16
MIN_CONTRAST = 5.0  # grey-level spread (std) below which a thumbnail says too little to compare
FILTERS = (Image.Resampling.BILINEAR, Image.Resampling.LANCZOS)  # tried after the box filter
RECHECK_CC = 0.97  # correlation after alignment below which the crop starts and scale search run
# Lengths in px are per 160 px of thumbnail (scaled with its size).
BLUR = 1.0  # both images, before comparing; raised for an aliased thumbnail
ALIAS_FREE = 1.2  # aliasing (see _aliasing) up to which the thumbnail counts as properly filtered
ALIAS_MAX_BLUR = 3.0  # at most this many times BLUR
GUIDE_SIGMA = 8.0  # neighbourhood of the local grey-level fit
GUIDE_EPS = 25.0  # grey levels^2: below this local variance the fit falls back to the local mean
HIGHPASS = 3.0  # residual slower than this (shading, stains) is removed
DETAIL = 2.0  # print = what a blur of this radius removes
WINDOW = 12  # side of the square windows compared (an amount, a word)
BAND = 0.06  # share of each side next to the border where windows are not judged
PRINT_SHARE = 0.25  # a judged window holds at least this share of the 90th percentile's print
PEER_RANGE = 2.0  # windows within this factor of a window's print are its peers (see peer_bar)
PEER_MIN = 200  # fewer peers than this (window positions) and the pair's spread alone decides
NOISE_FLOOR = 0.25  # grey levels^2, the least residual noise a pair is credited with
# Decisions, set on genuine pairs made from real receipts (docs/engine.md, "Thumbnail mismatch"):
# a window differs when its residual share reaches LOCAL_STANDOUT times the 95th percentile of
# this pair's windows and at least LOCAL_FLOOR, both times the thumbnail's aliasing over
# ALIAS_FREE (a point-sampled thumbnail scrambles print in places). The worst of 486 genuine
# pairs reached 0.68 of max(5 x p95, 0.12) x that factor; the bar is 1.5 times that.
LOCAL_STANDOUT = 5.1
LOCAL_FLOOR = 0.123
OPINION_SHARE = (
    0.75  # a local score from this share of the bar (above every genuine pair of the calibration) to 1 is an opinion
)
DIFFERENT_CORR = 0.75  # correlation after alignment below which it is a different picture (genuine >= 0.84)
CROP_LIMIT = 0.08  # share of a thumbnail side the aligned image may leave uncovered (a fact, never proof)
CROP_MIN_CC = 0.9  # a crop is reported only when the image matches the part it covers this well
MAX_BOXES = 16


class ThumbResult(msgspec.Struct, frozen=True):
    checked: bool
    mismatch: bool = False
    kind: str = ""  # "local" | "different" when mismatch
    score: float = 0.0  # the stronger finding over its bar: >= 1 means mismatch
    local: float = 0.0  # the most differing window over its bar (>= OPINION_SHARE: an opinion)
    window: float = 0.0  # that window's residual share (about 1 - its correlation)
    typical: float = 0.0  # the median window's residual share
    spread: float = 0.0  # the 95th percentile's
    correlation: float = 0.0  # thumbnail vs aligned image
    uncovered: float = 0.0  # largest share of a thumbnail side the aligned image does not cover
    noise: float = 0.0  # residual noise floor of this pair (grey levels)
    aliasing: float = 0.0  # fine-detail energy of the thumbnail over the area-resampled image's
    boxes: list[tuple[float, float, float, float]] = []  # differing regions, fractions of the upright image
    fit: str = ""
    size: tuple[int, int] = (0, 0)  # compared at (width, height)
    detail: str = ""

    @property
    def cropped(self) -> bool:
        """The image lacks part of what the thumbnail shows (cropped after it was written)."""
        return self.checked and self.uncovered > CROP_LIMIT and self.correlation >= CROP_MIN_CC


def compare(thumb_bytes: bytes, image: Image.Image, orientation: int = 1) -> ThumbResult:
    """Compare an EXIF thumbnail with the primary image as stored (``image`` not yet transposed)."""
    try:
        t = Image.open(io.BytesIO(thumb_bytes))
        if t.width * t.height > MAX_THUMB_PIXELS or t.width < MIN_SIDE or t.height < MIN_SIDE:
            return ThumbResult(False, detail=f"thumbnail of {t.width}x{t.height} px not compared")
        if max(t.size) > MAX_COMPARE_PX:
            t.draft("L", (MAX_COMPARE_PX, MAX_COMPARE_PX))
            t = t.convert("L")
            t.thumbnail((MAX_COMPARE_PX, MAX_COMPARE_PX), Image.Resampling.BOX)
        thumb = np.asarray(t.convert("L"), dtype=np.float32)
    except Exception as e:  # Pillow raises many types on a broken JPEG
        return ThumbResult(False, detail=f"thumbnail could not be decoded: {type(e).__name__}")
    frames = [("stored", image)] + ([("upright", upright(image, orientation))] if orientation != 1 else [])
    candidates = []
    for frame_name, frame in frames:
        g = frame.convert("L")
        for fit, src_box, content in _fits(thumb, g.size):
            x0, y0, x1, y1 = content
            tc = thumb[y0:y1, x0:x1]
            m = _resample(g, (x1 - x0, y1 - y0), src_box)
            candidates.append((_ncc(_blur(tc, 2.0), _blur(m, 2.0)), frame_name, fit, src_box, content, tc, m, g))
    candidates.sort(key=lambda c: -c[0])
    best: tuple[float, ThumbResult] | None = None
    for _, frame_name, fit, src_box, content, tc, m, g in candidates[:2]:
        gsize = g.size
        aligned, covered, warp, cc = _register(tc, m)
        # the device's own reduction filter is unknown: use the one that reproduces it best
        h, w = tc.shape
        a1 = _blur(tc, BLUR)
        for method in FILTERS:
            alt = _warp(_resample(g, (w, h), src_box, method), warp, (w, h))
            alt_cc = _ncc(a1[covered], _blur(alt, BLUR)[covered])
            if alt_cc > cc:
                aligned, cc = alt, alt_cc
        r = _judge(tc, aligned, covered, warp)
        boxes = [_to_image(b, content, src_box, gsize, tc.shape) for b in r[0]]
        if frame_name == "stored" and orientation != 1:
            boxes = [_orient_box(b, orientation) for b in boxes]
        res = msgspec.structs.replace(
            r[1], boxes=boxes[:MAX_BOXES], fit=f"{frame_name}/{fit}", size=(tc.shape[1], tc.shape[0])
        )
        if best is None or cc > best[0]:
            best = (cc, res)
    if best is None:
        return ThumbResult(False, detail="thumbnail and image could not be aligned")
    return best[1]


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


Box = tuple[int, int, int, int]
FloatBox = tuple[float, float, float, float]


def _fits(thumb: np.ndarray, gsize: tuple[int, int]) -> list[tuple[str, FloatBox | None, Box]]:
    """(name, region of the image used or None for all of it, region of the thumbnail it fills)."""
    th, tw = thumb.shape
    gw, gh = gsize
    out: list[tuple[str, FloatBox | None, Box]] = [("stretch", None, (0, 0, tw, th))]
    ta, ga = tw / th, gw / gh
    if abs(ta / ga - 1) <= 0.02:
        return out
    s = min(tw / gw, th / gh)
    cw, ch = max(1, round(gw * s)), max(1, round(gh * s))
    x0, y0 = (tw - cw) // 2, (th - ch) // 2
    content = (x0, y0, x0 + cw, y0 + ch)
    if cw >= MIN_SIDE and ch >= MIN_SIDE and _bars_uniform(thumb, content):
        out.append(("letterbox", None, content))
    else:
        # bars found in the thumbnail itself: a camera letterboxes what it saw, which may be a few
        # percent more than the saved image (cropped afterwards), so the content's aspect only
        # roughly matches the image's
        bars = _flat_bars(thumb)
        if bars is not None and bars != (0, 0, tw, th):
            bx0, by0, bx1, by1 = bars
            if bx1 - bx0 >= MIN_SIDE and by1 - by0 >= MIN_SIDE and abs(((bx1 - bx0) / (by1 - by0)) / ga - 1) <= 0.08:
                out.append(("letterbox", None, bars))
    # centre-crop of the image to the thumbnail's aspect, clamped: tw / (tw / gw) can exceed gw by a
    # rounding error, and Pillow refuses a box outside the image ("box offset can't be negative")
    if ga > ta:
        w = gh * ta
        box = (max(0.0, (gw - w) / 2), 0.0, min(float(gw), (gw + w) / 2), float(gh))
    else:
        h = gw / ta
        box = (0.0, max(0.0, (gh - h) / 2), float(gw), min(float(gh), (gh + h) / 2))
    out.append(("fill", box, (0, 0, tw, th)))
    return out


def _flat_bars(thumb: np.ndarray) -> Box | None:
    """The thumbnail's content box inside flat bars along its sides (rows / columns of one grey
    level, as the sides' own first rows are), or None when it has none."""
    th, tw = thumb.shape
    x0, y0, x1, y1 = 0, 0, tw, th

    def flat(line: np.ndarray, level: float) -> bool:
        return float(line.std()) < 6.0 and abs(float(line.mean()) - level) < 12.0

    top, bottom = float(thumb[0].mean()), float(thumb[-1].mean())
    left, right = float(thumb[:, 0].mean()), float(thumb[:, -1].mean())
    while y0 < th // 2 and flat(thumb[y0], top):
        y0 += 1
    while y1 > th // 2 and flat(thumb[y1 - 1], bottom):
        y1 -= 1
    while x0 < tw // 2 and flat(thumb[y0:y1, x0], left):
        x0 += 1
    while x1 > tw // 2 and flat(thumb[y0:y1, x1 - 1], right):
        x1 -= 1
    # a bar is at least 2 px and both sides of an axis have one (centred letterbox)
    if (y0 >= 2 and th - y1 >= 2) or (x0 >= 2 and tw - x1 >= 2):
        if not (y0 >= 2 and th - y1 >= 2):
            y0, y1 = 0, th
        if not (x0 >= 2 and tw - x1 >= 2):
            x0, x1 = 0, tw
        return (x0, y0, x1, y1)
    return None


def _bars_uniform(thumb: np.ndarray, content: Box) -> bool:
    """Letterbox bars are flat (black, white or grey); a thumbnail without them is not letterboxed."""
    x0, y0, x1, y1 = content
    bars = [p for p in (thumb[:y0], thumb[y1:], thumb[:, :x0], thumb[:, x1:]) if p.size]
    return bool(bars) and all(float(p.std()) < 10.0 for p in bars)


def _resample(
    g: Image.Image, size: tuple[int, int], box: FloatBox | None, method: Image.Resampling | None = None
) -> np.ndarray:
    """Area (box-filter) resampling, the way cameras reduce; bilinear when enlarging."""
    if method is None:
        method = Image.Resampling.BOX if g.width >= size[0] else Image.Resampling.BILINEAR
    return np.asarray(g.resize(size, method, box=box), dtype=np.float32)


def _blur(a: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(a, (0, 0), sigma, borderType=cv2.BORDER_REFLECT)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum()) / den if den > 1e-6 else 0.0


def _register(tc: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Affine ECC alignment of ``m`` onto ``tc``: (aligned, covered mask, warp, correlation).

    ECC finds a local optimum, and on a mostly blank page a blurred start can slide away, so it
    starts from the identity and from the phase-correlation shift at two blurs; when that does
    not align well, also from crops of 15 % and 25 % of each side (an image cropped after the
    thumbnail was written), kept only if they then match well. The result that correlates best
    over the covered area wins. Warps that shear, shrink the image, enlarge it by more than 20 %
    (60 % from a crop start), or leave it covering under half the thumbnail are rejected."""
    h, w = tc.shape
    a1 = _blur(tc, BLUR)
    starts = [np.eye(2, 3, dtype=np.float32)]
    (dx, dy), _ = cv2.phaseCorrelate(_blur(m, 1.0).astype(np.float64), _blur(tc, 1.0).astype(np.float64))
    if abs(dx) < 0.2 * w and abs(dy) < 0.2 * h and (abs(dx) >= 0.5 or abs(dy) >= 0.5):
        starts.append(np.array([[1, 0, -dx], [0, 1, -dy]], dtype=np.float32))
    best = (np.eye(2, 3, dtype=np.float32), _ncc(a1, _blur(m, BLUR)))
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-6)

    def attempt(
        start: np.ndarray, sigmas: tuple[float, ...] = (1.0, 1.5), min_cc: float = -1.0, top: float = 1.2
    ) -> None:
        nonlocal best
        for sigma in sigmas:
            try:
                _, warp = cv2.findTransformECC(
                    _blur(tc, sigma), _blur(m, sigma), start.copy(), cv2.MOTION_AFFINE, criteria, None, 1
                )
            except cv2.error:  # "did not converge" on flat or unrelated content: keep the other starts
                continue
            if (
                not (0.8 <= warp[0, 0] <= top and 0.8 <= warp[1, 1] <= top)
                or max(abs(warp[0, 1]), abs(warp[1, 0])) > 0.1
            ):
                continue
            covered = _warp(np.ones_like(m), warp, (w, h), border=cv2.BORDER_CONSTANT) > 0.999
            if covered.mean() < 0.5:
                continue
            cc = _ncc(a1[covered], _blur(_warp(m, warp, (w, h)), BLUR)[covered])
            if cc > best[1] and cc >= min_cc:
                best = (warp, cc)

    for start in starts:
        attempt(start)
    if best[1] < RECHECK_CC:
        # ECC can fail outright on a narrow, faint page: search scale per axis (a crop of up to
        # 4 % a side) with the phase-correlation shift, keep the best, then refine it
        grid = _grid_search(tc, m, a1)
        if grid[1] > best[1]:
            best = grid
            attempt(grid[0])
        for cut in (0.15, 0.25):
            k = 1 / (1 - cut)
            for start in (
                [[k, 0, 0], [0, 1, 0]],
                [[k, 0, -cut * w * k], [0, 1, 0]],
                [[1, 0, 0], [0, k, 0]],
                [[1, 0, 0], [0, k, -cut * h * k]],
            ):
                # kept only when the image then matches the part it covers well: a different
                # picture must not pass for a crop of a lookalike corner
                attempt(np.array(start, dtype=np.float32), (1.5,), CROP_MIN_CC, 1.6)
    warp = best[0]
    covered = _warp(np.ones_like(m), warp, (w, h), border=cv2.BORDER_CONSTANT) > 0.999
    return _warp(m, warp, (w, h)), covered, warp, best[1]


def _grid_search(tc: np.ndarray, m: np.ndarray, a1: np.ndarray) -> tuple[np.ndarray, float]:
    h, w = tc.shape
    best = (np.eye(2, 3, dtype=np.float32), -1.0)
    b1 = _blur(m, BLUR)
    for sx in (1.0, 1.02, 1.04, 1.06, 1.08):
        for sy in (1.0, 1.02, 1.04, 1.06, 1.08):
            # thumbnail -> image coordinates, scaled about the centre, then the residual shift
            warp = np.array([[sx, 0, (1 - sx) * w / 2], [0, sy, (1 - sy) * h / 2]], dtype=np.float32)
            moved = _warp(b1, warp, (w, h))
            (dx, dy), _ = cv2.phaseCorrelate(moved.astype(np.float64), a1.astype(np.float64))
            if abs(dx) > 0.1 * w or abs(dy) > 0.1 * h:
                continue
            warp[0, 2] -= sx * dx
            warp[1, 2] -= sy * dy
            covered = _warp(np.ones_like(m), warp, (w, h), border=cv2.BORDER_CONSTANT) > 0.999
            if covered.mean() < 0.5:
                continue
            cc = _ncc(a1[covered], _warp(b1, warp, (w, h))[covered])
            if cc > best[1]:
                best = (warp, cc)
    return best


def _warp(a: np.ndarray, warp: np.ndarray, size: tuple[int, int], border: int = cv2.BORDER_REPLICATE) -> np.ndarray:
    return cv2.warpAffine(
        a, warp, size, flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP, borderMode=border, borderValue=0
    )


def _judge(tc: np.ndarray, aligned: np.ndarray, covered: np.ndarray, warp: np.ndarray) -> tuple[list[Box], ThumbResult]:
    h, w = tc.shape
    px = max(1.0, max(h, w) / 160)  # lengths below are per 160 px of thumbnail
    # where the image does not reach (a crop's margin), use the thumbnail's own pixels so the
    # local fits next to it see no difference there; the uncovered share is reported on its own
    filled = np.where(covered, aligned, tc)
    alias = _aliasing(tc, filled, covered)
    sigma = BLUR * min(ALIAS_MAX_BLUR, max(1.0, alias / ALIAS_FREE))
    a, b = _blur(tc, sigma), _blur(filled, sigma)
    inner = cv2.erode(covered.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    inner[:2], inner[-2:], inner[:, :2], inner[:, -2:] = False, False, False, False
    if inner.sum() < 64:
        return [], ThumbResult(False, detail="the aligned image leaves too little of the thumbnail to compare")
    contrast = float(a[inner].std())
    if contrast < MIN_CONTRAST:  # a blank or blown-out thumbnail says nothing to compare
        return [], ThumbResult(False, detail=f"thumbnail too flat to compare (grey-level spread {contrast:.1f})")
    b = _band_fit(a, b, inner)
    corr = _ncc(a[inner], b[inner])
    b = _guided(a, b, GUIDE_SIGMA * px)
    resid = a - b
    resid = resid - _blur(resid, HIGHPASS * px)  # shading and stains vary slower than print
    # per window the size of an amount: the residual's energy over the print's (both images'
    # detail), i.e. about 1 - the window's correlation; flat paper adds its noise floor
    side = max(3, round(WINDOW * px)) | 1
    da, db = a - _blur(a, DETAIL * px), b - _blur(b, DETAIL * px)
    mask = inner.astype(np.float32)

    def box(x: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(
            (x * mask).astype(np.float32), -1, (side, side), normalize=False, borderType=cv2.BORDER_CONSTANT
        )

    printed = box(da * da + db * db)
    edge = np.abs(da) + np.abs(db)
    flat = inner & (edge < np.percentile(edge[inner], 40))
    floor = max(float(np.median(resid[flat] ** 2)) if flat.sum() > 20 else 1.0, NOISE_FLOOR)
    ratio = box(resid * resid) / (printed + 4.0 * floor * box(np.ones_like(resid)) + 1e-6)
    # judged: windows wholly on the compared area, away from the border band, with print in them
    judged = np.zeros_like(inner)
    bx, by = max(1, round(BAND * w)), max(1, round(BAND * h))
    judged[by : h - by, bx : w - bx] = True
    judged &= cv2.erode(inner.astype(np.uint8), np.ones((side, side), np.uint8)) > 0
    if judged.sum() < 10:
        return [], ThumbResult(False, detail="the aligned image leaves too little of the thumbnail to compare")
    placed = judged.copy()
    judged &= printed >= PRINT_SHARE * np.percentile(printed[judged], 90)
    vals = ratio[judged]
    typical, spread = (float(v) for v in np.percentile(vals, [50, 95]))
    alias_factor = max(1.0, alias / ALIAS_FREE)
    bar = max(LOCAL_STANDOUT * spread, LOCAL_FLOOR) * alias_factor

    def peer_bar(y: int, x: int) -> float:
        # A window must also stand out among windows with as much print as it has. Where the
        # receipt is a narrow strip in a photo, the judged windows are mostly the page's edges
        # and one text window left judged stands out against them although the whole text
        # column differs alike from the thumbnail (resampling, not an edit): a genuine
        # re-photographed receipt got a false proof that way.
        pr = float(printed[y, x])
        peers = placed & (printed >= pr / PEER_RANGE) & (printed <= pr * PEER_RANGE)
        peers[max(0, y - 2 * side) : y + 2 * side + 1, max(0, x - 2 * side) : x + 2 * side + 1] = False  # not itself
        if int(peers.sum()) < PEER_MIN:
            return bar
        return max(bar, LOCAL_STANDOUT * float(np.percentile(ratio[peers], 95)) * alias_factor)

    ty, tx = np.unravel_index(int(np.argmax(np.where(judged, ratio, -1.0))), ratio.shape)
    top = float(ratio[ty, tx])
    bar = peer_bar(int(ty), int(tx)) if top >= bar else bar
    boxes: list[Box] = []
    over = (judged & (ratio >= bar)).astype(np.uint8)
    half = side // 2
    if over.any():
        n, _, stats, _ = cv2.connectedComponentsWithStats(over, connectivity=8)
        for i in sorted(range(1, n), key=lambda i: -int(stats[i, cv2.CC_STAT_AREA])):
            x0, y0, bw, bh = (int(v) for v in stats[i, :4])
            x0, y0, x1, y1 = max(0, x0 - half), max(0, y0 - half), min(w, x0 + bw + half), min(h, y0 + bh + half)
            # the print that changed: where the residual is strongest in the windows over the bar
            e = resid[y0:y1, x0:x1] ** 2 * inner[y0:y1, x0:x1]
            ys, xs = np.nonzero(e >= 0.25 * float(e.max()))
            if len(xs):
                x0, y0, x1, y1 = x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()) + 1, y0 + int(ys.max()) + 1
            boxes.append((x0, y0, x1, y1))
    uncovered = _uncovered(warp, aligned.shape)
    scores = {"local": top / bar, "different": DIFFERENT_CORR / max(corr, 1e-3)}
    kind = max(scores, key=lambda k: scores[k])
    mismatch = scores[kind] >= 1.0
    return (boxes if kind == "local" else []), ThumbResult(
        True,
        mismatch=mismatch,
        kind=kind if mismatch else "",
        score=min(scores[kind], 10.0),
        local=scores["local"],
        window=top,
        typical=typical,
        spread=spread,
        correlation=corr,
        uncovered=uncovered,
        noise=float(np.sqrt(floor)),
        aliasing=alias,
    )


def _band_fit(a: np.ndarray, b: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """``b`` refiltered to look like ``a``: one least-squares gain per frequency band (fine, medium,
    coarse detail and the rest) over the whole picture, so sharpening, softening and a tone
    slope applied to either image are absorbed; a global filter cannot redraw an edited area."""
    b1, b2, b3 = _blur(b, 0.7), _blur(b, 1.5), _blur(b, 3.0)
    cols = [np.ones_like(b), b3, b2 - b3, b1 - b2, b - b1]
    x = np.stack([c[inner] for c in cols], 1).astype(np.float64)
    y = a[inner].astype(np.float64)
    keep = np.ones(len(y), bool)
    coef = np.zeros(len(cols))
    for _ in range(2):  # refit without the worst 5 %, so an edit does not steer the filter
        coef, *_ = np.linalg.lstsq(x[keep], y[keep], rcond=None)
        res = np.abs(y - x @ coef)
        keep = res <= np.percentile(res, 95)
    coef[2:] = np.clip(coef[2:], 0.0, 4.0)
    return sum(float(c) * col for c, col in zip(coef, cols)).astype(np.float32)


def _aliasing(a: np.ndarray, b: np.ndarray, covered: np.ndarray) -> float:
    """How much more pixel-scale detail the thumbnail has than the image area-resampled to its size
    (RMS Laplacian ratio, 1 = the same): a thumbnail made by point sampling (nearest neighbour,
    bilinear without prefilter) aliases text into speckle that no edit made."""
    la = cv2.Laplacian(a, cv2.CV_32F)
    lb = cv2.Laplacian(b, cv2.CV_32F)
    m = cv2.erode(covered.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    eb = float(np.mean(lb[m] ** 2)) if m.any() else 0.0
    return float(np.sqrt(float(np.mean(la[m] ** 2)) / eb)) if eb > 1e-6 else 1.0


def _guided(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    """``b`` fitted to ``a`` by a gain and offset that vary smoothly (guided filter, radius ``s``)."""
    mu_a, mu_b = _blur(a, s), _blur(b, s)
    var = _blur(b * b, s) - mu_b * mu_b
    alpha = np.clip((_blur(a * b, s) - mu_a * mu_b) / (var + GUIDE_EPS), 0.0, 3.0)
    beta = mu_a - alpha * mu_b
    return _blur(alpha, s) * b + _blur(beta, s)


def _uncovered(warp: np.ndarray, shape: tuple[int, int]) -> float:
    """Largest share of a thumbnail side that the aligned image leaves uncovered (a crop)."""
    h, w = shape
    inv = cv2.invertAffineTransform(warp)  # image (resampled) coords -> thumbnail coords
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], dtype=np.float64) @ inv.T
    left, right = max(0.0, corners[:, 0].min()), max(0.0, w - corners[:, 0].max())
    top, bottom = max(0.0, corners[:, 1].min()), max(0.0, h - corners[:, 1].max())
    return float(max(left / w, right / w, top / h, bottom / h))


def _to_image(
    box: Box, content: Box, src_box: FloatBox | None, gsize: tuple[int, int], shape: tuple[int, int]
) -> FloatBox:
    """A region in content pixels -> fractions of the (stored-frame) image."""
    h, w = shape
    gw, gh = gsize
    sx0, sy0, sx1, sy1 = src_box if src_box is not None else (0.0, 0.0, float(gw), float(gh))
    fx = lambda x: (sx0 + (x / w) * (sx1 - sx0)) / gw  # noqa: E731
    fy = lambda y: (sy0 + (y / h) * (sy1 - sy0)) / gh  # noqa: E731
    x0, y0, x1, y1 = box
    return (fx(x0), fy(y0), fx(x1), fy(y1))


def _orient_box(box: FloatBox, orientation: int) -> FloatBox:
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
