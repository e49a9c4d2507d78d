"""Local image features of one text region, and the receipt's text lines to compare against.

Each feature is a plain number from numpy on the grey image; all are cheap
(a few array passes over a box), so a receipt with dozens of lines costs
milliseconds. The features and why:

- ``noise``: log std of the high-pass residual on paper pixels -- a pasted patch or
  re-typed text brings its own sensor/printing noise (or none).
- ``blockiness``: energy at 8-px JPEG block borders vs inside blocks -- a region
  compressed a different number of times, or on a shifted grid, differs.
- ``paper`` / ``ink``: median grey of paper and of ink -- a patch from elsewhere
  rarely matches both exactly.
- ``stroke``: mean horizontal run length of ink (font weight).
- ``height``: ink height of the region (font size), from the row profile.
- ``sharpness``: mean gradient at ink edges (rendering / resampling).
"""

from __future__ import annotations

import numpy as np

FEATURES = ("noise", "blockiness", "paper", "ink", "stroke", "height", "sharpness")
FONT_FEATURES = ("stroke", "height", "ink", "sharpness")
MAX_LINES = 80  # reference word boxes kept (evenly spread)


def _paper_level(a: np.ndarray) -> float:
    return float(np.percentile(a, 80))


def features(gray: np.ndarray, box: tuple[int, int, int, int]) -> dict[str, float] | None:
    x0, y0, x1, y1 = box
    # pad a little so the residual and the JPEG grid see context
    px, py = 2, 2
    H, W = gray.shape
    a = gray[max(0, y0 - py) : min(H, y1 + py), max(0, x0 - px) : min(W, x1 + px)]
    if a.shape[0] < 6 or a.shape[1] < 6:
        return None
    paper = _paper_level(a)
    ink_mask = a < paper - max(40.0, 0.35 * paper)
    ink_px = int(ink_mask.sum())
    if ink_px < 6:
        return None
    bg = ~_dilate(_dilate(_dilate(ink_mask)))  # paper at least 3 px from ink: no glyph edges
    out: dict[str, float] = {"ink_px": float(ink_px)}
    resid = a[1:-1, 1:-1] - (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) / 4.0
    bgc = bg[1:-1, 1:-1]
    if bgc.sum() >= 20:
        out["noise"] = float(np.log(resid[bgc].std() + 0.5))  # log: noise differs by factors, not steps
        out["paper"] = float(np.median(a[bg]))
    out["ink"] = float(np.median(a[ink_mask]))
    H0, W0 = max(0, y0 - py), max(0, x0 - px)
    blk = _blockiness(gray, (W0, H0, W0 + a.shape[1], H0 + a.shape[0]), bg)
    if blk is not None:
        out["blockiness"] = blk
    runs = _runs(ink_mask)
    if runs:
        out["stroke"] = float(np.mean(runs))
    rows = np.nonzero(ink_mask.sum(axis=1) > 0)[0]
    out["height"] = float(rows[-1] - rows[0] + 1) if len(rows) else 0.0
    gy, gx = np.gradient(a)
    edge = _dilate(ink_mask) & ~_erode(ink_mask)
    if edge.any():
        out["sharpness"] = float(np.hypot(gx, gy)[edge].mean())
    return out


def _dilate(m: np.ndarray) -> np.ndarray:
    p = np.pad(m, 1)
    return p[1:-1, 1:-1] | p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]


def _erode(m: np.ndarray) -> np.ndarray:
    p = np.pad(m, 1, constant_values=True)
    return p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]


def _runs(mask: np.ndarray) -> list[int]:
    m = mask.astype(np.int8)
    d = np.diff(np.pad(m, ((0, 0), (1, 1))), axis=1)
    starts = np.nonzero(d == 1)
    ends = np.nonzero(d == -1)
    if len(starts[0]) == 0:
        return []
    return list((ends[1] - starts[1])[:2000])


def _blockiness(gray: np.ndarray, box: tuple[int, int, int, int], bg: np.ndarray | None = None) -> float | None:
    """Mean |step| across vertical 8-px block borders over mean |step| elsewhere, on paper pixels only.

    Text edges would dominate otherwise; the absolute image grid is used because
    that is where the last JPEG compression put its blocks."""
    x0, y0, x1, y1 = box
    a = gray[y0:y1, x0:x1]
    if a.shape[1] < 17:
        return None
    d = np.abs(np.diff(a, axis=1))
    ok = np.ones_like(d, dtype=bool) if bg is None else (bg[:, 1:] & bg[:, :-1])
    cols = np.arange(x0, x1 - 1)
    border = np.broadcast_to((cols % 8) == 7, d.shape)
    nb, ni = (ok & border).sum(), (ok & ~border).sum()
    if nb < 20 or ni < 60:
        return None
    return float(d[ok & border].mean() / (d[ok & ~border].mean() + 0.5))


def line_boxes(gray: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Text lines of the receipt from the ink row profile: (x0, y0, x1, y1) per line."""
    paper = _paper_level(gray)
    ink = gray < paper - max(40.0, 0.35 * paper)
    rows = ink.sum(axis=1)
    on = rows > max(2, 0.002 * gray.shape[1])
    out: list[tuple[int, int, int, int]] = []
    y = 0
    n = len(on)
    while y < n and len(out) < MAX_LINES * 4:
        if not on[y]:
            y += 1
            continue
        y0 = y
        while y < n and on[y]:
            y += 1
        y1 = y
        if y1 - y0 < 4:
            continue
        cols = np.nonzero(ink[y0:y1].any(axis=0))[0]
        if len(cols) < 4:
            continue
        out += _words(cols, y0, y1)
    if len(out) > MAX_LINES:
        step = len(out) / MAX_LINES
        out = [out[int(i * step)] for i in range(MAX_LINES)]
    return out


def _words(cols: np.ndarray, y0: int, y1: int) -> list[tuple[int, int, int, int]]:
    """Split one line into word-like boxes at gaps wider than the line height (field boxes are words)."""
    gap = max(6, y1 - y0)
    out = []
    start = prev = int(cols[0])
    for c in cols[1:]:
        c = int(c)
        if c - prev > gap:
            out.append((start, y0, prev + 1, y1))
            start = c
        prev = c
    out.append((start, y0, prev + 1, y1))
    return [b for b in out if b[2] - b[0] >= 8]
