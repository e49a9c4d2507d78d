"""How a receipt file was last saved: the tool, its settings and the metadata it wrote.

Why one module for fakes and genuine receipts alike: a lazy detector that learns
"has an editor tag", "was recompressed", "is a phone photo" or "is rotated"
must find those traits on genuine receipts as often as on forgeries (the leak
audit checks it). So every output, forged or not, leaves through the same
``deliver`` with a delivery drawn from the same menu; only the proof-grade
traces (an AI source type, a stale thumbnail, a camera date before the
purchase) are the forger's own.

Deliveries:

- ``keep``: the original bytes (genuine only: there is nothing to save);
- ``same``: re-saved in the source's format at the source's own JPEG quality
  (GIMP's "use quality settings from original"), no metadata added;
- ``editor``: saved by a desktop or phone editor at its quality, which writes
  its ``Software`` tag (and sometimes XMP ``CreatorTool`` and history);
- ``message``: sent through a messaging app: JPEG at 70-88, at most 1600 px,
  all metadata dropped;
- ``camera``: photographed with a phone: perspective, light, blur, noise,
  camera EXIF with a thumbnail of the photo, taken between the purchase and
  the submission (``stale`` for a forgery: the photo was edited afterwards and
  the editor kept the EXIF, so the thumbnail still shows the unedited receipt).
"""

from __future__ import annotations

import copy
import io
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from PIL import Image

from rabench.cases.audit import jpeg_quality
from rabench.cases.synth import camera as cam
from rabench.cases.synth import provenance as pv

ROTATIONS = ("none", "exif90", "exif270", "turn180", "skew")
# Settings drawn by quota (``make.Mix``), so every class gets the same mix of them.
PHOTO_SIDES = {1280: 0.25, 1440: 0.25, 1600: 0.25, 1920: 0.25}  # a phone picture's long side
PHOTO_QUALITY = {86: 0.25, 89: 0.25, 92: 0.25, 95: 0.25}
EDITOR_QUALITY = {"90": 0.2, "92": 0.15, "95": 0.15, "98": 0.15, "source": 0.35}  # "source": the original's
MESSAGE_QUALITY = {72: 0.2, 76: 0.2, 80: 0.2, 84: 0.2, 88: 0.2}


@dataclass(frozen=True, slots=True)
class Settings:
    """How one file is encoded: JPEG quality (an editor's: a number or "source"), a messaging
    app's quality, a phone picture's long side."""

    quality: int | str = "source"
    message_quality: int = 80
    long_side: int = 1600


@dataclass(frozen=True, slots=True)
class Saved:
    data: bytes
    media_type: str
    provenance: str  # intact | stripped | none
    capture: str | None  # "photo" when photographed, else None (the source's)
    taken: datetime | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """What the saving needs to know about the file the receipt came from."""

    media_type: str
    quality: int | None  # the source JPEG's quality (None for PNG)
    had_meta: bool  # the source file carried EXIF/XMP/PNG text
    photo: bool = False  # the source is already a phone photo (tagged so, or camera EXIF)


def describe_source(data: bytes, media_type: str, capture: str | None = None) -> Source:
    """``capture``: the source case's capture tag, if it has one."""
    img = Image.open(io.BytesIO(data))
    q = jpeg_quality(img) if img.format == "JPEG" else None
    info = img.info
    exif = img.getexif()
    had = bool(len(exif)) or any(k in info for k in ("exif", "xmp", "XML:com.adobe.xmp", "Software"))
    photo = capture == "photo" or (capture is None and bool(exif.get(0x010F) or exif.get(0x0110)))  # Make/Model
    return Source(media_type=media_type, quality=int(q) if q else None, had_meta=had, photo=photo)


def _editor_quality(choice: int | str, src: Source) -> int:
    # GIMP's default 90, Photoshop "high"/"maximum", phone editors ~92-95, or the original's own
    if choice == "source":
        return src.quality or 92
    return int(choice)


def _lost_meta(src: Source) -> str:
    return "stripped" if src.had_meta else "none"


def rotate(img: Image.Image, how: str, rng: np.random.Generator) -> tuple[Image.Image, int]:
    """(stored pixels, EXIF orientation) for a receipt saved sideways, upside down or askew."""
    if how == "exif90":
        return img.rotate(90, expand=True), 6  # stored turned left; viewers turn it right
    if how == "exif270":
        return img.rotate(270, expand=True), 8
    if how == "turn180":
        return img.rotate(180), 1
    if how == "skew":
        angle = float(rng.uniform(1.0, 3.0)) * (1 if rng.random() < 0.5 else -1)
        fill = tuple(int(v) for v in np.percentile(np.asarray(img.convert("RGB")).reshape(-1, 3), 90, axis=0))
        return img.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=fill), 1
    return img, 1


def _exif(orientation: int, software: str | None, basic: bool) -> bytes | None:
    """EXIF a non-camera tool writes: orientation, its name, or (``basic``) just the resolution
    block many export dialogs add."""
    import piexif

    zeroth: dict[int, object] = {}
    if orientation != 1:
        zeroth[piexif.ImageIFD.Orientation] = orientation
    if software:
        zeroth[piexif.ImageIFD.Software] = software.encode("ascii", "replace")
    if basic or zeroth:
        zeroth.update(
            {
                piexif.ImageIFD.XResolution: (72, 1),
                piexif.ImageIFD.YResolution: (72, 1),
                piexif.ImageIFD.ResolutionUnit: 2,
            }
        )
    if not zeroth:
        return None
    return piexif.dump({"0th": zeroth, "Exif": {}, "GPS": {}, "1st": {}, "thumbnail": None})


def _encode(
    img: Image.Image, fmt: str, quality: int, meta: pv.Meta, doc_id: str, orientation: int, basic_exif: bool = False
) -> bytes:
    if fmt == "png":
        data = pv.write_png(img.convert("RGB"), meta, doc_id)
        return data
    exif = _exif(orientation, meta.software, basic_exif)
    xmp = pv.xmp_packet(meta, doc_id)
    buf = io.BytesIO()
    kwargs: dict[str, object] = {"quality": int(quality), "subsampling": 2}
    if exif:
        kwargs["exif"] = exif
    if xmp:
        kwargs["xmp"] = xmp
    img.convert("RGB").save(buf, "JPEG", **kwargs)
    return buf.getvalue()


def editor_meta(rng: np.random.Generator, stamp: datetime | None, tool: str | None = None) -> pv.Meta:
    tool = tool or str(pv.pick(rng, pv.EDITORS))
    when = (stamp or datetime(2025, 1, 1)).strftime("%Y-%m-%dT%H:%M:%S")
    return pv.Meta(
        software=tool,
        creator_tool=tool if rng.random() < 0.5 else None,
        history=(("saved", tool, when),) if rng.random() < 0.4 else (),
        stamp=stamp,
    )


def save_flat(
    img: Image.Image,
    src: Source,
    how: str,
    rng: np.random.Generator,
    doc_id: str,
    *,
    rotation: str = "none",
    meta: pv.Meta | None = None,
    stamp: datetime | None = None,
    basic_exif: bool = False,
    settings: Settings = Settings(),
) -> Saved:
    """Save ``img`` by delivery ``how`` (``same`` | ``editor`` | ``message``), optionally rotated.

    ``meta`` overrides the editor's metadata (AI tools write their own)."""
    fmt = "png" if src.media_type == "image/png" else "jpeg"
    if how == "message" and rotation in ("exif90", "exif270"):
        rotation = "none"  # messaging apps bake the orientation into the pixels
    if fmt == "png" and rotation in ("exif90", "exif270"):
        rotation = "turn180"  # PNG has no EXIF orientation here
    img, orientation = rotate(img, rotation, rng)
    if how == "message":
        long_side = max(img.size)
        if long_side > 1600:
            s = 1600 / long_side
            img = img.resize((round(img.width * s), round(img.height * s)), Image.LANCZOS)
        q = settings.message_quality
        data = _encode(img, "jpeg", q, pv.Meta(), doc_id, orientation)
        return Saved(data, "image/jpeg", "intact" if orientation != 1 else _lost_meta(src), None)
    if how == "same":
        q = src.quality or 92
        data = _encode(img, fmt, q, pv.Meta(), doc_id, orientation)
        return Saved(
            data,
            src.media_type if fmt == "png" else "image/jpeg",
            "intact" if orientation != 1 else _lost_meta(src),
            None,
        )
    m = meta if meta is not None else editor_meta(rng, stamp)
    data = _encode(img, fmt, _editor_quality(settings.quality, src), m, doc_id, orientation, basic_exif)
    return Saved(data, "image/png" if fmt == "png" else "image/jpeg", "intact", None)


def photograph(images: list[Image.Image], rng: np.random.Generator, *, long_side: int = 1600) -> list[Image.Image]:
    """The same phone photo of each image (one geometry, light and noise for all: an edit
    made between two of them changes only the edited pixels), ``long_side`` px long.

    The steps are the generator's (``synth.camera``), so a forged photo is taken the way a
    synthetic one is; the picture size is chosen by the caller."""
    strength = float(rng.uniform(0.6, 1.0))
    state = copy.deepcopy(rng.bit_generator.state)
    out = []
    for img in images:
        if max(img.size) > 2400:  # no need to light 30 MP for a picture of at most 1920 px
            s = 2400 / max(img.size)
            img = img.resize((round(img.width * s), round(img.height * s)), Image.LANCZOS)
        rng.bit_generator.state = copy.deepcopy(state)
        shot = cam.on_background(img, rng)
        shot = cam.perspective(shot, rng, 0.045 * strength)
        shot = cam.rotate(shot, rng, 2.5 * strength)
        shot = cam.lighting(shot, rng, 0.35 * strength)
        shot = cam.blur(shot, rng, (0.3 * strength, 1.0 * strength))
        shot = cam.noise(shot, rng, (2.0 * strength, 6.0 * strength))
        s = long_side / max(shot.size)
        out.append(shot.resize((max(1, round(shot.width * s)), max(1, round(shot.height * s))), Image.LANCZOS))
    return out


def save_photo(
    photo: Image.Image,
    taken: datetime,
    rng: np.random.Generator,
    *,
    thumbnail_of: Image.Image | None = None,
    software: str | None = None,
    xmp: bytes | None = None,
    quality: int = 90,
) -> Saved:
    """A phone's JPEG: camera EXIF (date taken, maker, model, firmware) and a thumbnail.

    ``thumbnail_of`` = the image the thumbnail shows (default: the photo itself);
    ``software``/``xmp``: an editor that kept the camera EXIF and wrote its own name."""
    camera = cam.pick_camera(rng)
    offset = str(pv.pick(rng, ("+08:00", "+00:00", "+01:00", "+02:00", "-05:00", "+09:00")))
    exif = cam.camera_exif(
        camera,
        taken,
        offset,
        photo.size,
        software=software or True,
        thumbnail=cam.thumbnail_jpeg(thumbnail_of if thumbnail_of is not None else photo),
    )
    buf = io.BytesIO()
    kwargs: dict[str, object] = {"quality": quality, "subsampling": 2, "exif": exif}
    if xmp:
        kwargs["xmp"] = xmp
    photo.convert("RGB").save(buf, "JPEG", **kwargs)
    return Saved(buf.getvalue(), "image/jpeg", "intact", "photo", taken)


def encode_plain(img: Image.Image, quality: int, meta: pv.Meta, doc_id: str, *, basic_exif: bool = False) -> bytes:
    """A JPEG with only the XMP/EXIF ``meta`` asks for (no camera data)."""
    return _encode(img, "jpeg", quality, meta, doc_id, 1, basic_exif)


def taken_after(purchase: datetime, submitted: datetime, rng: np.random.Generator) -> datetime:
    """A genuine photo: the day after the purchase at the earliest, before the submission."""
    lo = purchase.replace(hour=0, minute=0) + timedelta(days=1)
    span = max(60.0, (submitted - lo).total_seconds() - 1800)
    return lo + timedelta(seconds=int(rng.uniform(0, span)))


def taken_before(purchase: datetime, rng: np.random.Generator) -> datetime:
    """A photo-before-purchase forgery's capture time: 1 to 45 days before the printed date."""
    day = purchase.replace(hour=0, minute=0)
    return day - timedelta(days=int(rng.integers(1, 46))) + timedelta(minutes=int(rng.integers(7 * 60, 22 * 60)))
