"""Copy-move of characters: is a field's glyph a copy of another glyph on the same receipt?

Why: the commonest real edit is copy-paste inside the document -- select a "4" on
another line, paste it over the "1" -- so the new character has the receipt's own
font, ink and blur and every font-metric test passes. What a copy cannot hide is
that it *is* a copy: two printings of the same character on a scan or photo share
their shape (the font) but not their fine detail (thermal dots, paper grain, the
scanner's sampling phase, sensor noise); a pasted glyph shares it with its source.

So every glyph (a connected ink component inside a text box) is compared with the
glyphs of about its size, at the best of nine one-pixel shifts, by two normalised
correlations: of the pixels (the shape) and of the high-pass residual (the fine
detail, pixels minus their 3x3 mean). Its *twin score* is the residual correlation
with its best twin by shape. The receipt itself says how alike two honest printings
are: the twin scores of its ordinary text glyphs (median and spread) are the
reference, so a digitally rendered receipt whose every "0" is pixel-identical to every
other "0" is not a copy-move, and a field glyph is unusual only against its own
receipt. Costs: one residual pass over the text boxes and, in numba, a few thousand
small correlations (about 10-30 ms on a receipt).
"""

from __future__ import annotations

import msgspec
import numba
import numpy as np
from scipy import ndimage

from rabench.numba_cache import ensure_writable_cache

ensure_writable_cache()  # numba's compiled kernels beside this file, or in a temp folder if read-only

Box = tuple[int, int, int, int]
PAD = 1  # the shift search radius (px)
MIN_H = 6  # glyphs shorter than this carry too few pixels to compare
MAX_GLYPHS = 700  # glyphs compared at most (pairs grow with the square; the fields' are always kept)
MIN_REFERENCE = 12


class Glyphs:
    """Glyph boxes (full-image coordinates) and, per glyph, its padded pixel and residual patches."""

    def __init__(self, boxes: list[Box], pix: list[np.ndarray], res: list[np.ndarray], soft: list[np.ndarray]):
        self.boxes = boxes
        self.pix = pix
        self.res = res
        self.soft = soft  # 3x3-smoothed pixels: a one-pixel misalignment barely changes their NCC


def find_glyphs(gray: np.ndarray, boxes: list[Box], keep: list[Box] = ()) -> Glyphs:  # type: ignore[assignment]
    """Connected ink components of about a character's size inside each text box; on a dense
    receipt the glyphs inside ``keep`` (the fields) are all kept and the others evenly thinned."""
    H, W = gray.shape
    out_b: list[Box] = []
    out_p: list[np.ndarray] = []
    out_r: list[np.ndarray] = []
    out_s: list[np.ndarray] = []
    seen: set[Box] = set()
    for x0, y0, x1, y1 in boxes:
        bx0, by0 = max(0, x0 - 3), max(0, y0 - 3)
        bx1, by1 = min(W, x1 + 3), min(H, y1 + 3)
        a = gray[by0:by1, bx0:bx1]
        if a.shape[0] < MIN_H or a.shape[1] < 4:
            continue
        paper = float(np.percentile(a, 80))
        ink = a < paper - max(40.0, 0.35 * paper)
        if ink.sum() < 8:
            continue
        smooth = ndimage.uniform_filter(a, size=3, mode="nearest")
        res = a - smooth
        lab, n = ndimage.label(ink, structure=np.ones((3, 3), bool))
        line_h = y1 - y0
        for _i, sl in enumerate(ndimage.find_objects(lab)):
            if sl is None:
                continue
            gy0, gy1, gx0, gx1 = sl[0].start, sl[0].stop, sl[1].start, sl[1].stop
            gh, gw = gy1 - gy0, gx1 - gx0
            if gh < MIN_H or gh < 0.35 * line_h or gh > 1.6 * max(line_h, MIN_H) or gw < 2 or gw > 1.5 * gh + 4:
                continue
            if gy0 < PAD or gx0 < PAD or gy1 + PAD > a.shape[0] or gx1 + PAD > a.shape[1]:
                continue
            key = (bx0 + gx0, by0 + gy0, bx0 + gx1, by0 + gy1)
            if key in seen:  # overlapping text boxes
                continue
            seen.add(key)
            out_b.append(key)
            out_p.append(np.ascontiguousarray(a[gy0 - PAD : gy1 + PAD, gx0 - PAD : gx1 + PAD], dtype=np.float32))
            out_r.append(np.ascontiguousarray(res[gy0 - PAD : gy1 + PAD, gx0 - PAD : gx1 + PAD], dtype=np.float32))
            out_s.append(np.ascontiguousarray(smooth[gy0 - PAD : gy1 + PAD, gx0 - PAD : gx1 + PAD], dtype=np.float32))
    if len(out_b) > MAX_GLYPHS:
        kept = [i for i, b in enumerate(out_b) if any(inside(b, k) for k in keep)][: MAX_GLYPHS // 2]
        kept_set = set(kept)
        rest = [i for i in range(len(out_b)) if i not in kept_set]
        n = MAX_GLYPHS - len(kept)
        idx = sorted(kept + [rest[int(k)] for k in np.linspace(0, len(rest) - 1, n)])
        out_b = [out_b[i] for i in idx]
        out_p = [out_p[i] for i in idx]
        out_r = [out_r[i] for i in idx]
        out_s = [out_s[i] for i in idx]
    return Glyphs(out_b, out_p, out_r, out_s)


@numba.njit(cache=True, nogil=True)
def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    n = a.size
    ma = 0.0
    mb = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            ma += a[i, j]
            mb += b[i, j]
    ma /= n
    mb /= n
    sab = 0.0
    saa = 0.0
    sbb = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            da = a[i, j] - ma
            db = b[i, j] - mb
            sab += da * db
            saa += da * da
            sbb += db * db
    if saa <= 1e-6 or sbb <= 1e-6:
        return 0.0
    return sab / np.sqrt(saa * sbb)


@numba.njit(cache=True, nogil=True)
def _pair(pa: np.ndarray, ra: np.ndarray, pb: np.ndarray, rb: np.ndarray, pad: int) -> tuple[float, float]:
    """(shape NCC, residual NCC) of glyph a's core against b at the best shift by shape."""
    h = pa.shape[0] - 2 * pad
    w = pa.shape[1] - 2 * pad
    ca = pa[pad : pad + h, pad : pad + w]
    rca = ra[pad : pad + h, pad : pad + w]
    best = -2.0
    best_r = 0.0
    for dy in range(0, pb.shape[0] - h + 1):
        for dx in range(0, pb.shape[1] - w + 1):
            s = _ncc(ca, pb[dy : dy + h, dx : dx + w])
            if s > best:
                best = s
                best_r = _ncc(rca, rb[dy : dy + h, dx : dx + w])
    return best, best_r


def _pack(g: Glyphs) -> tuple[np.ndarray, ...]:
    n = len(g.pix)
    hs = np.array([p.shape[0] for p in g.pix], dtype=np.int64)
    ws = np.array([p.shape[1] for p in g.pix], dtype=np.int64)
    off = np.zeros(n + 1, dtype=np.int64)
    off[1:] = np.cumsum(hs * ws)
    pix = np.concatenate([p.ravel() for p in g.pix]).astype(np.float32) if n else np.zeros(0, np.float32)
    res = np.concatenate([r.ravel() for r in g.res]).astype(np.float32) if n else np.zeros(0, np.float32)
    soft = np.concatenate([r.ravel() for r in g.soft]).astype(np.float32) if n else np.zeros(0, np.float32)
    boxes = np.array(g.boxes, dtype=np.int64).reshape(n, 4)
    return pix, res, soft, off, hs, ws, boxes


@numba.njit(cache=True, nogil=True)
def _all_twins(pix, res, soft, off, hs, ws, boxes, pad, min_centre):
    """Per glyph: (best shape NCC, residual NCC there, twin index) over the glyphs of about its size.

    Every pair is first compared smoothed and at every other pixel (cheap; a one-pixel
    misalignment barely matters there); only pairs that look alike are compared in full."""
    n = len(hs)
    best = np.zeros(n)
    best_r = np.zeros(n)
    twin = -np.ones(n, dtype=np.int64)
    for i in range(n):
        hi, wi = hs[i] - 2 * pad, ws[i] - 2 * pad
        a = pix[off[i] : off[i + 1]].reshape(hs[i], ws[i])
        ra = res[off[i] : off[i + 1]].reshape(hs[i], ws[i])
        sa = soft[off[i] : off[i + 1]].reshape(hs[i], ws[i])
        for j in range(i + 1, n):
            if abs(hs[j] - hs[i]) > 1 or abs(ws[j] - ws[i]) > 1:
                continue
            if (
                boxes[i, 0] < boxes[j, 2]
                and boxes[j, 0] < boxes[i, 2]
                and boxes[i, 1] < boxes[j, 3]
                and boxes[j, 1] < boxes[i, 3]
            ):
                continue
            b = pix[off[j] : off[j + 1]].reshape(hs[j], ws[j])
            rb = res[off[j] : off[j + 1]].reshape(hs[j], ws[j])
            sb = soft[off[j] : off[j + 1]].reshape(hs[j], ws[j])
            # template: the smaller core, searched inside the other's padded patch
            if hi * wi <= (hs[j] - 2 * pad) * (ws[j] - 2 * pad):
                t, rt, st, s, rs, ss, th, tw = a, ra, sa, b, rb, sb, hi, wi
            else:
                t, rt, st, s, rs, ss, th, tw = b, rb, sb, a, ra, sa, hs[j] - 2 * pad, ws[j] - 2 * pad
            if th > s.shape[0] or tw > s.shape[1]:
                continue
            ct = t[pad : pad + th, pad : pad + tw]
            cs = st[pad : pad + th : 2, pad : pad + tw : 2]
            pre = -2.0
            for dy in range(0, s.shape[0] - th + 1):
                for dx in range(0, s.shape[1] - tw + 1):
                    v = _ncc(cs, ss[dy : dy + th : 2, dx : dx + tw : 2])
                    if v > pre:
                        pre = v
            if pre < min_centre:
                continue
            bs = -2.0
            by, bx = 0, 0
            for dy in range(0, s.shape[0] - th + 1):
                for dx in range(0, s.shape[1] - tw + 1):
                    v = _ncc(ct, s[dy : dy + th, dx : dx + tw])
                    if v > bs:
                        bs, by, bx = v, dy, dx
            if bs > best[i] or bs > best[j]:
                r = _ncc(rt[pad : pad + th, pad : pad + tw], rs[by : by + th, bx : bx + tw])
                if bs > best[i]:
                    best[i], best_r[i], twin[i] = bs, r, j
                if bs > best[j]:
                    best[j], best_r[j], twin[j] = bs, r, i
    return best, best_r, twin


def all_twin_scores(g: Glyphs, min_centre: float = 0.8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every glyph: its best twin's shape NCC, residual NCC and index (-1, NCC 0: none alike)."""
    if len(g.pix) < 2:
        z = np.zeros(len(g.pix))
        return z, z.copy(), -np.ones(len(g.pix), dtype=np.int64)
    pix, res, soft, off, hs, ws, boxes = _pack(g)
    return _all_twins(pix, res, soft, off, hs, ws, boxes, PAD, min_centre)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(glyph: Box, box: Box) -> bool:
    cx, cy = (glyph[0] + glyph[2]) / 2, (glyph[1] + glyph[3]) / 2
    return box[0] <= cx < box[2] and box[1] <= cy < box[3]


EPS = 1e-3
TWIN_CLIP = 10.0


class Twin(msgspec.Struct, frozen=True):
    """A field's most copy-like glyph: how much closer to its twin than this receipt's usual pairs."""

    field: str
    score: float  # log of (1 - usual)/(1 - this) for shape and fine detail together, clipped to [0, 10]
    glyph: Box
    twin: Box
    shape: float  # shape NCC with the twin
    detail: float  # residual (fine-detail) NCC with the twin
    usual_shape: float  # the receipt's 90th percentile over its glyphs' best twins
    usual_detail: float
    glyphs: int  # glyphs compared on the receipt
    # share of the glyph's text line that is about as copy-like but with twins elsewhere than the
    # glyph's own displacement: digital text (every repeated character identical, each twin somewhere
    # else) scores high; one pasted character, or a whole pasted word (all moved alike), scores 0
    line_share: float
    line_others: int  # how many glyphs that share counts
    twin_fields: tuple[str, ...] = ()  # other fields whose boxes hold the twin (line items included)


def copy_move(gray: np.ndarray, field_boxes: dict[str, list[Box]], line_boxes: list[Box]) -> list[Twin]:
    """For every field with glyphs: its most copy-like glyph, scored against the receipt's own pairs.

    Empty when the receipt has too few comparable glyphs (then nothing is known)."""
    boxes = list(line_boxes) + [b for bs in field_boxes.values() for b in bs]
    g = find_glyphs(gray, boxes, keep=[b for bs in field_boxes.values() for b in bs])
    if len(g.boxes) < MIN_REFERENCE:
        return []
    s, r, tw = all_twin_scores(g)
    ok = tw >= 0
    if ok.sum() < MIN_REFERENCE:
        return []
    us, ur = float(np.quantile(s[ok], 0.9)), float(np.quantile(r[ok], 0.9))
    ratio = np.log((1 - us + EPS) / (1 - s + EPS)) + np.log((1 - ur + EPS) / (np.maximum(1e-9, 1 - r) + EPS))
    score = np.where(ok, np.clip(ratio, 0.0, TWIN_CLIP), 0.0)
    out = []
    for name, bs in field_boxes.items():
        idx = [i for i, gb in enumerate(g.boxes) if any(inside(gb, b) for b in bs)]
        if not idx:
            continue
        i = max(idx, key=lambda k: score[k])
        others, share = _other_copies(g.boxes, score, tw, i, line_boxes or bs)
        twin_box = g.boxes[int(tw[i])] if tw[i] >= 0 else None
        twin_fields = tuple(
            sorted(
                k for k, kb in field_boxes.items() if k != name and twin_box and any(inside(twin_box, b) for b in kb)
            )
        )
        out.append(
            Twin(
                field=name,
                score=round(float(score[i]), 3),
                glyph=g.boxes[i],
                twin=g.boxes[int(tw[i])] if tw[i] >= 0 else g.boxes[i],
                shape=round(float(s[i]), 5),
                detail=round(float(r[i]), 5),
                usual_shape=round(us, 4),
                usual_detail=round(ur, 4),
                glyphs=len(g.boxes),
                line_share=round(share, 3),
                line_others=others,
                twin_fields=twin_fields,
            )
        )
    return out


def _centre(b: Box) -> tuple[float, float]:
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def _other_copies(boxes: list[Box], score: np.ndarray, tw: np.ndarray, i: int, lines: list[Box]) -> tuple[int, float]:
    """How many glyphs of glyph ``i``'s line (itself and its twin left out), and what share of the
    line, are nearly as copy-like as it but have their twin at another displacement than ``i``'s
    own (either direction)."""
    if tw[i] < 0 or score[i] <= 0:
        return 0, 0.0
    line = next((b for b in lines if inside(boxes[i], b)), None)
    if line is None:
        return 0, 0.0
    ci, ct = _centre(boxes[i]), _centre(boxes[int(tw[i])])
    d = (ct[0] - ci[0], ct[1] - ci[1])
    mates = [k for k, b in enumerate(boxes) if k != i and k != tw[i] and inside(b, line)]
    if not mates:
        return 0, 0.0
    bar = max(2.5, float(score[i]) - 1.5)
    other = 0
    for k in mates:
        if score[k] < bar or tw[k] < 0:
            continue
        ck, ctk = _centre(boxes[k]), _centre(boxes[int(tw[k])])
        dk = (ctk[0] - ck[0], ctk[1] - ck[1])
        if min(abs(dk[0] - d[0]) + abs(dk[1] - d[1]), abs(dk[0] + d[0]) + abs(dk[1] + d[1])) > 3:
            other += 1
    return other, other / len(mates)
