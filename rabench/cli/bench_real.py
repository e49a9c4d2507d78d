"""The real track of ``rabench bench --real DIR``: which import format, and the cached suites.

Why a module of its own: bench.py strings stages together; what is particular to
real receipts is deciding the source's format from its layout (so a user can
point at a dataset as published), and keying the imported and forged suites on
the source's *content* (so a second bench reuses them, and an edited source is
imported again rather than silently reused).

Layout under ``cases/``: ``real-<source name>-<key>/imported`` (the import,
tagged ``domain=real``) and ``real-<source name>-<key>/forged-seed<N>`` (the
forgeries and genuine controls the real track is run on).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from rabench.contracts.views import TrackRecord
from rabench.errors import UserError

FORMATS = ("sroie", "cord", "folder")
ACCEPTED = (
    "sroie (img/ with key/ or entities/, or entities/ alone), "
    "cord (json/ with image/, split folders holding them, or metadata.jsonl), "
    "folder (receipt files with labels.csv or labels.jsonl)"
)
_IMAGE_DIRS = ("img", "images", "image")
_KEY_DIRS = ("key", "keys", "entities")
KEY_VERSION = 1  # bump when what goes into the key changes


def _dirs(src: Path, names: tuple[str, ...]) -> bool:
    return any((src / n).is_dir() for n in names)


def looks_like(src: Path) -> list[str]:
    """Every import format whose layout SRC matches (usually one)."""
    found = []
    if (_dirs(src, _IMAGE_DIRS) and _dirs(src, _KEY_DIRS)) or (src / "entities").is_dir():
        found.append("sroie")
    cord_root = (src / "json").is_dir() and _dirs(src, _IMAGE_DIRS)
    cord_split = any(d.is_dir() and (d / "json").is_dir() for d in src.iterdir())
    if cord_root or cord_split or (src / "metadata.jsonl").is_file():
        found.append("cord")
    if (src / "labels.csv").is_file() or (src / "labels.jsonl").is_file():
        found.append("folder")
    return found


def detect_format(src: Path, given: str = "auto") -> str:
    """The import format for SRC: ``given`` unless "auto", else the one layout it matches."""
    if not src.is_dir():
        raise UserError(f"--real {src}: no such folder")
    if given != "auto":
        if given not in FORMATS:
            raise UserError(f"--real-format {given!r}: expected auto, {', '.join(FORMATS)}")
        return given
    found = looks_like(src)
    if not found:
        raise UserError(f"--real {src}: not a receipt folder in a format I can import; accepted: {ACCEPTED}")
    if len(found) > 1:
        raise UserError(f"--real {src}: matches several formats ({', '.join(found)}); choose one with --real-format")
    return found[0]


def source_key(src: Path, fmt: str) -> str:
    """16 hex digits of a sha256 over every file's relative path and bytes, the format and
    the importer's version: the same receipts and labels give the same key wherever they are."""
    from rabench.cases.importers.base import IMPORTER_VERSION

    h = hashlib.sha256(f"rabench-real/{KEY_VERSION}/{fmt}/{IMPORTER_VERSION}\n".encode())
    for path in sorted(p for p in src.rglob("*") if p.is_file() and not p.name.startswith(".")):
        rel = path.relative_to(src).as_posix()
        h.update(rel.encode() + b"\0")
        with path.open("rb") as fh:
            h.update(hashlib.file_digest(fh, "sha256").digest())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class RealTrack:
    src: Path
    fmt: str
    key: str
    seed: int

    @property
    def root(self) -> Path:
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", self.src.resolve().name).strip("-") or "src"
        return Path("cases") / f"real-{name}-{self.key}"

    @property
    def imported(self) -> Path:
        return self.root / "imported"

    @property
    def forged(self) -> Path:
        return self.root / f"forged-seed{self.seed}"

    def record(self) -> TrackRecord:
        """What reports/ID/real/track.json says about where the real track came from."""
        return TrackRecord(
            source=str(self.src),
            format=self.fmt,
            content_key=self.key,
            seed=self.seed,
            imported=str(self.imported),
            forged=str(self.forged),
        )


def describe(record: TrackRecord) -> str:
    """One line for the report from a track.json record."""
    return (
        f"receipts from {record.source} ({record.format}, content key "
        f"{record.content_key}), forged with seed {record.seed} into {record.forged}"
    )


def plan(src: str, fmt: str, seed: int) -> RealTrack:
    path = Path(src)
    chosen = detect_format(path, fmt)
    return RealTrack(src=path, fmt=chosen, key=source_key(path, chosen), seed=seed)
