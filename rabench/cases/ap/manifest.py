"""Stream an ``ap`` suite's manifest one ``APCase`` at a time (the receipt reader's rules:
header first and version checked, one-line errors naming file and line, paths kept inside
the suite folder)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from rabench.cases.manifest import (
    MANIFEST,
    file_sha256,
    path_in_suite,
    strict_lines,
    suite_folder,
)
from rabench.contracts.ap import APCase, APDocument
from rabench.contracts.case import SuiteHeader
from rabench.errors import UserError

ap_case_decoder = msgspec.json.Decoder(APCase)


@dataclass(frozen=True, slots=True)
class LoadedAPCase:
    """A decoded AP case plus where its documents are; bytes are read lazily."""

    case: APCase
    line: int
    paths: dict[str, Path]  # document name -> file

    def read(self, name: str) -> bytes:
        return self.paths[name].read_bytes()

    def document(self, name: str) -> APDocument:
        doc = self.case.document(name)
        if doc is None:
            raise KeyError(name)
        return doc


class APSuiteReader:
    """An ``ap`` suite folder: its header and a fresh stream of cases each time you iterate."""

    def __init__(self, root: Path, header: SuiteHeader, manifest_sha256: str):
        self.root = root
        self.header = header
        self.manifest_sha256 = manifest_sha256

    def __iter__(self) -> Iterator[LoadedAPCase]:
        return self.cases()

    def cases(self, *, check_keys: bool = False) -> Iterator[LoadedAPCase]:
        manifest = self.root / MANIFEST
        root_real = self.root.resolve()
        for lineno, case in strict_lines(manifest, ap_case_decoder, check_keys=check_keys):
            where = f"{manifest}:{lineno}: case {case.id}"
            paths = {doc.name: path_in_suite(self.root, root_real, doc.file, where) for doc in case.documents}
            yield LoadedAPCase(case, lineno, paths)


def open_ap_suite(root: str | os.PathLike[str]) -> APSuiteReader:
    """Open an ``ap`` suite folder (or its manifest.jsonl); a receipt suite is a one-line error."""
    path, manifest, header = suite_folder(root)
    if header.suite != "ap":
        raise UserError(f"{path}: a {header.suite} suite; this command reads ap suites only")
    return APSuiteReader(path, header, file_sha256(manifest))
