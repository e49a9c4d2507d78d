"""Generate a whole suite: plan, build cases in a process pool, write files and manifest.

Byte-identical output for a seed regardless of worker count: each case depends
only on ``(seed, index)``, results are written in plan order, and nothing in a
file or the manifest carries a time of generation.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime, timedelta
from importlib import metadata
from pathlib import Path

import msgspec
import numpy as np

from rabench.cases.manifest import MANIFEST
from rabench.cases.synth.build import Built, build_base, rng_for, submission_delay
from rabench.cases.synth.plan import SEEDS, TransformSpec, make_plan
from rabench.cases.transforms import apply_transform
from rabench.contracts import Case, Lineage, SuiteHeader

GENERATOR_VERSION = "rabench-synth 1.1"
Progress = Callable[[int, int], None]


def case_id(position: int) -> str:
    return f"c{position:05d}"


def _build_base_task(args: tuple[int, object, str]) -> Built:
    seed, spec, doc_id = args
    return build_base(seed, spec, doc_id)  # type: ignore[arg-type]


def _build_transform_task(args: tuple[int, TransformSpec, bytes, str, str, dict, object]) -> Built:
    seed, t, data, media, printed_date, tags, label = args
    rng = rng_for(seed, t.index, 9)
    taken = None
    if t.kind == "reshoot":
        d = datetime.fromisoformat(printed_date)
        taken = d + timedelta(
            days=int(rng.integers(1, 6)), hours=int(rng.integers(8, 20)), minutes=int(rng.integers(0, 60))
        )
    out, out_media = apply_transform(data, media, t.kind, rng, taken=taken)  # type: ignore[arg-type]
    not_before = taken.date().isoformat() if taken is not None else printed_date  # the re-shot photo's day
    ext = {"image/jpeg": "jpg", "image/png": "png"}[out_media]
    prov = "intact" if t.kind == "reshoot" else ("stripped" if label.provenance == "intact" else label.provenance)  # type: ignore[attr-defined]
    new_label = msgspec.structs.replace(label, provenance=prov)  # type: ignore[arg-type]
    new_tags = dict(
        tags,
        provenance=prov,
        format="jpeg" if ext == "jpg" else "png",
        capture="photo" if t.kind == "reshoot" else tags["capture"],
    )
    return Built(out, out_media, ext, new_label, new_tags, printed_date, not_before)


def _pillow_build() -> dict[str, object]:
    import PIL

    try:
        simd = metadata.version("pillow-simd")
    except metadata.PackageNotFoundError:
        simd = None
    return {"pillow": PIL.__version__, "pillow_simd": simd is not None}


def generate_suite(
    out: Path,
    *,
    split: str,
    size: str,
    seed: int | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> dict[str, object]:
    """Write the suite to ``out`` (created; must be empty or absent). Returns a summary."""
    seed = SEEDS[split] if seed is None else seed
    plan = make_plan(size, seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "files").mkdir(exist_ok=True)
    position = {key: pos for pos, key in enumerate(plan.order)}
    ids = {key: case_id(pos) for key, pos in position.items()}
    total = len(plan.order)
    workers = workers or min(2, os.cpu_count() or 1)
    built: dict[tuple[str, int], Built] = {}
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    base_args = [(seed, s, ids[("base", s.index)]) for s in plan.base]
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        mapper = pool.map if pool else map
        for spec, b in zip(plan.base, mapper(_build_base_task, base_args, **({"chunksize": 2} if pool else {}))):
            built[("base", spec.index)] = b
            tick()
        t_args = []
        for t in plan.transforms:
            o = built[("base", t.of)]
            t_args.append((seed, t, o.data, o.media_type, o.printed_date, o.tags, o.label))
        for t, b in zip(plan.transforms, mapper(_build_transform_task, t_args)):
            built[("transform", t.index)] = b
            tick()
    except BaseException:  # Ctrl-C or a failed case: stop the workers now, not after every queued case
        if pool:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.kill()
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        if pool:
            pool.shutdown()

    submitted = _submission_dates(seed, plan, built)
    spec_by_index = {s.index: s for s in plan.base}
    t_by_index = {t.index: t for t in plan.transforms}
    enc = msgspec.json.Encoder()
    header = SuiteHeader(
        suite="receipt",
        name=f"ra-bench-0.2.0/{size}/{split}",
        meta={
            "generator": GENERATOR_VERSION,
            "split": split,
            "seed": seed,
            "size": size,
            **_pillow_build(),
            "numpy": np.__version__,
            "fpdf2": metadata.version("fpdf2"),
            "pypdf": metadata.version("pypdf"),
            "c2pa": False,
        },
    )
    lines = [enc.encode(header)]
    total_bytes = 0
    for key in plan.order:
        b = built[key]
        cid = ids[key]
        rel = f"files/{cid}.{b.ext}"
        (out / rel).write_bytes(b.data)
        total_bytes += len(b.data)
        lineage = None
        after: list[str] = []
        if key[0] == "transform":
            t = t_by_index[key[1]]
            lineage = Lineage(of=ids[("base", t.of)], transform=t.kind)  # type: ignore[arg-type]
        else:
            spec = spec_by_index[key[1]]
            if spec.lookalike_of is not None:
                after = [ids[("base", spec.lookalike_of)]]
        case = Case(
            id=cid,
            file=rel,
            sha256=hashlib.sha256(b.data).hexdigest(),
            media_type=b.media_type,  # type: ignore[arg-type]
            label=b.label,
            tags=b.tags,
            lineage=lineage,
            after=after,  # type: ignore[arg-type]
            submitted_at=submitted[key],
        )
        lines.append(enc.encode(case))
    (out / MANIFEST).write_bytes(b"\n".join(lines) + b"\n")
    return {"cases": total, "bytes": total_bytes, "seed": seed, "split": split, "size": size}


def _submission_dates(seed: int, plan, built: dict[tuple[str, int], Built]) -> dict[tuple[str, int], str]:
    """When each case was submitted (ISO date); base cases' dates are decided in ``build_base``.

    A duplicate is submitted again after its original (days to months later) and never before
    its own re-shot photo was taken. Time rules (receipt age, future dates) measure from this.
    """
    out: dict[tuple[str, int], str] = {}
    for s in plan.base:
        out[("base", s.index)] = built[("base", s.index)].submitted
    for t in plan.transforms:
        key = ("transform", t.index)
        start = max(date.fromisoformat(out[("base", t.of)]), date.fromisoformat(built[key].submitted))
        out[key] = (start + timedelta(days=1 + submission_delay(rng_for(seed, t.index, 10)))).isoformat()
    return out


def plain_progress(stream=sys.stderr, every: int = 25) -> Progress:
    def report(done: int, total: int) -> None:
        if done == total or done % every == 0:
            print(f"generated {done}/{total} cases", file=stream, flush=True)

    return report
