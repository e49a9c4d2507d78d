"""``rabench cases derive``: add duplicate transforms of a suite's base cases."""

from __future__ import annotations

import argparse
from pathlib import Path

from rabench.cases.derive import KINDS, derive_suite, parse_transforms


def _run(args: argparse.Namespace) -> int:
    report = derive_suite(
        Path(args.dir),
        Path(args.out),
        transforms=parse_transforms(args.transforms),
        seed=args.seed,
        per_case=args.per_case,
        name=args.name,
    )
    print(
        f"{report.out}: {report.copied} cases copied, {report.derived} duplicate transforms "
        f"added from {report.base} base cases"
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "derive",
        help="Copy a suite and add duplicate transforms (re-encoded, cropped, re-shot) of its base cases.",
        description=(
            "Copy the suite in DIR to a new folder and add, for every base case (no lineage), "
            "--per-case copies per transform, each a new case with lineage {of: original, "
            "transform: kind}, the original's label, its tags plus transform=KIND, and its file "
            "under derived/. Deterministic: the same suite, transforms and --seed give the same "
            "bytes. DIR must validate; nothing is written if anything fails."
        ),
    )
    p.add_argument("dir", metavar="DIR", help="source suite folder (manifest.jsonl + files)")
    p.add_argument("--out", required=True, metavar="DIR2", help="new suite folder (must not exist, or be empty)")
    p.add_argument(
        "--transforms",
        default=",".join(KINDS),
        metavar="LIST",
        help=f"comma-separated, some of {','.join(KINDS)} (default all)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--per-case", type=int, default=1, metavar="N", help="copies per transform per base case (default 1)"
    )
    p.add_argument("--name", help="suite name in the header (default SOURCE-NAME+derived)")
    p.set_defaults(func=_run)
