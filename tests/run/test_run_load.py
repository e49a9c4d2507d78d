"""`rabench load`: fixed concurrency on the wire, right percentiles, error shares per time window."""

import json
import random
import statistics

import anyio
import numpy as np

from rabench.cli.main import main
from rabench.run.load import drive, summarise, tiny_request
from rabench.run.retry import RetryPolicy
from runfakes import HttpTarget, LoopbackServer


def _slow_percentile(values, q):
    """Linear interpolation between closest ranks, written out."""
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def test_summary_matches_a_slow_reference():
    rng = random.Random(3)
    n = 500
    ends = sorted(rng.uniform(0, 10) for _ in range(n))
    lat = [rng.expovariate(10) for _ in range(n)]
    statuses = [rng.choice(["ok"] * 8 + ["error", "timeout"]) for _ in range(n)]
    s = summarise(np.array(ends), np.array(lat), statuses, concurrency=4, wall_s=10.0, windows=5)
    ok_lat = [x for x, st in zip(lat, statuses) if st == "ok"]
    for q, got in ((50, s.p50_s), (95, s.p95_s), (99, s.p99_s)):
        assert abs(got - _slow_percentile(ok_lat, q)) < 1e-12
    assert s.statuses == {k: statuses.count(k) for k in set(statuses)}
    assert s.throughput == n / 10.0
    for k, w in enumerate(s.windows):
        inside = [i for i in range(n) if 2 * k <= ends[i] < 2 * (k + 1)]
        assert w.calls == len(inside) and w.calls_per_s == len(inside) / 2
        errs = sum(statuses[i] == "error" for i in inside)
        assert abs(w.shares.get("error", 0) - errs / len(inside)) < 1e-12
        assert w.p50_s == statistics.median([lat[i] for i in inside if statuses[i] == "ok"])


def test_load_holds_the_concurrency_on_a_real_server(tmp_path):
    def handler(body, hit):
        return (503, {}, {}) if hit % 10 == 0 else (200, {}, {"risk": 0.1})

    with LoopbackServer(handler, delay_s=0.01) as server:
        target = HttpTarget(server.url)

        async def go():
            await target.open()
            try:
                return await drive(
                    target,
                    [tiny_request(tmp_path)],
                    concurrency=5,
                    calls=60,
                    timeout_s=5,
                    policy=RetryPolicy(max_retries=0),
                )
            finally:
                await target.close()

        s = anyio.run(go)
        assert server.max_active == 5
    assert s.calls == 60 and s.statuses["ok"] + s.statuses.get("error", 0) == 60
    assert s.statuses.get("error") == 6  # every 10th hit answered 503, not retried with --retries 0
    assert 0.009 < s.p50_s < 0.5


def test_cli_prints_percentiles_and_windows(capsys):
    assert main(["load", "--target", "null:slow=0.01", "--concurrency", "4", "--calls", "40", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["calls"] == 40 and s["statuses"] == {"ok": 40} and s["concurrency"] == 4
    assert s["p50_s"] >= 0.01 and s["throughput"] <= 4 / 0.01 * 1.05
    assert main(["load", "--target", "null", "--calls", "20"]) == 0
    out = capsys.readouterr().out
    assert "p50" in out and "p99" in out and "calls/s" in out
