"""Engine throughput: receipts per second through the ``self`` target on N worker processes.

Usage:
    .venv/bin/python bench/engine_throughput.py [--suite DIR] [--workers 2] [--limit 120] [--budget 1.2]

Without ``--suite`` it generates the quick ``dev`` split into a temporary folder
first (``rabench cases generate``; not timed). Files are prepared through the
runner's prepared-image cache before timing starts (preparation is the runner's
stage and is cached across targets), then every case goes through
``SelfTarget.check`` — decode, OCR or PDF text layer, extraction, checks,
plausibility, provenance, visual forensics, fingerprint, duplicate lookup,
risk — with ``2 × workers`` checks in flight, after the pool has warmed up
(models loaded). Prints wall-clock receipts/s, the mean per-stage seconds
inside the workers, CPU seconds per receipt and the 1-minute load average
before and after: on a shared machine, wall-clock figures fall with the load.
``cpu_s_per_receipt`` is all the workers' CPU (model loading included) over the
cases; ``worker_cpu_s_per_receipt`` is the CPU the checks themselves spent
(``time.process_time`` around each stage in the worker), with each stage's share
(``cpu_share_by_stage``): the figure the budget (issue 30) is held to, robust to
other processes on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rabench.cases.manifest import open_suite
from rabench.contracts import TargetsConfig
from rabench.engine.ocr import ProcessWorkerPool
from rabench.engine.pipeline import AnalysisSettings, UnreadableFile, analyse
from rabench.engine.target import SelfTarget
from rabench.prepare.cache import PrepCache
from rabench.prepare.image import PreparationError


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


async def _run(suite: Path, workers: int, limit: int, cache: Path) -> dict:
    cases = [lc for lc in open_suite(suite)][:limit]
    prep = PrepCache(cache)
    prepared: dict[str, str | None] = {}
    for lc in cases:
        try:
            prepared[lc.case.id] = str((await prep.get(lc.path, lc.case.sha256, lc.case.media_type)).path)
        except PreparationError:
            prepared[lc.case.id] = None
    pool = ProcessWorkerPool(workers)
    pool.warm_up()
    target = SelfTarget("self", TargetsConfig(), pool=pool)
    await target.reset(0)
    stages: Counter[str] = Counter()
    errors = 0
    sem = asyncio.Semaphore(workers * 2)

    async def one(lc) -> None:
        nonlocal errors
        async with sem:
            try:
                analysis = await pool.submit(
                    analyse, str(lc.path), lc.case.media_type, prepared[lc.case.id], AnalysisSettings()
                )
            except UnreadableFile:
                errors += 1
                return
            target.verdict(analysis, lc.case.id)
            stages.update(analysis.timings)

    load_before = os.getloadavg()[0]
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    await asyncio.gather(*(one(lc) for lc in cases))
    wall = time.perf_counter() - t0
    pool.close()  # children are reaped here, so their CPU time is counted
    cpu = _children_cpu() - cpu0
    n = len(cases)
    return {
        "suite": str(suite),
        "cases": n,
        "errors": errors,
        "workers": workers,
        "wall_s": round(wall, 2),
        "receipts_per_s": round(n / wall, 2),
        "cpu_s_per_receipt": round(cpu / n, 3),
        "receipts_per_s_if_cores_were_free": round(workers * n / cpu, 2) if cpu > 0 else None,
        # inside the workers: CPU seconds per receipt (model loading left out), and each stage's share of them
        "worker_cpu_s_per_receipt": round(stages["cpu.total"] / max(1, n - errors), 3),
        "cpu_share_by_stage": {
            k[4:]: f"{100 * v / stages['cpu.total']:.1f} %"
            for k, v in sorted(stages.items(), key=lambda kv: -kv[1])
            if k.startswith("cpu.") and k != "cpu.total" and stages["cpu.total"] > 0
        },
        "mean_stage_cpu_s": {
            k[4:]: round(v / max(1, n - errors), 3) for k, v in sorted(stages.items()) if k.startswith("cpu.")
        },
        "mean_stage_wall_s": {
            k: round(v / max(1, n - errors), 3) for k, v in sorted(stages.items()) if not k.startswith("cpu.")
        },
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=None, help="suite folder (default: generate quick dev)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=120, help="cases to time (default 120)")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="CPU seconds per receipt the checks may spend (issue 30: 1.2 real, 0.6 synthetic); exit 1 above it",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rabench-engine-bench-") as tmp:
        suite = args.suite
        if suite is None:
            suite = Path(tmp) / "suite"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "rabench",
                    "cases",
                    "generate",
                    "--split",
                    "dev",
                    "--size",
                    "quick",
                    "--out",
                    str(suite),
                ],
                check=True,
            )
        result = asyncio.run(_run(suite, args.workers, args.limit, Path(tmp) / "prepared"))
    if args.budget is not None:
        result["budget_cpu_s_per_receipt"] = args.budget
        result["within_budget"] = result["worker_cpu_s_per_receipt"] <= args.budget
    print(json.dumps(result, indent=2))
    return 0 if result.get("within_budget", True) else 1


if __name__ == "__main__":
    sys.exit(main())
