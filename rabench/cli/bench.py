"""``rabench bench`` (what ``make bench`` runs): the whole benchmark, end to end.

Generate (or reuse) the test suite, run ``self`` with 2 repetitions plus every
DIY target whose API key is present, score, render the report, print the
headline table and the report's path. Each stage is the same subcommand a user
could run by hand; this only strings them together and says what it skipped.

With ``--real DIR`` a second, real track runs beside it: import DIR (format
detected from its layout, cached by content), forge labelled fakes and genuine
controls from its receipts (fixed seed), run the same targets on that suite,
score it into reports/<id>/real, and open the report with both side by side.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import time
from pathlib import Path

import msgspec

from rabench.cli import bench_real
from rabench.contracts.targets_config import TargetsConfig, read_targets_config
from rabench.errors import UserError

DEFAULT_CONFIG = Path("bench/targets.toml")
# Baselines that need no key, so the first report compares something (docs/running.md):
# `meta` reads only file metadata (rabench/targets/meta.py); `null` answers nothing, the floor.
NO_KEY_BASELINES = ("meta", "null")
DOMAIN_TAG = "domain"
REAL_SEED = 1  # the real track's forgery seed: fixed, recorded in the forged suite and the report


def _stage(title: str, argv: list[str]) -> None:
    from rabench.cli.main import main

    print(f"\n== {title}: rabench {shlex.join(argv)}", flush=True)
    code = main(argv)
    if code == 130:  # Ctrl-C inside the stage: what it wrote is kept; stop the bench too
        raise KeyboardInterrupt
    if code != 0:
        raise UserError(f"stage '{title}' failed (exit {code}); see the lines above")


def _reusable(suite_dir: Path, what: str) -> bool:
    """True when SUITE_DIR holds a valid suite, to be reused; an invalid one is named."""
    from rabench.cases.validate import validate_suite

    if not (suite_dir / "manifest.jsonl").is_file():
        return False
    count, problems = validate_suite(suite_dir, check_hashes=False)
    if not problems:
        print(f"== {what}: reusing {suite_dir} ({count} cases)")
        return True
    print(f"== {what}: {suite_dir} is invalid ({problems[0]}); making it again")
    return False


def _suite(size: str, suite_dir: Path, kind: str = "receipt") -> None:
    if not _reusable(suite_dir, "suite"):
        _stage(
            "suite", ["cases", "generate", "--suite", kind, "--split", "test", "--size", size, "--out", str(suite_dir)]
        )


def _real_suites(track: bench_real.RealTrack) -> Path:
    """Import and forge the real track (each reused when already made); the forged suite."""
    print(f"== real: {track.src} read as {track.fmt} (content key {track.key}); suites under {track.root}")
    if not _reusable(track.imported, "real import"):
        _aside(track.imported)
        _stage(
            "real import",
            [
                "cases",
                "import",
                "--format",
                track.fmt,
                str(track.src),
                "--out",
                str(track.imported),
                "--tag",
                f"{DOMAIN_TAG}=real",
                "--skip-bad",
            ],
        )
    stale = _stale_forgery(track)
    if stale:
        print(f"== real forge: {track.forged} {stale}; forging again")
    if stale or not _reusable(track.forged, "real forge"):
        _aside(track.forged)
        _forge(track)
    return track.forged


def _stale_forgery(track: bench_real.RealTrack) -> str | None:
    """Why an existing forged suite can't be reused (another forger version, another import)."""
    from rabench.cases.forge.suite import FORGE_VERSION
    from rabench.cases.manifest import open_suite

    if not (track.forged / "manifest.jsonl").is_file() or not (track.imported / "manifest.jsonl").is_file():
        return None
    made = open_suite(track.forged).header.meta.get("forged", {})
    if made.get("forge_version") != FORGE_VERSION:
        return f"was made by forge version {made.get('forge_version')}, this is {FORGE_VERSION}"
    if made.get("from_manifest_sha256") != open_suite(track.imported).manifest_sha256:
        return "was made from another import"
    return None


def _aside(path: Path) -> None:
    """Move an invalid or stale earlier suite out of the way (never deleted: it may hold work)."""
    if path.exists():
        dest = path.with_name(f"{path.name}.old-{time.strftime('%Y%m%d-%H%M%S')}")
        path.rename(dest)
        print(f"== moved the earlier {path} aside to {dest}")


def _forge(track: bench_real.RealTrack) -> None:
    try:
        from rabench.cases.forge import forge_suite
    except ImportError:
        raise UserError("this build has no forger (rabench.cases.forge); the real track needs it") from None
    partial = track.forged.with_name(f".{track.forged.name}.partial")
    if partial.exists():  # left by an interrupted forge of ours: start it again
        shutil.rmtree(partial)
    print(f"\n== real forge: forge_suite({track.imported}, seed={track.seed}) -> {track.forged}", flush=True)

    def progress(done: int, total: int) -> None:
        if done == total or done % 10 == 0:
            print(f"forged {done}/{total}", file=sys.stderr, flush=True)

    from rabench.cli.cases_forge import default_ocr_cache

    try:  # the OCR cache `rabench cases forge` uses: forging again (another seed) skips the OCR
        made = forge_suite(track.imported, partial, seed=track.seed, progress=progress, ocr_cache=default_ocr_cache())
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    partial.rename(track.forged)
    kinds = ", ".join(f"{k} {n}" for k, n in sorted({**made.fakes, **made.controls}.items()))
    print(
        f"== real forge: {made.n_fakes} fakes and {made.n_controls} genuine controls from "
        f"{made.sources} receipts ({kinds})"
    )
    for reason, n in sorted({**made.not_made, **made.skipped}.items()):
        print(f"   not made or skipped: {reason} ({n})")


def available_targets(config: TargetsConfig, requested: list[str] | None) -> tuple[list[str], list[str]]:
    """Targets to run and skip notes: DIY targets run only when their provider's key is set."""
    from rabench.targets.registry import parse_target_id

    wanted = requested or list(config.bench.targets or ["self"])
    run, skipped = [], []
    for target_id in wanted:
        kind, provider, _ = parse_target_id(target_id)
        if kind != "diy":
            run.append(target_id)
            continue
        from rabench.targets.diy.config import api_key, provider_settings

        settings = provider_settings(provider or "", config)
        if settings.key_required and settings.api_key_env and api_key(settings) is None:
            skipped.append(f"{target_id}: skipped, {settings.api_key_env} is not set")
        else:
            run.append(target_id)
    return run, skipped


def _headline(rows_path: Path, title: str = "") -> None:
    from rabench.contracts.files import read_rows

    from rabench.report.console import headline_table

    rows = read_rows(rows_path).rows
    if title:
        print(f"\n{title}:", end="")
    print("\n" + headline_table(rows))


def _runs(
    suite_dir: Path, prefix: str, targets: list[str], args: argparse.Namespace, config_path: Path, track: str = ""
) -> list[str]:
    """Run the targets over one suite (self-like and DIY targets apart); resumes a run
    folder that already exists. Returns the run folders."""
    runs: list[str] = []
    groups = [
        ("self", [t for t in targets if not t.startswith("diy:")], args.repeat),
        ("diy", [t for t in targets if t.startswith("diy:")], args.diy_repeat),
    ]
    for name, group, repeat in groups:
        if not group:
            continue
        out = Path("runs") / f"{prefix}-{name}"
        argv = ["run", "--suite", str(suite_dir), "--repeat", str(repeat), "--out", str(out)]
        if config_path.is_file():
            argv += ["--config", str(config_path)]
        if (out / "run.json").is_file():
            argv.append("--resume")
        for t in group:
            argv += ["--target", t]
        _stage(f"run {name}{f' ({track})' if track else ''}", argv)
        runs.append(str(out))
    return runs


def _tracks_summary(report_dir: Path) -> None:
    from rabench.score.output import decode
    from rabench.score.tracks import pair_tracks, summary

    syn = decode((report_dir / "rows.json").read_bytes())
    real = decode((report_dir / "real" / "rows.json").read_bytes())
    print("\nsynthetic vs real (headline rows; marked when the 95% intervals don't overlap):")
    for _, line in summary(pair_tracks(syn.rows, real.rows)):
        print(f"  {line}")


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    config_path = Path(args.config)
    config = read_targets_config(config_path) if config_path.is_file() else TargetsConfig()
    if args.targets:
        print(
            'rabench bench: --targets "a b" is deprecated (removed in the next release); '
            "use --target a --target b, as in rabench run",
            file=sys.stderr,
        )
    requested = [*(args.target or []), *(args.targets.split() if args.targets else [])] or None
    targets, skipped = available_targets(config, requested)
    for note in skipped:
        print(f"== targets: {note}")
    if not targets:
        raise UserError("no target to run (all DIY targets lack keys and 'self' was not asked for)")
    ap = args.kind == "ap"  # the AP suite (docs/methodology-ap.md): no real track, no receipt baselines
    if ap and args.real:
        raise UserError("--real is a receipt track; the ap suite has none (drop --real or --kind ap)")
    if ap and not args.no_baselines and (requested is None or len(targets) < 2):
        print("== targets: the no-key receipt baselines (null, meta) answer receipts, not AP bundles; none added")
    elif not args.no_baselines and (requested is None or len(targets) < 2):
        added = [b for b in NO_KEY_BASELINES if b not in targets]
        targets += added
        if added:
            print(
                f"== targets: added the no-key baselines {' and '.join(added)} (metadata-only rules; "
                "the empty-answer floor), so the report compares something; --no-baselines leaves them out"
            )
    # The real folder is checked first: a wrong path fails in a second, not after the synthetic runs.
    track = bench_real.plan(args.real, args.real_format, args.real_seed) if args.real else None
    run_id = args.run_id or time.strftime("%Y%m%d-%H%M%S")
    try:
        suite_dir = Path(args.suite or (f"cases/ap-{args.size}-test" if ap else f"cases/{args.size}-test"))
        _suite(args.size, suite_dir, args.kind)
        real_suite = _real_suites(track) if track else None
        runs = _runs(suite_dir, run_id, targets, args, config_path)
        real_runs = _runs(real_suite, f"{run_id}-real", targets, args, config_path, "real") if real_suite else []
        report_dir = Path("reports") / run_id
        if real_runs:
            ref = ["--reference", args.reference] if args.reference else []
            _stage("score (real)", ["score", *real_runs, "--out", str(report_dir / "real"), *ref])
            (report_dir / "real" / "track.json").write_bytes(
                msgspec.json.format(msgspec.json.encode(track.record()), indent=1) + b"\n"
            )
            _stage("report (real)", ["report", str(report_dir / "real")])
        ref = ["--reference", args.reference] if args.reference else []
        _stage("score", ["score", *runs, "--out", str(report_dir), *ref])
        _stage("report", ["report", str(report_dir)])
    except KeyboardInterrupt:
        print(
            f"\nbench interrupted; finished work is kept. Resume with --run-id {run_id} "
            f"(make bench RUN_ID={run_id} ...)",
            file=sys.stderr,
        )
        raise
    _headline(report_dir / "rows.json")
    if real_runs:
        _headline(report_dir / "real" / "rows.json", title="real track")
        _tracks_summary(report_dir)
        print(f"\nreal track: {track.src} ({track.fmt}), forged with seed {track.seed} into {real_suite}")
    print(f"\nreport: {report_dir / 'report.html'} (also report.md, rows.json" + (", real/" if real_runs else "") + ")")
    print(f"bench took {time.monotonic() - started:.0f} s")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="The whole benchmark: suite, run self (+ DIY targets with keys), score, report.",
        description=(
            "Generate the test split of the suite (or reuse it from cases/<size>-test), run the "
            "'self' engine with 2 repetitions plus every DIY target listed in [bench] targets of "
            "the config whose API key is present in the environment (the skipped ones are named) "
            "and the no-key baselines meta (metadata-only rules) and null (the empty-answer floor), "
            "score, write reports/<run-id>/{rows.json,report.md,report.html} and print the "
            "headline table. With --real DIR, also import DIR (cached in cases/real-<name>-<key>/ "
            "by its content, cases tagged domain=real), forge fakes and genuine controls from it "
            "(--real-seed), run the same targets on that suite, score it into "
            "reports/<run-id>/real/ and open the report with both tracks side by side. Re-running "
            "with the same --run-id resumes unfinished runs; Ctrl-C keeps what is done (exit 130)."
        ),
    )
    p.add_argument(
        "--size",
        choices=["sample", "quick", "full"],
        default="quick",
        help="suite size to generate/use (default quick)",
    )
    p.add_argument(
        "--kind",
        choices=["receipt", "ap"],
        default="receipt",
        help="receipt (default) or ap: the accounts-payable suite in cases/ap-<size>-test "
        "(docs/methodology-ap.md); make bench SUITE=ap",
    )
    p.add_argument("--suite", help="use this suite folder instead of cases/<size>-test")
    p.add_argument(
        "--target",
        action="append",
        metavar="TARGET",
        help="target id, repeatable, as in rabench run: --target self --target diy:gateway:openai/gpt-5 "
        "(default: [bench] targets in the config)",
    )
    p.add_argument(
        "--targets",
        help=argparse.SUPPRESS,  # deprecated: space-separated ids; one release, with a warning
    )
    p.add_argument(
        "--reference",
        metavar="TARGET",
        help="the target the verdict and the findings compare every other target with "
        "(default: self when it runs, else the first target named)",
    )
    p.add_argument("--repeat", type=int, default=2, help="repetitions for self (default 2)")
    p.add_argument("--diy-repeat", type=int, default=1, help="repetitions for DIY targets (default 1)")
    p.add_argument(
        "--no-baselines",
        action="store_true",
        help="don't add the no-key baselines meta and null (added by default, and whenever "
        "fewer than two targets would run)",
    )
    p.add_argument("--config", default=str(DEFAULT_CONFIG), help="targets config (default bench/targets.toml)")
    p.add_argument("--run-id", help="run id (default: the current time); reuse one to resume")
    p.add_argument(
        "--real",
        metavar="DIR",
        help="also run a real track: a folder of real labelled receipts in an import format "
        "(sroie, cord or folder; see docs/cases.md), imported, forged from and reported "
        "beside the synthetic suite",
    )
    p.add_argument(
        "--real-format",
        choices=["auto", *bench_real.FORMATS],
        default="auto",
        help="format of --real DIR (default auto: from the folder's layout)",
    )
    p.add_argument(
        "--real-seed",
        type=int,
        default=REAL_SEED,
        help=f"seed of the forgeries made from the real receipts (default {REAL_SEED})",
    )
    p.set_defaults(func=_run)
