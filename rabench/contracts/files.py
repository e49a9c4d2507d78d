"""Reading rabench's own files at the edge: version first, then the typed contract.

Each reader checks ``contracts_version`` before anything else (a file of another version
is refused with one line naming both versions), then decodes the whole file into its
struct with unknown fields forbidden, so a misspelt or foreign key is an error, not a
value dropped in silence. Callers get the typed object; no dict leaves this module.
A file without ``contracts_version`` is read as version 1 (``UNVERSIONED``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import msgspec

from rabench.contracts.details import DetailsFile
from rabench.contracts.outcome import RunManifest
from rabench.contracts.rows import RowsFile
from rabench.contracts.views import CasesFile, TrackRecord
from rabench.contracts.version import UNVERSIONED, check_version
from rabench.errors import UserError

T = TypeVar("T")

RESCORE = "score the runs again with this rabench (rabench score RUNS --out DIR)"
RERUN = "read it with the rabench that wrote it, or run the suite again"


class _Version(msgspec.Struct):
    # Absent: version 1, the only version before it was written into every file
    # (run.json left it out while it equalled the default).
    contracts_version: object = UNVERSIONED


class _HeaderVersion(msgspec.Struct):
    header: _Version


def _why(exc: Exception) -> str:
    return str(exc).replace("`", "")


def _decode(data: bytes, typ: type[T], where: str, what: str) -> T:
    try:
        return msgspec.json.decode(data, type=typ)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise UserError(f"{where}: not a valid {what}: {_why(exc)}") from None


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None


def decode_run_manifest(data: bytes, where: str) -> RunManifest:
    """``run.json`` bytes -> RunManifest (version checked first)."""
    check_version(_decode(data, _Version, where, "run manifest").contracts_version, where, RERUN)
    return _decode(data, RunManifest, where, "run manifest")


def decode_rows(data: bytes, where: str) -> RowsFile:
    """``rows.json`` bytes -> RowsFile (version checked first)."""
    check_version(_decode(data, _HeaderVersion, where, "rows.json file").header.contracts_version, where, RESCORE)
    return _decode(data, RowsFile, where, "rows.json file")


def decode_details(data: bytes, where: str) -> DetailsFile:
    """``details.json`` bytes -> DetailsFile (version checked first)."""
    check_version(_decode(data, _Version, where, "details.json file").contracts_version, where, RESCORE)
    return _decode(data, DetailsFile, where, "details.json file")


def decode_cases(data: bytes, where: str) -> CasesFile:
    """``cases.json`` bytes -> CasesFile (version checked first)."""
    check_version(_decode(data, _Version, where, "cases.json file").contracts_version, where, RESCORE)
    return _decode(data, CasesFile, where, "cases.json file")


def decode_track(data: bytes, where: str) -> TrackRecord:
    """``real/track.json`` bytes -> TrackRecord (version checked first)."""
    check_version(
        _decode(data, _Version, where, "track.json file").contracts_version,
        where,
        "run rabench bench --real again with this rabench",
    )
    return _decode(data, TrackRecord, where, "track.json file")


def read_cases(path: Path) -> CasesFile:
    return decode_cases(_read(path, "cases.json"), str(path))


def read_track(path: Path) -> TrackRecord:
    return decode_track(_read(path, "track.json"), str(path))


def read_run_manifest(path: Path) -> RunManifest:
    return decode_run_manifest(_read(path, "run manifest"), str(path))


def read_rows(path: Path) -> RowsFile:
    return decode_rows(_read(path, "rows.json"), str(path))


def read_details(path: Path) -> DetailsFile:
    return decode_details(_read(path, "details.json"), str(path))
