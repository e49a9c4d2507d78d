"""Generate an ``ap`` suite: plan, build every case's bundle (in a process pool), write files and manifest.

Byte-identical output for a seed whatever the worker count: a case depends only on
``(seed, index)`` through its random streams (0: content, 1: file format and look), results are
written in plan order, and no file carries a time of generation.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import msgspec
import numpy as np

from rabench.cases.ap.common import make_world
from rabench.cases.ap.fam_campaign import CAMPAIGN_COUNTRIES
from rabench.cases.ap.families import FAMILY_BUILDERS
from rabench.cases.ap.plan import SEEDS, APSpec, make_plan
from rabench.cases.manifest import MANIFEST
from rabench.cases.synth.build import rng_for
from rabench.contracts.ap import APCase, APDocument, APLabel
from rabench.contracts.case import SuiteHeader

GENERATOR_VERSION = "rabench-ap 1.1"
REVERSE_CHARGE_COUNTRIES = ("DE", "FR", "ES", "NL", "AT", "IE")
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class BuiltCase:
    docs: list[tuple[str, bytes, str, str]]  # name, bytes, media type, role
    label: APLabel
    tags: dict[str, str]
    submitted: str


def build_case(seed: int, spec: APSpec) -> BuiltCase:
    rng, fmt_rng = rng_for(seed, spec.index, 0), rng_for(seed, spec.index, 1)
    country = str(rng.choice(CAMPAIGN_COUNTRIES)) if spec.family == "campaign" else None
    if spec.variant == "reverse_charge":  # an intra-EU supply, by definition from a euro-area vendor
        country = str(rng.choice(REVERSE_CHARGE_COUNTRIES))
    world = make_world(rng, fmt_rng, extraction=spec.family == "extraction", country=country)
    builder, _ = FAMILY_BUILDERS[spec.family]
    label = builder(world, spec.variant)
    invoices = [d for d in world.docs if d.role == "invoice"]
    tags = {
        "family": spec.family,
        "variant": spec.variant,
        "difficulty": label.difficulty,
        "outcome": label.outcome,
        "decision": label.decision,
        "twin": "yes" if label.benign_twin else "no",
        "country": world.vendor.country,
        "currency": str(label.fields["currency"].value),
        "layout": world.look.layout,
        "font": world.look.font,
        "format": world.fmt,
        "language": world.tags["language"],
        "invoices": str(len(invoices)),
    }
    docs = [(d.name, d.data, d.media_type, d.role) for d in world.docs]
    return BuiltCase(docs, label, tags, world.submitted.isoformat())


def _task(args: tuple[int, APSpec]) -> BuiltCase:
    return build_case(*args)


def case_id(position: int) -> str:
    return f"c{position:05d}"


def generate_ap_suite(
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
    workers = workers or min(2, os.cpu_count() or 1)
    enc = msgspec.json.Encoder()
    header = SuiteHeader(
        suite="ap",
        name=f"rabench-ap/{size}/{split}",
        meta={
            "generator": GENERATOR_VERSION,
            "split": split,
            "seed": seed,
            "size": size,
            "numpy": np.__version__,
            "fpdf2": metadata.version("fpdf2"),
            "pypdfium2": metadata.version("pypdfium2"),
        },
    )
    lines = [enc.encode(header)]
    total_bytes = 0
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        results = (
            pool.map(_task, [(seed, s) for s in plan], chunksize=2) if pool else map(_task, [(seed, s) for s in plan])
        )
        for pos, built in enumerate(results):
            cid = case_id(pos)
            folder = out / "files" / cid
            folder.mkdir(parents=True, exist_ok=True)
            docs = []
            for name, data, media, role in built.docs:
                (folder / name).write_bytes(data)
                total_bytes += len(data)
                docs.append(
                    APDocument(
                        name=name,
                        file=f"files/{cid}/{name}",
                        sha256=hashlib.sha256(data).hexdigest(),
                        media_type=media,
                        role=role,
                    )
                )  # type: ignore[arg-type]
            case = APCase(id=cid, documents=docs, label=built.label, tags=built.tags, submitted_at=built.submitted)
            lines.append(enc.encode(case))
            if progress:
                progress(pos + 1, len(plan))
    except BaseException:
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        if pool:
            pool.shutdown()
    (out / MANIFEST).write_bytes(b"\n".join(lines) + b"\n")
    return {"cases": len(plan), "bytes": total_bytes, "seed": seed, "split": split, "size": size}
