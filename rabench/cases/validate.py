"""Validate a whole suite and report *every* problem, one line each.

One pass over the manifest keeps only ids and dependency edges in memory (not
cases or file bytes), then checks references and cycles. Each problem reads
``manifest.jsonl:17: case r-0042: file receipts/0042.jpg not found``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import msgspec

from rabench.cases.manifest import (
    case_lines,
    MANIFEST,
    SymlinkLoop,
    _case_decoder,
    describe_decode_error,
    duplicate_key_problem,
    file_sha256,
    read_header,
    resolve_in_suite,
)
from rabench.contracts.case import id_key
from rabench.errors import UserError

T = TypeVar("T")


def manifest_entries(
    manifest: Path, decoder: msgspec.json.Decoder[T], problems: list[str]
) -> Iterator[tuple[int, T | None]]:
    """Each case line of ``manifest`` (after the header) as (line number, case), the case ``None``
    when the line does not decode; decode errors and repeated keys go to ``problems``.
    Shared by the receipt and ap validators, so both word a bad line alike."""
    for lineno, raw in case_lines(manifest):
        try:
            case = decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            problems.append(f"{MANIFEST}:{lineno}: {describe_decode_error(exc)}")
            yield lineno, None
            continue
        dup = duplicate_key_problem(raw)
        if dup is not None:
            problems.append(f"{MANIFEST}:{lineno}: case {getattr(case, 'id', '?')}: {dup}")
        yield lineno, case


def file_problem(
    root: Path, root_real: Path, file: str, sha256: str, check_hashes: bool
) -> tuple[Path | None, str | None]:
    """The case file's path inside the suite, or the one-line problem with it (escapes the
    folder, a link loop, missing, or its bytes not those the manifest names)."""
    try:
        path = resolve_in_suite(root, file, root_real)
    except SymlinkLoop as exc:
        return None, str(exc)
    if path is None:
        return None, f"file {file} escapes the suite folder"
    if not path.is_file():
        return None, f"file {file} not found"
    if check_hashes and file_sha256(path) != sha256.lower():
        return path, f"file {file} sha256 mismatch"
    return path, None


def validate_suite(root: Path, *, check_hashes: bool = True) -> tuple[int, list[str]]:
    """Return (number of cases read, problems). An empty problem list means valid.

    The suite kind its header names does the checking (``rabench.suites``); a header that
    cannot be read is reported by the receipt checks, which list every problem."""
    root = Path(root)
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise UserError(f"{root}: no {MANIFEST} in this folder")
    try:
        kind = read_header(manifest).suite
    except UserError:
        return validate_receipt_suite(root, check_hashes=check_hashes)
    from rabench.suites.registry import get_suite

    return get_suite(kind).validate(root, check_hashes=check_hashes)


def validate_receipt_suite(root: Path, *, check_hashes: bool = True) -> tuple[int, list[str]]:
    """A receipt suite's checks: (number of cases read, problems)."""
    root = Path(root)
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise UserError(f"{root}: no {MANIFEST} in this folder")
    problems: list[str] = []
    where = MANIFEST
    try:
        read_header(manifest)
    except UserError as exc:
        problems.append(str(exc).replace(str(manifest), where))

    first_line: dict[str, int] = {}
    first_key: dict[str, tuple[str, int]] = {}  # id_key -> (id, line): ids equal ignoring case
    deps: dict[str, list[tuple[str, str]]] = {}  # id -> [(kind, other id)]
    count = 0
    root_real = root.resolve()
    for lineno, case in manifest_entries(manifest, _case_decoder, problems):
        count += 1
        if case is None:
            continue
        prefix = f"{where}:{lineno}: case {case.id}"
        if case.id in first_line:
            problems.append(f"{prefix}: duplicate id (first on line {first_line[case.id]})")
            continue
        key = id_key(case.id)
        if key in first_key:
            other, line = first_key[key]
            problems.append(
                f"{prefix}: duplicate id: same as {other} on line {line} ignoring case "
                "(one file on macOS and Windows); rename one"
            )
            continue
        first_key[key] = (case.id, lineno)
        first_line[case.id] = lineno
        edges = [("after", a) for a in case.after]
        if case.lineage is not None:
            edges.append(("lineage", case.lineage.of))
        deps[case.id] = edges
        _, problem = file_problem(root, root_real, case.file, case.sha256, check_hashes)
        if problem is not None:
            problems.append(f"{prefix}: {problem}")

    for cid, edges in deps.items():
        for kind, other in edges:
            if other not in first_line:
                problems.append(f"{where}:{first_line[cid]}: case {cid}: {kind} names unknown case {other}")
            elif other == cid:
                problems.append(f"{where}:{first_line[cid]}: case {cid}: {kind} names itself")
    for cycle in _cycles(deps, first_line):
        head = cycle[0]
        problems.append(f"{where}:{first_line[head]}: case {head}: dependency cycle {' -> '.join(cycle + [head])}")
    return count, problems


def _cycles(deps: dict[str, list[tuple[str, str]]], known: dict[str, int]) -> list[list[str]]:
    """One representative cycle per strongly connected group, iteratively (no recursion limit)."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(deps, WHITE)
    found: list[list[str]] = []
    for start in deps:
        if colour[start] != WHITE:
            continue
        stack: list[tuple[str, int]] = [(start, 0)]
        path: list[str] = [start]
        colour[start] = GREY
        while stack:
            node, i = stack[-1]
            edges = [o for _, o in deps.get(node, []) if o in known and o != node]
            if i < len(edges):
                stack[-1] = (node, i + 1)
                nxt = edges[i]
                if colour[nxt] == WHITE:
                    colour[nxt] = GREY
                    stack.append((nxt, 0))
                    path.append(nxt)
                elif colour[nxt] == GREY:
                    found.append(path[path.index(nxt) :])
            else:
                colour[node] = BLACK
                stack.pop()
                path.pop()
    return found
