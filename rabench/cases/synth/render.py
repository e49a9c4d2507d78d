"""Draw layout rows as a receipt image with Pillow (DejaVu fonts), noting where each field is.

Why boxes: fakes that change one field (inpainting, retyping) must touch only
that field's pixels, and the label names the field they touched.

``Quirks`` give the "generative look" of whole-AI fakes: a line now and then in
a different font or size, uneven letter spacing, a wavering baseline. A genuine
receipt never has them; a detector can see them, a file-format check cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rabench.cases.synth.layouts import Row, Style

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = {
    ("mono", False): "DejaVuSansMono.ttf",
    ("mono", True): "DejaVuSansMono-Bold.ttf",
    ("sans", False): "DejaVuSans.ttf",
    ("sans", True): "DejaVuSans-Bold.ttf",
    ("serif", False): "DejaVuSerif.ttf",
    ("serif", True): "DejaVuSerif-Bold.ttf",
    ("condensed", False): "DejaVuSansCondensed.ttf",
    ("condensed", True): "DejaVuSansCondensed-Bold.ttf",
}
FAMILIES = ("mono", "sans", "serif", "condensed")

Box = tuple[int, int, int, int]


@lru_cache(maxsize=128)
def font(family: str, bold: bool, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(f"{FONT_DIR}/{FONTS[(family, bold)]}", px)


@dataclass(frozen=True, slots=True)
class Quirks:
    """Per-receipt generative-look settings (all zero = a normal printer)."""

    swap_rate: float = 0.0  # share of rows drawn in another font family
    spacing_jitter: float = 0.0  # px of random extra letter spacing
    baseline_jitter: float = 0.0  # px of random vertical wobble per glyph
    size_jitter: float = 0.0  # relative size change per swapped row


NO_QUIRKS = Quirks()


@dataclass(frozen=True, slots=True)
class Rendered:
    image: Image.Image
    boxes: dict[str, list[Box]]  # field -> boxes of its printed value
    family: str


def _wrap(text: str, f: ImageFont.FreeTypeFont, width: int) -> list[str]:
    if f.getlength(text) <= width:
        return [text]
    lines: list[str] = []
    cur = ""
    for word in text.split(" "):
        trial = f"{cur} {word}".strip()
        if f.getlength(trial) <= width or not cur:
            cur = trial
        else:
            lines.append(cur)
            cur = word
    if cur:
        lines.append(cur)
    return lines


def _draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    f: ImageFont.FreeTypeFont,
    ink: tuple[int, int, int],
    rng: np.random.Generator | None,
    q: Quirks,
) -> Box:
    """Draw ``text``; with quirks, glyph by glyph with jittered spacing and baseline."""
    x, y = xy
    if rng is None or (q.spacing_jitter == 0 and q.baseline_jitter == 0):
        draw.text((x, y), text, font=f, fill=ink)
        l, t, r, b = draw.textbbox((x, y), text, font=f)
        return (int(l), int(t), int(r), int(b))
    x0 = x
    top, bottom = 10**9, -(10**9)
    for ch in text:
        dy = float(rng.normal(0, q.baseline_jitter))
        draw.text((x, y + dy), ch, font=f, fill=ink)
        l, t, r, b = draw.textbbox((x, y + dy), ch, font=f)
        top, bottom = min(top, t), max(bottom, b)
        x += f.getlength(ch) + float(rng.normal(0, q.spacing_jitter))
    return (int(x0), int(top), int(x), int(bottom))


def _text_width(text: str, f: ImageFont.FreeTypeFont) -> float:
    return f.getlength(text)


def render_rows(
    rows: list[Row], style: Style, *, quirks: Quirks = NO_QUIRKS, quirk_rng: np.random.Generator | None = None
) -> Rendered:
    """Render rows top to bottom on receipt paper; return the image and field boxes."""
    W = style.width_px
    m = style.margin_px
    inner = W - 2 * m
    # Decide per-row font first (quirks are decided once, before layout).
    plan: list[tuple[Row, ImageFont.FreeTypeFont, list[str]]] = []
    for row in rows:
        fam = style.family
        px = int(round(style.base_px * row.size))
        if (
            quirk_rng is not None
            and quirks.swap_rate
            and row.kind in ("text", "kv")
            and quirk_rng.random() < quirks.swap_rate
        ):
            fam = FAMILIES[int(quirk_rng.integers(len(FAMILIES)))]
            px = int(round(px * (1 + float(quirk_rng.uniform(-quirks.size_jitter, quirks.size_jitter)))))
        f = font(fam, row.bold, max(12, px))
        if row.kind == "text":
            lines = _wrap(row.left, f, inner)
        elif row.kind == "kv":  # a long label wraps under itself, the value stays on its first line
            lines = _wrap(row.left, f, max(f.size * 4, inner - _text_width(row.right, f) - f.size))
        else:
            lines = [row.left]
        plan.append((row, f, lines))
    heights = []
    for row, f, lines in plan:
        lh = int(f.size * style.line_gap)
        heights.append(
            {
                "rule": int(style.base_px * 0.9),
                "space": int(style.base_px * 0.8),
                "barcode": int(style.base_px * 3.2),
            }.get(row.kind, lh * len(lines))
        )
    H = sum(heights) + 2 * m
    img = Image.new("RGB", (W, H), style.paper)
    draw = ImageDraw.Draw(img)
    boxes: dict[str, list[Box]] = {}
    y = m
    for (row, f, lines), h in zip(plan, heights):
        if row.kind == "rule":
            dash = "-" * int(inner / max(1.0, f.getlength("-")))
            draw.text((m, y), dash, font=font(style.family, False, style.base_px), fill=style.ink)
        elif row.kind == "barcode":
            x = m + inner * 0.15
            bar_rng = np.random.default_rng(
                abs(hash(rows[0].left)) % (2**32)
            )  # fixed by PYTHONHASHSEED-free text below
            bar_rng = np.random.default_rng(sum(ord(c) for c in rows[0].left))
            while x < m + inner * 0.85:
                bw = int(bar_rng.integers(2, 7))
                draw.rectangle((x, y + 4, x + bw, y + h - 8), fill=style.ink)
                x += bw + int(bar_rng.integers(2, 6))
        elif row.kind == "text":
            lh = h // max(1, len(lines))
            for i, line in enumerate(lines):
                tw = _text_width(line, f)
                x = {"left": m, "center": (W - tw) / 2, "right": W - m - tw}[row.align]
                box = _draw_text(draw, (x, y + i * lh), line, f, style.ink, quirk_rng, quirks)
                if row.field:
                    boxes.setdefault(row.field, []).append(box)
        elif row.kind == "table":
            _draw_text(draw, (m, y), row.left, f, style.ink, quirk_rng, quirks)
            colw = inner * 0.21
            for j, col in enumerate(row.cols):
                right = W - m - (len(row.cols) - 1 - j) * colw
                box = _draw_text(draw, (right - _text_width(col, f), y), col, f, style.ink, quirk_rng, quirks)
                if row.field and j == row.field_col:
                    boxes.setdefault(row.field, []).append(box)
        elif row.kind == "kv":
            rw = _text_width(row.right, f)
            lh = h // max(1, len(lines))
            for i, line in enumerate(lines):
                _draw_text(draw, (m, y + i * lh), line, f, style.ink, quirk_rng, quirks)
            box = _draw_text(draw, (W - m - rw, y), row.right, f, style.ink, quirk_rng, quirks)
            if row.field:
                boxes.setdefault(row.field, []).append(box)
        y += h
    return Rendered(img, boxes, style.family)


def age_print(img: Image.Image, rng: np.random.Generator, amount: float, fade: float = 0.0) -> Image.Image:
    """Thermal-print wear: faded bands and speckle, so genuine paper is not pixel-perfect.

    ``fade`` (0-1) is an old, faded thermal receipt: the ink pulled towards the paper
    colour by that share on average, unevenly (a smooth random field, stronger at one
    end), with dropouts in the strokes and a few grey specks.
    """
    if amount <= 0 and fade <= 0:
        return img
    a = np.asarray(img, dtype=np.float32)
    h, w = a.shape[:2]
    band = 1.0 + amount * 0.25 * np.sin(
        np.linspace(0, float(rng.uniform(2, 9)), h, dtype=np.float32) + float(rng.uniform(0, 6))
    )
    paper = a.max(axis=(0, 1), keepdims=True)
    faded = paper - (paper - a) * np.clip(band, 0.6, 1.0)[:, None, None]
    speck = rng.random(size=a.shape[:2], dtype=np.float32) < 0.0015 * amount
    faded[speck] = faded[speck] * 0.6
    if fade > 0:
        small = rng.normal(0.0, 1.0, size=(max(2, h // 120), max(2, w // 120))).astype(np.float32)
        field = (
            np.asarray(
                Image.fromarray(((small + 4) * 32).clip(0, 255).astype(np.uint8)).resize((w, h), Image.BICUBIC),
                dtype=np.float32,
            )
            / 32.0
            - 4.0
        )
        slope = np.linspace(-1.0, 1.0, h, dtype=np.float32)[:, None] * float(
            rng.choice([-1, 1]) * rng.uniform(0.15, 0.4)
        )
        keep = np.clip((1.0 - fade) * (1.0 + 0.3 * field + slope), 0.12, 1.0)
        faded = paper - (paper - faded) * keep[:, :, None]
        ink = (paper - faded).max(axis=2) > 25
        drop = ink & (rng.random(size=(h, w), dtype=np.float32) < float(rng.uniform(0.02, 0.08)))
        faded[drop] = paper[0, 0]
        grey = rng.random(size=(h, w), dtype=np.float32) < 0.0006
        faded[grey] = faded[grey] * 0.8
    return Image.fromarray(np.clip(faded, 0, 255).astype(np.uint8), "RGB")
