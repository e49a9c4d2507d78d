"""The fake provider: deterministic scripted behaviours, profiles, labels as right answers, CLI."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import urllib.request
from collections import Counter

import pytest
from receipt_suite import make_suite, receipt_png

from rabench.errors import UserError
from rabench.fakeprovider import (
    BUILTIN,
    BackgroundFakeProvider,
    FakeProvider,
    Latency,
    ModelProfile,
    Profile,
    load_profile,
    load_suite_labels,
)
from rabench.targets.base import CheckRequest
from rabench.targets.diy.gateway import read_model_prices
from rabench.contracts.targets_config import parse_targets_config as C
from rabench.targets.registry import make_target


@pytest.fixture
def anyio_backend():
    return "asyncio"


def draws(profile: Profile, model: str, images: int, per_image: int) -> list[str]:
    return [profile.choose(model, f"img{i}", n)[0] for i in range(images) for n in range(per_image)]


def test_behaviour_depends_on_seed_model_image_and_attempt_not_arrival_order():
    p = Profile(seed=3, default=ModelProfile(mix={"right": 1, "429": 1}))
    assert draws(p, "m", 30, 3) == draws(p, "m", 30, 3)
    forward = {(i, n): p.choose("m", f"img{i}", n)[0] for i in range(30) for n in range(3)}
    backward = {(i, n): p.choose("m", f"img{i}", n)[0] for i in reversed(range(30)) for n in range(3)}
    assert forward == backward
    other = Profile(seed=4, default=p.default)
    assert draws(other, "m", 30, 3) != draws(p, "m", 30, 3)


def test_script_first_then_weighted_mix():
    p = Profile(default=ModelProfile(script=["429", "503"], mix={"right": 3, "wrong": 1}))
    assert [p.choose("m", "x", n)[0] for n in range(2)] == ["429", "503"]
    counts = Counter(p.choose("m", f"i{i}", 2)[0] for i in range(2000))
    assert set(counts) == {"right", "wrong"}
    # share of "right" within 4 binomial standard deviations of 0.75
    assert abs(counts["right"] / 2000 - 0.75) < 4 * (0.75 * 0.25 / 2000) ** 0.5


def test_latency_distributions():
    import random

    rng = random.Random(0)
    assert Latency(ms=250).draw(rng) == 0.25
    u = [Latency(dist="uniform", min_ms=10, max_ms=20).draw(rng) for _ in range(500)]
    assert 0.010 <= min(u) and max(u) <= 0.020
    ln = sorted(Latency(dist="lognormal", median_ms=100, sigma=0.5).draw(rng) for _ in range(2001))
    assert 0.09 < ln[1000] < 0.11


def test_builtin_and_file_profiles(tmp_path):
    assert set(BUILTIN) >= {"healthy", "flaky", "slow", "chaos"}
    for name in BUILTIN:
        assert load_profile(name).name == name
    f = tmp_path / "p.toml"
    f.write_text(
        'seed = 9\n[default]\nmix = {right = 1}\n[models."flaky-1"]\nscript = ["429", "right"]\n'
        'retry_after = "0"\n[models."flaky-1".latency]\ndist = "uniform"\nmin_ms = 1\nmax_ms = 2\n'
    )
    p = load_profile(str(f))
    assert p.name == "p" and p.seed == 9 and p.for_model("flaky-1").script == ["429", "right"]
    assert p.for_model("other").script == []
    f.write_text("[default]\nmix = {rigth = 1}\n")
    with pytest.raises(UserError, match="rigth"):
        load_profile(str(f))
    with pytest.raises(UserError, match="nope"):
        load_profile("nope")


@pytest.mark.anyio
async def test_right_answers_come_from_the_suite_labels(tmp_path, monkeypatch):
    suite = make_suite(tmp_path / "suite", 3)
    labels = load_suite_labels(suite)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefghijk")
    async with FakeProvider(Profile(), labels=labels) as fake:
        for k, v in fake.env().items():
            monkeypatch.setenv(k, v)
        target = make_target("diy:openai:gpt-5", C({}))
        await target.open()
        verdicts = []
        for i in range(3):
            path = suite / f"r{i:03d}.png"
            verdicts.append(
                await target.check(
                    CheckRequest(
                        case_id=f"c{i}",
                        original=path,
                        media_type="image/png",
                        prepared=path,
                        prepared_media_type="image/png",
                    )
                )
            )
        await target.close()
    assert [v.fields.merchant for v in verdicts] == ["Shop 0", "Shop 1", "Shop 2"]
    assert [v.fields.total for v in verdicts] == [10.5, 11.5, 12.5]
    assert verdicts[0].fields.subtotal is None  # labelled "not shown"
    assert verdicts[2].risk > 0.5 > verdicts[0].risk  # the fake (c002) is flagged
    assert "total" in verdicts[2].reasons[0].fields


@pytest.mark.anyio
async def test_requests_without_key_or_image_are_refused_in_the_providers_format():
    async with FakeProvider(Profile()) as fake:
        import aiohttp

        async with aiohttp.ClientSession() as s:
            async with s.post(f"{fake.url}/v1/messages", json={"model": "m", "messages": []}) as r:
                assert r.status == 401
                assert (await r.json())["type"] == "error"
            async with s.post(
                f"{fake.url}/v1beta/models/m:generateContent", headers={"x-goog-api-key": "k"}, json={"contents": []}
            ) as r:
                assert r.status == 400
                assert (await r.json())["error"]["status"] == "INVALID_ARGUMENT"
    assert [r.behaviour for r in fake.requests] == ["401", "400"]


@pytest.mark.anyio
async def test_an_unrecorded_fake_keeps_no_request_log_but_still_scripts_by_attempt():
    # the CLI serves with record=False: a long load run must not grow a log nobody can read
    profile = Profile(
        models={"m": ModelProfile(script=["429", "right"], retry_after="0", latency=Latency(dist="fixed", ms=0))}
    )
    body = {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64," + base64.b64encode(receipt_png(1)).decode()},
                    }
                ],
            }
        ],
    }
    import aiohttp

    statuses = {}
    for record in (True, False):
        async with FakeProvider(profile, record=record) as fake, aiohttp.ClientSession() as s:
            got = []
            for _ in range(3):
                async with s.post(
                    f"{fake.url}/v1/chat/completions", json=body, headers={"Authorization": "Bearer k"}
                ) as r:
                    got.append(r.status)
            statuses[record] = got
            assert len(fake.requests) == (3 if record else 0)
    assert statuses[False] == statuses[True] == [429, 200, 200]


def test_gateway_model_list_with_prices_runs_in_a_background_thread():
    profile = Profile(prices={"openai/gpt-5": [1.25, 10.0]})
    with BackgroundFakeProvider(profile) as fake:
        with urllib.request.urlopen(f"{fake.url}/v1/models", timeout=10) as resp:
            payload = json.loads(resp.read())
    assert read_model_prices(payload) == {"openai/gpt-5": pytest.approx((1.25, 10.0))}


def test_cli_serves_until_stopped(tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rabench", "fake-provider", "--port", "0", "--profile", "healthy"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = proc.stdout.readline()
        url = first.split(" on ", 1)[1].split(" ", 1)[0]
        body = {
            "model": "gpt-5",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "hi"},
                        {
                            "type": "image_url",
                            "image_url": {"url": "data:image/png;base64," + base64.b64encode(receipt_png(1)).decode()},
                        },
                    ],
                }
            ],
        }
        req = urllib.request.Request(
            f"{url}/v1/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Authorization": "Bearer x", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            answer = json.loads(resp.read())
        assert answer["model"] == "gpt-5" and "total" in answer["choices"][0]["message"]["content"]
    finally:
        proc.terminate()
        proc.wait(10)


def test_cli_bad_profile_is_one_line():
    out = subprocess.run(
        [sys.executable, "-m", "rabench", "fake-provider", "--profile", "missing.toml"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr and "missing.toml" in out.stderr
