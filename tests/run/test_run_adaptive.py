"""Adaptive concurrency: the AIMD state machine (pure, no clock), the gate that applies it,
and an end-to-end run against a fake provider that answers 429 above a concurrency limit."""

from __future__ import annotations

import asyncio

import msgspec
from receipt_suite import make_suite

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile
from rabench.run.adaptive import AdaptiveGate, AimdPolicy, on_success, on_throttle, start
from rabench.run.config import Limits

P = AimdPolicy()


def test_starts_at_the_cap_and_never_grows_past_it():
    s = start(16)
    assert s.slots == 16
    for i in range(100):
        s = on_success(s, P, 0.1, now=i)
    assert s.limit == 16.0 and s.slots == 16


def test_throttle_halves_once_per_cooldown_and_learns_a_ceiling():
    s = start(32)
    s = on_throttle(s, P, now=10.0, in_flight=20)
    assert (s.slots, s.ceiling, s.decreases) == (16, 19.0, 1)
    s = on_throttle(s, P, now=10.01, in_flight=20)  # the same overload's other 429s: within the cooldown
    s = on_throttle(s, P, now=10.02, in_flight=20)
    assert (s.slots, s.ceiling, s.throttles, s.decreases) == (16, 19.0, 3, 1)
    s = on_throttle(s, P, now=11.0, in_flight=5)  # 5 out were too many: 4 is the ceiling
    assert (s.slots, s.ceiling, s.decreases) == (4, 4.0, 2)


def test_grows_fast_back_to_the_ceiling_then_probes_slowly_up_to_the_cap():
    s = msgspec.structs.replace(start(32), limit=2.0, ceiling=6.0)
    for i in range(4):  # below the ceiling: one slot per success
        s = on_success(s, P, 0.02, now=float(i))
    assert s.limit == 6.0
    for i in range(6 * 4):  # above it: one slot per `probe_rounds` rounds of `limit` successes
        s = on_success(s, P, 0.02, now=10.0 + i)
    assert 6.9 < s.limit < 7.0
    for i in range(20000):
        s = on_success(s, P, 0.02, now=100.0 + i)
    assert s.limit == 32.0 and s.slots == 32  # never past the cap


def test_never_below_the_minimum():
    s = start(4)
    for i in range(20):
        s = on_throttle(s, P, now=float(i))
    assert s.limit == P.min_limit and s.slots == 1


def test_cooldown_follows_the_smoothed_latency():
    s = start(16)
    for i in range(5):
        s = on_success(s, P, 2.0, now=float(i))  # slow calls: a 2 s round trip
    s = on_throttle(s, P, now=100.0)
    s = on_throttle(s, P, now=101.0)  # 1 s later: still answers to calls sent before the decrease
    assert s.decreases == 1
    s = on_throttle(s, P, now=102.5)
    assert s.decreases == 2


def test_rising_latency_shrinks_after_warmup():
    s = start(16)
    for i in range(P.warmup + 5):
        s = on_success(s, P, 0.05, now=float(i))
    assert s.slots == 16 and s.decreases == 0
    t = 100.0
    while s.decreases == 0 and t < 200:
        s = on_success(s, P, 1.0, now=t)  # the provider starts queueing: 20x the latency
        t += 1.0
    assert s.decreases == 1 and s.slots == 8 and s.ceiling == 15.0


def test_gate_grants_at_most_the_live_limit():
    async def main_() -> tuple[list[tuple[int, int]], int]:
        gate = AdaptiveGate("p", Limits(concurrency=8))
        seen: list[tuple[int, int]] = []  # (calls inside, the limit) at each entry

        async def one(throttle: bool) -> None:
            async with gate:
                seen.append((gate.in_flight, gate.limit))
                await asyncio.sleep(0.01)
                gate.observe(0.01, 429 if throttle else None)

        await asyncio.gather(*(one(True) for _ in range(8)))  # one overload: halve once
        assert gate.limit == 4 and gate.state.decreases == 1
        seen.clear()
        await asyncio.gather(*(one(False) for _ in range(40)))
        return seen, gate.limit

    seen, limit = asyncio.run(main_())
    assert all(inside <= lim for inside, lim in seen)
    assert max(inside for inside, _ in seen[:4]) == 4  # the first wave after the halving
    assert limit == 8  # 40 successes grew it back to the cap (L^2 grows by 2 a success)


def _outcomes(path):
    return [msgspec.json.decode(line, type=Outcome) for line in path.read_bytes().splitlines() if line.strip()]


def test_end_to_end_against_a_provider_limiting_concurrency(tmp_path, monkeypatch, capsys):
    """The fake answers 429 (no Retry-After) whenever 4 calls are already in flight; the run is
    configured for 24. With the adaptive gate the limit comes down to what the provider takes (the
    ceiling it learns is exactly 4), fewer attempts are refused than with the fixed cap, every unit
    is ok, and the live limit is in the progress line."""
    n = 120
    suite = make_suite(tmp_path / "suite", n)
    config = tmp_path / "targets.toml"
    config.write_text('[defaults]\nprice_date = "2026-11-29"\n[providers.openai]\nconcurrency = 24\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai-0123456789")
    # 100 ms a call, so that the provider, not this loaded test machine, is what limits the rate
    profile = Profile(default=ModelProfile(latency=Latency(ms=100), max_in_flight=4, retry_after=None))
    throttled = {}
    # prepare every file first, so that both runs start calls as fast as the gate lets them
    assert (
        main(
            [
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp_path / "warm"),
                "--target",
                "null",
                "--progress",
                "none",
                "--cache",
                str(tmp_path / "cache"),
            ]
        )
        == 0
    )
    for adaptive in (False, True):
        out = tmp_path / f"run-{adaptive}"
        args = [
            "run",
            "--suite",
            str(suite),
            "--out",
            str(out),
            "--config",
            str(config),
            "--progress",
            "plain",
            "--log-every",
            "0.2",
            "--cache",
            str(tmp_path / "cache"),
            "--target",
            "diy:openai:gpt-5",
        ]
        with BackgroundFakeProvider(profile) as fake:
            for name, value in fake.env().items():
                monkeypatch.setenv(name, value)
            assert main(args + (["--adaptive-concurrency"] if adaptive else [])) == 0
            throttled[adaptive] = sum(r.behaviour == "429" for r in fake.requests)
        got = _outcomes(out / "outcomes.jsonl")
        assert len(got) == n
        captured = capsys.readouterr()
        if adaptive:
            assert all(o.status == "ok" for o in got)
            assert ", concurrency " in captured.err  # the live limit in the progress line
            assert "openai: adaptive concurrency " in captured.out
            assert ", ceiling 4 (" in captured.out  # learned what the provider takes
    assert throttled[True] < throttled[False], throttled
