"""`rabench bench` runs DIY targets only when their key is set, and says which it skipped."""

from pathlib import Path

from rabench.cli.bench import available_targets
from rabench.contracts.targets_config import read_targets_config

CONFIG = read_targets_config(Path(__file__).parents[2] / "bench" / "targets.toml")


def test_diy_targets_without_a_key_are_named_as_skipped(monkeypatch):
    monkeypatch.delenv("AI_GATEWAY_API_KEY", raising=False)
    run, skipped = available_targets(CONFIG, None)
    assert run == ["self"]
    assert skipped and all("AI_GATEWAY_API_KEY is not set" in s for s in skipped)
    assert [s.split(":", 3)[1] for s in skipped] == ["gateway"] * len(skipped)


def test_a_set_key_or_a_keyless_provider_runs(monkeypatch):
    monkeypatch.setenv("AI_GATEWAY_API_KEY", "k")
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    wanted = ["self", "diy:gateway:openai/gpt-5", "diy:openai-compatible:local", "diy:anthropic:claude"]
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    run, skipped = available_targets(CONFIG, wanted)
    assert run == wanted[:3]
    assert skipped == ["diy:anthropic:claude: skipped, ANTHROPIC_API_KEY is not set"]


def test_bench_refuses_a_misspelt_key_in_its_config(tmp_path, capsys):
    """Before: `rabench bench` read targets.toml with tomllib and ignored what it did not know."""
    from rabench.cli.main import main

    bad = tmp_path / "targets.toml"
    bad.write_text("[defaults]\nconcurency = 2\n")
    assert main(["bench", "--config", str(bad), "--run-id", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "concurency" in err and "did you mean concurrency" in err and "\n" not in err, err
