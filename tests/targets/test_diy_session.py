"""A DIY target's HTTP session (issue 19, the target per call): no aiohttp timer per request, yet a
call slower than its caller's timeout still ends as ``timeout`` at that timeout, through the runner
and through ``rabench targets check``; the pool is bounded by the provider's concurrency."""

from __future__ import annotations

import time

import pytest

from rabench.contracts.targets_config import parse_targets_config as C
from rabench.fakeprovider import Latency, ModelProfile, Profile
from rabench.run.config import Limits
from rabench.run.execute import call_target
from rabench.run.limits import ProviderGate
from rabench.run.retry import RetryPolicy
from rabench.targets.registry import make_target

pytestmark = pytest.mark.anyio


async def test_session_has_no_total_timer_but_keeps_the_connect_timeout_and_the_pool_limit(keys):
    target = make_target("diy:openai:gpt-5", C({"providers": {"openai": {"concurrency": 7, "connect_timeout_s": 4.5}}}))
    await target.open()
    try:
        session = target._session  # type: ignore[attr-defined]
        assert session.timeout.total is None  # the caller's timeout governs: no second timer per request
        assert session.timeout.sock_connect == 4.5
        assert session.connector.limit == 7  # one base URL: the pool is the provider's concurrency
    finally:
        await target.close()


async def test_a_slow_answer_is_a_timeout_at_the_callers_timeout(keys, receipt, fake_server):
    profile = Profile(default=ModelProfile(latency=Latency(ms=5000)))
    async with fake_server(profile):
        target = make_target("diy:openai:gpt-5", C({}))
        await target.open()
        try:
            t0 = time.monotonic()
            res = await call_target(
                target, receipt, ProviderGate("openai", Limits(concurrency=2)), timeout_s=0.3, policy=RetryPolicy()
            )
            took = time.monotonic() - t0
        finally:
            await target.close()
    assert (res.status, res.attempts) == ("timeout", 1)
    assert 0.25 < took < 2.0  # at the caller's 0.3 s, not the server's 5 s


def test_targets_check_times_out_a_slow_answer(keys, monkeypatch, capsys):
    from rabench.cli.main import main
    from rabench.fakeprovider import BackgroundFakeProvider

    profile = Profile(default=ModelProfile(latency=Latency(ms=5000)))
    with BackgroundFakeProvider(profile) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        t0 = time.monotonic()
        code = main(["targets", "check", "--target", "diy:openai:gpt-5", "--timeout", "0.5"])
        took = time.monotonic() - t0
    out = capsys.readouterr()
    assert code != 0
    assert "timeout" in (out.out + out.err).lower()
    assert took < 4.0  # the check gave up at its timeout, not after the server's 5 s
