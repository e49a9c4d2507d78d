"""``forge_suite``: labelled forgeries and genuine controls made from any suite's genuine receipts.

Why: a benchmark whose fakes all come from its own generator measures how well a
target knows that generator. Forging from real scans (or from any suite) puts
fake detection on the receipts' own distribution.

One pass over the source receipts, one at a time (a full-page scan decoded is
tens of MB, so nothing is held): read it (OCR, cached), find its labelled
values, and make its outputs (a control, or up to ``FAKES_PER_RECEIPT``
forgeries) by quota. Every random choice comes from a generator seeded by
(seed, source id, purpose), case ids and manifest order come from a seeded
shuffle, and no file or manifest line carries a time of forging: the same
source and seed give the same bytes. The suite is written all at once
(``StagedSuite``) or not at all.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from msgspec import UNSET

from rabench import __version__
from rabench.cases.forge import plan as pl
from rabench.cases.forge import saving as sv
from rabench.cases.forge.edits import CannotEdit, Receipt
from rabench.cases.forge.labels import forged_label, forged_tags
from rabench.cases.forge.locate import locate
from rabench.cases.forge.make import Context, Mix, Output, make_control, make_fake
from rabench.cases.forge.ocr_cache import Reader
from rabench.cases.importers.media import SUITE_EXTENSION
from rabench.cases.importers.writer import StagedSuite, check_out_dir
from rabench.cases.manifest import LoadedCase, open_suite
from rabench.cases.transforms import TransformError, load_image
from rabench.cases.validate import validate_suite
from rabench.contracts import Case, SuiteHeader
from rabench.errors import UserError

# 2: a receipt's second forgery is checked after its first (``after``). Two forgeries of one paper
# receipt may match in a target's duplicate memory (the same receipt image, one date unread), and
# without an order the one checked second, and so the figures, changed from run to run.
FORGE_VERSION = 2
Progress = Callable[[int, int], None]
FORGEABLE = ("image/jpeg", "image/png")


@dataclass(frozen=True)
class ForgeSummary:
    """What ``forge_suite`` wrote: counts per kind, and why planned outputs were not made."""

    out: Path
    sources: int  # genuine base receipts read
    fakes: dict[str, int]  # forgery kind -> cases
    controls: dict[str, int]  # control kind -> cases
    not_made: dict[str, int] = field(default_factory=dict)  # "kind: reason" -> receipts
    skipped: dict[str, int] = field(default_factory=dict)  # "reason" -> source cases not used
    glyphs_copied: int = 0  # edited characters pasted from the same receipt
    glyphs_drawn: int = 0  # edited characters drawn in a matched font (the receipt never prints them)

    @property
    def n_fakes(self) -> int:
        return sum(self.fakes.values())

    @property
    def n_controls(self) -> int:
        return sum(self.controls.values())


def rng_for(seed: int, source_id: str, purpose: str) -> np.random.Generator:
    """A generator that depends only on (seed, source case id, purpose)."""
    digest = hashlib.sha256(f"{source_id}\0{purpose}".encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def _value(v: object) -> object:
    return None if v is UNSET else v


def _domain(header: SuiteHeader, tags: dict[str, str]) -> str | None:
    if "domain" in tags:
        return tags["domain"]
    if header.meta.get("importer"):
        return "real"
    if header.meta.get("generator"):
        return "synthetic"
    return None


def _submitted(date: str | None, days: int, rng: np.random.Generator) -> dt.datetime | None:
    """Submission: ``days`` after the printed purchase date, in the day time."""
    if date is None:
        return None
    d = dt.date.fromisoformat(date)
    return dt.datetime(d.year, d.month, d.day) + dt.timedelta(days=days, minutes=int(rng.integers(8 * 60, 22 * 60)))


def _sources(reader, skipped: Counter) -> list[LoadedCase]:
    out = []
    for lc in reader:
        c = lc.case
        if not c.is_base:
            skipped["duplicate transform (a copy of another case)"] += 1
        elif c.label.is_fake:
            skipped["already a fake"] += 1
        elif c.media_type not in FORGEABLE:
            skipped[f"{c.media_type}: only JPEG and PNG receipts are forged"] += 1
        else:
            out.append(lc)
    return out


def forge_suite(
    src: Path,
    out: Path,
    *,
    seed: int,
    progress: Progress | None = None,
    ocr_cache: Path | None = None,
    name: str | None = None,
) -> ForgeSummary:
    """Write a suite of forgeries and genuine controls made from ``src``'s genuine receipts to ``out``."""
    src, out = Path(src), Path(out)
    if seed < 0:
        raise UserError("--seed must be a non-negative integer")
    check_out_dir(out)
    reader = open_suite(src)
    _, problems = validate_suite(reader.root)
    if problems:
        raise UserError(
            f"{reader.root}: the suite does not validate ({len(problems)} problem(s), first: "
            f"{problems[0]}); run rabench cases validate"
        )
    skipped: Counter = Counter()
    sources = _sources(reader, skipped)
    if not sources:
        raise UserError(f"{reader.root}: no genuine receipt images (JPEG/PNG base cases) to forge from")
    dated = [(lc.case.id, isinstance(lc.case.label.date, str), lc.path.stat().st_size) for lc in sources]
    role = pl.roles(dated, seed)
    order = [sources[i] for i in rng_for(seed, "", "order").permutation(len(sources))]
    fake_quota, control_quota = pl.Quota(pl.FAKE_SHARES), pl.Quota(pl.CONTROL_SHARES)
    not_made: Counter = Counter()
    mix = Mix()
    ocr = Reader(ocr_cache)
    made: list[tuple[LoadedCase, str, Output]] = []
    for done, lc in enumerate(order, start=1):
        outs = _forge_one(lc, role[lc.case.id], reader.header, seed, ocr, fake_quota, control_quota, mix, not_made)
        if outs is None:
            skipped["the image could not be decoded"] += 1
        else:
            made.extend((lc, kind, o) for kind, o in outs)
        if progress:
            progress(done, len(order))
    ids = [f"f{i:05d}" for i in range(1, len(made) + 1)]
    shuffled = [made[i] for i in rng_for(seed, "", "ids").permutation(len(made))]
    h = reader.header
    header = SuiteHeader(
        suite=h.suite,
        name=name or f"{h.name}+forged",
        meta={
            "forged": {
                "forge_version": FORGE_VERSION,
                "rabench_version": __version__,
                "seed": seed,
                "from": reader.root.name,
                "from_name": h.name,
                "from_manifest_sha256": reader.manifest_sha256,
                "fakes": dict(sorted(fake_quota.counts.items())),
                "controls": dict(sorted(control_quota.counts.items())),
                "not_made": dict(sorted(not_made.items())),
                "skipped": dict(sorted(skipped.items())),
                "sources": {cid: lc.case.id for cid, (lc, _, _) in zip(ids, shuffled)},
            },
            "from_meta": h.meta,
        },
    )
    first_of: dict[str, str] = {}  # source receipt id -> the id of its first forgery (ids ascend)
    with StagedSuite(out, header) as suite:
        for cid, (lc, kind, o) in zip(ids, shuffled):
            first = first_of.setdefault(lc.case.id, cid)
            rel = f"files/{cid}{SUITE_EXTENSION[o.media_type]}"
            label = forged_label(lc.case.label, kind, o)
            suite.add(
                Case(
                    id=cid,
                    file=rel,
                    sha256=suite.write_bytes(o.data, rel),
                    media_type=o.media_type,  # type: ignore[arg-type]
                    label=label,
                    tags=forged_tags(lc.case.tags, kind, o, label, _domain(h, lc.case.tags)),
                    submitted_at=_submission_text(lc, kind, o, seed),
                    after=[first] if first != cid else [],
                )
            )
    return ForgeSummary(
        out=out,
        sources=len(sources),
        fakes={k: v for k, v in fake_quota.counts.items() if v},
        controls={k: v for k, v in control_quota.counts.items() if v},
        not_made=dict(not_made),
        skipped=dict(skipped),
        glyphs_copied=sum(int(o.detail.get("copied", 0)) for _, _, o in made),  # type: ignore[call-overload]
        glyphs_drawn=sum(int(o.detail.get("drawn", 0)) for _, _, o in made),
    )  # type: ignore[call-overload]


def _submission_text(lc: LoadedCase, kind: str, o: Output, seed: int) -> str | None:
    date = o.changes.get("date", _value(lc.case.label.date))
    sub = _submitted(
        date if isinstance(date, str) else None,
        int(o.detail["delay"]),  # type: ignore[call-overload]
        rng_for(seed, lc.case.id, f"submitted:{kind}"),
    )
    return sub.isoformat() if sub is not None else None


def _forge_one(
    lc: LoadedCase,
    role: str,
    header: SuiteHeader,
    seed: int,
    ocr: Reader,
    fake_quota: pl.Quota,
    control_quota: pl.Quota,
    mix: Mix,
    not_made: Counter,
) -> list[tuple[str, Output]] | None:
    data = lc.read_bytes()
    try:
        image = load_image(data, lc.case.media_type)
    except TransformError:
        return None
    label = lc.case.label
    total, date, merchant = _value(label.total), _value(label.date), _value(label.merchant)
    items = None if label.line_items is UNSET else list(label.line_items)  # type: ignore[arg-type]
    lines = ocr.read(image, lc.case.sha256)  # controls too: their arithmetic is labelled the same way
    found = locate(
        lines,
        total=total if isinstance(total, float) else None,
        date=date if isinstance(date, str) else None,
        merchant=merchant if isinstance(merchant, str) else None,
        image_height=image.height,
    )

    src = sv.describe_source(data, lc.case.media_type, lc.case.tags.get("capture"))

    def ctx_for(kind: str) -> Context:
        group = pl.FAKE_CLASS.get(kind, "genuine")
        days = int(mix.peek(group, "delay", pl.DELAY_DAYS))  # type: ignore[call-overload]
        return Context(
            receipt=receipt,
            data=data,
            src=src,
            total=total if isinstance(total, float) else None,
            date=date if isinstance(date, str) else None,
            merchant=merchant if isinstance(merchant, str) else None,
            line_items=items,
            submit=lambda d: _submitted(d, days, rng_for(seed, lc.case.id, f"submitted:{kind}")),
            doc_id=hashlib.sha256(f"{seed}:{lc.case.id}:{kind}".encode()).hexdigest()[:24],
            mix=mix,
            group=group,
        )

    receipt = Receipt(image, lines, found, ocr)
    before = label.adds_up if isinstance(label.adds_up, bool) else (True if found.adds_up else None)

    def note(o: Output, kind: str) -> Output:
        """Record the output's arithmetic and take its submission delay from the group's quota."""
        group = pl.FAKE_CLASS.get(kind, "genuine")
        days = mix.peek(group, "delay", pl.DELAY_DAYS)
        if isinstance(o.changes.get("date", date), str):  # only dated cases are submitted on a day
            mix.take(group, "delay", pl.DELAY_DAYS, days)
        return dataclasses.replace(o, detail={**o.detail, "adds_up_before": before, "delay": days})

    outs: list[tuple[str, Output]] = []
    if role == "control":
        for kind in control_quota.order():
            try:
                o = make_control(ctx_for(kind), kind, rng_for(seed, lc.case.id, kind))
            except CannotEdit as exc:
                not_made[f"{kind}: {exc}"] += 1
                continue
            control_quota.take(kind)
            return [(kind, note(o, kind))]
        return outs
    avoid: set[float] = set()
    for kind in fake_quota.order():
        if len(outs) >= pl.FAKES_PER_RECEIPT:
            break
        if not pl.sibling_allowed([k for k, _ in outs], kind):
            continue
        ctx = ctx_for(kind)
        try:
            o = make_fake(ctx, kind, rng_for(seed, lc.case.id, kind), avoid)
        except CannotEdit as exc:
            not_made[f"{kind}: {exc}"] += 1
            continue
        if isinstance(o.changes.get("total"), float):
            avoid.add(o.changes["total"])  # type: ignore[arg-type]
        fake_quota.take(kind)
        outs.append((kind, note(o, kind)))
    return outs
