"""Adaptive concurrency against a provider that refuses calls above its own concurrency limit.

The fake provider (``max_in_flight`` in its profile) answers 429 without a Retry-After
whenever LIMIT calls are already being answered, each call taking LATENCY ms. The same
``rabench run`` with ``diy:openai:gpt-5`` is timed with fixed caps (a sweep) and with
``--adaptive-concurrency`` starting at the largest cap; the prepared-image cache is warmed
first so that every run starts calls as fast as its gate allows.

    .venv/bin/python bench/adaptive_concurrency.py --calls 400 --limit 4 --latency-ms 100 \
        --caps 2,4,8,24 --adaptive-from 24

Prints one line per run: wall time of the run phase, completed calls/s, 429s, statuses,
and at the end adaptive calls/s over the best fixed cap's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))


def main() -> int:
    from receipt_suite import make_suite

    from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile
    from rabench.run import config as cfg
    from rabench.run.outcomes import read_outcomes
    from rabench.run.session import RunOptions, run

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=400)
    p.add_argument("--limit", type=int, default=4, help="the provider's concurrency limit")
    p.add_argument("--latency-ms", type=float, default=100.0)
    p.add_argument("--caps", default="2,4,8,24", help="fixed caps to sweep")
    p.add_argument("--adaptive-from", type=int, default=24, help="the adaptive run's configured cap")
    args = p.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="rabench-adaptive-"))
    suite = make_suite(tmp / "suite", args.calls)
    os.environ["OPENAI_API_KEY"] = "sk-bench-0123456789"
    config = cfg.parse_targets_config({"defaults": {"price_date": "2026-11-29"}})
    cache = tmp / "prepared"
    run(RunOptions(out=tmp / "warm", suite_dir=str(suite), target_ids=["null"], cache_root=cache, progress="none"))
    profile = Profile(
        default=ModelProfile(latency=Latency(ms=args.latency_ms), max_in_flight=args.limit, retry_after=None)
    )
    plan = [(int(c), False) for c in args.caps.split(",")] + [(args.adaptive_from, True)]
    rates: dict[tuple[int, bool], float] = {}
    print(
        f"{args.calls} calls, provider limit {args.limit} in flight, {args.latency_ms:g} ms a call "
        f"(ideal {args.limit / args.latency_ms * 1000:.1f} calls/s)"
    )
    for cap, adaptive in plan:
        with BackgroundFakeProvider(profile) as fake:
            os.environ.update(fake.env())
            out = tmp / f"run-{cap}-{adaptive}"
            t0 = time.monotonic()
            with contextlib.redirect_stderr(io.StringIO()):
                summary = run(
                    RunOptions(
                        out=out,
                        suite_dir=str(suite),
                        target_ids=["diy:openai:gpt-5"],
                        config=config,
                        concurrency={"openai": cap},
                        cache_root=cache,
                        progress="none",
                        adaptive=adaptive,
                    )
                )
            wall = time.monotonic() - t0
            throttled = sum(r.behaviour == "429" for r in fake.requests)
            requests = len(fake.requests)
        statuses: dict[str, int] = {}
        for o in read_outcomes(out / "outcomes.jsonl"):
            statuses[o.status] = statuses.get(o.status, 0) + 1
        ok = statuses.get("ok", 0)
        rates[(cap, adaptive)] = ok / summary.elapsed_s
        label = f"adaptive from {cap}" if adaptive else f"fixed {cap}"
        print(
            f"{label:>17}: {summary.elapsed_s:6.2f} s, {ok / summary.elapsed_s:6.1f} ok calls/s, "
            f"{throttled} of {requests} requests refused (429), statuses {statuses}"
            + (f"; {summary.adaptive['openai']}" if adaptive else "")
            + f" [wall {wall:.1f} s]",
            flush=True,
        )
    best = max((r, c) for (c, a), r in rates.items() if not a)
    print(f"adaptive / best fixed cap ({best[1]}): {rates[(args.adaptive_from, True)] / best[0]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
