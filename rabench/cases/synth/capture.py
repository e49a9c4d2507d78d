"""How a printed receipt became a file: flatbed scan, phone photo or screenshot.

A capture is planned once (``plan_capture``: geometry as one homography from
document to output pixels, light, blur, noise) and then rendered. Keeping the
plan separate is what lets an inpainting fake regenerate one field *in the same
photo*: it renders the edited document with the same plan and a different noise
realisation, then pastes only the field's region (``warp_mask`` / ``map_box``).
Native PDFs are not captured; see ``pdfdoc``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from rabench.cases.synth import camera as cam
from rabench.cases.synth.render import font

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Geom:
    kind: str  # scan | photo | screenshot
    H: tuple[float, ...]  # 3x3 row-major, document px -> output px
    size: tuple[int, int]
    bg: tuple[int, int, int]
    bg_seed: int
    texture: float
    light: tuple[float, ...]  # gx, gy, cx, cy, depth, r, g, b, gain
    blur: float
    noise: float
    grey: bool = False
    header: tuple[tuple[int, int, int], str, str, int] | None = None  # colour, title, clock, height px
    specks: int = 0  # dust specks on the scanner glass (full-page scans)


def _mat(t: tuple[float, ...]) -> np.ndarray:
    return np.array(t, dtype=np.float64).reshape(3, 3)


def _translate(x: float, y: float) -> np.ndarray:
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], dtype=np.float64)


def _scale(s: float) -> np.ndarray:
    return np.array([[s, 0, 0], [0, s, 0], [0, 0, 1]], dtype=np.float64)


def _rotate_about(deg: float, cx: float, cy: float) -> np.ndarray:
    a = np.deg2rad(deg)
    c, s = np.cos(a), np.sin(a)
    r = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)
    return _translate(cx, cy) @ r @ _translate(-cx, -cy)


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    coeffs = cam._perspective_coeffs(src, dst)  # maps src -> dst
    return np.array(coeffs + [1.0], dtype=np.float64).reshape(3, 3)


def _light(rng: np.random.Generator, depth: float) -> tuple[float, ...]:
    gx, gy = rng.uniform(-1, 1, size=2)
    cx, cy = rng.uniform(-0.5, 0.5, size=2)
    r, g, b = rng.uniform(0.92, 1.04, size=3)
    return (
        float(gx),
        float(gy),
        float(cx),
        float(cy),
        depth,
        float(r),
        float(g),
        float(b),
        float(rng.uniform(0.88, 1.04)),
    )


def _scanner_light(rng: np.random.Generator, depth: float) -> tuple[float, ...]:
    """A scanner's lamp: calibrated to white (a slight over-exposure is common), a faint colour cast."""
    gx, gy, cx, cy = (float(v) for v in rng.uniform(-1, 1, size=4) * (1, 1, 0.5, 0.5))
    r, g, b = (float(v) for v in rng.uniform(0.985, 1.015, size=3))
    return (gx, gy, cx, cy, depth, r, g, b, float(rng.uniform(0.97, 1.08)))


def plan_capture(kind: str, doc_size: tuple[int, int], rng: np.random.Generator) -> Geom:
    w, h = doc_size
    if kind == "photo":
        mx, my = w * rng.uniform(0.05, 0.14), h * rng.uniform(0.03, 0.07)
        cw, ch = w + 2 * mx, h + 2 * my
        corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], dtype=np.float64)
        jitter = rng.uniform(-0.04, 0.04, size=(4, 2)) * min(cw, ch)
        P = _homography(corners, np.clip(corners + jitter, [[-1e9, -1e9]], None))
        R = _rotate_about(float(rng.uniform(-2.5, 2.5)), cw / 2, ch / 2)
        long_side = float(rng.choice([1280, 1440, 1600]))
        s = min(1.0, long_side / max(cw, ch))
        H = _scale(s) @ R @ P @ _translate(mx, my)
        size = (int(round(cw * s)), int(round(ch * s)))
        bg = cam.BACKGROUNDS[int(rng.integers(len(cam.BACKGROUNDS)))]
        return Geom(
            "photo",
            tuple(H.ravel()),
            size,
            bg,
            int(rng.integers(2**31)),
            10.0,
            _light(rng, float(rng.uniform(0.15, 0.4))),
            float(rng.uniform(0.3, 1.0)),
            float(rng.uniform(1.5, 4.0)),
        )
    if kind == "scan":
        mode = float(rng.random())
        grey = bool(rng.random() < 0.5)
        if mode < SCAN_MODES["page"]:
            return _page_scan(doc_size, rng, grey)
        tight = mode < SCAN_MODES["page"] + SCAN_MODES["tight"]
        if tight:  # auto-cropped to the paper by the scanning software
            mx, my = w * rng.uniform(0.0, 0.012), h * rng.uniform(0.0, 0.006)
        else:  # the scanner lid around the receipt
            mx, my = w * rng.uniform(0.02, 0.08), h * rng.uniform(0.01, 0.04)
        s = float(rng.uniform(0.85, 1.35))  # the receipt renders at ~220 dpi: scanned at 200-300 dpi
        cw, ch = (w + 2 * mx) * s, (h + 2 * my) * s
        deg = float(rng.uniform(-0.5, 0.5)) if tight else float(rng.uniform(-1.2, 1.2))
        H = _rotate_about(deg, cw / 2, ch / 2) @ _scale(s) @ _translate(mx, my)
        lid = int(rng.integers(232, 252)) if tight else int(rng.integers(212, 248))
        return Geom(
            "scan",
            tuple(H.ravel()),
            (int(round(cw)), int(round(ch))),
            (lid, lid, lid - 2),
            int(rng.integers(2**31)),
            2.0,
            _scanner_light(rng, float(rng.uniform(0.0, 0.08))),
            float(rng.uniform(0.2, 0.6)),
            float(rng.uniform(0.8, 2.2)),
            grey=grey,
        )
    if kind == "screenshot":
        phone = bool(rng.random() < 0.6)
        if phone:
            sw = int(rng.choice([1080, 1170, 1179, 1284]))
            head = int(sw * 0.2)
            pad = int(sw * 0.04)
            s = (sw - 2 * pad) / w
            H = _translate(pad, head + pad) @ _scale(s)
            size = (sw, int(round(head + 2 * pad + h * s)))
            colour = tuple(int(v) for v in rng.integers(20, 200, size=3))
            title = ("Receipt", "Order details", "Your trip", "Purchase", "Beleg", "Reçu")[int(rng.integers(6))]
            clock = f"{int(rng.integers(7, 23))}:{int(rng.integers(0, 60)):02d}"
            bgc = (242, 242, 247) if rng.random() < 0.7 else (255, 255, 255)
            return Geom(
                "screenshot",
                tuple(H.ravel()),
                size,
                bgc,
                0,
                0.0,
                (0, 0, 0, 0, 0, 1, 1, 1, 1),
                0.0,
                0.0,
                header=(colour, title, clock, head),
            )  # type: ignore[arg-type]
        s = float(rng.choice([1.0, 1.0, 1.25, 1.5]))
        H = _scale(s)
        return Geom(
            "screenshot",
            tuple(H.ravel()),
            (int(round(w * s)), int(round(h * s))),
            (255, 255, 255),
            0,
            0.0,
            (0, 0, 0, 0, 0, 1, 1, 1, 1),
            0.0,
            0.0,
        )
    raise ValueError(f"unknown capture {kind!r}")


# Shares of the three flatbed-scan looks: a whole page with the receipt in about a third of it,
# a scan auto-cropped to the paper, and the receipt on the scanner lid with a margin.
SCAN_MODES = {"page": 0.25, "tight": 0.35, "lid": 0.40}
PAGES_MM = ((210.0, 297.0), (215.9, 279.4))  # A4, US Letter


def _page_scan(doc_size: tuple[int, int], rng: np.random.Generator, grey: bool) -> Geom:
    """A full flatbed page at 200 or 300 dpi; the till roll (80 mm) at the page's resolution."""
    w, h = doc_size
    dpi = float(rng.choice([200.0, 300.0], p=[0.4, 0.6]))
    pmm = PAGES_MM[0] if rng.random() < 0.8 else PAGES_MM[1]
    pw, ph = int(round(pmm[0] / 25.4 * dpi)), int(round(pmm[1] / 25.4 * dpi))
    s = min(80.0 / 25.4 * dpi / w * float(rng.uniform(0.9, 1.1)), ph * 0.92 / h)
    rw, rh = w * s, h * s
    x0 = float(rng.uniform(0.04, 0.96)) * (pw - rw) if rng.random() < 0.5 else (pw - rw) / 2 + float(rng.normal(0, 20))
    y0 = float(rng.uniform(0.02, 0.6)) * (ph - rh)
    H = _translate(x0, y0) @ _rotate_about(float(rng.uniform(-1.5, 1.5)), rw / 2, rh / 2) @ _scale(s)
    page = int(rng.integers(236, 256))
    return Geom(
        "scan",
        tuple(H.ravel()),
        (pw, ph),
        (page, page, page),
        int(rng.integers(2**31)),
        0.0,
        _scanner_light(rng, float(rng.uniform(0.0, 0.03))),
        float(rng.uniform(0.3, 0.8)),
        float(rng.uniform(0.3, 1.2)),
        grey=grey,
        specks=int(rng.integers(0, 80)),
    )


def _specks(img: Image.Image, g: Geom, seed: int) -> None:
    """Dust and toner specks scattered over a scanned page."""
    rng = np.random.default_rng([seed, 17])
    d = ImageDraw.Draw(img)
    w, h = img.size
    for _ in range(g.specks):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r = float(rng.uniform(0.6, 2.6))
        v = int(rng.integers(60, 200))
        d.ellipse((x - r, y - r * float(rng.uniform(0.5, 1.5)), x + r, y + r), fill=(v, v, v))


def _background(g: Geom) -> Image.Image:
    w, h = g.size
    if g.texture <= 0:
        return Image.new("RGB", g.size, g.bg)
    rng = np.random.default_rng(g.bg_seed)
    small = rng.normal(0.0, g.texture, size=(max(2, h // 48), max(2, w // 48))).astype(np.float32)
    tex = (
        np.asarray(
            Image.fromarray(np.clip(small + 128, 0, 255).astype(np.uint8)).resize(g.size, Image.BILINEAR),
            dtype=np.float32,
        )
        - 128.0
    )
    bg = np.clip(np.array(g.bg, dtype=np.float32)[None, None, :] + tex[:, :, None], 0, 255).astype(np.uint8)
    return Image.fromarray(bg, "RGB")


def _warp(img: Image.Image, g: Geom, fill: int | tuple[int, ...]) -> Image.Image:
    inv = np.linalg.inv(_mat(g.H))
    inv = inv / inv[2, 2]
    coeffs = [float(c) for c in inv.ravel()[:8]]
    return img.transform(g.size, Image.PERSPECTIVE, coeffs, Image.BILINEAR, fillcolor=fill)


def warp_mask(mask: Image.Image, g: Geom) -> Image.Image:
    """A document-space mask ("L") in output pixels."""
    return _warp(mask, g, 0)


def map_box(box: Box, g: Geom) -> Box:
    """Bounding box in output pixels of a document-space box."""
    x0, y0, x1, y1 = box
    pts = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]], dtype=np.float64).T
    out = _mat(g.H) @ pts
    out = out[:2] / out[2]
    return (
        int(np.floor(out[0].min())),
        int(np.floor(out[1].min())),
        int(np.ceil(out[0].max())),
        int(np.ceil(out[1].max())),
    )


def _header(img: Image.Image, g: Geom) -> None:
    assert g.header is not None
    colour, title, clock, head = g.header
    d = ImageDraw.Draw(img)
    w = img.width
    d.rectangle((0, 0, w, head), fill=colour)
    f_small = font("sans", True, int(head * 0.16))
    f_title = font("sans", True, int(head * 0.22))
    d.text((w * 0.06, head * 0.12), clock, font=f_small, fill=(255, 255, 255))
    d.rectangle((w * 0.84, head * 0.15, w * 0.93, head * 0.25), outline=(255, 255, 255), width=3)
    d.text((w * 0.06, head * 0.55), title, font=f_title, fill=(255, 255, 255))


def render_capture(
    doc: Image.Image, g: Geom, noise_seed: int, *, noise_scale: float = 1.0, extra_blur: float = 0.0
) -> Image.Image:
    """Render ``doc`` through capture ``g``; ``noise_seed`` picks the sensor-noise realisation."""
    canvas = _background(g)
    warped = _warp(doc.convert("RGB"), g, g.bg)
    mask = warp_mask(Image.new("L", doc.size, 255), g)
    canvas.paste(warped, (0, 0), mask)
    if g.header is not None:
        _header(canvas, g)
    if g.specks:
        _specks(canvas, g, noise_seed)
    gx, gy, cx, cy, depth, r, gg, b, gain = g.light
    if depth > 0 or gain != 1:
        a = np.asarray(canvas, dtype=np.float32)
        h, w = a.shape[:2]
        ys = np.linspace(-1.0, 1.0, h, dtype=np.float32)[:, None]
        xs = np.linspace(-1.0, 1.0, w, dtype=np.float32)[None, :]
        grad = 1.0 - depth * 0.5 * (1.0 + (gx * xs + gy * ys) / max(1e-6, abs(gx) + abs(gy)))
        vign = 1.0 - depth * 0.2 * ((xs - cx) ** 2 + (ys - cy) ** 2)
        cast = np.array([r, gg, b], dtype=np.float32) * gain
        a = a * (grad * vign)[:, :, None] * cast[None, None, :]
        canvas = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    if g.blur + extra_blur > 0:
        canvas = canvas.filter(ImageFilter.GaussianBlur(g.blur + extra_blur))
    if g.noise * noise_scale > 0:
        a = np.asarray(canvas, dtype=np.float32)
        n = np.random.default_rng(noise_seed).standard_normal(size=a.shape[:2], dtype=np.float32)
        a = a + (n * g.noise * noise_scale)[:, :, None]
        canvas = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    if g.grey:
        canvas = canvas.convert("L")
    return canvas
