"""Simulated phone photography: perspective, uneven light, blur, sensor noise, EXIF.

Why a module of its own: the generator's ``photo`` capture and the duplicate
``reshoot`` transform must degrade a document the same way, so a detector cannot
tell a re-shot duplicate from a first photo by *how* it was photographed. Every
function is pure given its ``numpy.random.Generator``, so a seed gives the same
bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import piexif
from PIL import Image, ImageFilter


@dataclass(frozen=True, slots=True)
class Camera:
    make: str
    model: str
    software: str | None  # phones write their firmware/OS version here
    lens: str | None = None


# Real phones write a Software tag too (an OS version), so "has Software" is no label.
CAMERAS: tuple[Camera, ...] = (
    Camera("Apple", "iPhone 13", "17.4.1", "iPhone 13 back dual wide camera 5.1mm f/1.6"),
    Camera("Apple", "iPhone 14 Pro", "17.5", "iPhone 14 Pro back triple camera 6.86mm f/1.78"),
    Camera("Apple", "iPhone SE (3rd generation)", "16.6", None),
    Camera("samsung", "SM-G991B", "G991BXXU9EXB1", None),
    Camera("samsung", "SM-A536B", "A536BXXS8CXA1", None),
    Camera("Google", "Pixel 7", "HDR+ 1.0.574209102zd", None),
    Camera("Google", "Pixel 6a", None, None),
    Camera("Xiaomi", "Redmi Note 12", None, None),
    Camera("OnePlus", "CPH2449", None, None),
    Camera("HUAWEI", "ELS-NX9", None, None),
)

BACKGROUNDS: tuple[tuple[int, int, int], ...] = (
    (121, 92, 64),
    (168, 140, 105),
    (70, 72, 78),
    (200, 198, 190),
    (44, 46, 50),
    (139, 110, 84),
)


def _perspective_coeffs(dst: np.ndarray, src: np.ndarray) -> list[float]:
    """Coefficients for PIL's PERSPECTIVE transform mapping output points ``dst`` to input ``src``."""
    rows = []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(rows, dtype=np.float64)
    b = src.reshape(8).astype(np.float64)
    return [float(c) for c in np.linalg.solve(a, b)]


def on_background(
    doc: Image.Image, rng: np.random.Generator, margin: tuple[float, float] = (0.04, 0.12)
) -> Image.Image:
    """The document lying on a table: padded with a textured background."""
    w, h = doc.size
    mx = int(w * rng.uniform(*margin))
    my = int(h * rng.uniform(margin[0] / 2, margin[1] / 2))
    colour = np.array(BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))], dtype=np.float32)
    bw, bh = w + 2 * mx, h + 2 * my
    # Low-frequency texture: a small random field upscaled (wood grain / cloth look).
    small = rng.normal(0.0, 10.0, size=(max(2, bh // 64), max(2, bw // 64), 1)).astype(np.float32)
    tex = (
        np.asarray(
            Image.fromarray(np.clip(small[:, :, 0] + 128, 0, 255).astype(np.uint8)).resize((bw, bh), Image.BILINEAR),
            dtype=np.float32,
        )[:, :, None]
        - 128.0
    )
    bg = np.clip(colour[None, None, :] + tex, 0, 255).astype(np.uint8)
    canvas = Image.fromarray(bg, "RGB")
    canvas.paste(doc.convert("RGB"), (mx, my))
    return canvas


def perspective(img: Image.Image, rng: np.random.Generator, strength: float = 0.05) -> Image.Image:
    """Tilt the camera: move each corner by up to ``strength`` of the size."""
    w, h = img.size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    jitter = rng.uniform(-strength, strength, size=(4, 2)) * np.array([w, h])
    src = corners + jitter
    coeffs = _perspective_coeffs(corners, src)
    fill = tuple(int(c) for c in np.asarray(img)[0, 0][:3]) if img.mode == "RGB" else 0
    return img.transform((w, h), Image.PERSPECTIVE, coeffs, Image.BILINEAR, fillcolor=fill)


def rotate(img: Image.Image, rng: np.random.Generator, max_deg: float = 3.0) -> Image.Image:
    angle = float(rng.uniform(-max_deg, max_deg))
    fill = tuple(int(c) for c in np.asarray(img.convert("RGB"))[0, 0])
    return img.rotate(angle, resample=Image.BILINEAR, expand=False, fillcolor=fill)


def lighting(img: Image.Image, rng: np.random.Generator, depth: float = 0.35) -> Image.Image:
    """Uneven light: a linear gradient, a soft vignette and a colour cast."""
    a = np.asarray(img.convert("RGB"), dtype=np.float32)
    h, w = a.shape[:2]
    ys = np.linspace(-1.0, 1.0, h, dtype=np.float32)[:, None]
    xs = np.linspace(-1.0, 1.0, w, dtype=np.float32)[None, :]
    gx, gy = rng.uniform(-1, 1, size=2)
    grad = 1.0 - depth * 0.5 * (1.0 + (gx * xs + gy * ys) / max(1e-6, abs(gx) + abs(gy)))
    cx, cy = rng.uniform(-0.5, 0.5, size=2)
    vign = 1.0 - depth * 0.4 * ((xs - cx) ** 2 + (ys - cy) ** 2) / 2.0
    cast = rng.uniform(0.9, 1.05, size=3).astype(np.float32)
    gain = float(rng.uniform(0.85, 1.05))
    out = a * (grad * vign)[:, :, None] * cast[None, None, :] * gain
    return Image.fromarray(np.clip(out, 0, 255).astype(np.uint8), "RGB")


def blur(img: Image.Image, rng: np.random.Generator, radius: tuple[float, float] = (0.4, 1.2)) -> Image.Image:
    return img.filter(ImageFilter.GaussianBlur(float(rng.uniform(*radius))))


def noise(img: Image.Image, rng: np.random.Generator, sigma: tuple[float, float] = (2.0, 7.0)) -> Image.Image:
    """Sensor noise (Gaussian, a little stronger in the dark)."""
    a = np.asarray(img.convert("RGB"), dtype=np.float32)
    s = float(rng.uniform(*sigma))
    n = rng.standard_normal(size=a.shape, dtype=np.float32) * s * (1.3 - a / 400.0)
    return Image.fromarray(np.clip(a + n, 0, 255).astype(np.uint8), "RGB")


def photograph(doc: Image.Image, rng: np.random.Generator, *, strength: float = 1.0) -> Image.Image:
    """A phone photo of ``doc``: background, perspective, rotation, light, blur, noise."""
    img = on_background(doc, rng)
    img = perspective(img, rng, 0.045 * strength)
    img = rotate(img, rng, 2.5 * strength)
    img = lighting(img, rng, 0.35 * strength)
    img = blur(img, rng, (0.3 * strength, 1.0 * strength))
    img = noise(img, rng, (2.0 * strength, 6.0 * strength))
    # Phones shoot at a fixed pixel count; scale to a plausible long side without losing legibility.
    long_side = int(rng.choice([1280, 1440, 1600, 1920]))
    w, h = img.size
    if max(w, h) > long_side:
        s = long_side / max(w, h)
        img = img.resize((max(1, round(w * s)), max(1, round(h * s))), Image.LANCZOS)
    return img


def pick_camera(rng: np.random.Generator) -> Camera:
    return CAMERAS[int(rng.integers(len(CAMERAS)))]


def thumbnail_jpeg(img: Image.Image, size: int = 160, quality: int = 75) -> bytes:
    """An EXIF-style thumbnail (fits the 64 KB APP1 limit with room to spare)."""
    t = img.convert("RGB").copy()
    t.thumbnail((size, size), Image.LANCZOS)
    buf = io.BytesIO()
    t.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def camera_exif(
    camera: Camera,
    taken: datetime,
    offset: str,
    size: tuple[int, int],
    *,
    thumbnail: bytes | None = None,
    software: str | None | bool = True,
) -> bytes:
    """EXIF a phone would write. ``software=True`` = the camera's own firmware tag, a str overrides it."""
    stamp = taken.strftime("%Y:%m:%d %H:%M:%S").encode()
    zeroth: dict[int, object] = {
        piexif.ImageIFD.Orientation: 1,
        piexif.ImageIFD.XResolution: (72, 1),
        piexif.ImageIFD.YResolution: (72, 1),
        piexif.ImageIFD.ResolutionUnit: 2,
        piexif.ImageIFD.DateTime: stamp,
    }
    if camera.make:
        zeroth[piexif.ImageIFD.Make] = camera.make.encode()
    if camera.model:
        zeroth[piexif.ImageIFD.Model] = camera.model.encode()
    sw = camera.software if software is True else (software or None)
    if sw:
        zeroth[piexif.ImageIFD.Software] = sw.encode()
    exif: dict[int, object] = {
        piexif.ExifIFD.DateTimeOriginal: stamp,
        piexif.ExifIFD.DateTimeDigitized: stamp,
        piexif.ExifIFD.OffsetTimeOriginal: offset.encode(),
        piexif.ExifIFD.OffsetTime: offset.encode(),
        piexif.ExifIFD.PixelXDimension: size[0],
        piexif.ExifIFD.PixelYDimension: size[1],
        piexif.ExifIFD.ExposureTime: (1, 60),
        piexif.ExifIFD.FNumber: (18, 10),
        piexif.ExifIFD.ISOSpeedRatings: 200,
    }
    if camera.lens:
        exif[piexif.ExifIFD.LensModel] = camera.lens.encode()
    d: dict[str, object] = {"0th": zeroth, "Exif": exif, "GPS": {}, "1st": {}, "thumbnail": None}
    if thumbnail is not None:
        d["1st"] = {
            piexif.ImageIFD.Compression: 6,
            piexif.ImageIFD.XResolution: (72, 1),
            piexif.ImageIFD.YResolution: (72, 1),
            piexif.ImageIFD.ResolutionUnit: 2,
        }
        d["thumbnail"] = thumbnail
    return piexif.dump(d)


def encode_jpeg(img: Image.Image, quality: int, *, exif: bytes | None = None, subsampling: int = 2) -> bytes:
    buf = io.BytesIO()
    kwargs: dict[str, object] = {"quality": int(quality), "subsampling": subsampling}
    if exif:
        kwargs["exif"] = exif
    img.convert("RGB").save(buf, "JPEG", **kwargs)
    return buf.getvalue()


def encode_png(img: Image.Image, *, pnginfo: object | None = None, compress_level: int = 6) -> bytes:
    buf = io.BytesIO()
    kwargs: dict[str, object] = {"compress_level": compress_level}
    if pnginfo is not None:
        kwargs["pnginfo"] = pnginfo
    img.save(buf, "PNG", **kwargs)
    return buf.getvalue()
