"""``rabench cases import``: turn a labelled receipt collection into a suite."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rabench.cases.importers import FORMATS, ImportOptions, import_suite
from rabench.cases.importers.folder import COLUMNS, parse_tag_pairs
from rabench.errors import UserError


def parse_tags(values: list[str]) -> dict[str, str]:
    pairs = []
    for v in values:
        if "=" not in v:
            raise UserError(f'--tag "{v}" is not dimension=value')
        k, val = v.split("=", 1)
        pairs.append((k, val))
    return parse_tag_pairs(pairs, UserError)


def _run(args: argparse.Namespace) -> int:
    opts = ImportOptions(
        tags=parse_tags(args.tag or []),
        skip_bad=args.skip_bad,
        name=args.name,
        currency=args.currency,
        no_currency=args.no_currency,
        labels=Path(args.labels) if args.labels else None,
    )
    report = import_suite(args.format, Path(args.src), Path(args.out), opts)
    for line in report.warnings:
        print(f"warning: {line}", file=sys.stderr)
    for line in report.skipped:
        print(f"skipped: {line}", file=sys.stderr)
    if report.skipped:
        print(f"skipped {len(report.skipped)} bad row(s), each listed above with its reason", file=sys.stderr)
    skipped = f"; skipped {len(report.skipped)} bad row(s)" if report.skipped else ""
    print(f"{report.out}: imported {report.imported} receipts ({args.format}){skipped}")
    for line in report.left_out:
        print(line)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="Import real labelled receipts (your own folder + labels, SROIE, CORD) as a suite.",
        description=(
            "Copy the receipts in SRC into a new suite folder DIR (files/ + manifest.jsonl), each "
            "with its sha256 and a label read from the source; originals are only read. Formats: "
            "folder = images/PDFs plus labels.csv or labels.jsonl keyed by file name (columns: "
            + ", ".join(COLUMNS)
            + "; empty cell = not covered, null = not shown); sroie = ICDAR 2019 SROIE task 3 "
            "(keys beside the images, or img/ + entities/ or key/ with .txt or .json keys; "
            "currency MYR assumed; a date whose day/month order is ambiguous is left out and "
            "counted); cord = CORD v2 "
            "(json/ + image/, or a JSONL with file_name + ground_truth; currency IDR assumed). "
            "Receipts are genuine unless labelled otherwise; fields the source does not label are "
            "left out, never guessed. Every bad row is printed as one line and the import writes "
            "nothing, unless --skip-bad. See docs/cases.md."
        ),
    )
    p.add_argument("src", metavar="SRC", help="the source folder (or labels/JSONL file)")
    p.add_argument("--format", required=True, choices=sorted(FORMATS), help="source format")
    p.add_argument("--out", required=True, metavar="DIR", help="new suite folder (must not exist, or be empty)")
    p.add_argument(
        "--tag",
        action="append",
        metavar="DIMENSION=VALUE",
        help="tag every case (repeatable); a row's own tag for the same dimension wins",
    )
    p.add_argument("--skip-bad", action="store_true", help="skip bad rows (each still printed) instead of stopping")
    p.add_argument("--name", help="suite name in the manifest header (default import/FORMAT/SRC-NAME)")
    p.add_argument(
        "--labels", metavar="FILE", help="folder: the labels file (default SRC/labels.csv or SRC/labels.jsonl)"
    )
    cur = p.add_mutually_exclusive_group()
    cur.add_argument("--currency", metavar="CODE", help="sroie/cord: label this ISO 4217 code instead of MYR/IDR")
    cur.add_argument("--no-currency", action="store_true", help="sroie/cord: leave currency unlabelled")
    p.set_defaults(func=_run)
