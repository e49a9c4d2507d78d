"""``rabench load``: drive one target at a fixed concurrency and time it.

Why separate from ``rabench run``: a run answers "how good", a load test
answers "how fast, and does it hold up": fixed concurrency, a fixed number of
calls cycling over a few cases, nothing recorded per case. It uses the same
call path as a run (gate, per-attempt timeout, retries), so what it measures is
what a run would see. No rate limit is applied unless asked for.

The summary is pure (``summarise``) so that it can be checked against a slow
obvious reference.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import anyio
import msgspec
import numpy as np

from rabench.prepare.cache import PrepCache
from rabench.run.config import Limits
from rabench.run.execute import call_target
from rabench.run.limits import ProviderGate
from rabench.run.retry import RetryPolicy
from rabench.targets.base import CheckRequest, Target

STATUSES = ("ok", "error", "refusal", "timeout", "invalid_output")


class Window(msgspec.Struct, frozen=True):
    start_s: float
    end_s: float
    calls: int
    calls_per_s: float
    shares: dict[str, float]  # status -> share of this window's calls
    p50_s: float | None


class LoadSummary(msgspec.Struct, frozen=True):
    calls: int
    concurrency: int
    wall_s: float
    throughput: float  # finished calls per second
    p50_s: float | None  # latency of ok calls (final attempt)
    p95_s: float | None
    p99_s: float | None
    statuses: dict[str, int]
    retries: int
    windows: list[Window]
    # time a call waited for the provider gate (a slot, a rate token) before its attempts:
    # kept out of the latencies above, which time the provider (all calls, every status)
    wait_p50_s: float | None = None
    wait_p95_s: float | None = None
    wait_max_s: float | None = None


def _pct(values: np.ndarray, q: float) -> float | None:
    return float(np.percentile(values, q)) if values.size else None


def summarise(
    ends: np.ndarray,
    latencies: np.ndarray,
    statuses: list[str],
    *,
    concurrency: int,
    wall_s: float,
    retries: int = 0,
    windows: int = 10,
    waits: np.ndarray | None = None,
) -> LoadSummary:
    """Latency percentiles over ok calls, and per time window (by finish time) rates and shares."""
    ok = np.array([s == "ok" for s in statuses], dtype=bool)
    counts = {s: statuses.count(s) for s in STATUSES if statuses.count(s)}
    edges = np.linspace(0.0, wall_s, windows + 1) if wall_s > 0 else np.zeros(windows + 1)
    out: list[Window] = []
    idx = np.clip(np.searchsorted(edges, ends, side="right") - 1, 0, windows - 1)
    for w in range(windows):
        sel = idx == w
        n = int(sel.sum())
        width = float(edges[w + 1] - edges[w])
        shares = {}
        if n:
            for s in STATUSES:
                k = sum(1 for i in np.flatnonzero(sel) if statuses[i] == s)
                if k:
                    shares[s] = k / n
        out.append(
            Window(
                float(edges[w]),
                float(edges[w + 1]),
                n,
                n / width if width > 0 else 0.0,
                shares,
                _pct(latencies[sel & ok], 50),
            )
        )
    ok_lat = latencies[ok]
    return LoadSummary(
        calls=len(statuses),
        concurrency=concurrency,
        wall_s=wall_s,
        throughput=len(statuses) / wall_s if wall_s > 0 else 0.0,
        p50_s=_pct(ok_lat, 50),
        p95_s=_pct(ok_lat, 95),
        p99_s=_pct(ok_lat, 99),
        statuses=counts,
        retries=retries,
        windows=out,
        wait_p50_s=_pct(waits, 50) if waits is not None else None,
        wait_p95_s=_pct(waits, 95) if waits is not None else None,
        wait_max_s=float(waits.max()) if waits is not None and waits.size else None,
    )


def tiny_request(folder: Path) -> CheckRequest:
    """A small white JPEG, for load tests without a suite."""
    from PIL import Image

    path = folder / "load.jpg"
    Image.new("RGB", (64, 64), "white").save(path, "JPEG")
    return CheckRequest("load-0", path, "image/jpeg", path, "image/jpeg")


async def suite_requests(suite_dir: str, cache: PrepCache, limit: int = 100) -> list[CheckRequest]:
    """Up to ``limit`` prepared requests from a suite (streamed; stops early)."""
    from rabench.cases.manifest import open_suite
    from rabench.prepare.image import PreparationError

    out: list[CheckRequest] = []
    for lc in open_suite(suite_dir):
        try:
            prep = await cache.get(lc.path, lc.case.sha256, lc.case.media_type)
        except PreparationError:
            continue
        out.append(CheckRequest(lc.case.id, lc.path, lc.case.media_type, prep.path, prep.media_type))
        if len(out) >= limit:
            break
    return out


class _Counters:
    __slots__ = ("retries", "in_flight")

    def __init__(self) -> None:
        self.retries = 0
        self.in_flight = 0


async def drive(
    target: Target,
    requests: list[CheckRequest],
    *,
    concurrency: int,
    calls: int,
    timeout_s: float,
    policy: RetryPolicy,
    rpm: float | None = None,
) -> LoadSummary:
    gate = ProviderGate("load", Limits(concurrency=concurrency, rpm=rpm))
    ends = np.zeros(calls)
    latencies = np.full(calls, np.nan)
    waits = np.zeros(calls)
    statuses: list[str] = [""] * calls
    counters = _Counters()
    counter = iter(range(calls))
    t0 = time.monotonic()

    async def worker() -> None:
        for i in counter:
            req = requests[i % len(requests)]
            res = await call_target(target, req, gate, timeout_s=timeout_s, policy=policy, counters=counters)
            ends[i] = time.monotonic() - t0
            latencies[i] = res.latency_s if res.latency_s is not None else np.nan
            waits[i] = res.wait_s
            statuses[i] = res.status

    async with anyio.create_task_group() as tg:
        for _ in range(min(concurrency, calls)):
            tg.start_soon(worker)
    wall = time.monotonic() - t0
    return summarise(
        ends, latencies, statuses, concurrency=concurrency, wall_s=wall, retries=counters.retries, waits=waits
    )


def run_load(
    target: Target,
    *,
    suite_dir: str | None,
    concurrency: int,
    calls: int,
    timeout_s: float,
    policy: RetryPolicy,
    rpm: float | None = None,
    cache_root: Path | None = None,
) -> LoadSummary:
    async def main() -> LoadSummary:
        await target.open()
        try:
            with tempfile.TemporaryDirectory(prefix="rabench-load-") as tmp:
                if suite_dir:
                    requests = await suite_requests(suite_dir, PrepCache(cache_root))
                    if not requests:
                        from rabench.errors import UserError

                        raise UserError(f"{suite_dir}: no case could be prepared")
                else:
                    requests = [tiny_request(Path(tmp))]
                await target.reset(0)
                return await drive(
                    target, requests, concurrency=concurrency, calls=calls, timeout_s=timeout_s, policy=policy, rpm=rpm
                )
        finally:
            with anyio.CancelScope(shield=True):
                await target.close()

    return anyio.run(main)


def format_summary(target_id: str, s: LoadSummary) -> str:
    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v * 1000:.1f} ms"

    lines = [
        f"{target_id}: {s.calls} calls at concurrency {s.concurrency} in {s.wall_s:.2f} s "
        f"= {s.throughput:.1f} calls/s; {s.retries} retries",
        f"latency (ok calls, final attempt): p50 {ms(s.p50_s)}, p95 {ms(s.p95_s)}, p99 {ms(s.p99_s)}",
        f"waiting for a slot (not in the latency): p50 {ms(s.wait_p50_s)}, p95 {ms(s.wait_p95_s)}, "
        f"max {ms(s.wait_max_s)}",
        "statuses: " + ", ".join(f"{k} {v} ({v / max(1, s.calls):.1%})" for k, v in s.statuses.items()),
        f"{'window':>15} {'calls':>7} {'calls/s':>9} {'error':>7} {'timeout':>8} {'refusal':>8} {'p50':>10}",
    ]
    for w in s.windows:
        lines.append(
            f"{w.start_s:6.2f}-{w.end_s:6.2f} s {w.calls:>7} {w.calls_per_s:>9.1f} "
            f"{w.shares.get('error', 0) + w.shares.get('invalid_output', 0):>7.1%} "
            f"{w.shares.get('timeout', 0):>8.1%} {w.shares.get('refusal', 0):>8.1%} {ms(w.p50_s):>10}"
        )
    return "\n".join(lines)
