"""Provider settings: defaults, bench/targets.toml, env overrides, keys."""

from __future__ import annotations

import pytest

from rabench.contracts.targets_config import parse_targets_config as C
from rabench.errors import UserError
from rabench.targets.diy import make_diy_target
from rabench.targets.diy.config import provider_names, provider_settings
from rabench.targets.registry import make_target


def test_base_url_from_config_then_env(monkeypatch):
    config = C({"providers": {"anthropic": {"base_url": "http://proxy.test:9/", "concurrency": 3}}})
    s = provider_settings("anthropic", config)
    assert s.base_url == "http://proxy.test:9" and s.concurrency == 3
    monkeypatch.setenv("RABENCH_ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
    assert provider_settings("anthropic", config).base_url == "http://127.0.0.1:1"


def test_pool_size_follows_the_runners_concurrency_fallback():
    assert provider_settings("openai", C({"defaults": {"concurrency": 5}})).concurrency == 5
    assert provider_settings("openai", C({})).concurrency == 8


def test_custom_openai_compatible_provider(monkeypatch):
    config = C(
        {
            "providers": {"ollama": {"wire": "openai-compatible", "base_url": "http://127.0.0.1:11434/v1"}},
            "defaults": {},
        }
    )
    assert "ollama" in provider_names(config)
    t = make_target("diy:ollama:llava:13b", config)  # model ids may contain ':'
    assert t.info.model == "llava:13b" and t.info.provider == "ollama"
    assert t.info.settings["price_key"] is None  # local model: cost unknown


def test_runner_only_provider_tables_are_not_diy_providers():
    config = C({"providers": {"null": {"concurrency": 256}, "self": {"concurrency": 2}}})
    assert "null" not in provider_names(config) and "self" not in provider_names(config)


def test_missing_key_is_one_clear_line(monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(UserError, match="GEMINI_API_KEY"):
        make_diy_target("diy:gemini:gemini-2.5-flash", C({}))


def test_unknown_provider_and_bad_settings(monkeypatch):
    with pytest.raises(UserError, match="wire"):
        make_target("diy:nosuch:model", C({}))
    with pytest.raises(UserError, match="base_url"):
        provider_settings("openai", C({"providers": {"openai": {"base_url": "ftp://x"}}}))


def test_target_info_is_pinned_plain_and_keyless(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-never-appear-123")
    t = make_diy_target("diy:openai:gpt-5", C({"providers": {"openai": {"base_url": "https://u:pw@api.test/v1"}}}))
    info = t.info
    assert info.kind == "diy" and info.model == "gpt-5" and info.prompt_version == "plain-v1"
    assert not (info.capabilities.checks or info.capabilities.memory or info.capabilities.proofs)
    text = repr(info) + repr(t)
    assert "sk-should-never-appear-123" not in text and "pw@" not in text
