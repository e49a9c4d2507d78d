"""Issue 32 defect 1: a run whose every call failed exits 1 naming the target and the cause,
prints the top errors per target, and a provider that is down stops being sent to (breaker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rabench.cli.main import main
from rabench.run.breaker import BREAKER, TRIP_AFTER
from rabench.run.failures import failure_causes, normalise
from rabench.run.outcomes import OUTCOMES, read_outcomes, scan_done

ROOT = Path(__file__).resolve().parents[2]


def test_same_cause_other_port_groups():
    a = normalise("Cannot connect to host 127.0.0.1:1 ssl:default [Connect call failed ('127.0.0.1', 1)]")
    b = normalise("Cannot connect to host 127.0.0.1:8443 ssl:default [Connect call failed ('127.0.0.1', 8443)]")
    assert a == b
    assert normalise("HTTP 500") != normalise("HTTP 429 rate limited")


def test_cause_names_target_only_when_it_failed():
    assert failure_causes({"t": {"ok": 3, "error": 1}}, {}) == []
    assert failure_causes({"t": {"ok": 3, "error": 1}}, {}, max_error_rate=0.2) == ["rabench: t: 1 of 4 calls failed"]
    lines = failure_causes({"t": {"error": 2}}, {"t": [("boom #", 2)]})
    assert lines == ["rabench: t: 2 of 2 calls failed: boom #"]
    # every failing target is named, each on its own line; an invalid answer is not a failed call
    both = failure_causes({"a": {"timeout": 1}, "b": {"ok": 1}, "c": {"error": 2}, "d": {"invalid_output": 3}}, {})
    assert both == ["rabench: a: 1 of 1 calls failed", "rabench: c: 2 of 2 calls failed"]


def test_unreachable_provider_run_is_loud_bounded_and_resumable(tmp_path, monkeypatch, capsys):
    # the issue's own reproduction (port 1 refuses at once), with no retries to keep it short
    monkeypatch.setenv("RABENCH_OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    out = tmp_path / "r1"
    argv = ["run", "--suite", str(ROOT / "cases/sample"), "--target", "diy:openai:gpt-5", "--out", str(out)]
    rc = main([*argv, "--retries", "0", "--progress", "none", "--cache", str(tmp_path / "c")])
    cap = capsys.readouterr()
    assert rc == 1  # was 0
    last = cap.err.strip().splitlines()[-1]
    assert last.startswith("rabench: diy:openai:gpt-5: 41 of 41 calls failed: ")
    assert "Cannot connect to host" in last
    assert "x transport failure" in cap.out  # the top errors, with counts, under the target's line
    outcomes = read_outcomes(out / OUTCOMES)
    assert len(outcomes) == 41 and all(o.status == "error" for o in outcomes)
    skipped = [o for o in outcomes if (o.error or "").startswith(BREAKER)]
    sent = len(outcomes) - len(skipped)
    assert skipped and sent >= TRIP_AFTER  # the breaker opened after TRIP_AFTER failures (+ those in flight)
    assert all(o.attempts == 0 for o in skipped)
    # breaker-skipped units are not done: a resume sends them
    assert len(scan_done(out / OUTCOMES)) == sent


@pytest.mark.parametrize("rate", ["-0.1", "1.5"])
def test_bad_max_error_rate_is_refused(tmp_path, rate, capsys):
    rc = main(
        [
            "run",
            "--suite",
            str(ROOT / "cases/sample"),
            "--target",
            "null",
            "--out",
            str(tmp_path / "x"),
            "--max-error-rate",
            rate,
        ]
    )
    assert rc == 2
    assert "--max-error-rate" in capsys.readouterr().err
