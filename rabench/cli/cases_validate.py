"""``rabench cases validate DIR``: every problem in a suite, one line each."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rabench.cases.validate import validate_suite
from rabench.errors import ProblemsFound


def _run(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    count, problems = validate_suite(root, check_hashes=not args.no_hash)
    if problems:
        raise ProblemsFound([f"{root}/{p}" for p in problems])
    print(f"{root}: {count} cases, valid", file=sys.stdout)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "validate",
        help="Check a suite: files, hashes, types, ids, lineage/after references, cycles, paths.",
        description="Read DIR/manifest.jsonl and report every problem, one line each "
        "(file:line: case ID: problem); exit 2 if there is any. Checks: missing files, sha256 "
        "mismatches, wrong types and unknown enum values, a JSON key written twice, unsafe ids (ids are "
        "1-128 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit), ids equal "
        "ignoring case, lineage or after naming unknown ids, dependency cycles, symlink loops, and "
        "file paths escaping the suite folder.",
    )
    p.add_argument("dir", help="suite folder containing manifest.jsonl")
    p.add_argument("--no-hash", action="store_true", help="skip sha256 verification (faster)")
    p.set_defaults(func=_run)
