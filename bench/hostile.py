"""Hostile files: peak memory of the whole process tree and the longest time of any one file.

Why: docs/reliability.md promises that hostile files cost bounded time and memory.
This measures both the way a user meets them:

1. one real ``rabench run`` (``self`` with its default process pool of one worker, plus a
   DIY target against the local fake provider) over every hostile kind of
   ``tests/reliability/relhostile.py`` between three honest receipts; the process tree's
   resident memory (rabench, the OCR worker, the preparation workers) is sampled every
   50 ms and its highest sum reported, with the wall time of the run. ``self`` runs one
   call at a time, so its ``latency_s`` is the time of that file alone, not of a queue;
2. each file alone, one after another: its preparation (in the worker processes a run
   uses, cold cache) plus, when it is answered, the engine's time on it (``latency_s`` of
   its ``self`` outcome from step 1). The longest is reported with its kind.

Usage::

    .venv/bin/python bench/hostile.py            # ~1 minute on 2 busy cores
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT / "tests" / "reliability"), str(ROOT)]

import anyio  # noqa: E402
from relhostile import HOSTILE, build, receipt_jpeg, receipt_png  # noqa: E402
from relrun import child_env, outcomes, rabench_cmd, run_measured, write_suite  # noqa: E402

from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile  # noqa: E402
from rabench.prepare.cache import PrepCache  # noqa: E402
from rabench.prepare.image import PreparationError  # noqa: E402

DIY = "diy:openai-compatible:hostile-model"


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="rabench-hostile-"))
    files = [("good_first", "good0.jpg", receipt_jpeg(1), "image/jpeg")]
    files += [(kind, HOSTILE[kind][0], build(kind), HOSTILE[kind][1]) for kind in HOSTILE]
    files += [
        ("good_last_1", "good1.png", receipt_png(2), "image/png"),
        ("good_last_2", "good2.jpg", receipt_jpeg(3), "image/jpeg"),
    ]
    suite = write_suite(tmp / "suite", files)
    config = tmp / "targets.toml"
    config.write_text(
        '[defaults]\ntimeout_s = 60\n[self]\nworkers = 1\ntoday = "2025-06-01"\n'
        "[providers.openai-compatible]\nconcurrency = 4\n"
    )
    profile = Profile(seed=0, default=ModelProfile(latency=Latency(ms=1)))
    with BackgroundFakeProvider(profile) as fake:
        env = child_env({**fake.env(), "OPENAI_COMPATIBLE_API_KEY": "sk-test-hostile-0000000000"})
        done = run_measured(
            rabench_cmd(
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp / "run"),
                "--config",
                str(config),
                "--target",
                "self",
                "--target",
                DIY,
                "--concurrency",
                "self=1",
                "--progress",
                "none",
                "--cache",
                str(tmp / "cache"),
            ),
            env=env,
            cwd=ROOT,
            timeout_s=600,
            stdout_path=tmp / "stdout.txt",
            stderr_path=tmp / "stderr.txt",
        )
    if done.rc != 0:
        raise SystemExit(f"run failed (exit {done.rc}): {done.stderr[-500:]}")
    engine_s = {o.case_id: o.latency_s or 0.0 for o in outcomes(tmp / "run") if o.target == "self"}
    statuses = {(o.case_id, o.target): o.status for o in outcomes(tmp / "run")}

    cache = PrepCache(tmp / "cache-alone")
    prep_s: dict[str, float] = {}

    async def alone() -> None:
        for cid, fname, data, media in files:
            t0 = time.monotonic()
            try:
                await cache.get(suite / fname, hashlib.sha256(data).hexdigest(), media)
            except PreparationError:
                pass
            prep_s[cid] = time.monotonic() - t0

    anyio.run(alone)
    cache.close()
    per_file = {cid: prep_s[cid] + engine_s.get(cid, 0.0) for cid in prep_s}
    print(
        f"run: {len(files)} files x 2 targets in {done.elapsed_s:.1f} s, exit {done.rc}; "
        f"peak RSS of the process tree {done.tree_rss_mb:.0f} MB (main process {done.max_rss_mb:.0f} MB)"
    )
    for cid in sorted(per_file, key=per_file.get, reverse=True):
        print(
            f"  {cid:18s} {per_file[cid]:6.2f} s  (preparation {prep_s[cid]:.2f} s, engine "
            f"{engine_s.get(cid, 0.0):.2f} s; self: {statuses.get((cid, 'self'))})"
        )
    slowest = max(per_file, key=per_file.get)
    print(f"longest file: {slowest} {per_file[slowest]:.2f} s")


if __name__ == "__main__":
    main()
