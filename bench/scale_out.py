"""Scale-out: the self engine in-process vs on a local Ray cluster, and the Ray path's cost per unit.

    .venv/bin/python bench/scale_out.py [--suite cases/sample] [--cheap 2000] [--no-engine]

Two measurements (issue 18), each at equal CPUs (2: the in-process pool's 2 workers, the
cluster's 2 CPUs as 1 node x 2 or 2 nodes x 1):

* ``cheap``: the per-unit cost of the executor path alone. ``--cheap`` calls of a function
  that does nothing but return 4 KB (about a pickled ``Analysis``) go through the in-process
  ``ProcessWorkerPool`` and through ``RayWorkerPool``, as many in flight as each pool holds;
  wall time per call, and the difference (the Ray path's overhead per unit). Also the round
  trip of one call at a time.
* ``engine``: receipts/s of ``rabench run --target self`` over ``--suite`` (the committed
  sample: 41 receipts) in-process, on Ray with 1 node x 2 CPUs and with 2 nodes x 1 CPU. The
  prepare cache is filled first (a ``null`` run), so each run times only the engine and its
  executor; each run includes starting its workers and loading the OCR models. The ``null``
  run's rate is preparation alone (it runs on the coordinator's machine in every mode).
* ``coordinator``: the per-unit work left on the coordinator after an actor answers
  (duplicate lookup in memory, risk, Verdict), timed over real analyses of ``--coordinator`` files.

The clusters are real ``ray start`` node processes on loopback (``rabench.cluster.ray_proc``),
stopped at the end. The machine's load average is printed with the figures: on a shared
machine, the engine figures move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rabench.cluster.ray_proc import start_ray_cluster  # noqa: E402
from rabench.engine.ocr import ProcessWorkerPool, WorkerPool  # noqa: E402

PAYLOAD = 4096


async def _calls(pool: WorkerPool, n: int, in_flight: int) -> float:
    """Seconds per call for ``n`` calls of ``bytes(PAYLOAD)`` with ``in_flight`` at a time."""
    sem = asyncio.Semaphore(in_flight)

    async def one() -> None:
        async with sem:
            out = await pool.submit(bytes, PAYLOAD)
            assert len(out) == PAYLOAD

    for _ in range(in_flight * 4):  # warm: workers started, connections made
        await one()
    t0 = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return (time.perf_counter() - t0) / n


async def _round_trip(pool: WorkerPool, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        await pool.submit(bytes, PAYLOAD)
    return (time.perf_counter() - t0) / n


async def _both(pool: WorkerPool, n: int, in_flight: int) -> tuple[float, float, float]:
    """ms per call, round-trip ms, and the coordinator's own CPU ms per call (this process,
    every thread: for Ray the driver's submit, await and deserialise)."""
    cpu0 = time.process_time()
    per_call = await _calls(pool, n, in_flight) * 1e3
    cpu = (time.process_time() - cpu0) * 1e3 / (n + in_flight * 4)
    return per_call, await _round_trip(pool, 200) * 1e3, cpu


def cheap(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    local = ProcessWorkerPool(2, preload=False)
    try:
        out["in_process_ms"], out["in_process_round_trip_ms"], out["in_process_coordinator_cpu_ms"] = asyncio.run(
            _both(local, n, 4)
        )
    finally:
        local.close()
    from rabench.cluster.ray_pool import RayWorkerPool

    with start_ray_cluster(nodes=2, cpus_per_node=1) as cluster:
        pool = RayWorkerPool(cluster.address)
        try:
            out["ray_ms"], out["ray_round_trip_ms"], out["ray_coordinator_cpu_ms"] = asyncio.run(
                _both(pool, n, pool.workers * pool.depth)
            )
        finally:
            pool.close()
    out["ray_overhead_ms"] = out["ray_ms"] - out["in_process_ms"]
    return out


def coordinator(suite: str, files: int, rounds: int) -> dict[str, float]:
    """What the coordinator does per unit after the actor answers: the duplicate lookup on an
    in-memory store, risk and the Verdict (``SelfTarget.verdict``), over real analyses."""
    from rabench.cases.manifest import open_suite
    from rabench.contracts import TargetsConfig
    from rabench.engine.dupes import MemoryStore
    from rabench.engine.pipeline import analyse
    from rabench.engine.target import SelfTarget

    loaded = open_suite(Path(suite))
    analyses = []
    for lc in list(loaded.cases())[:files]:
        analyses.append((lc.case.id, analyse(str(lc.path), lc.case.media_type, None)))
    target = SelfTarget("self", TargetsConfig())
    t0 = time.perf_counter()
    for _ in range(rounds):
        target._store = MemoryStore()  # one repetition's empty store per round
        for ref, analysis in analyses:
            target.verdict(analysis, ref)
    return {"verdict_ms_per_unit": (time.perf_counter() - t0) * 1e3 / (rounds * len(analyses))}


def _run(suite: str, out: Path, cache: Path, config: Path, *extra: str, target: str = "self") -> float:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rabench",
            "run",
            "--suite",
            suite,
            "--target",
            target,
            "--out",
            str(out),
            "--cache",
            str(cache),
            "--config",
            str(config),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if proc.returncode != 0:
        raise SystemExit(f"rabench run failed: {proc.stderr[-2000:]}")
    found = re.search(r"(\d+) outcomes written in ([0-9.]+) s", proc.stdout)
    assert found, proc.stdout
    return int(found.group(1)) / float(found.group(2))


def engine(suite: str, tmp: Path) -> dict[str, float]:
    config = tmp / "targets.toml"
    config.write_text("[self]\nworkers = 2\n")
    cache = tmp / "cache"
    # every prepared image in the cache: a null run is preparation alone, on the coordinator's machine
    out = {"prepare_receipts_per_s": _run(suite, tmp / "warm", cache, config, target="null")}
    out["in_process_receipts_per_s"] = _run(suite, tmp / "local", cache, config)
    for nodes, cpus in ((1, 2), (2, 1)):
        with start_ray_cluster(nodes=nodes, cpus_per_node=cpus) as cluster:
            out[f"ray_{nodes}x{cpus}_receipts_per_s"] = _run(
                suite, tmp / f"ray{nodes}", cache, config, "--executor", "ray", "--address", cluster.address
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="cases/sample")
    ap.add_argument("--cheap", type=int, default=2000, help="calls of the cheap function per pool")
    ap.add_argument("--no-engine", action="store_true", help="no engine runs (the cheap calls and the coordinator)")
    ap.add_argument(
        "--coordinator", type=int, default=8, metavar="FILES", help="analyses whose Verdict step is timed (0: skip)"
    )
    args = ap.parse_args()
    figures: dict[str, object] = {"cpus": os.cpu_count(), "load_before": os.getloadavg()[0]}
    figures["cheap"] = cheap(args.cheap)
    print(json.dumps(figures["cheap"], indent=1), flush=True)
    if args.coordinator:
        figures["coordinator"] = coordinator(args.suite, args.coordinator, 200)
        print(json.dumps(figures["coordinator"], indent=1), flush=True)
    if not args.no_engine:
        with tempfile.TemporaryDirectory(prefix="scale-out-") as tmp:
            figures["engine"] = engine(args.suite, Path(tmp))
    figures["load_after"] = os.getloadavg()[0]
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
