"""A full ``rabench run`` with DIY targets against the fake provider over loopback:
one healthy, one flaky (429 then 503, then an answer), one slow (every attempt times
out), one broken (transport failures until the runner gives up). The outcomes show
the right statuses, attempt counts, answers from the labels, usage and cost."""

from __future__ import annotations

import tomllib
from importlib import resources

import msgspec
import pytest
from receipt_suite import make_suite
from diyfakes import KEYS

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile, load_suite_labels

N = 6
HEALTHY, FLAKY, SLOW, BROKEN = (
    "diy:openai:gpt-5",
    "diy:anthropic:claude-sonnet-4-5",
    "diy:gemini:gemini-2.5-flash",
    "diy:gateway:openai/gpt-5-mini",
)
PRICES = tomllib.loads(resources.files("rabench").joinpath("data", "prices-2026-11-29.toml").read_text())["models"]


def test_full_run_with_three_diy_targets_against_the_fake(tmp_path, monkeypatch, capsys):
    suite = make_suite(tmp_path / "suite", N)
    fast = Latency(dist="uniform", min_ms=1, max_ms=10)
    profile = Profile(
        seed=1,
        models={
            "gpt-5": ModelProfile(latency=fast),
            "claude-sonnet-4-5": ModelProfile(latency=fast, script=["429", "503"], retry_after="0"),
            "gemini-2.5-flash": ModelProfile(latency=Latency(ms=5000)),
            "openai/gpt-5-mini": ModelProfile(latency=fast, script=["429", "503", "429", "503"], retry_after="0"),
        },
    )
    config = tmp_path / "targets.toml"
    config.write_text(
        '[defaults]\ntimeout_s = 180\nprice_date = "2026-11-29"\n[providers.anthropic]\nconcurrency = 3\n'
    )
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "run"
    with BackgroundFakeProvider(profile, labels=load_suite_labels(suite)) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        code = main(
            [
                "run",
                "--suite",
                str(suite),
                "--out",
                str(out),
                "--config",
                str(config),
                "--timeout",
                "0.5",
                "--progress",
                "none",
                "--cache",
                str(tmp_path / "cache"),
                "--target",
                HEALTHY,
                "--target",
                FLAKY,
                "--target",
                SLOW,
                "--target",
                BROKEN,
            ]
        )
    # the slow and the broken target failed every call: the run says so and exits 1
    assert code == 1
    err = capsys.readouterr().err.splitlines()
    assert f"rabench: {SLOW}: {N} of {N} calls failed: no answer within # s (attempt #)" in err
    assert any(line.startswith(f"rabench: {BROKEN}: {N} of {N} calls failed: transport failure") for line in err)
    outcomes = [
        msgspec.json.decode(line, type=Outcome)
        for line in (out / "outcomes.jsonl").read_bytes().splitlines()
        if line.strip()
    ]
    by_target: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_target.setdefault(o.target, []).append(o)
    assert {t: len(v) for t, v in by_target.items()} == {HEALTHY: N, FLAKY: N, SLOW: N, BROKEN: N}

    labels = {f"c{i:03d}": 10 + i + 0.5 for i in range(N)}
    for o in by_target[HEALTHY]:
        assert (o.status, o.attempts) == ("ok", 1)
        assert o.verdict.fields.total == labels[o.case_id]  # the fake played a perfect model
        p = PRICES["openai/gpt-5"]
        assert o.usage.cost_usd == pytest.approx((1500 * p["input"] + 250 * p["output"]) / 1e6)
    for o in by_target[FLAKY]:
        assert (o.status, o.attempts) == ("ok", 3)  # 429, 503, answer
        assert o.verdict.fields.total == labels[o.case_id]
    for o in by_target[SLOW]:
        assert (o.status, o.attempts) == ("timeout", 1)  # timeouts are not retried
    for o in by_target[BROKEN]:
        assert (o.status, o.attempts) == ("error", 4)  # 1 + 3 retries, then given up
        assert "503" in o.error

    # what the server saw agrees with the attempt counts
    per_model = {}
    for r in fake.requests:
        per_model[r.model] = per_model.get(r.model, 0) + 1
    assert per_model == {"gpt-5": N, "claude-sonnet-4-5": 3 * N, "gemini-2.5-flash": N, "openai/gpt-5-mini": 4 * N}

    run_json = (out / "run.json").read_text()
    manifest = msgspec.json.decode(run_json)
    diy = [t for t in manifest["targets"] if t["kind"] == "diy"]
    assert len(diy) == 4 and {t["prompt_version"] for t in diy} == {"plain-v1"}
    assert {t["model"] for t in diy} == {"gpt-5", "claude-sonnet-4-5", "gemini-2.5-flash", "openai/gpt-5-mini"}
    for text in (run_json, (out / "outcomes.jsonl").read_text()):
        for key in KEYS.values():
            assert key not in text
