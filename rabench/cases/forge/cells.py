"""Where each printed character of an OCR'd text line sits: one cell per character.

Why a forced alignment and not connected components: real till receipts are
thermal prints, faded and broken (a "0" in three pieces) or smudged (two "0"s
touching), so ink blobs rarely map one-to-one onto characters. The OCR already
says *what* the line reads; this finds *where* each of those characters is by
cutting the line's ink profile into exactly that many cells, each about one
character wide, cut where the ink is thinnest, with free blank gaps between
words (RapidOCR often drops the spaces). A line is accepted only if the cut is
clean (every cell holds ink, punctuation cells hold little ink low in the line,
cuts fall in thin ink); a doubtful line yields nothing, so the forge never edits
what it has not found.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Box = tuple[int, int, int, int]

_LOW_PUNCT = set(".,")
_NARROW = set(".,:;'|!iIl1()[]/-")
_GAP = 3.0  # cost per unit of column ink a gap between cells swallows
_MAX_COST = 1.1  # mean cost per cell above which an alignment is doubtful


@dataclass(frozen=True, slots=True)
class Cells:
    """A text line cut into character cells (image coordinates)."""

    chars: str  # the line's characters without spaces, in order
    xs: tuple[tuple[int, int], ...]  # (x0, x1) per character
    top: int  # the text band (ink rows) of the line
    bottom: int
    paper: float  # grey level of the paper around the line
    ink: float  # grey level of the darkest strokes
    mono: bool  # the cut that fitted best had equal cells (a fixed-pitch font)

    @property
    def height(self) -> int:
        return self.bottom - self.top

    def box(self, i: int) -> Box:
        return (self.xs[i][0], self.top, self.xs[i][1], self.bottom)

    def pitch(self) -> float:
        """Median cell width of the line's letters and digits."""
        w = [x1 - x0 for (x0, x1), c in zip(self.xs, self.chars) if c.isalnum()]
        return float(np.median(w)) if w else float(np.median([x1 - x0 for x0, x1 in self.xs]))

    def span(self, start: int, end: int) -> Box:
        """The box of characters ``start:end`` (indices into ``chars``)."""
        return (self.xs[start][0], self.top, self.xs[end - 1][1], self.bottom)


def text_band(gray: np.ndarray, box: Box) -> tuple[int, int, float, float] | None:
    """(top, bottom, paper grey, ink grey) of the ink inside ``box``; None if it holds no clear ink."""
    x0, y0, x1, y1 = box
    h, w = gray.shape
    pad = max(2, (y1 - y0) // 5)
    ya, yb = max(0, y0 - pad), min(h, y1 + pad)
    crop = gray[ya:yb, max(0, x0) : min(w, x1)].astype(np.float32)
    if crop.shape[0] < 6 or crop.shape[1] < 3:
        return None
    paper = float(np.percentile(crop, 85))
    ink = float(np.percentile(crop, 1.5))
    if paper - ink < 35:
        return None
    rows = ((paper - crop) > 0.4 * (paper - ink)).sum(axis=1)
    on = np.flatnonzero(rows >= max(1.0, 0.06 * rows.max()))
    if len(on) == 0:
        return None
    runs = np.split(on, np.flatnonzero(np.diff(on) > 1) + 1)
    run = max(runs, key=lambda r: float(rows[r].sum()))  # the text band, not a neighbour's descender
    top, bottom = ya + int(run[0]), ya + int(run[-1]) + 1
    if bottom - top < 5:
        return None
    return top, bottom, paper, ink


def _profile(gray: np.ndarray, x0: int, x1: int, top: int, bottom: int, paper: float, ink: float) -> np.ndarray:
    band = gray[top:bottom, x0:x1].astype(np.float32)
    dark = np.clip((paper - band) / max(1.0, paper - ink), 0.0, 1.0)
    dark = np.where(dark > 0.25, dark, 0.0)  # paper grain is not ink
    col = dark.sum(axis=0)
    return col / max(1.0, float(bottom - top) * 0.6)


def _cut_cost(gray: np.ndarray, x0: int, x1: int, top: int, bottom: int, paper: float, ink: float) -> np.ndarray:
    band = gray[top:bottom, x0:x1].astype(np.float32)
    count = ((paper - band) > 0.35 * max(1.0, paper - ink)).sum(axis=0)
    return np.minimum(1.0, count / 2.0)


def _align(
    ink: np.ndarray, cut: np.ndarray, chars: str, s: float, mono: bool
) -> tuple[float, list[tuple[int, int]]] | None:
    """Best cut of the column profile ``ink`` into len(chars) cells of width ~ s (narrow chars less).

    ``cut`` is the cost of a cell edge at each column: 0 where no ink pixel is in the
    column (a true gap), 1 where two or more are (the middle of an "0" has ink at top
    and bottom even when its column sum is as light as a gap)."""
    n, w = len(chars), len(ink)
    # a cell edge at x lies between columns x-1 and x: clean if either side is blank
    padded = np.concatenate([[0.0], cut, [0.0]])
    edge = np.minimum(padded[:-1], padded[1:])
    ratios = [1.0 if mono or c not in _NARROW else 0.5 for c in chars]
    csum = np.concatenate([[0.0], np.cumsum(ink)])
    inf = 1e18
    g = _GAP * csum.copy()  # G_0: a gap from column 0
    g_src = [np.zeros(w + 1, dtype=np.int32)]
    f_src: list[np.ndarray] = []
    f = np.full(w + 1, inf)
    for i in range(n):
        target = s * ratios[i]
        need = 0.08 * target if chars[i].isalnum() else 0.04
        lo = max(1, int(target * 0.5))
        hi = max(lo + 1, int(np.ceil(target * 1.6)))
        widths = np.arange(lo, min(hi, w) + 1)
        if len(widths) == 0:
            return None
        b = np.arange(w + 1)[None, :]
        a = b - widths[:, None]  # one row per cell width, one column per cell end
        ok = a >= 0
        a0 = np.where(ok, a, 0)
        mass = csum[b] - csum[a0]
        cost = (
            g[a0]
            + 1.5 * ((widths[:, None] - target) / s) ** 2
            + 0.6 * (edge[a0] + edge[b])
            + np.where(mass < need, 3.0, 0.0)
        )  # a cell must hold ink
        cost = np.where(ok, cost, inf)
        best = np.argmin(cost, axis=0)
        f = cost[best, np.arange(w + 1)]
        arg = a0[best, np.arange(w + 1)].astype(np.int32)
        f_src.append(arg)
        # G_{i+1}[x] = min over e <= x of F[e] + gap ink in [e, x): a running minimum
        hcost = f - _GAP * csum
        run = np.minimum.accumulate(hcost)
        g = run + _GAP * csum
        src = np.maximum.accumulate(np.where(hcost <= run, np.arange(w + 1), 0)).astype(np.int32)
        g_src.append(src)
    end = f + _GAP * (csum[w] - csum)
    x = int(np.argmin(end))
    if end[x] >= inf / 2:
        return None
    total = float(end[x])
    cells: list[tuple[int, int]] = []
    for i in range(n - 1, -1, -1):
        a = int(f_src[i][x])
        cells.append((a, x))
        x = int(g_src[i][a])  # end of the previous cell (the gap before this one skipped)
    cells.reverse()
    return total / n, cells


def _plausible(chars: str, cells: list[tuple[int, int]], ink2d: np.ndarray) -> bool:
    """Each cell's ink looks like its character: letters and digits tall, '.' and ',' small and low."""
    h = ink2d.shape[0]
    masses, heights, lows = [], [], []
    for a, b in cells:
        col = ink2d[:, a:b]
        m = float(col.sum())
        rows = np.flatnonzero(col.sum(axis=1) > 0.3)
        masses.append(m)
        heights.append((rows[-1] - rows[0] + 1) / h if len(rows) else 0.0)
        lows.append(rows[0] / h if len(rows) else 0.0)
    big = [m for m, c in zip(masses, chars) if c.isalnum()]
    if not big:
        return False
    ref = float(np.median(big))
    for c, m, ht, low in zip(chars, masses, heights, lows):
        if c.isalnum():
            if m < 0.25 * ref or ht < 0.45:
                return False
        elif c in _LOW_PUNCT:
            if m > 0.6 * ref or ht > 0.5 or low < 0.45:
                return False
    return True


def cut_line(gray: np.ndarray, box: Box, text: str) -> Cells | None:
    """The cells of ``text`` as printed in ``box`` of the greyscale image, or None if doubtful."""
    chars = "".join(c for c in text if not c.isspace())
    if not chars or len(chars) > 60:
        return None
    band = text_band(gray, box)
    if band is None:
        return None
    top, bottom, paper, ink = band
    h = bottom - top
    x0 = max(0, box[0] - max(2, h // 6))
    x1 = min(gray.shape[1], box[2] + max(2, h // 6))
    prof = _profile(gray, x0, x1, top, bottom, paper, ink)
    cut = _cut_cost(gray, x0, x1, top, bottom, paper, ink)
    nz = np.flatnonzero(prof > 0.05)
    if len(nz) == 0:
        return None
    span = nz[-1] - nz[0] + 1
    best: tuple[float, list[tuple[int, int]], bool] | None = None
    for mono in (True, False):
        units = len(chars) if mono else sum(0.5 if c in _NARROW else 1.0 for c in chars)
        base = span / max(1.0, units)
        for k in np.linspace(0.78, 1.08, 4):
            s = float(base * k)
            if s < 2 or not 0.3 * h <= s <= 1.0 * h:
                continue
            got = _align(prof, cut, chars, s, mono)
            if got is not None and (best is None or got[0] < best[0]):
                best = (got[0], got[1], mono)
    if best is None or best[0] > _MAX_COST:
        return None
    band2d = gray[top:bottom, x0:x1].astype(np.float32)
    ink2d = np.clip((paper - band2d) / max(1.0, paper - ink), 0.0, 1.0)
    ink2d = np.where(ink2d > 0.25, ink2d, 0.0)
    if not _plausible(chars, best[1], ink2d):
        return None
    xs = tuple((x0 + a, x0 + b) for a, b in best[1])
    return Cells(chars=chars, xs=xs, top=top, bottom=bottom, paper=paper, ink=ink, mono=best[2])
