"""Stream a suite's ``manifest.jsonl`` one Case at a time.

Format: ``cases/<suite>/manifest.jsonl``; line 1 is a ``SuiteHeader``, every
further non-blank line one ``Case``; files live beside it at ``Case.file``.
Nothing holds the whole suite: cases are decoded line by line and file bytes
are read only when ``read_bytes()`` is called (so a 20,000-case suite costs one
line of memory at a time).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISLNK
from typing import TypeVar

import msgspec

from rabench.contracts import Case, SuiteHeader
from rabench.contracts.version import UNVERSIONED, check_version
from rabench.errors import UserError

MANIFEST = "manifest.jsonl"
T = TypeVar("T")
_case_decoder = msgspec.json.Decoder(Case)
_header_decoder = msgspec.json.Decoder(SuiteHeader)


class _Version(msgspec.Struct):
    contracts_version: object = UNVERSIONED


_version_decoder = msgspec.json.Decoder(_Version)


class _DuplicateKey(Exception):
    pass


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return d


_pairs_decoder = json.JSONDecoder(object_pairs_hook=_pairs)


def duplicate_key(raw: bytes) -> str | None:
    """The first key that appears twice in one JSON object of ``raw``, else None.

    msgspec (like most parsers) keeps the last of two equal keys without a word, so a
    line could say two things and be read as either. This check costs about 15 us a line
    (stdlib json), so it runs on the passes that vet a suite (validate, the run's plan,
    the scorer), not on every streaming pass. Call it on lines msgspec already decoded.
    """
    try:
        _pairs_decoder.decode(raw.decode("utf-8"))
    except _DuplicateKey as dup:
        return str(dup.args[0])
    except ValueError:  # not JSON stdlib accepts: msgspec decided already
        return None
    return None


def duplicate_key_problem(raw: bytes) -> str | None:
    """One-line problem text for a line with a duplicated key, else None."""
    key = duplicate_key(raw)
    if key is None:
        return None
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in key[:80])
    return f'key "{shown}" appears twice in one object (which one counts is ambiguous); keep one'


def describe_decode_error(exc: msgspec.ValidationError | msgspec.DecodeError) -> str:
    """msgspec's message, made to read as one plain sentence (control characters escaped: one line)."""
    text = str(exc).replace("`", "")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class SymlinkLoop(UserError):
    """A path that runs through a symlink loop (one line; callers add where it was named)."""


def resolve_in_suite(root: Path, rel: str, root_real: Path | None = None) -> Path | None:
    """The file's real path if ``rel`` stays inside ``root`` (no ``..``, absolute path or symlink out).

    Pass ``root_real`` (``root.resolve()``, computed once per suite) on hot paths: resolving
    the root again for every case doubles the cost of this check. A symlink loop raises
    ``SymlinkLoop`` (a UserError: one line, exit 2), never Python's ``RuntimeError``.
    """
    if not rel or rel.startswith(("/", "\\")) or os.path.isabs(rel) or "\\" in rel or "\x00" in rel:
        return None
    if root_real is not None:
        plain = _plain_path(str(root_real), rel)
        if plain is not None:
            return Path(plain)
    try:
        root_real = root_real or root.resolve()
        candidate = (root / rel).resolve()
    except RuntimeError:  # Python 3.11: "Symlink loop from ..."
        raise SymlinkLoop(f"file {rel} runs through a symlink loop; replace the link with the file") from None
    except OSError as exc:  # ELOOP from the OS, or a name too long
        raise SymlinkLoop(f"file {rel}: {exc.strerror or exc}") from None
    try:
        candidate.relative_to(root_real)
    except ValueError:
        return None
    return candidate


def _plain_path(root_real: str, rel: str) -> str | None:
    """``root_real/rel`` when that is already its real path: every part of ``rel`` a plain name
    (no ``.``, ``..`` or empty part) that exists and is not a symlink (one ``lstat`` a part).
    Then ``realpath`` would return exactly this, so the file is inside the suite. None for
    anything else (a symlink, a missing part, an odd name): the caller resolves it in full.
    With it ``resolve_in_suite`` takes about 6 us for a file beside the manifest, against about
    28 us through ``Path.resolve`` (CPU, best of 7, load average 7)."""
    if root_real == "/":
        return None
    path = root_real
    for part in rel.split("/"):
        if part in ("", ".", ".."):
            return None
        path = f"{path}/{part}"
        try:
            if S_ISLNK(os.lstat(path).st_mode):
                return None
        except (OSError, ValueError):
            return None
    return path


@dataclass(frozen=True, slots=True)
class LoadedCase:
    """A decoded case plus where it came from; file bytes are read lazily."""

    case: Case
    line: int
    path: Path

    def read_bytes(self) -> bytes:
        return self.path.read_bytes()


class SuiteReader:
    """A suite folder: its header and a fresh stream of cases each time you iterate."""

    def __init__(self, root: Path, header: SuiteHeader, manifest_sha256: str):
        self.root = root
        self.header = header
        self.manifest_sha256 = manifest_sha256

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    def __iter__(self) -> Iterator[LoadedCase]:
        return self.cases()

    def cases(self, *, check_keys: bool = False) -> Iterator[LoadedCase]:
        """Decode cases one line at a time; raise UserError at the first bad line.

        ``check_keys`` also refuses a line with a duplicated JSON key (``duplicate_key``):
        passes that vet the suite set it, streaming passes do not pay for it again.
        Use ``rabench.cases.validate`` to get every problem instead of the first.
        """
        root, root_real, manifest = self.root, self.root.resolve(), self.manifest
        where = f"{manifest}:"  # formatted once: a case line's place is this, its number and its id
        for lineno, case in strict_lines(manifest, _case_decoder, check_keys=check_keys):
            path = path_in_suite(root, root_real, case.file, f"{where}{lineno}: case {case.id}")
            yield LoadedCase(case, lineno, path)


def strict_lines(manifest: Path, decoder: msgspec.json.Decoder[T], *, check_keys: bool) -> Iterator[tuple[int, T]]:
    """Each case line of ``manifest`` after the header as (line number, case); raise UserError
    at the first line that does not decode (or repeats a key, with ``check_keys``). The
    streaming readers of both suite kinds share it; ``rabench.cases.validate`` collects every
    problem instead."""
    for lineno, raw in case_lines(manifest):
        try:
            case = decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise UserError(f"{manifest}:{lineno}: {describe_decode_error(exc)}") from None
        if check_keys:
            problem = duplicate_key_problem(raw)
            if problem is not None:
                raise UserError(f"{manifest}:{lineno}: case {getattr(case, 'id', '?')}: {problem}")
        yield lineno, case


def case_lines(manifest: Path) -> Iterator[tuple[int, bytes]]:
    """Each non-blank line of ``manifest`` after the header, with its line number."""
    with manifest.open("rb") as fh:
        next(fh, None)  # header
        for lineno, raw in enumerate(fh, start=2):
            if raw.strip():
                yield lineno, raw


def path_in_suite(root: Path, root_real: Path, file: str, where: str) -> Path:
    """``file`` resolved inside the suite folder, or a UserError starting with ``where``."""
    try:
        path = resolve_in_suite(root, file, root_real)
    except SymlinkLoop as exc:
        raise UserError(f"{where}: {exc}") from None
    if path is None:
        raise UserError(f"{where}: file {file} escapes the suite folder")
    return path


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_header(manifest: Path) -> SuiteHeader:
    with manifest.open("rb") as fh:
        first = fh.readline()
    if not first.strip():
        raise UserError(f"{manifest}:1: empty manifest: the first line must be a suite header")
    try:
        found = _version_decoder.decode(first).contracts_version
    except (msgspec.ValidationError, msgspec.DecodeError):
        found = UNVERSIONED  # not even an object: the header decoder below names the problem
    check_version(found, f"{manifest}:1", "make the suite again with this rabench (cases generate / import)")
    try:
        return _header_decoder.decode(first)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise UserError(f"{manifest}:1: bad suite header: {describe_decode_error(exc)}") from None


def suite_folder(root: str | os.PathLike[str]) -> tuple[Path, Path, SuiteHeader]:
    """A suite folder (or its manifest.jsonl given instead), its manifest and header, whatever
    the suite's kind; one-line errors when the folder or manifest is missing or the header bad."""
    path = Path(root)
    if path.name == MANIFEST and path.is_file():
        path = path.parent
    manifest = path / MANIFEST
    if not path.is_dir():
        raise UserError(f"{path}: no such suite folder")
    if not manifest.is_file():
        raise UserError(f"{path}: no {MANIFEST} in this folder")
    return path, manifest, read_header(manifest)


def open_suite(root: str | os.PathLike[str]) -> SuiteReader:
    """Open a receipt suite folder (or its manifest.jsonl) for streaming; one-line errors on bad
    input, and on a suite of another kind (an ``ap`` suite holds bundles, not receipt cases)."""
    path, manifest, header = suite_folder(root)
    if header.suite != "receipt":  # an AP suite: rabench.cases.ap.manifest.open_ap_suite reads it
        raise UserError(
            f"{path}: an {header.suite} suite; this command reads receipt suites only "
            "(cases validate and cases audit read both; see docs/ap.md)"
        )
    return SuiteReader(path, header, file_sha256(manifest))
