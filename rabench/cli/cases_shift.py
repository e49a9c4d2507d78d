"""``rabench cases shift A B``: how well a simple classifier tells two suites apart (e.g. real vs synthetic)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rabench.cases.shift import describe, shift, suite_signals
from rabench.errors import UserError


def _where(items: list[str], flag: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UserError(f"{flag} {item!r}: expected TAG=VALUE, e.g. capture=scan")
        out[key.strip()] = value.strip()
    return out


def _run(args: argparse.Namespace) -> int:
    if args.folds < 2:
        raise UserError("--folds must be at least 2")
    if args.bootstrap < 100:
        raise UserError("--bootstrap must be at least 100")
    where_a, where_b = _where(args.where_a, "--where-a"), _where(args.where_b, "--where-b")
    a = suite_signals(Path(args.suite_a), genuine_only=args.genuine_only, where=where_a)
    b = suite_signals(Path(args.suite_b), genuine_only=args.genuine_only, where=where_b)
    res = shift(a, b, folds=args.folds, n_boot=args.bootstrap, seed=args.seed, formats=args.formats)
    for line in describe(res, args.suite_a, args.suite_b):
        print(line)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "shift",
        help="Two-sample shift check: cross-validated AUC of a classifier separating suite A from suite B.",
        description="Read the leak audit's file signals (format, byte size, pixels, JPEG quality, EXIF, "
        "Software tag, luminance and saturation) of every base case of two suites, fit an L2 logistic "
        "regression telling B from A with stratified k-fold cross-validation, and print the out-of-fold ROC "
        "AUC with a bootstrap 95 % interval (0.5 = the suites look alike on these signals) and the signals "
        "that separate them most. By default only file formats both suites contain are compared.",
    )
    p.add_argument("suite_a", help="first suite folder (e.g. imported real receipts)")
    p.add_argument("suite_b", help="second suite folder (e.g. a generated synthetic suite)")
    p.add_argument(
        "--formats",
        choices=("common", "all"),
        default="common",
        help="compare only the file formats both suites have (default) or all cases",
    )
    p.add_argument("--genuine-only", action="store_true", help="compare genuine base cases only")
    p.add_argument(
        "--where-a",
        action="append",
        default=[],
        metavar="TAG=VALUE",
        help="compare only suite A's cases with this tag value (repeatable), e.g. capture=scan",
    )
    p.add_argument(
        "--where-b",
        action="append",
        default=[],
        metavar="TAG=VALUE",
        help="compare only suite B's cases with this tag value (repeatable)",
    )
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the interval (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed for the fold split and the bootstrap (default 0)")
    p.set_defaults(func=_run)
