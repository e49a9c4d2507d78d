"""``--executor ray``: the self engine on a real 2-node local Ray cluster (two ``ray start`` node
processes on loopback, not local mode), with the duplicate network on a real Redis.

What a user would notice: the same outcomes as in-process (verdicts, statuses, duplicate
matches), and a Ray worker killed mid-run costs nothing but time (one outcome per unit).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rabench.cluster.ray_proc import RayCluster, _descendants, start_ray_cluster

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "cases" / "sample"
# Originals and what depends on them: two text matches, a perceptual match, a hard negative (after).
CASES = ["c00015", "c00034", "c00021", "c00039", "c00007", "c00035", "c00026", "c00036"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayCluster]:
    with start_ray_cluster(nodes=2, cpus_per_node=1) as c:
        yield c


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight cases of the committed sample suite, dependencies included, in the sample's order."""
    root = tmp_path_factory.mktemp("suite")
    lines = (SAMPLE / "manifest.jsonl").read_text().splitlines()
    keep = [lines[0]] + [ln for ln in lines[1:] if json.loads(ln)["id"] in CASES]
    (root / "files").mkdir()
    for ln in keep[1:]:
        shutil.copy(SAMPLE / json.loads(ln)["file"], root / json.loads(ln)["file"])
    (root / "manifest.jsonl").write_text("\n".join(keep) + "\n")
    return root


def _rabench(*args: str, config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rabench", "run", "--config", str(config), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _config(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _outcomes(run: Path) -> list[dict]:
    return [json.loads(ln) for ln in (run / "outcomes.jsonl").read_text().splitlines()]


def _comparable(o: dict) -> tuple:
    verdict = dict(o["verdict"] or {})
    return (o["case_id"], o["repetition"], o["status"], json.dumps(verdict, sort_keys=True))


@pytest.fixture(scope="module")
def in_process(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    tmp = tmp_path_factory.mktemp("local")
    config = _config(tmp / "targets.toml", "[self]\nworkers = 2\n")
    proc = _rabench(
        "--suite",
        str(suite),
        "--target",
        "self",
        "--out",
        str(tmp / "run"),
        "--cache",
        str(tmp / "cache"),
        config=config,
    )
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return _outcomes(tmp / "run")


def _busy_actor(cluster: RayCluster) -> int | None:
    """A worker process of this cluster that is running an engine call right now."""
    for node in cluster.nodes:
        for pid in _descendants(node.pid):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ray::EngineActor.run"):
                return pid
    return None


def test_ray_and_redis_give_the_in_process_outcomes_even_when_a_worker_is_killed(
    cluster, suite, in_process, redis_url, tmp_path
):
    """One run through Ray + Redis; one engine worker process is SIGKILLed while it analyses a
    receipt. Same verdicts, statuses and duplicate matches as in-process, one outcome per unit."""
    run = tmp_path / "run"
    config = _config(
        tmp_path / "targets.toml",
        f'[self]\nduplicate_store = "{redis_url}"\n[executor]\nkind = "ray"\naddress = "{cluster.address}"\n',
    )
    proc = _rabench(
        "--suite", str(suite), "--target", "self", "--out", str(run), "--cache", str(tmp_path / "cache"), config=config
    )
    killed = None
    deadline = time.monotonic() + 240
    while killed is None and proc.poll() is None and time.monotonic() < deadline:
        outcomes = run / "outcomes.jsonl"
        if outcomes.is_file() and outcomes.read_text().count("\n") >= 1:
            killed = _busy_actor(cluster)
            if killed is not None:
                os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    out, err = proc.communicate(timeout=300)
    assert killed is not None, "no engine call was caught running"
    assert proc.returncode == 0, err
    got = _outcomes(run)
    assert sorted((o["case_id"], o["repetition"]) for o in got) == sorted((c, 0) for c in CASES)
    assert sorted(map(_comparable, got)) == sorted(map(_comparable, in_process))
    matches = {o["case_id"]: o["verdict"].get("match_of") for o in got if o["verdict"].get("seen_before")}
    assert matches == {"c00034": "c00015", "c00039": "c00021", "c00036": "c00026"}
    assert all(o["status"] == "ok" for o in got)


def test_a_run_on_ray_killed_with_kill_9_resumes_to_the_in_process_outcomes(cluster, suite, in_process, tmp_path):
    """The coordinator SIGKILLed after 3 outcomes; ``--resume`` on the same cluster replays the
    finished units into a fresh duplicate store and runs the rest: one outcome per unit, as in-process."""
    run = tmp_path / "run"
    config = _config(tmp_path / "targets.toml", "")
    args = (
        "--target",
        "self",
        "--out",
        str(run),
        "--cache",
        str(tmp_path / "cache"),
        "--executor",
        "ray",
        "--address",
        cluster.address,
    )
    proc = _rabench("--suite", str(suite), *args, config=config)
    deadline = time.monotonic() + 240
    outcomes = run / "outcomes.jsonl"
    while proc.poll() is None and time.monotonic() < deadline:
        if outcomes.is_file() and outcomes.read_text().count("\n") >= 3:
            proc.kill()
            break
        time.sleep(0.05)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert 3 <= len(_outcomes(run)) < len(CASES)
    again = _rabench("--resume", *args, config=config)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    got = _outcomes(run)
    assert sorted((o["case_id"], o["repetition"]) for o in got) == sorted((c, 0) for c in CASES)
    assert sorted(map(_comparable, got)) == sorted(map(_comparable, in_process))


def test_engine_errors_come_back_as_themselves_and_a_dead_actor_is_retried(cluster):
    from ray import cloudpickle

    from rabench.cluster.ray_pool import RayWorkerPool

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/

    async def scenario(pool: RayWorkerPool) -> tuple[str, int, int, list[int]]:
        pids = await pool.pids()
        message = ""
        try:
            await pool.submit(int, "not a number")
        except ValueError as exc:
            message = str(exc)
        slow = asyncio.ensure_future(pool.submit(_sleep_then_pid, 3.0))
        busy = None
        deadline = time.monotonic() + 60
        while busy is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            busy = _busy_actor(cluster)
        assert busy is not None, "the slow call was never seen running"
        os.kill(busy, signal.SIGKILL)
        return message, await slow, busy, pids

    pool = RayWorkerPool(cluster.address, depth=1)
    try:
        message, answered_by, killed, pids = asyncio.run(scenario(pool))
    finally:
        pool.close()
    assert message == "invalid literal for int() with base 10: 'not a number'"
    assert killed in pids and answered_by in pids and answered_by != killed
    assert pool.retried == 1


class _Peak:
    """Calls sent to the cluster and not yet answered, as the coordinator sees them."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0


class _CountingActor:
    """An actor handle whose ``run.remote`` counts the call until its ref has been awaited."""

    def __init__(self, actor: object, peak: _Peak) -> None:
        self._actor, self._peak = actor, peak
        self.run = self
        self.pid = actor.pid  # type: ignore[attr-defined]

    def remote(self, fn: object, *args: object) -> object:
        ref = self._actor.run.remote(fn, *args)  # type: ignore[attr-defined]
        self._peak.now += 1
        self._peak.peak = max(self._peak.peak, self._peak.now)
        return self._answer(ref)

    async def _answer(self, ref: object) -> object:
        try:
            return await ref  # type: ignore[misc]
        finally:
            self._peak.now -= 1


def test_back_pressure_never_more_calls_at_the_cluster_than_actors_times_depth(cluster):
    """Twelve calls submitted at once to 2 actors of depth 2: at most 4 are ever at the cluster,
    the rest wait on the coordinator; every call is answered, by both actors."""
    from ray import cloudpickle

    from rabench.cluster.ray_pool import RayWorkerPool

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pool = RayWorkerPool(cluster.address, depth=2)
    peak = _Peak()
    actors = pool._actors
    pool._actors = [_CountingActor(a, peak) for a in actors]

    async def scenario() -> list[int]:
        return list(await asyncio.gather(*(pool.submit(_sleep_then_pid, 0.3) for _ in range(12))))

    try:
        answered_by = asyncio.run(scenario())
    finally:
        pool._actors = actors  # close() kills the real actors (their CPUs go back to the cluster)
        pool.close()
    assert pool.workers == 2 and len(answered_by) == 12
    assert peak.peak == 4 and peak.now == 0  # full, never over: workers * depth
    assert len(set(answered_by)) == 2


def _sleep_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_scoring_on_ray_writes_the_same_rows_json(cluster, tmp_path):
    from rabench.score.synthetic import make

    run = make(tmp_path / "synthetic", n_targets=2, n_cases=300, reps=2)
    local = subprocess.run(
        [sys.executable, "-m", "rabench", "score", str(run), "--out", str(tmp_path / "a")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert local.returncode == 0, local.stderr
    on_ray = subprocess.run(
        [
            sys.executable,
            "-m",
            "rabench",
            "score",
            str(run),
            "--out",
            str(tmp_path / "b"),
            "--executor",
            "ray",
            "--address",
            cluster.address,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert on_ray.returncode == 0, on_ray.stderr
    rows = (tmp_path / "a" / "rows.json").read_bytes()
    assert b'"interval":"bootstrap"' in rows.replace(b" ", b"")  # bootstraps were computed, not only rates
    assert (tmp_path / "b" / "rows.json").read_bytes() == rows
