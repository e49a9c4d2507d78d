"""What does Redis cost per call? (a benchmark script, not a test)

The cluster backends add a loopback round trip where the in-process ones touch memory. Measured
in one run, against a throw-away ``redis-server`` (rabench.cluster.redis_proc), on this machine:

* a bare round trip (PING) with the sync and the asyncio client: the floor of each path;
* the provider gate: ``async with gate`` (acquire + release) for the in-process gate
  (asyncio semaphore + aiolimiter) and the shared one (``shared_limits``: one round trip to
  acquire a lease and reserve a rate slot, one to release), one call at a time and 8 at once;
  the rate is set high enough never to make a call wait, so the figure is pure overhead;
* the duplicate network: ``lookup_and_add`` for MemoryStore, SqliteStore (a file in a temp dir)
  and RedisStore, on fingerprints that share no key (the one-round-trip path) and on look-alikes
  (every 4th a copy of an earlier purchase; dates drawn from one year, so receipts of the same day
  are candidates too: two round trips and a decision over candidates).

    .venv/bin/python bench/redis_roundtrip.py [--calls 20000] [--fingerprints 5000]

Best of ``--rounds`` rounds, in microseconds per operation. Run on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rabench.cluster.redis_proc import start_redis
from rabench.engine.dupes import Fingerprint, MemoryStore, SqliteStore
from rabench.engine.dupes.redis_store import RedisStore
from rabench.run.config import Limits
from rabench.run.limits import ProviderGate

RPM = 6e9  # a rate no call ever waits for: the figure is the gate's own cost


async def _gate_us(gate: ProviderGate, calls: int, concurrency: int) -> float:
    per_task = calls // concurrency

    async def worker() -> None:
        for _ in range(per_task):
            async with gate:
                pass

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return (time.perf_counter() - t0) / (per_task * concurrency) * 1e6


def gate_us(url: str | None, calls: int, concurrency: int, rounds: int) -> tuple[float, float]:
    """(us per acquire+release, Redis round trips per call: 2 unless a call found the cap full)."""

    async def main() -> tuple[float, float]:
        gate = ProviderGate(f"bench-{concurrency}", Limits(concurrency=concurrency, rpm=RPM, shared=url))
        try:
            await _gate_us(gate, min(calls, 500), concurrency)  # warm: scripts loaded, pool filled
            before = gate._shared.round_trips if gate._shared is not None else 0
            best = min([await _gate_us(gate, calls, concurrency) for _ in range(rounds)])
            trips = (gate._shared.round_trips - before) / (rounds * calls) if gate._shared is not None else 0.0
            return best, trips
        finally:
            await gate.aclose()

    return asyncio.run(main())


def ping_us(url: str, n: int, rounds: int) -> tuple[float, float]:
    """One bare round trip (PING) with the sync client and the asyncio one: the floor of each path."""
    import redis
    import redis.asyncio as aredis

    client = redis.Redis.from_url(url)
    best_sync = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            client.ping()
        best_sync = min(best_sync, (time.perf_counter() - t0) / n * 1e6)
    client.close()

    async def run() -> float:
        aclient = aredis.Redis.from_url(url)
        best = float("inf")
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(n):
                await aclient.ping()
            best = min(best, (time.perf_counter() - t0) / n * 1e6)
        await aclient.aclose()
        return best

    return best_sync, asyncio.run(run())


def server_us(url: str) -> str:
    """Redis's own time per script call since the last reset (INFO commandstats), then reset."""
    import redis

    client = redis.Redis.from_url(url)
    stats = client.info("commandstats").get("cmdstat_evalsha", {"calls": 0, "usec_per_call": 0.0})
    client.config_resetstat()
    client.close()
    return f"server {stats['usec_per_call']:.1f} us per script call"


def fingerprints(n: int, lookalikes: bool, seed: int = 3) -> list[tuple[str, Fingerprint]]:
    rng = random.Random(seed)
    out: list[tuple[str, Fingerprint]] = []
    for i in range(n):
        if lookalikes and i >= 4 and i % 4 == 0:
            ref, old = out[rng.randrange(len(out))]
            fp = Fingerprint(
                sha256=f"{rng.getrandbits(256):064x}",
                phash=old.phash ^ 1,
                merchant=old.merchant,
                date=old.date,
                total=old.total,
                receipt_number=old.receipt_number,
                items=old.items,
            )
        else:
            fp = Fingerprint(
                sha256=f"{rng.getrandbits(256):064x}",
                phash=rng.getrandbits(64),
                merchant=f"shop {i}",
                date=f"2024-{1 + rng.randrange(12):02d}-{1 + rng.randrange(28):02d}" if lookalikes else f"d{i}",
                total=rng.randrange(100, 100000) + (0 if lookalikes else 10**6 * i),
                receipt_number=f"n{i}",
                items=tuple(sorted(rng.randrange(100, 5000) for _ in range(3))),
            )
        out.append((f"c{i}", fp))
    return out


def store_us(make: Callable[[int], object], entries: list[tuple[str, Fingerprint]], rounds: int) -> tuple[float, int]:
    best, found = float("inf"), 0
    for r in range(rounds):
        store = make(r)
        t0 = time.perf_counter()
        found = sum(store.lookup_and_add(fp, ref) is not None for ref, fp in entries)  # type: ignore[attr-defined]
        best = min(best, (time.perf_counter() - t0) / len(entries) * 1e6)
        close = getattr(store, "clear", None) or getattr(store, "close", None)
        if close is not None:
            close()
    return best, found


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--fingerprints", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    with start_redis() as url, tempfile.TemporaryDirectory(prefix="rabench-bench-") as tmp:
        print(f"redis-server on {url}; best of {args.rounds} rounds, us per operation")
        sync_rt, async_rt = ping_us(url, args.calls // 4, args.rounds)
        print(f"bare round trip (PING): sync client {sync_rt:8.1f}   asyncio client {async_rt:8.1f}")
        for conc in (1, 8):
            local, _ = gate_us(None, args.calls, conc, args.rounds)
            server_us(url)
            shared, trips = gate_us(url, args.calls, conc, args.rounds)
            print(
                f"gate acquire+release, {conc} at once: in-process {local:8.1f}   shared (Redis) {shared:8.1f}"
                f"   ratio {shared / local:6.1f}x   ({trips:.2f} round trips per call; {server_us(url)})"
            )
        for kind, lookalikes in (("no shared key", False), ("look-alikes", True)):
            entries = fingerprints(args.fingerprints, lookalikes)
            mem, m_found = store_us(lambda r: MemoryStore(), entries, args.rounds)
            sql, s_found = store_us(lambda r: SqliteStore(Path(tmp) / f"{kind}-{r}.sqlite"), entries, args.rounds)
            server_us(url)
            red, r_found = store_us(lambda r: RedisStore(url, f"bench-{kind}", r), entries, args.rounds)
            assert m_found == r_found == s_found, (m_found, r_found, s_found)
            print(
                f"lookup_and_add, {len(entries)} {kind} ({r_found} matches): memory {mem:8.1f}   "
                f"sqlite {sql:8.1f}   redis {red:8.1f}   redis/memory {red / mem:6.1f}x   ({server_us(url)})"
            )


if __name__ == "__main__":
    main()
