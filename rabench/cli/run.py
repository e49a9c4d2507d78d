"""``rabench run``: run targets over a suite into runs/ID/{run.json,outcomes.jsonl}."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rabench.run import config as cfg
from rabench.run import respcache
from rabench.run.dryrun import format_estimates
from rabench.run.executor import cluster_concurrency, with_executor
from rabench.run.failures import failure_causes, top_errors
from rabench.run.manifest import RUN_JSON
from rabench.run.outcomes import OUTCOMES
from rabench.run.retry import RetryPolicy
from rabench.run.session import RunOptions, dry_run, run


def _run(args: argparse.Namespace) -> int:
    config = with_executor(cfg.load_targets_config(args.config), args.executor, args.address)
    concurrency = cfg.parse_overrides(args.concurrency, "--concurrency")
    if not args.dry_run:
        concurrency = cluster_concurrency(config, concurrency)
    options = RunOptions(
        out=Path(args.out),
        suite_dir=args.suite,
        target_ids=args.target or [],
        repetitions=args.repeat,
        resume=args.resume,
        config=config,
        rpm=cfg.parse_overrides(args.rpm, "--rpm"),
        concurrency=concurrency,
        timeout_s=args.timeout,
        seed=args.seed,
        policy=RetryPolicy(max_retries=args.retries),
        cache_root=Path(args.cache) if args.cache else None,
        progress=args.progress,
        progress_interval=args.log_every,
        max_cost=args.max_cost,
        adaptive=args.adaptive_concurrency,
        batch=args.batch,
        batch_poll_s=args.batch_poll,
        response_cache=(
            respcache.default_path()
            if args.cache_responses is True
            else Path(args.cache_responses)
            if args.cache_responses
            else None
        ),
    )
    if args.dry_run:
        print(format_estimates(dry_run(options)))
        return 0
    if not (0.0 <= args.max_error_rate <= 1.0):
        print(f"rabench: --max-error-rate {args.max_error_rate:g}: must be between 0 and 1", file=sys.stderr)
        return 2
    try:
        summary = run(options)
    except KeyboardInterrupt:
        if (options.out / RUN_JSON).exists():
            print(f"rabench: interrupted; resume with: rabench run --resume --out {options.out}", file=sys.stderr)
        else:
            print("rabench: interrupted", file=sys.stderr)
        return 130
    errors = top_errors(options.out / OUTCOMES)
    for target, statuses in summary.statuses.items():
        parts = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) or "nothing left to run"
        print(f"{target}: {parts}")
        for msg, n in errors.get(target, []) if statuses.get("ok", 0) < sum(statuses.values()) else []:
            print(f"  {n}x {msg}")
    done_now = sum(sum(s.values()) for s in summary.statuses.values())
    print(
        f"{summary.run_dir}: {done_now} outcomes written in {summary.elapsed_s:.1f} s"
        + (f" ({summary.units_before} from before the resume)" if summary.units_before else "")
        + f"; {summary.prepared} files prepared"
        + (f"; {summary.cached} answers from the response cache" if options.response_cache else "")
    )
    for provider, text in summary.adaptive.items():
        print(f"{provider}: {text}")
    if summary.batch_expired:
        print(
            f"{summary.batch_expired} units expired in their batch before an answer; "
            "rabench run --resume --batch submits them again",
            file=sys.stderr,
        )
        return 1
    if summary.budget_stop:
        print(summary.budget_stop, file=sys.stderr)
        return 1
    causes = failure_causes(summary.statuses, errors, args.max_error_rate)
    for line in causes:
        print(line, file=sys.stderr)
    return 1 if causes else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="Run targets over a suite: one outcome per (case, target, repetition) in runs/ID.",
        description=(
            "Stream the suite's cases through image preparation (upright, <=3072 px, <=3.75 MB, "
            "cached) into each target, under per-provider rate limits and concurrency caps, with a "
            "per-attempt timeout and up to 3 retries of transport failures (408/429/5xx, connection "
            "errors). Each outcome is appended to OUT/outcomes.jsonl as it finishes; OUT/run.json "
            "records the suite, targets, settings and versions. Interrupted runs (Ctrl-C, crash) "
            "continue with --resume, which runs only the missing units. See docs/running.md."
        ),
    )
    p.add_argument("--suite", help="suite folder with manifest.jsonl (on --resume: taken from run.json)")
    p.add_argument(
        "--target",
        action="append",
        metavar="ID",
        help="target id, repeatable: self, null, diy:<provider>:<model> (on --resume: from run.json)",
    )
    p.add_argument(
        "--repeat", type=int, default=None, metavar="N", help="repetitions of every case per target (default 1)"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="run folder, e.g. runs/2026-11-29-quick")
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish the run in --out: run only missing units; refuses if suite/targets/settings differ",
    )
    p.add_argument(
        "--config",
        default=None,
        metavar="TOML",
        help=f"provider limits and defaults (default {cfg.DEFAULT_CONFIG} if present)",
    )
    p.add_argument(
        "--rpm",
        action="append",
        metavar="PROVIDER=N",
        help="requests per minute for a provider (0 = unlimited); overrides the config",
    )
    p.add_argument(
        "--concurrency",
        action="append",
        metavar="PROVIDER=N",
        help="calls in flight for a provider; overrides the config",
    )
    p.add_argument(
        "--executor",
        choices=("in-process", "ray"),
        default=None,
        help="where the self engine's work runs (default: [executor] in the config, else in-process); "
        'ray: on the Ray cluster at --address (docs/running.md, "Running on a cluster")',
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help="the Ray head for --executor ray (default: [executor] address)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="per-attempt timeout in seconds (default: config, else 180)",
    )
    p.add_argument(
        "--retries",
        type=int,
        default=3,
        choices=range(0, 4),
        metavar="N",
        help="retries of transport failures, 0-3 (default 3)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed recorded in run.json for scoring (default 0)")
    p.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="prepared-image cache (default $RABENCH_CACHE/prepared, else .cache/prepared)",
    )
    p.add_argument(
        "--max-error-rate",
        type=float,
        default=1.0,
        metavar="FRACTION",
        help="exit 1 when a target's share of failed calls in this session passes FRACTION "
        "(default 1.0: only when every call of a target failed)",
    )
    p.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="USD",
        help="spending cap over the whole run folder: no call starts once recorded cost plus "
        "the in-flight estimate would pass it; exit 1 naming what was spent and what is left "
        "(--resume with a higher cap continues)",
    )
    p.add_argument(
        "--cache-responses",
        nargs="?",
        const=True,
        default=None,
        metavar="SQLITE",
        help="reuse DIY answers across runs: a unit already answered (same provider, model, prompt "
        "version, prepared image, request parameters, repetition) is written from the cache, "
        "marked cached (default file $RABENCH_CACHE/responses.sqlite, else "
        ".cache/responses.sqlite)",
    )
    p.add_argument(
        "--adaptive-concurrency",
        action="store_true",
        help="per provider, start at the concurrency cap, halve it on 429/503/529 or rising "
        "latency, grow it back as calls succeed (AIMD); the live value is in the progress line",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="DIY targets through their provider's batch API (OpenAI Batch, Anthropic Message "
        "Batches, Gemini batch): half price, no latency; batch ids kept in OUT/batches.jsonl, "
        "so --resume --batch polls them instead of submitting again",
    )
    p.add_argument(
        "--batch-poll",
        type=float,
        default=5.0,
        metavar="S",
        help="with --batch: seconds before the first poll of a batch, growing 1.5x to 60 (default 5)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the estimated cost per target (price table, prompt and image tokens) and stop; nothing is sent",
    )
    p.add_argument(
        "--progress",
        choices=("auto", "rich", "plain", "none"),
        default="auto",
        help="live table on a terminal, log lines otherwise (default auto)",
    )
    p.add_argument(
        "--log-every", type=float, default=10.0, metavar="S", help="seconds between plain progress lines (default 10)"
    )
    p.set_defaults(func=_run)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: rabench run")
