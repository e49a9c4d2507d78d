"""Per-provider limits hold on the wire: measured request rate and calls in flight."""

from pathlib import Path

import pytest

from rabench.errors import UserError
from rabench.contracts import TargetsConfig
from rabench.run.config import Limits, load_targets_config, parse_overrides, parse_targets_config, provider_limits
from runfakes import HttpTarget, LoopbackServer, run_fake
from runsuite import make_suite


def _ok(body, hit):
    return 200, {}, {"risk": 0.1}


def test_concurrency_cap_is_the_most_requests_the_server_ever_serves_at_once(tmp_path):
    suite = make_suite(tmp_path / "s", 40, distinct_files=4)
    with LoopbackServer(_ok, delay_s=0.02) as server:
        summary = run_fake(suite, tmp_path / "r", [HttpTarget(server.url)], concurrency=3)
        assert server.max_active == 3
        assert len(server.arrivals) == 40
    assert summary.max_in_flight == {"loopback": 3}


def test_two_targets_of_one_provider_share_its_cap(tmp_path):
    suite = make_suite(tmp_path / "s", 30, distinct_files=3)
    with LoopbackServer(_ok, delay_s=0.02) as server:
        targets = [HttpTarget(server.url, tid="a"), HttpTarget(server.url, tid="b")]
        run_fake(suite, tmp_path / "r", targets, concurrency=4)
        assert server.max_active == 4
        assert len(server.arrivals) == 60


def test_requests_per_minute_hold_over_every_window(tmp_path):
    rpm = 1200  # 20 per second, bursts of at most 20
    n = 50
    suite = make_suite(tmp_path / "s", n, distinct_files=5)
    target = HttpTarget("", tid="http-fake")
    with LoopbackServer(_ok) as server:
        target.url = server.url
        run_fake(suite, tmp_path / "r", [target], concurrency=50, rpm=rpm)
        assert len(server.arrivals) == n
    # Stamped in the runner's own event loop as each call leaves the gate: the server thread's
    # arrival stamps bunch up when the machine is loaded (a busy thread stamps several late at once).
    arrivals = sorted(target.sent)
    assert len(arrivals) == n
    rate, burst = rpm / 60, 20
    span = arrivals[-1] - arrivals[0]
    assert span >= (n - burst) / rate * 0.9  # could not have been faster than the limit
    for i in range(n):  # any window holds at most burst + rate * width requests
        for j in range(i + 1, n):
            assert (
                j - i + 1 <= burst + rate * (arrivals[j] - arrivals[i]) + 2
            )  # slack: a stamp taken a step after its grant


def test_limits_come_from_flags_then_provider_table_then_defaults(tmp_path):
    toml = tmp_path / "targets.toml"
    toml.write_text("[defaults]\nconcurrency = 5\nrpm = 100\n[providers.openai]\nrpm = 500\nconcurrency = 16\n")
    config = load_targets_config(toml)
    assert provider_limits(config, "openai") == Limits(concurrency=16, rpm=500)
    assert provider_limits(config, "gemini") == Limits(concurrency=5, rpm=100)
    flags = parse_overrides(["openai=7"], "--concurrency")
    assert provider_limits(config, "openai", concurrency=flags) == Limits(concurrency=7, rpm=500)
    assert provider_limits(config, "openai", rpm={"openai": 0}).rpm is None
    assert provider_limits(TargetsConfig(), "self") == Limits(concurrency=8, rpm=None)


@pytest.mark.parametrize("bad", ["openai", "openai=x", "=3", "openai=-1"])
def test_bad_override_is_one_clear_line(bad):
    with pytest.raises(UserError) as e:
        parse_overrides([bad], "--rpm")
    assert "\n" not in str(e.value) and "--rpm" in str(e.value)


def test_the_committed_config_parses():
    config = load_targets_config(Path(__file__).resolve().parents[2] / "bench" / "targets.toml")
    assert provider_limits(config, "self").concurrency >= 1


def test_cli_overrides_reach_the_targets_config_too():
    from rabench.run.config import with_overrides

    config = parse_targets_config(
        {"defaults": {"timeout_s": 60}, "providers": {"openai": {"base_url": "u", "concurrency": 8}}}
    )
    merged = with_overrides(config, {"gemini": 60.0}, {"openai": 3.0})
    assert (merged.providers["openai"].base_url, merged.providers["openai"].concurrency) == ("u", 3)
    assert merged.providers["gemini"].rpm == 60.0 and merged.providers["gemini"].concurrency is None
    assert config.providers["openai"].concurrency == 8  # the original is untouched
    assert provider_limits(merged, "openai") == Limits(concurrency=3, rpm=None)


def test_spare_workers_wait_while_every_slot_is_busy(tmp_path, monkeypatch):
    """One worker per slot runs; the spares start only for a slot no worker holds or waits for
    (a spare queued at the gate would cost every call a hand-over of its slot)."""
    import asyncio

    from rabench.contracts import Verdict
    from rabench.run import runner
    from runfakes import FakeTarget

    suite = make_suite(tmp_path / "s", 40)
    units = {"now": 0, "most": 0}
    one = runner.TargetRun._one

    async def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        units["now"] += 1
        units["most"] = max(units["most"], units["now"])
        try:
            await one(self, *args, **kwargs)
        finally:
            units["now"] -= 1

    monkeypatch.setattr(runner.TargetRun, "_one", counted)

    async def busy(request, attempt):
        await asyncio.sleep(0.002)
        return Verdict()

    run_fake(suite, tmp_path / "warm", [FakeTarget(behaviour=busy)], concurrency=4)  # prepares the files
    units["most"] = 0
    run_fake(suite, tmp_path / "r", [FakeTarget(behaviour=busy)], concurrency=4, repetitions=3)
    assert units["most"] == 4  # 120 units, never a fifth started while the 4 slots were busy

    # a slot left idle by a worker backing off is filled by a spare:
    # test_run_retries.py::test_a_backing_off_call_does_not_hold_the_providers_slot
