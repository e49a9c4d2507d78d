"""``rabench load``: one target at a fixed concurrency; latency percentiles, throughput, errors over time."""

from __future__ import annotations

import argparse
import sys
import math
from pathlib import Path

import msgspec

from rabench.errors import UserError
from rabench.run import config as cfg
from rabench.run.load import format_summary, run_load
from rabench.run.retry import RetryPolicy
from rabench.targets.registry import make_target, provider_of


def _concurrency(value: str, provider: str) -> int:
    """``PROVIDER=N`` as in ``rabench run``; a bare ``N`` is the deprecated spelling (one release)."""
    name, eq, number = value.rpartition("=")
    if not eq:
        print(
            f"rabench load: --concurrency {value} is deprecated (removed in the next release); "
            f"use --concurrency {provider}={value}, as in rabench run",
            file=sys.stderr,
        )
    elif name != provider:
        raise UserError(f"--concurrency {value}: the target's provider is {provider} ({provider}={number})")
    try:
        return int(number)
    except ValueError:
        raise UserError(f"--concurrency {value}: {number!r} is not a whole number") from None


def _run(args: argparse.Namespace) -> int:
    provider = provider_of(args.target)
    args.concurrency = 8 if args.concurrency is None else _concurrency(args.concurrency, provider)
    if args.concurrency < 1 or args.calls < 1:
        raise UserError("--concurrency and --calls must be at least 1")
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UserError(f"--timeout {args.timeout:g}: must be a number of seconds above 0")
    if args.rpm is not None and not (math.isfinite(args.rpm) and args.rpm >= 0):
        raise UserError(f"--rpm {args.rpm:g}: must be a number >= 0 (0 = no limit)")
    config = cfg.load_targets_config(args.config)
    # the target's connection pool sized from --concurrency, not the config: a pool smaller
    # than the calls in flight would queue them inside the client and time the queue
    config = cfg.with_overrides(config, None, {provider_of(args.target): args.concurrency})
    target = make_target(args.target, config)
    summary = run_load(
        target,
        suite_dir=args.suite,
        concurrency=args.concurrency,
        calls=args.calls,
        timeout_s=args.timeout if args.timeout is not None else cfg.default_timeout(config),
        policy=RetryPolicy(max_retries=args.retries),
        rpm=args.rpm,
        cache_root=Path(args.cache) if args.cache else None,
    )
    if args.json:
        print(msgspec.json.encode(summary).decode())
    else:
        print(format_summary(args.target, summary))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "load",
        help="Load-test one target: fixed concurrency, N calls; latency p50/p95/p99, throughput, errors over time.",
        description=(
            "Drive one target with C calls in flight until N calls have finished, cycling over the "
            "first 100 cases of --suite (or one small generated image). Uses the same call path as "
            "`rabench run` (per-attempt timeout, retries of transport failures) but records no "
            "outcomes. Prints latency percentiles of successful calls (final attempt), throughput, "
            "and per time window the call rate, error/timeout/refusal shares and median latency."
        ),
    )
    p.add_argument("--target", required=True, metavar="ID", help="target id: self, null, diy:<provider>:<model>")
    p.add_argument(
        "--concurrency",
        default=None,
        metavar="PROVIDER=N",
        help="calls in flight, as in rabench run: e.g. openai=16 (default 8; a bare N is deprecated)",
    )
    p.add_argument("--calls", type=int, default=200, metavar="N", help="calls in total (default 200)")
    p.add_argument("--suite", default=None, metavar="DIR", help="take requests from this suite")
    p.add_argument("--rpm", type=float, default=None, help="also cap requests per minute")
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="per-attempt timeout (default 180)")
    p.add_argument(
        "--retries",
        type=int,
        default=3,
        choices=range(0, 4),
        metavar="N",
        help="retries of transport failures, 0-3 (default 3)",
    )
    p.add_argument("--config", default=None, metavar="TOML", help="targets config (default bench/targets.toml)")
    p.add_argument("--cache", default=None, metavar="DIR", help="prepared-image cache folder")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=_run)
