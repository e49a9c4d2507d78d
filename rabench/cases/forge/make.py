"""One output case: the file a kind of forgery (or genuine control) leaves, and its label.

Each maker takes the analysed source receipt and a seeded generator and returns
an ``Output`` (bytes, media type, label changes, provenance, capture date), or
raises ``CannotEdit`` with the reason. What each kind imitates is in
docs/cases.md ("Forging from real receipts").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from PIL import Image

from rabench.cases.forge import edits as ed
from rabench.cases.forge import saving as sv
from rabench.cases.forge.plan import FLAT_DELIVERY, PHOTO_SHARE, ROTATION_SHARES, Quota
from rabench.cases.synth import provenance as pv


@dataclass(frozen=True, slots=True)
class Output:
    data: bytes
    media_type: str
    provenance: str
    capture: str | None  # "photo" if photographed, else None (keep the source's)
    changes: dict[str, object]  # label fields the content edit changed
    edited: tuple[str, ...]
    delivery: str  # how it was saved (a tag)
    detail: dict[str, object]  # copied/drawn glyph counts, tool names: for the summary only


class Mix:
    """Quotas per group (``genuine`` or a fake class) for every setting a lazy detector could
    read off a file: photo or flat save, which save, JPEG quality, photo size, submission delay.
    Each group gets each value in the same shares (a per-class random draw of 20 cases would
    wander off them and show up as a leak that is only chance)."""

    def __init__(self) -> None:
        self.quotas: dict[tuple[str, str], Quota] = {}

    def _q(self, group: str, name: str, shares: dict) -> Quota:
        return self.quotas.setdefault((group, name), Quota(shares))

    def peek(self, group: str, name: str, shares: dict) -> object:
        return self._q(group, name, shares).order()[0]

    def take(self, group: str, name: str, shares: dict, value: object) -> None:
        self._q(group, name, shares).take(value)  # type: ignore[arg-type]

    def pick(self, group: str, name: str, shares: dict) -> object:
        value = self.peek(group, name, shares)
        self.take(group, name, shares, value)
        return value

    def settings(self, group: str, *, photo: bool) -> sv.Settings:
        """JPEG quality and photo size for one output of ``group``."""
        if photo:
            return sv.Settings(
                quality=int(self.pick(group, "photo_q", sv.PHOTO_QUALITY)),  # type: ignore[call-overload]
                long_side=int(self.pick(group, "photo_side", sv.PHOTO_SIDES)),
            )  # type: ignore[call-overload]
        return sv.Settings(
            quality=str(self.pick(group, "editor_q", sv.EDITOR_QUALITY)),
            message_quality=int(self.pick(group, "message_q", sv.MESSAGE_QUALITY)),
        )  # type: ignore[call-overload]


@dataclass
class Context:
    """The source receipt as the makers need it."""

    receipt: ed.Receipt
    data: bytes  # the source file's bytes
    src: sv.Source
    total: float | None
    date: str | None
    merchant: str | None
    line_items: list | None
    submit: Callable[[str | None], datetime | None]  # printed date -> when the case is submitted
    doc_id: str
    mix: Mix
    group: str  # "genuine" or the fake class: whose quotas this output draws on

    @property
    def submitted(self) -> datetime | None:
        """Submission of a case that prints the source's own date."""
        return self.submit(self.date)


def _img(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")


def _purchase(date: str) -> datetime:
    d = dt.date.fromisoformat(date)
    return datetime(d.year, d.month, d.day)


def _stamp(submitted: datetime | None, rng: np.random.Generator) -> datetime | None:
    """When an editor saved the file: shortly before the submission."""
    if submitted is None:
        return None
    return submitted - dt.timedelta(minutes=int(rng.integers(5, 600)))


def _flat(
    ctx: Context, img: Image.Image, how: str, rng: np.random.Generator, *, submitted: datetime | None, **kw: object
) -> sv.Saved:
    rotation = "none"
    if how in ("same", "editor"):
        rotation = str(ctx.mix.pick(ctx.group, "rotation", ROTATION_SHARES))
    return sv.save_flat(
        img,
        ctx.src,
        how,
        rng,
        ctx.doc_id,
        rotation=rotation,
        stamp=_stamp(submitted, rng),
        settings=ctx.mix.settings(ctx.group, photo=False),
        **kw,
    )  # type: ignore[arg-type]


def _camera_window(ctx: Context, submitted: datetime | None) -> bool:
    """A camera date can sit after the real purchase and before the submission."""
    return (
        ctx.date is not None
        and submitted is not None
        and _purchase(ctx.date) + dt.timedelta(days=1, hours=1) < submitted
    )


def _photo_saved(
    ctx: Context,
    photo: Image.Image,
    submitted: datetime | None,
    rng: np.random.Generator,
    *,
    thumbnail_of: Image.Image | None = None,
    software: str | None = None,
    xmp: bytes | None = None,
) -> sv.Saved:
    """A phone photo with camera EXIF taken between the purchase and the submission."""
    assert ctx.date is not None and submitted is not None
    taken = sv.taken_after(_purchase(ctx.date), submitted, rng)
    return sv.save_photo(
        photo,
        taken,
        rng,
        thumbnail_of=thumbnail_of,
        software=software,
        xmp=xmp,
        quality=int(ctx.mix.pick(ctx.group, "photo_q", sv.PHOTO_QUALITY)),
    )  # type: ignore[call-overload]


def _shoot(ctx: Context, images: list[Image.Image], rng: np.random.Generator) -> list[Image.Image]:
    """The phone photo of each image; a receipt that already is a photo stays as it is (a photo
    of a photo would be a kind of file no genuine receipt is)."""
    if ctx.src.photo:
        return list(images)
    return sv.photograph(images, rng, long_side=int(ctx.mix.pick(ctx.group, "photo_side", sv.PHOTO_SIDES)))  # type: ignore[call-overload]


def _how(ctx: Context, group: str, shares: dict[str, float], *, photo_possible: bool) -> str:
    """This output's delivery: a photo if the class is short of photos and one can be made
    (a camera date must fit, as for genuine photos), else the flat save furthest below its share."""
    photo_shares = {"photo": PHOTO_SHARE, "flat": 1 - PHOTO_SHARE}
    if photo_possible and ctx.mix.peek(group, "photo", photo_shares) == "photo":
        ctx.mix.take(group, "photo", photo_shares, "photo")
        return "photo"
    ctx.mix.take(group, "photo", photo_shares, "flat")
    return str(ctx.mix.pick(group, "flat", shares))


def deliver_edit(ctx: Context, made: ed.Made, rng: np.random.Generator) -> tuple[sv.Saved, str]:
    """Save an edited receipt as forgers do: editor, original quality, messaging, or a phone photo
    edited after it was taken, the editor keeping the camera EXIF and its stale thumbnail."""
    printed = made.changes.get("date", ctx.date)
    submitted = ctx.submit(printed if isinstance(printed, str) else None)
    how = _how(ctx, "hand_edit", FLAT_DELIVERY, photo_possible=_camera_window(ctx, submitted))
    if how == "photo":
        before, after = _shoot(ctx, [ctx.receipt.image, _img(made.pixels)], rng)
        return _photo_saved(ctx, after, submitted, rng, thumbnail_of=before), "stale_thumbnail"
    return _flat(ctx, _img(made.pixels), how, rng, submitted=submitted), how


def _edited(ctx: Context, kind: str, rng: np.random.Generator, avoid: set[float]) -> ed.Made:
    r = ctx.receipt
    if kind == "total":
        if ctx.total is None:
            raise ed.CannotEdit("total not labelled")
        return ed.edit_total(r, ctx.total, rng, avoid=avoid)
    if kind == "date":
        if ctx.date is None:
            raise ed.CannotEdit("date not labelled")
        return ed.edit_date(r, ctx.date, rng)
    if kind == "merchant":
        if ctx.merchant is None:
            raise ed.CannotEdit("merchant not labelled")
        return ed.edit_merchant(r, ctx.merchant, rng)
    if ctx.total is None:
        raise ed.CannotEdit("total not labelled")
    return ed.edit_item(
        r, ctx.total, rng, consistent=kind == "item_consistent", label_items=ctx.line_items, avoid=avoid
    )


def make_fake(ctx: Context, kind: str, rng: np.random.Generator, avoid: set[float]) -> Output:
    """A forgery of ``kind`` from the source receipt (``CannotEdit`` if it cannot be made)."""
    if kind in ("total", "date", "merchant", "item_break", "item_consistent"):
        made = _edited(ctx, kind, rng, avoid)
        saved, how = deliver_edit(ctx, made, rng)
        return Output(
            saved.data,
            saved.media_type,
            saved.provenance,
            saved.capture,
            made.changes,
            made.edited,
            how,
            {"copied": made.copied, "drawn": made.drawn, "taken": saved.taken},
        )
    if kind == "ai_inpaint":
        field = "total" if rng.random() < 0.7 and ctx.total is not None else "date"
        try:
            made = _edited(ctx, field, rng, avoid)
        except ed.CannotEdit:
            made = _edited(ctx, "date" if field == "total" else "total", rng, avoid)
        printed = made.changes.get("date", ctx.date)
        submitted = ctx.submit(printed if isinstance(printed, str) else None)
        tool = str(pv.pick(rng, pv.INPAINT_TOOLS))
        stamp = _stamp(submitted, rng)
        when = (stamp or datetime(2025, 1, 1)).strftime("%Y-%m-%dT%H:%M:%S")
        how = _how(
            ctx,
            "ai_inpaint",
            {"tagged": 0.55, "same": 0.2, "message": 0.25},
            photo_possible=_camera_window(ctx, submitted),
        )
        tagged = how == "tagged" or (how == "photo" and rng.random() < 0.55)
        meta = (
            pv.Meta(
                software=tool,
                creator_tool=tool,
                source_type=pv.AI_COMPOSITE,
                history=(("edited", tool, when),),
                stamp=stamp,
            )
            if tagged
            else None
        )
        if how == "photo":
            # generative fill on a phone photo of the receipt (the app keeps the camera EXIF)
            before, after = _shoot(ctx, [ctx.receipt.image, _img(made.pixels)], rng)
            b, a = np.asarray(before, dtype=np.float32), np.asarray(after, dtype=np.float32)
            photo = _img(ed.regenerate(a, ed.changed_mask(b, a), rng))
            saved = _photo_saved(
                ctx,
                photo,
                submitted,
                rng,
                software=tool if tagged else None,
                xmp=pv.xmp_packet(meta, ctx.doc_id) if meta else None,
            )
            how = "ai_tool_photo" if tagged else "photo"
        else:
            pixels = ed.regenerate(made.pixels, ed.edit_mask(made), rng)
            if meta is not None:
                saved, how = _flat(ctx, _img(pixels), "editor", rng, submitted=submitted, meta=meta), "ai_tool"
            else:
                saved = _flat(ctx, _img(pixels), how, rng, submitted=submitted)
        return Output(
            saved.data,
            saved.media_type,
            saved.provenance,
            saved.capture,
            made.changes,
            made.edited,
            how,
            {"copied": made.copied, "drawn": made.drawn, "taken": saved.taken},
        )
    if kind == "ai_full":
        tool = str(pv.pick(rng, pv.AI_TOOLS))
        stamp = _stamp(ctx.submitted, rng)
        when = (stamp or datetime(2025, 1, 1)).strftime("%Y-%m-%dT%H:%M:%S")
        u = rng.random()
        # the source type always; the tool's name in EXIF Software or XMP CreatorTool only sometimes
        # (as often as genuine files name a tool), and sometimes a bare EXIF block from the export
        meta = pv.Meta(
            source_type=pv.AI_FULL,
            software=tool if u < 0.3 else None,
            creator_tool=tool if 0.3 <= u < 0.4 else None,
            history=(("created", tool, when),) if u >= 0.4 and rng.random() < 0.5 else (),
            stamp=stamp,
        )
        basic = u >= 0.3 and rng.random() < 0.45
        if _how(ctx, "ai_full", {"flat": 1.0}, photo_possible=True) == "photo":
            # an image model asked for "a photo of a receipt on a table": the photo look, no camera
            (photo,) = _shoot(ctx, [ctx.receipt.image], rng)
            q = int(ctx.mix.pick(ctx.group, "photo_q", sv.PHOTO_QUALITY))  # type: ignore[call-overload]
            data = sv.encode_plain(photo, q, meta, ctx.doc_id, basic_exif=basic)
            saved = sv.Saved(data, "image/jpeg", "intact", "photo")
        else:
            saved = _flat(ctx, ctx.receipt.image, "editor", rng, submitted=ctx.submitted, meta=meta, basic_exif=basic)
        return Output(
            saved.data,
            saved.media_type,
            saved.provenance,
            saved.capture,
            {},
            (),
            "ai_tags",
            {"tool": tool, "taken": None},
        )
    if kind == "photo_date":
        if ctx.date is None or ctx.submitted is None:
            raise ed.CannotEdit("date not labelled: no purchase date to photograph before")
        (photo,) = _shoot(ctx, [ctx.receipt.image], rng)
        taken = sv.taken_before(_purchase(ctx.date), rng)
        saved = sv.save_photo(photo, taken, rng, quality=int(ctx.mix.pick(ctx.group, "photo_q", sv.PHOTO_QUALITY)))  # type: ignore[call-overload]
        return Output(saved.data, saved.media_type, saved.provenance, saved.capture, {}, (), "camera", {"taken": taken})
    raise ValueError(f"unknown forgery kind {kind!r}")


def make_control(ctx: Context, kind: str, rng: np.random.Generator) -> Output:
    """A genuine control: the receipt unchanged, or passed through a tool that looks suspicious."""
    img = ctx.receipt.image
    if kind == "original":
        return Output(ctx.data, ctx.src.media_type, "", None, {}, (), "keep", {})
    if kind == "resaved":
        saved = sv.save_flat(
            img,
            ctx.src,
            "editor",
            rng,
            ctx.doc_id,
            stamp=_stamp(ctx.submitted, rng),
            settings=ctx.mix.settings(ctx.group, photo=False),
        )
    elif kind == "recompressed":
        saved = sv.save_flat(
            img, ctx.src, "message", rng, ctx.doc_id, settings=ctx.mix.settings(ctx.group, photo=False)
        )
    elif kind == "rotated":
        how = "editor" if rng.random() < 0.5 else "same"
        rotation = str(ctx.mix.pick(ctx.group, "rotated", {k: 1.0 for k in sv.ROTATIONS[1:]}))
        saved = sv.save_flat(
            img,
            ctx.src,
            how,
            rng,
            ctx.doc_id,
            rotation=rotation,
            stamp=_stamp(ctx.submitted, rng),
            settings=ctx.mix.settings(ctx.group, photo=False),
        )
    elif kind == "rephoto":
        if not _camera_window(ctx, ctx.submitted):
            raise ed.CannotEdit("date not labelled: a camera date could contradict the printed one")
        (photo,) = _shoot(ctx, [img], rng)
        saved = _photo_saved(ctx, photo, ctx.submitted, rng)
    else:
        raise ValueError(f"unknown control kind {kind!r}")
    return Output(saved.data, saved.media_type, saved.provenance, saved.capture, {}, (), kind, {"taken": saved.taken})
