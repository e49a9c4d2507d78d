"""``rabench bench`` (what ``make bench`` runs): the whole benchmark, end to end.

Generate (or reuse) the test suite, run ``self`` with 2 repetitions plus every
DIY target whose API key is present, score, render the report, print the
headline table and the report's path. Each stage is the same subcommand a user
could run by hand; this only strings them together and says what it skipped.
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

from rabench.errors import UserError

DEFAULT_CONFIG = Path("bench/targets.toml")


def _stage(title: str, argv: list[str]) -> None:
    from rabench.cli.main import main

    print(f"\n== {title}: rabench {' '.join(argv)}", flush=True)
    code = main(argv)
    if code != 0:
        raise UserError(f"stage '{title}' failed (exit {code}); see the lines above")


def _suite(size: str, suite_dir: Path) -> None:
    from rabench.cases.validate import validate_suite

    if (suite_dir / "manifest.jsonl").is_file():
        count, problems = validate_suite(suite_dir, check_hashes=False)
        if not problems:
            print(f"== suite: reusing {suite_dir} ({count} cases)")
            return
        print(f"== suite: {suite_dir} is invalid ({problems[0]}); generating it again")
    _stage("suite", ["cases", "generate", "--split", "test", "--size", size, "--out", str(suite_dir)])


def available_targets(config: dict, requested: list[str] | None) -> tuple[list[str], list[str]]:
    """Targets to run and skip notes: DIY targets run only when their provider's key is set."""
    from rabench.targets.registry import parse_target_id

    wanted = requested or list(config.get("bench", {}).get("targets", ["self"]))
    run, skipped = [], []
    for target_id in wanted:
        kind, provider, _ = parse_target_id(target_id)
        if kind != "diy":
            run.append(target_id)
            continue
        from rabench.targets.diy.config import api_key, provider_settings

        settings = provider_settings(provider, config)
        if settings.key_required and settings.api_key_env and api_key(settings) is None:
            skipped.append(f"{target_id}: skipped, {settings.api_key_env} is not set")
        else:
            run.append(target_id)
    return run, skipped


def _headline(rows_path: Path) -> None:
    import msgspec

    doc = msgspec.json.decode(rows_path.read_bytes())
    rows = [r for r in doc["rows"] if r["stratum"] == "all"]
    targets = list(dict.fromkeys(r["target"] for r in rows))
    print("\n" + f"{'task':<13} {'metric':<34} " + " ".join(f"{t[:26]:>26}" for t in targets))
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        if not r.get("supported", True):
            text = "not supported"
        elif r.get("value") is None:
            text = "–"
        elif r.get("lo") is not None:
            text = f"{r['value']:.3f} [{r['lo']:.2f},{r['hi']:.2f}]"
        else:
            text = f"{r['value']:.4g}"
        cells.setdefault((r["task"], r["metric"]), {})[r["target"]] = text
    for (task, metric), by_t in cells.items():
        print(f"{task:<13} {metric[:34]:<34} " + " ".join(f"{by_t.get(t, ''):>26}" for t in targets))


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    config_path = Path(args.config)
    config = tomllib.loads(config_path.read_text()) if config_path.is_file() else {}
    requested = args.targets.split() if args.targets else None
    targets, skipped = available_targets(config, requested)
    for note in skipped:
        print(f"== targets: {note}")
    if not targets:
        raise UserError("no target to run (all DIY targets lack keys and 'self' was not asked for)")
    suite_dir = Path(args.suite or f"cases/{args.size}-test")
    _suite(args.size, suite_dir)

    run_id = args.run_id or time.strftime("%Y%m%d-%H%M%S")
    runs: list[str] = []
    groups = [("self", [t for t in targets if not t.startswith("diy:")], args.repeat),
              ("diy", [t for t in targets if t.startswith("diy:")], args.diy_repeat)]
    for name, group, repeat in groups:
        if not group:
            continue
        out = Path("runs") / f"{run_id}-{name}"
        argv = ["run", "--suite", str(suite_dir), "--repeat", str(repeat), "--out", str(out)]
        if config_path.is_file():
            argv += ["--config", str(config_path)]
        if (out / "run.json").is_file():
            argv.append("--resume")
        for t in group:
            argv += ["--target", t]
        _stage(f"run {name}", argv)
        runs.append(str(out))

    report_dir = Path("reports") / run_id
    _stage("score", ["score", *runs, "--out", str(report_dir)])
    _stage("report", ["report", str(report_dir)])
    _headline(report_dir / "rows.json")
    print(f"\nreport: {report_dir / 'report.html'} (also report.md, rows.json)")
    print(f"bench took {time.monotonic() - started:.0f} s")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="The whole benchmark: suite, run self (+ DIY targets with keys), score, report.",
        description=(
            "Generate the test split of the suite (or reuse it from cases/<size>-test), run the "
            "'self' engine with 2 repetitions plus every DIY target listed in [bench] targets of "
            "the config whose API key is present in the environment (the skipped ones are named), "
            "score, write reports/<run-id>/{rows.json,report.md,report.html} and print the "
            "headline table. Re-running with the same --run-id resumes unfinished runs."
        ),
    )
    p.add_argument("--size", choices=["sample", "quick", "full"], default="quick",
                   help="suite size to generate/use (default quick)")
    p.add_argument("--suite", help="use this suite folder instead of cases/<size>-test")
    p.add_argument("--targets", help='space-separated target ids, e.g. "self diy:gateway:openai/gpt-5" '
                   "(default: [bench] targets in the config)")
    p.add_argument("--repeat", type=int, default=2, help="repetitions for self (default 2)")
    p.add_argument("--diy-repeat", type=int, default=1, help="repetitions for DIY targets (default 1)")
    p.add_argument("--config", default=str(DEFAULT_CONFIG), help="targets config (default bench/targets.toml)")
    p.add_argument("--run-id", help="run id (default: the current time); reuse one to resume")
    p.set_defaults(func=_run)
