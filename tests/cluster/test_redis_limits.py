"""Limits shared in Redis hold across runner processes: a cap on calls in flight and a request
rate that two processes together never exceed, and a killed process's slots come back."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import signal
import sys
import time
from pathlib import Path

import pytest
import redis
import redis.asyncio

from rabench.cluster.redis_limits import SharedLimits, gcra, keys_of
from rabench.contracts.targets_config import Defaults, ProviderTable, TargetsConfig, parse_targets_config
from rabench.errors import UserError
from rabench.run.config import Limits, provider_limits
from rabench.run.limits import ProviderGate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))  # runfakes, runsuite (spawned children too)

from runfakes import LoopbackServer
from runsuite import make_suite


def _ok(body, hit):
    return 200, {}, {"risk": 0.1}


def _runner(
    suite: str,
    out: str,
    server_url: str,
    redis_url: str,
    concurrency: int,
    rpm: float | None,
    start: mp.synchronize.Barrier,
    sent: mp.Queue,
) -> None:
    """One runner process: the real run loop, its provider's limits shared through Redis."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
    from runfakes import FAST_RETRY, HttpTarget

    from rabench.run.session import RunOptions, run

    target = HttpTarget(server_url)
    config = TargetsConfig(
        providers={"loopback": ProviderTable(concurrency=concurrency, rpm=rpm, shared_limits=redis_url)}
    )
    start.wait()
    summary = run(
        RunOptions(
            out=Path(out),
            suite_dir=suite,
            config=config,
            timeout_s=30.0,
            policy=FAST_RETRY,
            cache_root=Path(out).parent / "cache",
            progress="none",
        ),
        targets=[target],
    )
    sent.put((summary.max_in_flight, target.sent))


def _two_runners(
    tmp_path: Path, redis_url: str, server: LoopbackServer, n: int, concurrency: int, rpm: float | None
) -> list[float]:
    ctx = mp.get_context("spawn")
    start, sent = ctx.Barrier(2), ctx.Queue()
    procs = []
    for i in range(2):
        suite = make_suite(tmp_path / f"s{i}", n, distinct_files=3)
        procs.append(
            ctx.Process(
                target=_runner,
                args=(str(suite), str(tmp_path / f"r{i}"), server.url, redis_url, concurrency, rpm, start, sent),
            )
        )
    for p in procs:
        p.start()
    stamps: list[float] = []
    for _ in procs:
        in_flight, mine = sent.get(timeout=120)
        assert in_flight["loopback"] <= concurrency and len(mine) == n
        stamps += mine
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    return sorted(stamps)


def test_two_runner_processes_share_one_cap_on_calls_in_flight(tmp_path, redis_url):
    with LoopbackServer(_ok, delay_s=0.05) as server:
        _two_runners(tmp_path, redis_url, server, n=24, concurrency=3, rpm=None)
        assert len(server.arrivals) == 48
        assert server.max_active == 3  # each process alone may run 3: together still 3, not 6
    leases, _ = keys_of("loopback")
    assert redis.Redis.from_url(redis_url).zcard(leases) == 0  # every slot given back


def test_two_runner_processes_share_one_request_rate_over_every_window(tmp_path, redis_url):
    rpm, n = 1200, 30  # 20 per second, bursts of at most 20; 60 calls in all
    with LoopbackServer(_ok) as server:
        sent = _two_runners(tmp_path, redis_url, server, n=n, concurrency=50, rpm=rpm)
    rate, burst, total = rpm / 60, 20, 2 * n
    assert len(sent) == total
    # stamps are CLOCK_MONOTONIC, one clock for every process on this machine
    assert sent[-1] - sent[0] >= (total - burst) / rate * 0.9  # alone, each would have finished in ~0.5 s
    for i in range(total):
        for j in range(i + 1, total):
            assert j - i + 1 <= burst + rate * (sent[j] - sent[i]) + 2  # slack: a stamp a step after its grant


# --- a process killed while it holds slots -------------------------------------------------


LEASE = 2.0  # seconds; short for the test (rabench uses 30)


def _holder(redis_url: str, ready: mp.Event) -> None:
    async def hold() -> None:
        shared = SharedLimits(redis_url, "dying", concurrency=2, rpm=None, lease_s=LEASE)
        await shared.acquire()
        await shared.acquire()
        ready.set()
        await asyncio.sleep(3600)  # renewing its leases until killed

    asyncio.run(hold())


def test_a_killed_process_gives_its_slots_back_after_one_lease(redis_url):
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    proc = ctx.Process(target=_holder, args=(redis_url, ready))
    proc.start()
    try:
        assert ready.wait(60)

        async def try_for(seconds: float) -> float | None:
            shared = SharedLimits(redis_url, "dying", concurrency=2, rpm=None, lease_s=LEASE)
            t0 = time.monotonic()
            try:
                token = await asyncio.wait_for(shared.acquire(), seconds)
            except TimeoutError:
                return None
            finally:
                await shared.aclose()
            assert token
            return time.monotonic() - t0

        # alive, it renews its leases every LEASE/3: nobody gets a slot for longer than a lease
        assert asyncio.run(try_for(1.5 * LEASE)) is None
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(10)
        waited = asyncio.run(try_for(3 * LEASE))
        assert waited is not None and waited <= LEASE + 1.0, waited  # at most one lease (plus polls on a busy box)
        print(f"slots free again {waited:.2f} s after the kill (lease {LEASE} s)")
    finally:
        if proc.is_alive():
            proc.kill()


# --- the gate and its config --------------------------------------------------------------


def test_the_gate_without_shared_limits_stays_in_process():
    gate = ProviderGate("p", Limits(concurrency=2, rpm=60))
    assert gate._shared is None and gate._limiter is not None


def test_shared_limits_come_from_the_provider_table_then_defaults_never_for_self_or_null():
    url, other = "redis://127.0.0.1:6379/0", "redis://127.0.0.1:6380/1"
    config = TargetsConfig(
        defaults=Defaults(shared_limits=url),
        providers={"openai": ProviderTable(shared_limits=other), "gemini": ProviderTable(shared_limits="")},
    )
    assert provider_limits(config, "openai").shared == other
    assert provider_limits(config, "anthropic").shared == url
    assert provider_limits(config, "gemini").shared is None  # "" keeps this provider in-process
    assert provider_limits(config, "self").shared is None and provider_limits(config, "null").shared is None


@pytest.mark.parametrize("table", ["defaults", "providers.openai"])
def test_a_bad_shared_limits_url_is_one_line(table):
    with pytest.raises(UserError, match=r"shared_limits 'redis://h:x/0' is not a redis://host:port/db URL"):
        parse_targets_config(
            {"defaults": {"shared_limits": "redis://h:x/0"}}
            if table == "defaults"
            else {"providers": {"openai": {"shared_limits": "redis://h:x/0"}}}
        )


def test_an_unreachable_shared_limits_redis_is_one_clear_error():
    from rabench.cluster.redis_proc import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(UserError, match=r"shared_limits redis://127.0.0.1:\d+/0: cannot reach Redis"):
        ProviderGate("openai", Limits(concurrency=2, shared=url))


def test_gcra_has_the_in_process_buckets_rate_and_burst():
    assert gcra(None) == (0.0, 0.0)
    assert gcra(1200) == (50.0, 19 * 50.0)  # 20 per second, 20 at once
    assert gcra(30) == (2000.0, 0.0)  # slower than one a second: no burst beyond one


def test_one_round_trip_per_acquire_and_one_per_release_when_a_slot_is_free(redis_url):
    async def calls() -> int:
        gate = ProviderGate("roundtrips", Limits(concurrency=2, rpm=60000, shared=redis_url))
        try:
            for _ in range(20):
                async with gate:
                    pass
            assert gate._shared is not None
            return gate._shared.round_trips
        finally:
            await gate.aclose()

    assert asyncio.run(calls()) == 40


def test_an_adaptive_gate_takes_its_local_slot_then_the_shared_one(redis_url):
    from rabench.run.adaptive import AdaptiveGate

    async def calls() -> tuple[int, int]:
        gate = AdaptiveGate("adaptive-shared", Limits(concurrency=2, rpm=60000, shared=redis_url))
        leases, _ = keys_of("adaptive-shared")
        client = redis.asyncio.Redis.from_url(redis_url)
        try:
            async with gate:
                held = await client.zcard(leases)
            assert gate._shared is not None
            return held, gate._shared.round_trips
        finally:
            await gate.aclose()
            await client.aclose()

    assert asyncio.run(calls()) == (1, 2)


def test_redis_gone_mid_run_makes_the_call_an_error_outcome_not_a_crash(tmp_path):
    from runfakes import FAST_RETRY, FakeTarget

    from rabench.cluster.redis_proc import start_redis
    from rabench.run.execute import call_target
    from rabench.targets.base import CheckRequest

    request = CheckRequest(
        case_id="c1",
        original=tmp_path / "x.png",
        media_type="image/png",
        prepared=tmp_path / "x.png",
        prepared_media_type="image/png",
    )

    async def before_and_after_the_server_stops():
        server = start_redis()
        gate = ProviderGate("gone", Limits(concurrency=2, shared=server.__enter__()))
        try:
            before = await call_target(FakeTarget(), request, gate, timeout_s=5.0, policy=FAST_RETRY)
        finally:
            server.__exit__(None, None, None)
        after = await call_target(FakeTarget(), request, gate, timeout_s=5.0, policy=FAST_RETRY)
        await gate.aclose()
        return before, after

    before, after = asyncio.run(before_and_after_the_server_stops())
    assert before.status == "ok"
    assert after.status == "error" and "Connect" in (after.error or ""), after
