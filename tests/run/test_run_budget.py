"""The spending cap: the pure Budget, then ``rabench run --max-cost`` against the fake provider
(stops, exits 1 with one line, resumes with a higher cap), and ``--dry-run``."""

from __future__ import annotations

import tomllib
from importlib import resources

import msgspec
import pytest
from receipt_suite import make_suite

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile
from rabench.run.budget import Budget

KEYS = {"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789"}
PRICE = tomllib.loads(resources.files("rabench").joinpath("data", "prices-2026-11-29.toml").read_text())["models"][
    "openai/gpt-5"
]
CALL_USD = (1500 * PRICE["input"] + 250 * PRICE["output"]) / 1e6  # the fake's default usage


def test_budget_admits_until_spent_plus_in_flight_would_pass_the_cap():
    b = Budget(total=1.0)
    assert b.admit("t", 0.4) == "go" and b.admit("t", 0.4) == "go"
    assert b.admit("t", 0.4) == "wait"  # 0 spent + 0.8 in flight + 0.4 > 1.0, but the 0.8 is an estimate
    b.settle("t", 0.4, 0.1)
    assert b.admit("t", 0.4) == "go"  # 0.1 spent + 0.4 + 0.4 in flight
    b.settle("t", 0.4, 0.5)
    b.settle("t", 0.4, 0.3)
    assert b.spent() == pytest.approx(0.9) and b.message() is None
    assert b.admit("t", 0.3) == "stop"  # 0.9 spent + 0.3 > 1.0: nothing in flight can change that
    assert b.stopped("t") and b.stopped("other")  # the run-wide cap stops every target
    assert b.admit("t", 0.01) == "stop"  # once stopped, stays stopped (no trickle of cheap calls)
    assert b.refused() == 2
    msg = b.message()
    assert msg is not None and "\n" not in msg
    assert "spent $0.9000 of --max-cost $1.0000 ($0.1000 left)" in msg and "2 units not started" in msg


def test_budget_mean_replaces_the_a_priori_estimate_and_earlier_costs_count():
    b = Budget(per_target={"a": 1.0})
    assert b.estimate("a", 0.5) == 0.5  # nothing recorded yet: the target's own estimate
    b.record_earlier("a", 0.3)  # a resumed run's outcome
    b.record_earlier("a", None)  # unknown cost: not in the mean
    assert b.estimate("a", 0.5) == pytest.approx(0.3)
    assert b.admit("a", 0.3) == "go" and b.admit("a", 0.3) == "go"
    assert b.admit("a", 0.3) == "wait"  # 0.3 + 0.6 in flight + 0.3 > 1.0
    b.settle("a", 0.3, 0.4)
    assert b.admit("a", 0.35) == "stop"  # 0.7 spent + 0.35 > 1.0
    assert b.admit("b", 5.0) == "go"  # another target has no cap
    assert not b.stopped("b")
    assert "a: spent $0.7000 of its max_cost $1.0000 ($0.3000 left); 1 unit not started" in b.message()


def _outcomes(path):
    return [msgspec.json.decode(line, type=Outcome) for line in path.read_bytes().splitlines() if line.strip()]


def test_max_cost_stops_the_run_and_resume_with_a_higher_cap_finishes(tmp_path, monkeypatch, capsys):
    n = 12
    suite = make_suite(tmp_path / "suite", n)
    config = tmp_path / "targets.toml"
    config.write_text('[defaults]\nprice_date = "2026-11-29"\n[providers.openai]\nconcurrency = 2\n')
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    profile = Profile(default=ModelProfile(latency=Latency(ms=20)))
    out = tmp_path / "run"
    cap = 4.5 * CALL_USD
    base = [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--config",
        str(config),
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
        "--target",
        "diy:openai:gpt-5",
    ]
    with BackgroundFakeProvider(profile) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        assert main(base + ["--max-cost", f"{cap:.10f}"]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        first = _outcomes(out / "outcomes.jsonl")
        spent = sum(o.usage.cost_usd for o in first)
        assert 1 <= len(first) < n
        assert spent <= cap + 1e-12  # never past the cap
        assert len(fake.requests) == len(first)  # units not started were never sent
        assert len(err) == 1 and "spending cap reached" in err[0]
        assert f"spent ${spent:.4f}" in err[0] and f"{n - len(first)} units not started" in err[0]
        assert msgspec.json.decode((out / "run.json").read_bytes()).get("finished_at") is None

        assert main(base[: base.index("--target")] + ["--resume", "--max-cost", "1"]) == 0
    final = _outcomes(out / "outcomes.jsonl")
    assert sorted(o.case_id for o in final) == [f"c{i:03d}" for i in range(n)]
    assert all(o.status == "ok" for o in final)


def test_per_target_max_cost_in_the_config_and_unpriced_models_refused(tmp_path, monkeypatch, capsys):
    suite = make_suite(tmp_path / "suite", 6)
    config = tmp_path / "targets.toml"
    config.write_text(
        '[defaults]\nprice_date = "2026-11-29"\n[providers.openai]\nconcurrency = 1\n'
        f'[targets."diy:openai:gpt-5"]\nmax_cost = {2.5 * CALL_USD:.10f}\n'
    )
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "run"
    with BackgroundFakeProvider(Profile()) as fake:
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
                "--progress",
                "none",
                "--cache",
                str(tmp_path / "cache"),
                "--target",
                "diy:openai:gpt-5",
                "--target",
                "null",
            ]
        )
        assert code == 1
        got = _outcomes(out / "outcomes.jsonl")
        assert sum(o.target == "null" for o in got) == 6  # an uncapped target runs to the end
        assert sum(o.target == "diy:openai:gpt-5" for o in got) == 2
        assert "diy:openai:gpt-5: spent $" in capsys.readouterr().err
        code = main(
            [
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp_path / "run2"),
                "--config",
                str(config),
                "--progress",
                "none",
                "--max-cost",
                "1",
                "--target",
                "diy:openai:no-such-model",
            ]
        )
    assert code == 2
    assert "no list price" in capsys.readouterr().err
    assert not (tmp_path / "run2").exists()


def test_dry_run_prints_the_estimate_per_target_and_sends_nothing(tmp_path, monkeypatch, capsys):
    suite = make_suite(tmp_path / "suite", 5)
    config = tmp_path / "targets.toml"
    config.write_text('[defaults]\nprice_date = "2026-11-29"\n')
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    with BackgroundFakeProvider(Profile()) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        code = main(
            [
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp_path / "run"),
                "--config",
                str(config),
                "--dry-run",
                "--repeat",
                "2",
                "--target",
                "diy:openai:gpt-5",
                "--target",
                "null",
                "--target",
                "diy:anthropic:claude-sonnet-4-5",
            ]
        )
        assert fake.requests == []
    assert code == 0
    assert not (tmp_path / "run").exists()
    lines = capsys.readouterr().out.splitlines()
    gpt = next(line for line in lines if line.startswith("diy:openai:gpt-5"))
    cols = gpt.split()
    assert cols[1] == "10"  # 5 cases x 2 repetitions
    assert float(cols[3].lstrip("$")) > 0 and float(cols[4].lstrip("$")) > float(cols[3].lstrip("$"))
    assert "no estimate" in next(line for line in lines if line.startswith("null"))
    assert any(line.startswith("total") for line in lines)


def test_dry_run_on_resume_counts_only_the_missing_units(tmp_path, monkeypatch, capsys):
    suite = make_suite(tmp_path / "suite", 6)
    config = tmp_path / "targets.toml"
    config.write_text('[defaults]\nprice_date = "2026-11-29"\n[providers.openai]\nconcurrency = 1\n')
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "run"
    base = ["run", "--out", str(out), "--config", str(config), "--progress", "none", "--cache", str(tmp_path / "cache")]
    with BackgroundFakeProvider(Profile()) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        assert (
            main(base + ["--suite", str(suite), "--target", "diy:openai:gpt-5", "--max-cost", f"{3.5 * CALL_USD:.10f}"])
            == 1
        )
        done = len(_outcomes(out / "outcomes.jsonl"))
        sent = len(fake.requests)
        capsys.readouterr()
        assert main(base + ["--resume", "--dry-run"]) == 0
        assert len(fake.requests) == sent  # nothing sent
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("diy:openai:gpt-5"))
    assert 0 < done < 6 and row.split()[1] == str(6 - done)
