"""Build one base case (genuine, fake or hard negative) from its spec: file bytes, label, tags.

Every random choice comes from generators seeded by ``(seed, case index, stream)``,
so a case's bytes do not depend on which worker built it or in what order, and
a hard negative can re-derive its look-alike's receipt without the look-alike's
file. Streams: 0 document, 1 style/rows, 2 capture, 3 fake work, 4 metadata.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import numpy as np
from PIL import Image

from rabench.cases.synth import capture as cap
from rabench.cases.synth import fakes
from rabench.cases.synth import provenance as pv
from rabench.cases.synth.catalogue import MERCHANTS, Merchant
from rabench.cases.synth.document import Doc, adds_up, build_doc, edit_field, same_day_lookalike, with_slip
from rabench.cases.synth.labels import label_for
from rabench.cases.synth.layouts import Row, Style, build_rows, pick_style
from rabench.cases.synth.pdfdoc import append_revision, pdf_date, render_pdf
from rabench.cases.synth.render import NO_QUIRKS, Quirks, Rendered, age_print, render_rows


@dataclass(frozen=True, slots=True)
class Spec:
    index: int
    cls: str  # genuine | ai_full | ai_inpaint | hand_edit | generator | pdf_edit | photo_date
    capture: str  # scan | photo | screenshot | pdf
    provenance: str  # intact | stripped | none
    injection: bool = False
    slip: bool = False  # genuine printing slip / ai_full or generator inconsistency
    edit: str | None = None  # field an editing fake changes
    editor_pass: bool = False  # genuine (or photo_date) file cropped and re-saved in an editor
    pdf_resave: bool = False  # genuine PDF re-saved by a viewer (metadata-only revision)
    lookalike_of: int | None = None  # hard negative: index of the receipt it looks like
    same_total: bool = False
    delay: int = 0  # bucket of SUBMISSION_DELAYS (allocated per class in the plan, like the other strata)


@dataclass(frozen=True, slots=True)
class Built:
    data: bytes
    media_type: str
    ext: str
    label: object
    tags: dict[str, str]
    printed_date: str
    submitted: str = ""  # ISO date the case was submitted (after the purchase and every time in the file)


def rng_for(seed: int, index: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, index, stream])


_PDF_LAYOUTS = ("hotel", "ecommerce", "taxi")
FADED_SHARE = 0.15  # of printed till receipts (scans and photos): an old, faded thermal print


def _merchant(rng: np.random.Generator, capture: str) -> Merchant:
    if capture == "pdf" and rng.random() < 0.6:
        pool = [m for m in MERCHANTS if m.layout in _PDF_LAYOUTS]
    else:
        pool = list(MERCHANTS)
    return pool[int(rng.integers(len(pool)))]


def base_doc(seed: int, spec: Spec) -> tuple[Doc, Style]:
    """The receipt a spec prints before any fake work (re-derivable for look-alikes)."""
    rng = rng_for(seed, spec.index, 0)
    merchant = _merchant(rng, spec.capture)
    doc = build_doc(rng, merchant, injection=spec.injection)
    style = pick_style(doc.layout, rng_for(seed, spec.index, 1))
    return doc, style


def _rows(doc: Doc, seed: int, index: int) -> list[Row]:
    return build_rows(doc, rng_for(seed, index, 5))


def _render(
    doc: Doc, style: Style, seed: int, index: int, quirks: Quirks = NO_QUIRKS, *, worn: bool = True
) -> Rendered:
    """Rows drawn on paper; ``worn`` adds thermal-print wear (not for on-screen receipts)."""
    q_rng = rng_for(seed, index, 6) if quirks is not NO_QUIRKS else None
    r = render_rows(_rows(doc, seed, index), style, quirks=quirks, quirk_rng=q_rng)
    wear_rng = rng_for(seed, index, 7)
    thermal = doc.layout not in ("hotel", "ecommerce") and worn
    amount = float(wear_rng.uniform(0, 1.0)) if thermal else 0.0
    fade = float(wear_rng.uniform(0.35, 0.65)) if thermal and wear_rng.random() < FADED_SHARE else 0.0
    return dataclasses.replace(r, image=age_print(r.image, wear_rng, amount, fade))


def _quality(rng: np.random.Generator, provenance: str, capture: str) -> int:
    if provenance == "stripped":
        return int(rng.integers(60, 86))
    if capture == "scan":  # scanning software saves at high quality (85-100; real flatbed scans in SROIE: 94-100)
        return int(rng.integers(85, 101))
    # Editors save at high quality by default, like phones: the same range for both.
    return int(rng.integers(78, 96))


def _taken(doc: Doc, rng: np.random.Generator, *, before: bool, max_days: int = 11) -> datetime:
    """When the photo was taken: shortly after the printed time, or some days later but before submission."""
    hh, mm = (int(x) for x in doc.time.split(":"))
    printed = datetime(doc.when.year, doc.when.month, doc.when.day, hh, mm)
    if before:
        return printed - timedelta(days=int(rng.integers(1, 46)), minutes=int(rng.integers(0, 600)))
    if rng.random() < 0.8 or max_days < 1:
        return printed + timedelta(minutes=int(rng.integers(1, 240)))
    return printed + timedelta(days=int(rng.integers(1, min(11, max_days) + 1)), minutes=int(rng.integers(0, 600)))


def _meta_for_image(
    spec: Spec, doc: Doc, rng: np.random.Generator, *, shown: Image.Image, original: Image.Image | None, submitted: date
) -> pv.Meta:
    """Metadata the file's last tool wrote. ``original`` = the capture before a fake's edit."""
    taken = _taken(doc, rng, before=spec.cls == "photo_date", max_days=(submitted - doc.when).days)
    if spec.provenance != "intact":
        if spec.capture != "photo":
            return pv.Meta()
        if spec.cls == "ai_full":
            # Some fraudsters add camera EXIF to a generated "photo" (no thumbnail: the tool has none).
            if rng.random() < 0.6:
                return pv.Meta(camera=cam_pick(rng), taken=taken, exif_software=rng.random() < 0.5)
            return pv.Meta()
        if spec.provenance == "stripped" and rng.random() < 0.5:
            # A re-saving app that keeps the capture dates but drops camera, thumbnail and software.
            return pv.Meta(camera=pv.cam.Camera("", "", None), taken=taken, exif_software=None)
        return pv.Meta()
    stamp = taken + timedelta(minutes=int(rng.integers(1, 300)))
    offset = str(pv.pick(rng, ("+00:00", "+01:00", "+02:00", "-05:00", "-08:00", "+09:00")))
    meta = pv.Meta(stamp=stamp)
    if spec.capture == "photo" and spec.cls != "ai_full" and spec.cls != "generator":
        meta = dataclasses.replace(
            meta,
            camera=cam_pick(rng),
            taken=taken,
            offset=offset,
            thumbnail_of=original if original is not None else shown,
        )
    elif spec.capture == "scan" and spec.cls not in ("ai_full",):
        make, model, sw = pv.pick(rng, pv.SCANNERS)
        meta = dataclasses.replace(
            meta, scanner=(make, model) if make else None, software=sw, creator_tool=sw if make is None else None
        )
    elif spec.capture == "screenshot" and spec.cls not in ("ai_full", "generator"):
        meta = dataclasses.replace(meta, software=str(pv.pick(rng, pv.SCREENSHOT_TOOLS)))
    when = stamp.strftime("%Y-%m-%dT%H:%M:%S")
    if spec.cls == "ai_full":
        tool = str(pv.pick(rng, pv.AI_TOOLS))
        meta = dataclasses.replace(
            meta,
            source_type=pv.AI_FULL,
            creator_tool=tool,
            software=tool if rng.random() < 0.5 else None,
            history=(("created", tool, when),),
        )
    elif spec.cls == "ai_inpaint":
        tool = str(pv.pick(rng, pv.INPAINT_TOOLS))
        meta = dataclasses.replace(
            meta, source_type=pv.AI_COMPOSITE, creator_tool=tool, software=tool, history=(("edited", tool, when),)
        )
    elif spec.cls == "hand_edit" or spec.editor_pass:
        tool = str(pv.pick(rng, pv.EDITORS))
        meta = dataclasses.replace(
            meta,
            software=tool,
            creator_tool=tool if rng.random() < 0.6 else None,
            history=(("saved", tool, when),) if rng.random() < 0.5 else (),
        )
    elif spec.cls == "generator":
        tool = str(pv.pick(rng, pv.GENERATORS))
        meta = dataclasses.replace(meta, software=tool, creator_tool=tool)
    return meta


def cam_pick(rng: np.random.Generator):
    from rabench.cases.synth import camera as cam

    return cam.pick_camera(rng)


def _encode(
    img: Image.Image, spec: Spec, meta: pv.Meta, rng: np.random.Generator, doc_id: str, *, resaved: bool
) -> tuple[bytes, str, str]:
    if spec.capture == "screenshot":
        return pv.write_png(img, meta, doc_id), "image/png", "png"
    q = _quality(rng, spec.provenance, spec.capture)
    sub = 2 if rng.random() < 0.8 else 0
    return pv.write_jpeg(img, q, meta, doc_id, subsampling=sub), "image/jpeg", "jpg"


def _crop_margins(img: Image.Image, rng: np.random.Generator) -> Image.Image:
    w, h = img.size
    l, r = int(w * rng.uniform(0.0, 0.05)), int(w * rng.uniform(0.0, 0.05))
    t, b = int(h * rng.uniform(0.0, 0.02)), int(h * rng.uniform(0.0, 0.02))
    return img.crop((l, t, w - r, h - b))


def _logo(name: str, seed: int) -> bytes | None:
    """The merchant's PDF logo (60 % of merchants; one per merchant per suite, so look-alikes share it).

    Its byte size varies a lot between merchants, as real letterheads do.
    """
    import zlib

    rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
    if rng.random() >= 0.6:
        return None
    import io

    from PIL import ImageDraw

    from rabench.cases.synth.render import font

    w, h = int(rng.integers(240, 640)), int(rng.integers(80, 200))
    c0, c1 = rng.integers(0, 256, size=3), rng.integers(0, 256, size=3)
    t = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
    a = (c0[None, None, :] * (1 - t) + c1[None, None, :] * t).repeat(h, axis=0)
    a = a + rng.normal(0, float(rng.uniform(0, 14)), size=a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    initials = "".join(p[0] for p in name.split()[:3]).upper()
    ImageDraw.Draw(img).text((h * 0.2, h * 0.15), initials, font=font("sans", True, int(h * 0.6)), fill=(255, 255, 255))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=int(rng.integers(60, 96)))
    return buf.getvalue()


def _build_pdf(
    spec: Spec, doc: Doc, printed: Doc, style: Style, seed: int, rng: np.random.Generator, submitted: date
) -> tuple[bytes, datetime]:
    """The PDF's bytes and the latest time written into it (a later revision: between creation and submission)."""
    logo = _logo(doc.merchant, seed)
    created = datetime(doc.when.year, doc.when.month, doc.when.day, int(doc.time[:2]), int(doc.time[3:]))
    intact = spec.provenance == "intact"
    if spec.cls == "generator":
        tool = str(pv.pick(rng, pv.GENERATORS))
        return render_pdf(
            _rows(printed, seed, spec.index),
            style,
            created=created,
            producer=tool if intact else None,
            creator=tool if intact else None,
            logo=logo,
        ), created
    producer = str(pv.pick(rng, pv.PDF_PRODUCERS)) if intact else None
    creator = printed.merchant if intact and rng.random() < 0.5 else None
    xmp = _pdf_xmp(producer, created, rng) if intact and rng.random() < PDF_XMP_SHARE else None
    data = render_pdf(
        _rows(doc, seed, spec.index), style, created=created, producer=producer, creator=creator, logo=logo, xmp=xmp
    )
    span = max(0, min(19, (submitted - doc.when).days))
    later = created + timedelta(days=int(rng.integers(0, span + 1)), minutes=int(rng.integers(5, 900)))
    if spec.cls == "pdf_edit":
        edited = render_pdf(
            _rows(printed, seed, spec.index),
            style,
            created=created,
            producer=producer,
            creator=creator,
            logo=logo,
            xmp=xmp,
        )
        info = {"/Producer": str(pv.pick(rng, pv.PDF_EDITORS)), "/ModDate": pdf_date(later)} if intact else {}
        return append_revision(data, new_content_from=edited, info=info), later
    if spec.pdf_resave:
        viewer = str(pv.pick(rng, pv.PDF_VIEWER_RESAVE))
        info = {"/Producer": viewer, "/ModDate": pdf_date(later)} if intact else {"/ModDate": pdf_date(later)}
        # Viewers that save incrementally add or rewrite the XMP metadata too.
        new_xmp = _pdf_xmp(viewer, later, rng) if intact and rng.random() < 0.7 else None
        return append_revision(data, new_content_from=None, info=info, xmp=new_xmp), later
    return data, created


PDF_XMP_SHARE = 0.5  # of intact PDFs: the producer wrote an XMP metadata packet


def _pdf_xmp(tool: str | None, when: datetime, rng: np.random.Generator) -> str:
    from rabench.cases.synth.pdfdoc import xmp_for_pdf

    doc_id = "-".join(f"{int(v):04x}" for v in rng.integers(0, 2**16, size=4))
    return xmp_for_pdf(tool or "", when, doc_id, int(rng.choice([0, 1000, 2000, 2000, 4000])))


def fake_docs(seed: int, spec: Spec) -> tuple[Doc, Doc, Style, Quirks]:
    """(receipt before the fake's edit, receipt as printed in the file, style, quirks) for a spec."""
    doc, style = base_doc(seed, spec)
    if spec.lookalike_of is not None:
        other, style = base_doc(seed, dataclasses.replace(spec, index=spec.lookalike_of))
        doc = same_day_lookalike(other, rng_for(seed, spec.index, 0), same_total=spec.same_total)
        doc = dataclasses.replace(doc, injection=None)
    f_rng = rng_for(seed, spec.index, 3)
    quirks = NO_QUIRKS
    if spec.cls == "ai_full":
        doc = fakes.ai_full_doc(doc, f_rng)
        quirks = Quirks(
            swap_rate=float(f_rng.uniform(0.08, 0.25)),
            spacing_jitter=float(f_rng.uniform(0.4, 1.4)),
            baseline_jitter=float(f_rng.uniform(0.3, 1.0)),
            size_jitter=0.12,
        )
    if spec.cls == "generator":
        doc = fakes.generator_doc(doc, f_rng)
        if spec.slip:
            doc = fakes.user_typed_total(doc, f_rng)
    elif spec.slip:
        doc = with_slip(doc, f_rng)
    printed = edit_field(doc, spec.edit, f_rng) if spec.edit else doc
    return doc, printed, style, quirks


def build_base(seed: int, spec: Spec, doc_id: str) -> Built:
    """Render, capture, fake and encode one base case."""
    doc, printed, style, quirks = fake_docs(seed, spec)
    f_rng = rng_for(seed, spec.index, 30)
    m_rng = rng_for(seed, spec.index, 4)
    # Submitted some days after the purchase (for a fake, after the date it shows, too); every time
    # a tool writes into the file falls in between.
    submitted = max(doc.when, printed.when) + timedelta(
        days=submission_delay(rng_for(seed, spec.index, 10), spec.delay)
    )

    if spec.capture == "pdf":
        data, latest = _build_pdf(spec, doc, printed, style, seed, m_rng, submitted)
        return _finish(spec, printed, data, "application/pdf", "pdf", style.family, _after(submitted, [latest]))

    source = doc if spec.cls in ("ai_inpaint", "hand_edit") else printed
    worn = spec.capture != "screenshot"
    r0 = _render(source, style, seed, spec.index, quirks, worn=worn)
    g = cap.plan_capture(spec.capture, r0.image.size, rng_for(seed, spec.index, 2))
    noise_seed = int(rng_for(seed, spec.index, 8).integers(2**31))
    shot = cap.render_capture(r0.image, g, noise_seed)
    original = None
    if spec.cls == "ai_inpaint":
        r1 = _render(printed, style, seed, spec.index, worn=worn)
        regen = cap.render_capture(
            r1.image, g, noise_seed + 1, noise_scale=0.2, extra_blur=float(f_rng.uniform(0.5, 1.1))
        )
        boxes = r0.boxes.get(spec.edit, []) + r1.boxes.get(spec.edit, [])
        original, shot = shot, fakes.inpaint(shot, regen, fakes.field_mask(r0.image.size, boxes), g, f_rng)
    elif spec.cls == "hand_edit":
        rows1 = [r for r in _rows(printed, seed, spec.index) if r.field == spec.edit]
        texts = [r.value for r in rows1]
        out_boxes = [cap.map_box(b, g) for b in r0.boxes.get(spec.edit, [])]
        aligns = ["right" if r.kind in ("kv", "table") else r.align for r in rows1]
        original, shot = shot, fakes.retype(shot, out_boxes, texts[: len(out_boxes)], style.family, f_rng, aligns)
    resaved = spec.cls in ("ai_inpaint", "hand_edit") or spec.editor_pass
    if spec.editor_pass:
        shot = _crop_margins(shot, f_rng)
    meta = _meta_for_image(spec, printed, m_rng, shown=shot, original=original, submitted=submitted)
    if spec.cls == "photo_date" and spec.provenance == "stripped":
        # An app kept the capture dates but dropped the camera, thumbnail and software.
        meta = pv.Meta(
            camera=pv.cam.Camera("", "", None), taken=_taken(printed, m_rng, before=True), exif_software=None
        )
    data, media, ext = _encode(shot, spec, meta, m_rng, doc_id, resaved=resaved)
    return _finish(spec, printed, data, media, ext, style.family, _after(submitted, [meta.taken, meta.stamp]))


def _after(submitted: date, stamps: list[datetime | None]) -> str:
    """The submission date, moved to the day of a file time that crossed midnight past it (rare)."""
    return max([submitted] + [t.date() for t in stamps if t is not None]).isoformat()


def submission_delay(rng: np.random.Generator, bucket: int | None = None) -> int:
    """Days from the purchase to submission: mostly days, a tail of months (about 1 % > a year).

    ``bucket`` (an index into ``SUBMISSION_DELAYS``) is given for planned cases, whose buckets
    are allocated with exact shares per class; without it the bucket is drawn too.
    """
    if bucket is None:
        u = float(rng.random())
        bucket = len(SUBMISSION_DELAYS) - 1
        for i, (share, _, _) in enumerate(SUBMISSION_DELAYS):
            if u < share:
                bucket = i
                break
            u -= share
    _, lo, hi = SUBMISSION_DELAYS[bucket]
    return int(rng.integers(lo, hi))


# (share, first day, last day + 1): same-week claims, the monthly expense report, late claims.
SUBMISSION_DELAYS = ((0.55, 0, 4), (0.25, 4, 15), (0.12, 15, 46), (0.06, 46, 181), (0.02, 181, 500))


def _finish(spec: Spec, printed: Doc, data: bytes, media: str, ext: str, family: str, submitted: str) -> Built:
    label = label_for(printed, spec)
    tags = {
        "class": spec.cls,
        "arithmetic": "consistent" if adds_up(printed) else "inconsistent",
        "provenance": spec.provenance,
        "capture": spec.capture,
        "format": ext if ext != "jpg" else "jpeg",
        "currency": printed.loc.currency.code,
        "language": printed.loc.language,
        "layout": printed.layout,
        "injection": "yes" if printed.injection else "no",
        "font": family,
    }
    return Built(data, media, ext, label, tags, printed.when.isoformat(), submitted)
