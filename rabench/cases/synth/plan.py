"""Which cases a suite holds: class, capture, provenance and the other strata of every case.

Why allocate instead of sampling: strata shares are exact (largest remainder),
so every stratum the spec scores has its minimum count at every seed, and the
capture/provenance mix is the same for genuine receipts and fakes wherever a
fake class allows it (the guard against format and metadata leaks). The
allocations are then shuffled with the suite's seed and case ids follow the
shuffled order, so an id says nothing about the label.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from rabench.cases.synth.build import SUBMISSION_DELAYS, Spec

FAKE_CLASSES = ("ai_full", "ai_inpaint", "hand_edit", "generator", "pdf_edit", "photo_date")

SEEDS = {"dev": 20250101, "test": 20250202, "sample": 20250303}


@dataclass(frozen=True, slots=True)
class SizePlan:
    genuine: int
    per_fake: int
    hard_negatives: int
    transforms: int


SIZES = {
    "sample": SizePlan(genuine=16, per_fake=3, hard_negatives=3, transforms=4),
    "quick": SizePlan(genuine=120, per_fake=22, hard_negatives=16, transforms=34),
    "full": SizePlan(genuine=880, per_fake=150, hard_negatives=110, transforms=260),
}

CAPTURE_WEIGHTS = {
    "genuine": {"scan": 0.22, "photo": 0.38, "screenshot": 0.18, "pdf": 0.22},
    "ai_full": {"scan": 0.3, "photo": 0.45, "screenshot": 0.25},
    "ai_inpaint": {"scan": 0.3, "photo": 0.45, "screenshot": 0.25},
    "hand_edit": {"scan": 0.3, "photo": 0.45, "screenshot": 0.25},
    "generator": {"pdf": 0.55, "screenshot": 0.45},
    "pdf_edit": {"pdf": 1.0},
    "photo_date": {"photo": 1.0},
}
PROVENANCE_WEIGHTS = {
    "photo": {"intact": 0.6, "stripped": 0.28, "none": 0.12},
    "scan": {"intact": 0.5, "stripped": 0.2, "none": 0.3},
    "screenshot": {"intact": 0.45, "stripped": 0.2, "none": 0.35},
    "pdf": {"intact": 0.6, "stripped": 0.25, "none": 0.15},
}
# Fake classes whose tool fixes the provenance options.
PROVENANCE_OVERRIDES = {
    ("pdf_edit", "pdf"): {"intact": 0.6, "stripped": 0.4},
    ("photo_date", "photo"): {"intact": 0.8, "stripped": 0.2},
}
EDIT_WEIGHTS = {"total": 0.5, "date": 0.25, "merchant": 0.25}
# Genuine receipts: unexplained printing slips at <= 1 % (DESIGN.md); every other difference a real
# till prints (rounding, deposits, discounts, tips, included tax) is a visible line that adds up.
SLIP_SHARE = {"genuine": 0.01, "ai_full": 0.5, "generator": 0.2}
INJECTION_SHARE = 0.12
EDITOR_PASS_SHARE = 0.3  # of genuine intact image files: cropped and re-saved in an editor
PDF_RESAVE_SHARE = 0.4  # of genuine PDFs: re-saved by a viewer (metadata-only revision)
TRANSFORM_KINDS = ("reencode", "crop", "reshoot")


def allocate(n: int, weights: dict, rng: np.random.Generator) -> list:
    """``n`` values with shares as close to ``weights`` as integers allow, in random order."""
    keys = list(weights)
    w = np.array([weights[k] for k in keys], dtype=float)
    raw = w / w.sum() * n
    counts = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - counts), kind="stable")[: n - counts.sum()]:
        counts[i] += 1
    out = [k for k, c in zip(keys, counts) for _ in range(c)]
    return [out[i] for i in rng.permutation(len(out))]


@dataclass(frozen=True, slots=True)
class TransformSpec:
    index: int
    of: int
    kind: str


@dataclass(frozen=True, slots=True)
class Plan:
    base: list[Spec]  # index order = manifest order for base cases (look-alikes included)
    transforms: list[TransformSpec]
    order: list[tuple[str, int]]  # ("base"|"transform", index) in manifest order


def _class_specs(cls: str, n: int, rng: np.random.Generator) -> list[dict]:
    specs: list[dict] = []
    captures = allocate(n, CAPTURE_WEIGHTS[cls], rng)
    by_capture: dict[str, int] = {}
    for c in captures:
        by_capture[c] = by_capture.get(c, 0) + 1
    for capture in sorted(by_capture):
        k = by_capture[capture]
        weights = PROVENANCE_OVERRIDES.get((cls, capture), PROVENANCE_WEIGHTS[capture])
        for prov in allocate(k, weights, rng):
            specs.append({"cls": cls, "capture": capture, "provenance": prov})
    specs = [specs[i] for i in rng.permutation(len(specs))]
    slips = allocate(n, {True: SLIP_SHARE.get(cls, 0.0), False: 1 - SLIP_SHARE.get(cls, 0.0)}, rng)
    injections = allocate(n, {True: INJECTION_SHARE, False: 1 - INJECTION_SHARE}, rng)
    edits = allocate(n, EDIT_WEIGHTS, rng) if cls in ("ai_inpaint", "hand_edit", "pdf_edit") else [None] * n
    for s, slip, inj, edit in zip(specs, slips, injections, edits):
        s.update(slip=slip, injection=inj, edit=edit)
    if cls == "genuine":
        img_intact = [s for s in specs if s["capture"] != "pdf" and s["provenance"] == "intact"]
        for s, flag in zip(
            img_intact, allocate(len(img_intact), {True: EDITOR_PASS_SHARE, False: 1 - EDITOR_PASS_SHARE}, rng)
        ):
            s["editor_pass"] = flag
        pdfs = [s for s in specs if s["capture"] == "pdf"]
        for s, flag in zip(pdfs, allocate(len(pdfs), {True: PDF_RESAVE_SHARE, False: 1 - PDF_RESAVE_SHARE}, rng)):
            s["pdf_resave"] = flag
    return specs


def _with_delays(base: list[Spec], seed: int) -> list[Spec]:
    """Submission-delay buckets with exact shares per class (own generator: the rest of the plan is unchanged)."""
    rng = np.random.default_rng([seed, 2**21])
    shares = {i: share for i, (share, _, _) in enumerate(SUBMISSION_DELAYS)}
    out = list(base)
    for cls in ("genuine",) + FAKE_CLASSES:
        idx = [i for i, s in enumerate(base) if s.cls == cls]
        for i, bucket in zip(idx, allocate(len(idx), shares, rng)):
            out[i] = dataclasses.replace(base[i], delay=int(bucket))
    return out


def _photo_date_editor_passes(base: list[Spec], seed: int) -> list[Spec]:
    """photo_date photos are cropped and re-saved in an editor as often as genuine photos (EXIF dates kept).

    Without it, "cropped in an editor" would only ever happen to genuine photos: a shortcut.
    """
    rng = np.random.default_rng([seed, 2**22])
    idx = [i for i, s in enumerate(base) if s.cls == "photo_date" and s.provenance == "intact"]
    out = list(base)
    for i, flag in zip(idx, allocate(len(idx), {True: EDITOR_PASS_SHARE, False: 1 - EDITOR_PASS_SHARE}, rng)):
        out[i] = dataclasses.replace(base[i], editor_pass=bool(flag))
    return out


def make_plan(size: str, seed: int) -> Plan:
    sp = SIZES[size]
    rng = np.random.default_rng([seed, 2**20])
    rows: list[dict] = _class_specs("genuine", sp.genuine, rng)
    for cls in FAKE_CLASSES:
        rows += _class_specs(cls, sp.per_fake, rng)
    rows = [rows[i] for i in rng.permutation(len(rows))]
    base = [Spec(index=i, **r) for i, r in enumerate(rows)]
    n = len(base)
    genuine_idx = [s.index for s in base if s.cls == "genuine"]
    targets = [genuine_idx[i] for i in rng.choice(len(genuine_idx), size=sp.hard_negatives, replace=False)]
    same_total = allocate(sp.hard_negatives, {True: 0.4, False: 0.6}, rng)
    for j, (t, st) in enumerate(zip(targets, same_total)):
        tgt = base[t]
        prov = allocate(1, PROVENANCE_WEIGHTS[tgt.capture], np.random.default_rng([seed, n + j]))[0]
        base.append(
            Spec(index=n + j, cls="genuine", capture=tgt.capture, provenance=prov, lookalike_of=t, same_total=bool(st))
        )
    base = _with_delays(base, seed)
    base = _photo_date_editor_passes(base, seed)
    m = len(base)
    originals = [int(i) for i in rng.choice(n, size=sp.transforms, replace=False)]
    kinds = allocate(sp.transforms, {k: 1.0 for k in TRANSFORM_KINDS}, rng)
    transforms = [TransformSpec(index=m + j, of=o, kind=k) for j, (o, k) in enumerate(zip(originals, kinds))]
    tail = [("base", s.index) for s in base[n:]] + [("transform", t.index) for t in transforms]
    tail = [tail[i] for i in rng.permutation(len(tail))]
    order = [("base", i) for i in range(n)] + tail
    return Plan(base=base, transforms=transforms, order=order)
