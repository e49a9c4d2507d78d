"""Price table: lookup by gateway id, direct id and alias; unknown is None, never 0."""

from __future__ import annotations

import pytest

from rabench.contracts.targets_config import parse_targets_config as C
from rabench.errors import UserError
from rabench.targets.diy import make_diy_target, self_cost_per_check
from rabench.targets.diy.prices import cost_usd, load_price_table


def test_gateway_direct_and_alias_ids_find_the_same_price():
    table = load_price_table(C({"defaults": {"price_date": "2026-11-29"}}))
    gw = table.lookup("gateway", "anthropic/claude-sonnet-4.5")
    direct = table.lookup("anthropic", "claude-sonnet-4-5")
    dated = table.lookup("anthropic", "claude-sonnet-4-5-20250929")
    assert gw == direct == dated and gw[1].input == 3.0
    assert table.lookup("openai", "gpt-5")[0] == "openai/gpt-5"
    assert table.lookup("gemini", "gemini-2.5-flash")[0] == "google/gemini-2.5-flash"
    assert table.lookup("openai-compatible", "llava") is None
    assert table.lookup("openai", "no-such-model") is None


def test_every_price_entry_has_a_source_and_date():
    table = load_price_table(C({}))
    assert table.models
    for key, p in table.models.items():
        assert p.source.startswith("https://") and p.date and p.input > 0 and p.output > 0, key


def test_cost_is_tokens_times_list_price_and_unknown_is_none():
    table = load_price_table(C({}))
    _, price = table.lookup("openai", "gpt-5")
    assert cost_usd(price, 1_000_000, 0) == price.input
    assert cost_usd(price, 2000, 500) == pytest.approx((2000 * 1.25 + 500 * 10.0) / 1e6)
    assert cost_usd(None, 2000, 500) is None


def test_a_price_date_before_every_table_gives_unknown_cost(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefgh")
    config = C({"defaults": {"price_date": "2020-01-01"}})
    assert load_price_table(config) is None
    target = make_diy_target("diy:openai:gpt-5", config)
    assert target.usage(1000, 100, "gpt-5").cost_usd is None


def test_price_file_override(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text(
        'price_date = "2026-01-01"\n[models."openai/x"]\ninput = 1.0\noutput = 2.0\n'
        'date = "2026-01-01"\nsource = "https://example.test"\n'
        "[self]\npack_price_usd = 49.0\npack_checks = 100\n"
    )
    config = C({"defaults": {"price_file": str(f)}})
    assert load_price_table(config).lookup("openai", "x")[1].output == 2.0
    assert self_cost_per_check(config) == pytest.approx(0.49)


def test_self_cost_unknown_until_configured_then_pack_price_per_check():
    assert self_cost_per_check(C({})) is None
    assert self_cost_per_check(C({"self": {"pack_price_usd": 20.0, "pack_checks": 50}})) == pytest.approx(0.4)


GOOD = (
    'price_date = "2026-01-01"\n[models."openai/x"]\ninput = 1.0\noutput = 2.0\n'
    'date = "2026-01-01"\nsource = "https://example.test"\n[self]\npack_price_usd = 49.0\npack_checks = 100\n'
)


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD.replace("input = 1.0", "inptu = 1.0"), "inptu"),  # an unknown key
        (GOOD.replace("input = 1.0", "input = -1.0"), ">= 0"),  # a negative price
        (GOOD.replace("pack_checks = 100", "pack_checks = 0"), "pack_checks"),
        (GOOD.replace('price_date = "2026-01-01"', 'price_date = "soon"'), "price_date"),
        (GOOD + "[models\n", "not valid TOML"),
        (None, "cannot read"),  # price_file names no file
    ],
)
def test_a_broken_price_table_is_an_error_never_an_unknown_cost(tmp_path, text, expected):
    """Before: the engine caught every error of the price table and priced self at None."""
    from rabench.engine.target import cost_per_check
    from rabench.targets.registry import make_target

    f = tmp_path / f"p{abs(hash(text))}.toml"
    if text is not None:
        f.write_text(text)
    config = C({"defaults": {"price_file": str(f)}, "self": {"cost_per_check_usd": 0.5}})
    for call in (
        lambda: self_cost_per_check(config),
        lambda: cost_per_check(config),
        lambda: make_target("self", config),
    ):
        with pytest.raises(UserError, match=expected) as e:
            call()
        assert "\n" not in str(e.value) and str(f) in str(e.value)


def test_the_config_fallback_applies_only_without_a_pack():
    assert (
        self_cost_per_check(C({"self": {"cost_per_check_usd": 0.25}, "defaults": {"price_date": "2020-01-01"}})) == 0.25
    )
