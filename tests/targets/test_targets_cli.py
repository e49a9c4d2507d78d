"""``rabench targets list|check`` against the fake provider: the opt-in live check, keys never shown."""

from __future__ import annotations

import pytest
from diyfakes import KEYS

from rabench.cli.main import main
from rabench.fakeprovider import BackgroundFakeProvider, ModelProfile, Profile


@pytest.fixture
def no_config(tmp_path, monkeypatch):
    cfg = tmp_path / "targets.toml"
    cfg.write_text('[defaults]\ntimeout_s = 30\nprice_date = "2026-11-29"\n')
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    return str(cfg)


def test_list_says_whether_keys_are_set_never_their_value(no_config, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["OPENAI_API_KEY"])
    assert main(["targets", "list", "--config", no_config]) == 0
    out = capsys.readouterr().out
    assert "OPENAI_API_KEY (set)" in out and "ANTHROPIC_API_KEY (unset)" in out
    assert KEYS["OPENAI_API_KEY"] not in out
    assert "prices-2026-11-29.toml" in out


def test_check_reports_model_latency_and_price_and_skips_targets_without_keys(no_config, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["ANTHROPIC_API_KEY"])
    monkeypatch.setenv("AI_GATEWAY_API_KEY", KEYS["AI_GATEWAY_API_KEY"])
    profile = Profile(
        prices={"openai/gpt-5-mini": [0.25, 2.0], "openai/gpt-5": [1.5, 10.0]},
        models={"broken": ModelProfile(script=["404"])},
    )
    with BackgroundFakeProvider(profile) as fake:
        for k, v in fake.env().items():
            monkeypatch.setenv(k, v)
        code = main(["targets", "check", "--config", no_config, "--prices"])
        out = capsys.readouterr().out
        assert code == 0
        assert "diy:openai:gpt-5-mini: skipped" in out and "OPENAI_API_KEY unset" in out
        assert "diy:anthropic:claude-haiku-4-5: ok" in out and "model=claude-haiku-4-5" in out
        assert "anthropic/claude-haiku-4.5 in $1.0/M out $5.0/M" in out and "latency_s=" in out
        assert "diy:gateway:openai/gpt-5-mini: ok" in out
        # price comparison against the gateway's /v1/models
        assert "openai/gpt-5: table 1.25/10.0, gateway 1.5/10  <- differs" in out
        assert "openai/gpt-5-mini: table 0.25/2.0, gateway 0.25/2" in out
        assert KEYS["ANTHROPIC_API_KEY"] not in out and KEYS["AI_GATEWAY_API_KEY"] not in out
        # an unreachable model fails the check (exit 1)
        code = main(["targets", "check", "--config", no_config, "--target", "diy:anthropic:broken"])
        assert code == 1 and "diy:anthropic:broken: error" in capsys.readouterr().out
    assert {r.wire for r in fake.requests} == {"anthropic", "openai"}


def test_check_asks_the_models_the_bench_configuration_names(tmp_path, monkeypatch, capsys):
    """Issue 32, defect 7: `targets check` asked gpt-5-mini, not the models the config names."""
    cfg = tmp_path / "targets.toml"
    cfg.write_text(
        '[defaults]\ntimeout_s = 30\nprice_date = "2026-11-29"\n'
        '[bench]\ntargets = ["self", "diy:anthropic:claude-sonnet-4-5", "diy:openai:gpt-4o"]\n'
    )
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["ANTHROPIC_API_KEY"])
    with BackgroundFakeProvider(Profile()) as fake:
        for k, v in fake.env().items():
            monkeypatch.setenv(k, v)
        code = main(["targets", "check", "--config", str(cfg)])
    out = capsys.readouterr().out
    assert code == 0
    assert [line.split(":", 3)[:3] for line in out.splitlines()] == [
        ["diy", "anthropic", "claude-sonnet-4-5"],
        ["diy", "openai", "gpt-4o"],
    ]
    assert "diy:anthropic:claude-sonnet-4-5: ok" in out and "diy:openai:gpt-4o: skipped" in out
    assert "mini" not in out and "haiku" not in out
    assert [r.model for r in fake.requests] == ["claude-sonnet-4-5"]
