"""``rabench engine``: fit the self target's risk model; check one file with the engine."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from pathlib import Path

import msgspec

from rabench.errors import UserError


def _fit(args: argparse.Namespace) -> int:
    from rabench.engine.fitting import fit_suite

    command = "rabench engine fit " + " ".join(shlex.quote(a) for a in sys.argv[3:])
    model, path = fit_suite(
        args.suite,
        out=Path(args.out) if args.out else None,
        workers=args.workers,
        l2=args.l2,
        cache_root=Path(args.cache) if args.cache else None,
        results_out=Path(args.results) if args.results else None,
        reuse=Path(args.reuse) if args.reuse else None,
        command=command.strip(),
    )
    print(
        f"{path}: fitted on {model.n_cases} base cases ({model.n_fakes} fakes) of {model.suite} "
        f"split={model.split} seed={model.seed}; {len(model.features)} features"
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    from rabench.engine.ocr import ThreadWorkerPool
    from rabench.engine.target import SelfTarget
    from rabench.targets.base import TargetFailure

    path = Path(args.file)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    if args.today and args.submitted_at:
        raise UserError("give --today or --submitted-at, not both")
    request = _prepared_request(path, args.media_type, args.submitted_at, Path(args.cache) if args.cache else None)
    from rabench.contracts.targets_config import SelfSection, TargetsConfig

    try:
        config = TargetsConfig(self=SelfSection(today=args.today, risk_model=args.model))
    except ValueError as exc:
        raise UserError(f"--today: {exc}") from None
    pool = ThreadWorkerPool(workers=1)
    target = SelfTarget("self", config, pool=pool)

    async def go():
        await target.open()
        await target.reset(0)
        try:
            return await target.check(request)
        finally:
            await target.close()

    try:
        verdict = asyncio.run(go())
    except TargetFailure as exc:
        raise UserError(str(exc)) from None
    finally:
        pool.close()
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(verdict)).decode() + "\n")
    return 0


def _prepared_request(path: Path, media_type: str | None, submitted_at: str | None, cache_root: Path | None):
    """The CheckRequest a run would send for this file: prepared through the runner's own cache
    (upright, <= 3072 px, <= 3.75 MB), so ``engine check`` analyses the bytes a run analyses."""
    import hashlib

    from rabench.contracts.case import submission_date
    from rabench.engine.pipeline import sniff_media_type
    from rabench.prepare.cache import PrepCache
    from rabench.prepare.image import PreparationError
    from rabench.targets.base import CheckRequest

    if submitted_at is not None:
        try:
            submission_date(submitted_at)
        except ValueError as exc:
            raise UserError(f"--submitted-at: {exc}") from None
    data = path.read_bytes()
    media_type = media_type or sniff_media_type(data[:1024]) or "application/octet-stream"
    sha256 = hashlib.sha256(data).hexdigest()
    try:
        prepared = asyncio.run(PrepCache(cache_root).get(path, sha256, media_type))
    except PreparationError as exc:  # what the runner records as "cannot prepare": an error outcome
        raise UserError(f"{path.name}: cannot prepare: {exc}") from None
    return CheckRequest(
        case_id=path.name,
        original=path,
        media_type=media_type,
        prepared=prepared.path,
        prepared_media_type=prepared.media_type,
        submitted_at=submitted_at,
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "engine",
        help="The self target's engine: fit its risk model on a dev suite, or check one file.",
        description="Tools for the in-process engine (docs/engine.md).",
    )
    inner = p.add_subparsers(dest="engine_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args, p=p: (p.print_help(), 2)[1])

    f = inner.add_parser(
        "fit",
        help="Fit the risk model on a suite's dev split and store it as data.",
        description=(
            "Run the engine over every case of SUITE (prepared exactly as `rabench run` prepares them, "
            "duplicate network replayed in dependency order), then fit a logistic regression from the "
            "signals of the base cases to their genuine/fake labels. Coefficients are written as JSON "
            "with the suite name, split and seed they came from (default rabench/data/risk-model.json). "
            "Refuses a suite whose header says split=test: never fit on the test split."
        ),
    )
    f.add_argument(
        "--suite",
        required=True,
        action="append",
        metavar="DIR",
        help="suite folder (dev split); repeat to fit on a mix of suites (e.g. synthetic dev, "
        "real dev receipts and forgeries of them)",
    )
    f.add_argument("--out", default=None, metavar="JSON", help="where to write the model (default: the shipped one)")
    f.add_argument("--workers", type=int, default=None, help="engine worker processes (default: cores)")
    f.add_argument("--l2", type=float, default=1.0, help="L2 penalty on the coefficients (default 1.0)")
    f.add_argument("--cache", default=None, metavar="DIR", help="prepared-image cache (default as rabench run)")
    f.add_argument(
        "--results",
        default=None,
        metavar="JSONL",
        help="also write every case's signals and verdict here (for inspection, or --reuse)",
    )
    f.add_argument(
        "--reuse",
        default=None,
        metavar="JSONL",
        help="fit on the signals an earlier fit wrote with --results for the same suites (same "
        "order) instead of running the engine again: minutes become seconds when only the "
        "model changes; refused if the file's cases are not these suites'",
    )
    f.set_defaults(func=_fit)

    c = inner.add_parser(
        "check",
        help="Check one receipt file with the engine and print its verdict as JSON.",
        description=(
            "Read FILE (JPEG, PNG, WebP, TIFF or PDF) with the engine exactly as `rabench run` does: the file "
            "is first prepared through the same prepared-image cache (upright, <= 3072 px, <= 3.75 MB), then "
            "OCR or the PDF text layer, fields, totals_add_up, plausibility, provenance (from the original "
            "file), visual forensics and risk; prints the Verdict as JSON, with `diagnostics` saying how the "
            "check ran. The duplicate network is empty (one file). A file that can't be prepared or read "
            "exits 2 with one line saying why."
        ),
    )
    c.add_argument("file", help="the receipt file")
    c.add_argument("--media-type", default=None, help="declared media type (default: sniffed from the bytes)")
    c.add_argument(
        "--submitted-at",
        default=None,
        metavar="ISO8601",
        help="when the receipt was submitted (as a case's submitted_at, e.g. 2024-05-01T10:00:00Z): "
        "the time rules (receipt age, future date) and the photo-date guard measure from it; "
        "default: none, so the time rules do not fire",
    )
    c.add_argument(
        "--today",
        default=None,
        metavar="YYYY-MM-DD",
        help="the same as a date-only --submitted-at, as the [self] today setting does for a run",
    )
    c.add_argument("--model", default=None, metavar="JSON", help="risk model (default: the shipped one)")
    c.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="prepared-image cache (default as rabench run: $RABENCH_CACHE/prepared, else .cache/prepared)",
    )
    c.set_defaults(func=_check)
