"""Change printed characters the way a forger with an image editor does.

Why copy glyphs from the same receipt: the commonest real forgery is
copy-paste inside the document (select a "4" from another line, paste it over
the "1"): the new character has the receipt's own font, size, ink, fading and
blur. So a changed character is, in order of preference, a glyph cut from the
same line, from another line of the same height, or (only when the receipt
never prints that character at that size) drawn in the DejaVu font that
matches the print's pitch, size, weight, ink colour and blur.

How pixels are changed: the old characters are covered with the paper as it
is around them (the paper's shading from a morphological closing, plus grain
of the paper's own strength, so no flat box shows), then each new glyph is
laid on multiplicatively (paper x glyph / glyph's own paper), which carries
the source glyph's ink and grain onto this paper's tone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from scipy import ndimage

from rabench.cases.forge.cells import Cells

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
_FONTS = {
    (True, False): "DejaVuSansMono.ttf",
    (True, True): "DejaVuSansMono-Bold.ttf",
    (False, False): "DejaVuSans.ttf",
    (False, True): "DejaVuSans-Bold.ttf",
}


@lru_cache(maxsize=64)
def _font(mono: bool, bold: bool, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(f"{FONT_DIR}/{_FONTS[(mono, bold)]}", px)


@dataclass(frozen=True, slots=True)
class Glyph:
    char: str
    cells: Cells
    index: int
    line: int
    ink: float  # this glyph's own darkest grey (fading varies along a thermal line)
    x0: int  # the glyph's inked columns (the cell may include blank margin)
    x1: int
    y1: int  # the bottom of its ink (the baseline, or a descender's foot)


class GlyphBank:
    """Every character cell the receipt prints, for pasting (cut from the unedited image)."""

    def __init__(
        self,
        source: np.ndarray,
        more: Callable[[str, int], None] | None = None,
        printed: Callable[[int], set[str]] | None = None,
    ):
        self.source = source  # float32 RGB, never edited
        # more(char, line): cut further lines that print ``char`` at ``line``'s size (on demand:
        # cutting every line of a receipt costs more than the rest of the forge)
        self.more = more
        # printed(line): characters the OCR reads on lines of ``line``'s size, cut or not
        self.printed = printed
        self.by_char: dict[str, list[Glyph]] = {}
        self.baselines: dict[int, tuple[float, float]] = {}  # line -> (slope, intercept) of y(x)

    def add(self, cells: Cells, line: int) -> None:
        gray = _gray(self.source[cells.top : cells.bottom])
        thr = cells.paper - 0.35 * (cells.paper - cells.ink)
        for i, c in enumerate(cells.chars):
            x0, x1 = cells.xs[i]
            cell = gray[:, x0:x1]
            ink = float(np.percentile(cell, 3)) if cell.size else cells.ink
            inked = cell < thr
            cols = np.flatnonzero(inked.sum(axis=0) > 0)
            rows = np.flatnonzero(inked.sum(axis=1) > 0)
            ix0, ix1 = (x0 + int(cols[0]), x0 + int(cols[-1]) + 1) if len(cols) else (x0, x1)
            iy1 = cells.top + int(rows[-1]) + 1 if len(rows) else cells.bottom
            self.by_char.setdefault(c, []).append(Glyph(c, cells, i, line, ink, ix0, ix1, iy1))
        self.baselines[line] = _fit_baseline(self.glyphs_of(line), cells)

    def glyphs_of(self, line: int) -> list[Glyph]:
        """The glyphs of one line, in order."""
        out = [g for gs in self.by_char.values() for g in gs if g.line == line]
        return sorted(out, key=lambda g: g.index)

    def chars_like(self, cells: Cells, line: int) -> set[str]:
        """Characters the receipt prints at about ``cells``' size (within 12 %)."""
        h = cells.height
        got = {c for c, gs in self.by_char.items() if any(abs(g.cells.height - h) <= 0.12 * h + 1 for g in gs)}
        return got | (self.printed(line) if self.printed else set())

    def pick(
        self, char: str, target: Cells, line: int, rng: np.random.Generator, *, same_line: bool = False
    ) -> Glyph | None:
        """The best source for ``char`` on ``target``'s line: same line, else same height and ink
        (``same_line``: only that line, e.g. a shop name in a display face the body text lacks)."""
        if self.more is not None and not same_line:
            self.more(char, line)
        cands = [
            g
            for g in self.by_char.get(char, [])
            if abs(g.cells.height - target.height) <= 0.12 * target.height + 1 and (g.line == line or not same_line)
        ]
        if not cands:
            return None

        def score(g: Glyph) -> float:
            same = 0.0 if g.line == line else 1.0
            return same * 4 + abs(g.cells.height - target.height) / target.height * 4 + abs(g.ink - target.ink) / 40.0

        cands.sort(key=score)
        best = score(cands[0])
        near = [g for g in cands if score(g) <= best + 0.25][:3]
        return near[int(rng.integers(len(near)))]


_ON_BASELINE = set("ABCDEFGHIJKLMNOPRSTUVWXYZ0123456789abcdefhiklmnorstuvwxz")


def _fit_baseline(glyphs: list[Glyph], cells: Cells) -> tuple[float, float]:
    """The line's baseline y = a*x + b through the feet of its letters and digits (lines tilt)."""
    pts = [((g.x0 + g.x1) / 2, g.y1) for g in glyphs if g.char in _ON_BASELINE]
    if len(pts) < 2:
        return 0.0, float(pts[0][1] if pts else cells.bottom)
    x = np.array([p[0] for p in pts])
    y = np.array([p[1] for p in pts], dtype=float)
    if np.ptp(x) < 1:
        return 0.0, float(np.median(y))
    a, b = np.polyfit(x, y, 1)
    resid = np.abs(y - (a * x + b))
    keep = resid <= max(1.5, float(np.median(resid)) * 3)  # one broken glyph must not tilt the line
    if keep.sum() >= 2 and np.ptp(x[keep]) >= 1:
        a, b = np.polyfit(x[keep], y[keep], 1)
    a = float(np.clip(a, -0.08, 0.08))
    return a, float(np.median(y - a * x))


def _gray(arr: np.ndarray) -> np.ndarray:
    return arr @ np.array([0.299, 0.587, 0.114], dtype=np.float32)


def paper_under(
    arr: np.ndarray, box: tuple[int, int, int, int], height: int
) -> tuple[np.ndarray, float, tuple[int, int, int, int]]:
    """The paper as it would be without ink around ``box``: (RGB estimate, grain std, window)."""
    h_img, w_img = arr.shape[:2]
    m = max(3, height)
    x0, y0 = max(0, box[0] - 2 * m), max(0, box[1] - m)
    x1, y1 = min(w_img, box[2] + 2 * m), min(h_img, box[3] + m)
    win = arr[y0:y1, x0:x1]
    k = max(3, int(height * 0.9) | 1)
    bg = np.stack([ndimage.grey_closing(win[:, :, c], size=(k, k)) for c in range(3)], axis=2)
    bg = ndimage.gaussian_filter(bg, sigma=(max(1.0, height / 4), max(1.0, height / 4), 0))
    g = _gray(win)
    resid = g - _gray(bg)
    paper_px = np.abs(resid) < 12
    if paper_px.sum() <= 20:
        return bg, 2.0, (x0, y0, x1, y1)
    # a closing sits on the grain's bright peaks: bring it down to the paper's own level
    bias = float(np.median(resid[paper_px]))
    grain = float(np.std(resid[paper_px]))
    return bg + bias, min(grain, 12.0), (x0, y0, x1, y1)


def erase(arr: np.ndarray, box: tuple[int, int, int, int], height: int, rng: np.random.Generator) -> None:
    """Cover ``box`` with the surrounding paper (shading and grain), feathered at the edges."""
    bg, grain, (wx0, wy0, wx1, wy1) = paper_under(arr, box, height)
    x0, y0, x1, y1 = box
    x0, y0, x1, y1 = max(x0, wx0), max(y0, wy0), min(x1, wx1), min(y1, wy1)
    if x1 <= x0 or y1 <= y0:
        return
    patch = bg[y0 - wy0 : y1 - wy0, x0 - wx0 : x1 - wx0]
    noise = rng.normal(0.0, grain, size=patch.shape[:2]).astype(np.float32)[:, :, None]
    fill = patch + noise
    # feather one pixel so the patch has no hard edge
    alpha = np.ones(patch.shape[:2], dtype=np.float32)
    if alpha.shape[0] > 2 and alpha.shape[1] > 2:
        alpha[0, :] = alpha[-1, :] = 0.6
        alpha[:, 0] = alpha[:, -1] = 0.6
    region = arr[y0:y1, x0:x1]
    arr[y0:y1, x0:x1] = region * (1 - alpha[:, :, None]) + fill * alpha[:, :, None]


def paste(
    arr: np.ndarray,
    bank: GlyphBank,
    glyph: Glyph,
    dst_x0: int,
    dst_x1: int,
    target: Cells,
    line: int,
    *,
    tight: bool = False,
) -> None:
    """Lay ``glyph`` (from the unedited image) into cell [dst_x0, dst_x1) of ``target``'s band
    (``tight``: only the glyph's inked columns, placed from ``dst_x0``)."""
    src = glyph.cells
    sx0, sx1 = (glyph.x0, glyph.x1) if tight else src.xs[glyph.index]
    m = max(1, src.height // 6)
    sy0, sy1 = max(0, src.top - m), min(bank.source.shape[0], src.bottom + m)
    patch = bank.source[sy0:sy1, sx0:sx1]
    sbg, _, (wx0, wy0, _, _) = paper_under(bank.source, (sx0, sy0, sx1, sy1), src.height)
    paper = sbg[sy0 - wy0 : sy1 - wy0, sx0 - wx0 : sx1 - wx0]
    ratio = np.clip(patch / np.maximum(paper, 1.0), 0.0, 1.0)
    # a glyph from a fainter or darker line takes this line's ink strength
    k = (target.paper - target.ink) / max(1.0, src.paper - glyph.ink) * src.paper / max(1.0, target.paper)
    ratio = 1.0 - (1.0 - ratio) * float(np.clip(k, 0.5, 3.0))
    ratio = np.clip(ratio, 0.0, 1.0)
    scale = target.height / src.height
    if abs(scale - 1.0) > 0.04:
        h, w = ratio.shape[:2]
        img = Image.fromarray((ratio * 255).astype(np.uint8), "RGB")
        img = img.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BICUBIC)
        ratio = np.asarray(img, dtype=np.float32) / 255.0
        m = round(m * scale)
    h, w = ratio.shape[:2]
    # foot on the destination's baseline, as far below or above it as it was on its own line
    sa, sb = bank.baselines[glyph.line]
    ta, tb = bank.baselines.get(line, (0.0, float(target.bottom)))
    offset = glyph.y1 - (sa * (glyph.x0 + glyph.x1) / 2 + sb)
    foot = ta * (dst_x0 + dst_x1) / 2 + tb + offset * scale
    ty0 = int(round(foot - (glyph.y1 - sy0) * scale))
    tx0 = int(round((dst_x0 + dst_x1) / 2 - w / 2))
    ya, yb = max(0, ty0), min(arr.shape[0], ty0 + h)
    xa, xb = max(0, tx0), min(arr.shape[1], tx0 + w)
    if yb <= ya or xb <= xa:
        return
    r = ratio[ya - ty0 : yb - ty0, xa - tx0 : xb - tx0]
    arr[ya:yb, xa:xb] = arr[ya:yb, xa:xb] * r


@dataclass(frozen=True, slots=True)
class Style:
    """How the receipt prints, for drawing a glyph it never prints."""

    mono: bool
    bold: bool
    ink: tuple[float, float, float]
    blur: float
    width: float  # a digit's advance in px (the line's pitch)


def _stroke(mask: np.ndarray) -> float:
    """Median horizontal run length of ink: the stroke width in px."""
    runs: list[int] = []
    for row in mask:
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(np.int8), [0]])))
        runs.extend((edges[1::2] - edges[::2]).tolist())
    return float(np.median(runs)) if runs else 1.0


def _glyph_mask(char: str, mono: bool, bold: bool, height: int, width: float | None) -> tuple[np.ndarray, int]:
    """``char`` drawn so that a digit is ``height`` px tall (and ``width`` px wide): (alpha, top offset)."""
    f = _font(mono, bold, 96)
    _, zt, _, zb = f.getbbox("0")
    left, top, right, bottom = f.getbbox(char)
    w, h = right - left + 8, bottom - top + 8
    big = Image.new("L", (w, h), 0)
    ImageDraw.Draw(big).text((4 - left, 4 - top), char, font=f, fill=255)
    sy = height / max(1, zb - zt)
    sx = sy if width is None else width / max(1.0, f.getlength("0"))
    small = big.resize((max(1, round(w * sx)), max(1, round(h * sy))), Image.LANCZOS)
    return np.asarray(small, dtype=np.float32) / 255.0, round((top - zt - 4) * sy)


def measure_style(arr: np.ndarray, cells: Cells) -> Style:
    """Weight, ink colour, blur and pitch of ``cells``' print, for drawing in a matched DejaVu."""
    x0, x1 = cells.xs[0][0], cells.xs[-1][1]
    region = arr[cells.top : cells.bottom, x0:x1]
    g = _gray(region)
    inkmask = g < cells.paper - 0.5 * (cells.paper - cells.ink)
    ink = tuple(float(v) for v in (np.median(region[inkmask], axis=0) if inkmask.sum() > 3 else (40.0, 40.0, 40.0)))
    half = (g < cells.paper - 0.2 * (cells.paper - cells.ink)) & ~inkmask
    soft = float(half.sum()) / max(1.0, float(inkmask.sum()))
    stroke = _stroke(inkmask)
    width = cells.pitch() if cells.mono else None
    weights = {}
    for bold in (False, True):
        a, _ = _glyph_mask("8", cells.mono, bold, cells.height, width)
        weights[bold] = abs(_stroke(a > 0.5) - stroke)
    return Style(
        mono=cells.mono,
        bold=weights[True] < weights[False],
        ink=ink,
        blur=float(np.clip(soft * 0.9, 0.2, 1.6)),
        width=cells.pitch(),
    )


def draw(arr: np.ndarray, char: str, dst_x0: int, dst_x1: int, target: Cells, style: Style) -> None:
    """Draw ``char`` in the matched DejaVu font into cell [dst_x0, dst_x1) of ``target``'s band."""
    a, dy = _glyph_mask(char, style.mono, style.bold, target.height, style.width if style.mono else None)
    a = (
        np.asarray(
            Image.fromarray((a * 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(style.blur)), dtype=np.float32
        )
        / 255.0
    )
    glyph_top = target.top + dy
    tx0 = int(round((dst_x0 + dst_x1) / 2 - a.shape[1] / 2))
    ya, yb = max(0, glyph_top), min(arr.shape[0], glyph_top + a.shape[0])
    xa, xb = max(0, tx0), min(arr.shape[1], tx0 + a.shape[1])
    if yb <= ya or xb <= xa:
        return
    al = a[ya - glyph_top : yb - glyph_top, xa - tx0 : xb - tx0, None]
    ink = np.array(style.ink, dtype=np.float32)
    arr[ya:yb, xa:xb] = arr[ya:yb, xa:xb] * (1 - al) + ink * al


@dataclass(frozen=True, slots=True)
class Edit:
    copied: int  # characters pasted from the receipt
    drawn: int  # characters drawn in a matched font
    box: tuple[int, int, int, int]  # region changed


def replace_text(
    arr: np.ndarray,
    bank: GlyphBank,
    cells: Cells,
    line: int,
    start: int,
    end: int,
    new: str,
    rng: np.random.Generator,
    *,
    right_aligned: bool,
    allow_font: bool = True,
) -> Edit | None:
    """Replace characters ``start:end`` of ``cells`` with ``new`` (no spaces). None = cannot.

    Same length: only the differing characters change, in their own cells. Right-aligned values
    of another length keep their common ending and re-lay the rest leftwards at the line's pitch.
    """
    old = cells.chars[start:end]
    if old == new:
        return None
    if not cells.mono and any(c.isalpha() for c in old + new) and not right_aligned:
        return _relayout(arr, bank, cells, line, start, end, new, rng)
    slots: list[tuple[str, int, int]] = []  # (char, x0, x1) to paint
    if len(new) == len(old):
        own = bank.glyphs_of(line)
        erase_boxes = []
        for k, (a, b) in enumerate(zip(old, new)):
            if a != b:
                x0, x1 = cells.xs[start + k]
                erase_boxes.append((x0, x1))
                if len(own) == len(cells.chars):  # centre the new glyph where the old one's ink was
                    x0, x1 = own[start + k].x0, own[start + k].x1
                slots.append((b, x0, x1))
    elif right_aligned:
        keep = 0
        while keep < min(len(old), len(new)) and old[-1 - keep] == new[-1 - keep]:
            keep += 1
        right = cells.xs[end - keep][0] if keep else cells.xs[end - 1][1]
        pitch = cells.pitch()
        gap = _median_gap(cells)
        x = right
        for ch in reversed(new[: len(new) - keep]):
            w = pitch if cells.mono or ch.isalnum() else max(2.0, pitch * 0.5)
            slots.append((ch, int(round(x - w)), int(round(x))))
            x -= w + (0 if cells.mono else gap)
        slots.reverse()
        if start > 0 and slots[0][1] < cells.xs[start - 1][1] + max(1.0, gap):
            return None  # no room: the new value would run into the text before it
        left_old = cells.xs[start][0]
        erase_boxes = [(min(left_old, slots[0][1]), right)]
    else:
        return None
    pad = max(1, cells.height // 8)
    drawn = copied = 0
    style = None
    picks: list[tuple[str, int, int, Glyph | None]] = []
    for ch, x0, x1 in slots:
        g = bank.pick(ch, cells, line, rng)
        if g is None and not allow_font:
            return None
        picks.append((ch, x0, x1, g))
    for x0, x1 in erase_boxes:
        erase(arr, (x0 - 1, cells.top - pad, x1 + 1, cells.bottom + pad), cells.height, rng)
    for ch, x0, x1, g in picks:
        if g is not None:
            paste(arr, bank, g, x0, x1, cells, line)
            copied += 1
        else:
            style = style or measure_style(bank.source, cells)
            draw(arr, ch, x0, x1, cells, style)
            drawn += 1
    x_lo = min(min(b[0] for b in erase_boxes), min(s[1] for s in slots))
    x_hi = max(max(b[1] for b in erase_boxes), max(s[2] for s in slots))
    return Edit(copied, drawn, (x_lo, cells.top - pad, x_hi, cells.bottom + pad))


def _median_gap(cells: Cells) -> float:
    gaps = [cells.xs[i + 1][0] - cells.xs[i][1] for i in range(len(cells.xs) - 1)]
    gaps = [g for g in gaps if g < cells.height]
    return float(np.median(gaps)) if gaps else 1.0


def _relayout(
    arr: np.ndarray, bank: GlyphBank, cells: Cells, line: int, start: int, end: int, new: str, rng: np.random.Generator
) -> Edit | None:
    """A word in a proportional font: every glyph pasted from the receipt at its own width.

    Only glyphs of the same line are used (a shop name is often in a display face nothing else
    on the receipt uses; a drawn or borrowed letter among them is the kind of mismatch a forger
    would not accept), spaced like the line's own letters, and the word must fit before the next.
    """
    picks = [bank.pick(ch, cells, line, rng, same_line=True) for ch in new]
    if any(g is None for g in picks):
        return None
    glyphs = [g for g in picks if g is not None]
    own = bank.glyphs_of(line)
    x_start = own[start].x0 if start < len(own) else cells.xs[start][0]
    old_end = own[end - 1].x1 if end - 1 < len(own) else cells.xs[end - 1][1]
    gap = letter_gap(own, cells.height)
    width = sum(g.x1 - g.x0 for g in glyphs) + gap * (len(glyphs) - 1)
    # a shorter word: letter spacing opened a little, then centred in the old word's place
    spare = max(0.0, (old_end - x_start) - width)
    extra = min(spare / max(1, len(glyphs) - 1), 0.3 * gap + 1.0) if len(glyphs) > 1 else 0.0
    x = float(x_start) + (spare - extra * (len(glyphs) - 1)) / 2
    slots = []
    for g in glyphs:
        w = g.x1 - g.x0
        slots.append((g, int(round(x)), int(round(x + w))))
        x += w + gap + extra
    right = slots[-1][2]
    limit = own[end].x0 - 2 * gap if end < len(own) else old_end + cells.pitch()
    if right > limit:
        return None
    pad = max(1, cells.height // 8)
    x_hi = max(old_end, right)
    box = (x_start - 1, cells.top - pad, x_hi + 1, cells.bottom + pad)
    erase(arr, box, cells.height, rng)
    for g, x0, x1 in slots:
        paste(arr, bank, g, x0, x1, cells, line, tight=True)
    return Edit(len(slots), 0, box)


def letter_gap(own: list[Glyph], height: int) -> float:
    """Median blank between two letters of one word on this line."""
    gaps = [b.x0 - a.x1 for a, b in zip(own, own[1:]) if a.char.isalnum() and b.char.isalnum()]
    gaps = [g for g in gaps if 0 <= g < 0.4 * height]
    return float(np.median(gaps)) if gaps else max(1.0, height * 0.08)


def word_width(bank: GlyphBank, word: str, cells: Cells, line: int) -> float | None:
    """How wide ``word`` would print with the receipt's own glyphs (None: a letter is missing)."""
    rng = np.random.default_rng(0)
    total = 0.0
    for ch in word:
        g = bank.pick(ch, cells, line, rng, same_line=True)
        if g is None:
            return None
        total += g.x1 - g.x0
    return total + letter_gap(bank.glyphs_of(line), cells.height) * (len(word) - 1)
