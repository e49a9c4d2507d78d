"""``rabench cases derive``: duplicate transforms of any suite's base cases.

The duplicates task needs "the same receipt submitted again" (re-encoded,
cropped, re-shot). The synthetic generator makes these for its own receipts;
derive makes them for any suite, so duplicate detection can be measured on real,
imported receipts too. The transforms themselves are ``rabench.cases.transforms``
(the same code the generator uses), so a derived copy looks like a generated one.

Each derived case keeps the original's label (a re-submission shows the same
printed fields), copies its tags plus ``transform=<kind>``, and points back with
``lineage``. Its random generator is seeded from (seed, case id, kind, copy
number) alone, so a case's copies do not change when other cases are added or
removed, and the same seed gives the same bytes.

Paths: nothing is written under a name taken from the manifest as it stands. A copied
file goes to its real path inside the source suite (``x/../a.jpg`` and a symlinked
folder are written where they really are, and the copied case's ``file`` says so);
a derived file is named after its derived id, which is checked against the id rule
(``rabench.contracts.case``: a single safe file name) before anything is written.
Two cases may share one file: it is copied once.
"""

from __future__ import annotations

import hashlib
import typing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import msgspec
import numpy as np

from rabench import __version__
from rabench.cases.importers.media import SUITE_EXTENSION
from rabench.cases.importers.writer import StagedSuite, check_out_dir
from rabench.cases.manifest import open_suite
from rabench.cases.transforms import TransformError, apply_transform
from rabench.cases.validate import validate_suite
from rabench.contracts import Case, Lineage, SuiteHeader
from rabench.contracts.case import Transform, check_id, id_key
from rabench.errors import ProblemsFound, UserError

KINDS: tuple[str, ...] = typing.get_args(Transform)
DERIVED_DIR = "derived"


@dataclass(frozen=True)
class DeriveReport:
    out: Path
    copied: int  # cases of the source suite
    derived: int  # new transform cases
    base: int  # base cases they were made from


def parse_transforms(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    if not kinds:
        raise UserError("--transforms is empty; give some of " + ",".join(KINDS))
    for k in kinds:
        if k not in KINDS:
            raise UserError(f"--transforms: unknown transform {k!r}; expected some of {','.join(KINDS)}")
    if len(set(kinds)) != len(kinds):
        raise UserError("--transforms names a transform twice; use --per-case for more copies")
    return kinds


def derived_id(case_id: str, kind: str, k: int) -> str:
    return f"{case_id}--{kind}-{k}"


def rng_for(seed: int, case_id: str, kind: str, k: int) -> np.random.Generator:
    """A generator that depends only on (seed, case id, kind, copy number)."""
    digest = hashlib.sha256(f"{case_id}\0{kind}\0{k}".encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def derive_suite(
    src: Path,
    out: Path,
    *,
    transforms: list[str],
    seed: int,
    per_case: int = 1,
    name: str | None = None,
) -> DeriveReport:
    """Copy suite ``src`` to ``out`` and add ``per_case`` copies per transform of every base case."""
    src, out = Path(src), Path(out)
    if per_case < 1:
        raise UserError("--per-case must be at least 1")
    if seed < 0:
        raise UserError("--seed must be a non-negative integer")
    for k in transforms:
        if k not in KINDS:
            raise UserError(f"unknown transform {k!r}; expected some of {','.join(KINDS)}")
    check_out_dir(out)
    reader = open_suite(src)
    src = reader.root
    _, problems = validate_suite(src)
    if problems:
        raise ProblemsFound([f"{src}/{p}" for p in problems] + [f"{src}: fix the suite before deriving from it"])

    keys: set[str] = set()
    files: set[str] = set()
    for loaded in reader:
        keys.add(id_key(loaded.case.id))
        files.add(_real_rel(loaded.path, src).casefold())
    for loaded in reader:
        c = loaded.case
        if not c.is_base:
            continue
        for kind in transforms:
            for k in range(1, per_case + 1):
                nid = derived_id(c.id, kind, k)
                where = f"{reader.manifest}:{loaded.line}: case {c.id}"
                try:
                    check_id(nid, "derived id")
                except ValueError as exc:
                    raise UserError(f"{where}: {exc} (shorten the case id)") from None
                if id_key(nid) in keys:
                    raise UserError(
                        f"{where}: derived id {nid} already exists "
                        "(derive from the suite without its earlier transforms)"
                    )
    if any(f.startswith(f"{DERIVED_DIR}/") for f in files):
        raise UserError(f"{src}: already has files under {DERIVED_DIR}/; derive from the suite before it was derived")

    h = reader.header
    header = SuiteHeader(
        suite=h.suite,
        name=name or f"{h.name}+derived",
        meta={
            **h.meta,
            "derived": {
                "from": src.name,
                "from_name": h.name,
                "from_manifest_sha256": reader.manifest_sha256,
                "transforms": list(transforms),
                "seed": seed,
                "per_case": per_case,
                "rabench_version": __version__,
            },
        },
    )
    copied = derived = base = 0
    copied_files: dict[str, tuple[str, str]] = {}  # casefolded real path -> (path, sha256)
    with StagedSuite(out, header) as suite:
        for loaded in reader:
            c = loaded.case
            where = f"{reader.manifest}:{loaded.line}: case {c.id}"
            rel = _real_rel(loaded.path, src)
            seen = copied_files.get(rel.casefold())
            if seen is None:
                sha = suite.copy_file(loaded.path, _safe(rel))
                copied_files[rel.casefold()] = (rel, sha)
            elif seen[0] != rel:
                raise UserError(f"{where}: file {rel} and {seen[0]} differ only in case; rename one")
            else:
                sha = seen[1]  # a file two cases share is copied once
            if sha != c.sha256.lower():
                raise UserError(f"{where}: file {c.file} changed while deriving")
            if rel != c.file:
                c = msgspec.structs.replace(c, file=rel)
            suite.add(c)
            copied += 1
            if not c.is_base:
                continue
            base += 1
            data = loaded.read_bytes()
            for kind in transforms:
                for k in range(1, per_case + 1):
                    nid = derived_id(c.id, kind, k)
                    try:
                        new, mtype = apply_transform(data, c.media_type, kind, rng_for(seed, c.id, kind, k))  # type: ignore[arg-type]
                    except TransformError as exc:
                        raise UserError(f"{reader.manifest}:{loaded.line}: case {c.id}: cannot {kind}: {exc}") from None
                    rel = _safe(f"{DERIVED_DIR}/{nid}{SUITE_EXTENSION[mtype]}")
                    suite.add(
                        Case(
                            id=nid,
                            file=rel,
                            sha256=suite.write_bytes(new, rel),
                            media_type=mtype,  # type: ignore[arg-type]
                            label=c.label,
                            tags={**c.tags, "transform": kind},
                            lineage=Lineage(of=c.id, transform=kind),  # type: ignore[arg-type]
                        )
                    )
                    derived += 1
    return DeriveReport(out=out, copied=copied, derived=derived, base=base)


def _real_rel(path: Path, root: Path) -> str:
    """Where ``path`` (already resolved inside the suite) really is, relative to the suite."""
    return path.relative_to(root.resolve()).as_posix()


def _safe(rel: str) -> str:
    """``rel`` if it names a file strictly inside the folder being written, else UserError."""
    parts = PurePosixPath(rel).parts
    if not parts or rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
        raise UserError(f"internal error: derive refuses to write to {rel!r} (outside --out)")
    return rel
