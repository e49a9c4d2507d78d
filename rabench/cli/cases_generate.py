"""``rabench cases generate``: write the deterministic synthetic RA-Bench receipt suite."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rabench.cases.synth.plan import SEEDS, SIZES
from rabench.cases.synth.suite import generate_suite, plain_progress
from rabench.errors import UserError
from rabench.suites.registry import SUITES


def _run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"{out}: output folder exists and is not empty; choose a new folder")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1")
    from rabench.suites.registry import get_suite

    print(get_suite(args.suite).generate(args, out))
    return 0


def generate_ap(args: argparse.Namespace, out: Path) -> str:
    """An ap suite (``rabench.suites.ap``); the summary line."""
    from rabench.cases.ap.generate import generate_ap_suite

    start = time.perf_counter()
    summary = generate_ap_suite(
        out, split=args.split, size=args.size, seed=args.seed, workers=args.workers, progress=plain_progress()
    )
    return (
        f"{out}: {summary['cases']} ap cases, {float(summary['bytes']) / 1e6:.1f} MB, split {summary['split']} "
        f"seed {summary['seed']}, {time.perf_counter() - start:.1f} s"
    )


def generate_receipt(args: argparse.Namespace, out: Path) -> str:
    """A receipt suite (``rabench.suites.receipt``); the summary line."""
    start = time.perf_counter()
    kwargs = dict(split=args.split, size=args.size, seed=args.seed, workers=args.workers)
    if sys.stderr.isatty():
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(f"generating {args.size}/{args.split}", total=None)
            summary = generate_suite(out, progress=lambda d, t: bar.update(task, completed=d, total=t), **kwargs)
    else:
        summary = generate_suite(out, progress=plain_progress(), **kwargs)
    took = time.perf_counter() - start
    return (
        f"{out}: {summary['cases']} cases, {summary['bytes'] / 1e6:.1f} MB, split {summary['split']} "
        f"seed {summary['seed']}, {took:.1f} s"
    )


def register(sub: argparse._SubParsersAction) -> None:
    seeds = ", ".join(f"{k}={v}" for k, v in SEEDS.items())
    p = sub.add_parser(
        "generate",
        help="Generate a synthetic suite: receipts (genuine, 6 fake classes, duplicates, hard negatives) or "
        "--suite ap (AP invoice bundles).",
        description="Write a deterministic synthetic RA-Bench receipt suite to OUT (manifest.jsonl + files/). "
        f"Same split/seed and library versions give byte-identical files. Seeds: {seeds}. Sizes: "
        + ", ".join(
            f"{k} (~{s.genuine + 6 * s.per_fake + s.hard_negatives + s.transforms} cases)" for k, s in SIZES.items()
        )
        + ". See docs/cases.md. With --suite ap: accounts-payable bundles (invoice, PO, goods receipts, e-mail, "
        "vendor master, ledger, policy) over five task families, sizes sample (40), quick (400), full (2,000); "
        "see docs/ap.md.",
    )
    p.add_argument(
        "--suite",
        choices=sorted(SUITES),
        default="receipt",
        help="receipt (default) or ap: accounts-payable invoice bundles, five task families "
        "(seeds dev=20260101, test=20260202, sample=20260303; docs/ap.md)",
    )
    p.add_argument(
        "--split",
        choices=sorted(SEEDS),
        required=True,
        help="dev: for fitting anything; test: for benchmarking; sample: the small committed suite",
    )
    p.add_argument("--seed", type=int, default=None, help="override the split's documented seed")
    p.add_argument("--size", choices=list(SIZES), default="quick", help="suite size (default quick)")
    p.add_argument("--out", required=True, help="output folder (created; must be new or empty)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: 2, or 1 on a 1-core machine)")
    p.set_defaults(func=_run)
