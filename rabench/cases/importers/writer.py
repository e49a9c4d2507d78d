"""Write a suite folder all at once or not at all.

Importing and deriving copy many files; a failure half-way (a bad row found
late, a full disk, Ctrl-C) must not leave a half-suite that ``rabench run``
would happily use. Everything is written into a hidden temporary folder next
to ``--out``, validated with ``validate_suite``, and only then renamed into
place (one ``rename``, atomic on one file system).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import msgspec

from rabench.cases.manifest import MANIFEST
from rabench.cases.validate import validate_suite
from rabench.contracts import Case, SuiteHeader
from rabench.errors import UserError

_encoder = msgspec.json.Encoder()


def check_out_dir(out: Path) -> None:
    """``--out`` must not exist yet, or be an empty folder (never overwrite a suite)."""
    if out.exists() or out.is_symlink():
        if not out.is_dir() or any(out.iterdir()):
            raise UserError(f"{out}: already exists and is not an empty folder; choose a new --out")


class StagedSuite:
    """``with StagedSuite(out, header) as s: s.copy_file(...); s.add(case)`` -> ``out`` appears on success."""

    def __init__(self, out: Path, header: SuiteHeader):
        self.out = Path(out)
        self.header = header
        self.tmp: Path | None = None
        self._manifest: BinaryIO | None = None
        self.count = 0

    def __enter__(self) -> StagedSuite:
        check_out_dir(self.out)
        parent = self.out.absolute().parent
        parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{self.out.name}.partial-"))
        self._manifest = (self.tmp / MANIFEST).open("wb")
        self._manifest.write(_encoder.encode(self.header) + b"\n")
        return self

    def _dest(self, rel: str) -> Path:
        assert self.tmp is not None
        dest = self.tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        return dest

    def copy_file(self, src: Path, rel: str) -> str:
        """Copy ``src`` byte for byte to ``rel`` in the suite; return its sha256 (source is only read)."""
        h = hashlib.sha256()
        with src.open("rb") as fin, self._dest(rel).open("xb") as fout:
            for chunk in iter(lambda: fin.read(1 << 20), b""):
                h.update(chunk)
                fout.write(chunk)
        return h.hexdigest()

    def write_bytes(self, data: bytes, rel: str) -> str:
        with self._dest(rel).open("xb") as fout:
            fout.write(data)
        return hashlib.sha256(data).hexdigest()

    def add(self, case: Case) -> None:
        assert self._manifest is not None
        self._manifest.write(_encoder.encode(case) + b"\n")
        self.count += 1

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.tmp is not None and self._manifest is not None
        try:
            self._manifest.close()
            if exc_type is None:
                self._commit()
        finally:
            if self.tmp.exists():
                shutil.rmtree(self.tmp, ignore_errors=True)

    def _commit(self) -> None:
        assert self.tmp is not None
        _, problems = validate_suite(self.tmp)
        if problems:  # a bug in the writer, not the user's input: still write nothing
            raise UserError(f"internal error: the suite written failed validation: {problems[0]}")
        os.chmod(self.tmp, 0o755)  # mkdtemp makes it 0700
        if self.out.is_dir():
            self.out.rmdir()  # empty (checked on entry); rename cannot replace it everywhere
        os.rename(self.tmp, self.out)
