"""``rabench run --batch`` against the fake provider's batch APIs (OpenAI Batch, Anthropic Message
Batches, Gemini batch): submit, poll, results into outcomes at the batch price; errors and expiry;
resume after kill -9 polls the recorded batch instead of submitting it again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from importlib import resources

import msgspec
import pytest
from receipt_suite import make_suite

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.fakeprovider import BackgroundFakeProvider, ModelProfile, Profile, load_suite_labels
from rabench.run import config as cfg
from rabench.run.batch import BATCH_DISCOUNT, read_records
from rabench.run.session import RunOptions, run

KEYS = {
    "OPENAI_API_KEY": "sk-test-openai-0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
    "GEMINI_API_KEY": "gemini-test-key-0123456789",
}
PRICES = tomllib.loads(resources.files("rabench").joinpath("data", "prices-2026-11-29.toml").read_text())["models"]
CONFIG = cfg.parse_targets_config({"defaults": {"price_date": "2026-11-29"}})


def _outcomes(path):
    return [msgspec.json.decode(line, type=Outcome) for line in path.read_bytes().splitlines() if line.strip()]


def _env(monkeypatch, fake):
    for name, value in {**KEYS, **fake.env()}.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize(
    ("target", "price_key"),
    [
        ("diy:openai:gpt-5", "openai/gpt-5"),
        ("diy:anthropic:claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"),
        ("diy:gemini:gemini-2.5-flash", "google/gemini-2.5-flash"),
    ],
)
def test_batch_run_for_each_provider(tmp_path, monkeypatch, target, price_key):
    n = 5
    suite = make_suite(tmp_path / "suite", n)
    with BackgroundFakeProvider(Profile(default=ModelProfile(batch_polls=2)), labels=load_suite_labels(suite)) as fake:
        _env(monkeypatch, fake)
        summary = run(
            RunOptions(
                out=tmp_path / "run",
                suite_dir=str(suite),
                target_ids=[target],
                repetitions=2,
                config=CONFIG,
                cache_root=tmp_path / "cache",
                progress="none",
                batch=True,
                batch_poll_s=0.01,
            )
        )
        batches = fake.app.batch.batches
        sync_calls = len(fake.requests)
    assert summary.statuses == {target: {"ok": 2 * n}} and summary.batch_expired == 0
    assert len(batches) == 1 and sync_calls == 0  # one batch, no synchronous call
    got = _outcomes(tmp_path / "run" / "outcomes.jsonl")
    p = PRICES[price_key]
    for o in got:
        assert (o.status, o.attempts, o.latency_s) == ("ok", 1, None)
        assert o.verdict.fields.total == 10 + int(o.case_id[1:]) + 0.5  # the labels' answer, read back
        assert o.usage.cost_usd == pytest.approx(BATCH_DISCOUNT * (1500 * p["input"] + 250 * p["output"]) / 1e6)
    records = read_records(tmp_path / "run" / "batches.jsonl")
    assert [r.ended for r in records] == [False, True] and len(records[0].units) == 2 * n
    run_json = msgspec.json.decode((tmp_path / "run" / "run.json").read_bytes())
    assert run_json["settings"]["batch"] is True and run_json.get("finished_at")


def test_a_batchs_outcomes_are_in_the_file_before_the_record_that_it_ended(tmp_path, monkeypatch):
    # The outcomes writer writes a pass of the event loop's outcomes at the start of the next pass;
    # a kill -9 between "ended" and that write would leave the batch's units without outcomes, and
    # a resume would pay for them again. So the batch mode flushes before recording the end.
    from rabench.run import batch

    n, seen = 4, []
    suite = make_suite(tmp_path / "suite", n)
    out = tmp_path / "run"
    recorded = batch.append_record

    def checking(path, record):
        if record.ended:
            seen.append(sorted((o.case_id, o.repetition) for o in _outcomes(out / "outcomes.jsonl")))
        recorded(path, record)

    monkeypatch.setattr(batch, "append_record", checking)
    with BackgroundFakeProvider(Profile(default=ModelProfile(batch_polls=1))) as fake:
        _env(monkeypatch, fake)
        run(
            RunOptions(
                out=out,
                suite_dir=str(suite),
                target_ids=["diy:openai:gpt-5"],
                repetitions=2,
                config=CONFIG,
                cache_root=tmp_path / "cache",
                progress="none",
                batch=True,
                batch_poll_s=0.01,
            )
        )
    assert seen == [sorted((f"c{i:03d}", r) for i in range(n) for r in range(2))]


@pytest.mark.parametrize(
    "target", ["diy:openai:gpt-5", "diy:anthropic:claude-sonnet-4-5", "diy:gemini:gemini-2.5-flash"]
)
def test_errors_inside_a_batch_and_expiry_then_resume_submits_only_the_expired(tmp_path, monkeypatch, capsys, target):
    n = 6
    suite = make_suite(tmp_path / "suite", n)
    profile = Profile(default=ModelProfile(batch_expire=True, script=["500"]))
    out = tmp_path / "run"
    args = [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--target",
        target,
        "--batch",
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
        "--batch-poll",
        "0.01",
    ]
    with BackgroundFakeProvider(profile) as fake:
        _env(monkeypatch, fake)
        assert main(args) == 1
        err = capsys.readouterr().err
        assert "3 units expired in their batch" in err
        first = _outcomes(out / "outcomes.jsonl")
        assert len(first) == 3 and {o.status for o in first} == {"error"}  # the scripted 500s
        assert all("HTTP 500" in o.error for o in first)
        fake.app.profile = msgspec.structs.replace(profile, default=ModelProfile())
        assert (
            main(
                [
                    "run",
                    "--out",
                    str(out),
                    "--resume",
                    "--batch",
                    "--progress",
                    "none",
                    "--cache",
                    str(tmp_path / "cache"),
                    "--batch-poll",
                    "0.01",
                ]
            )
            == 0
        )
        second = fake.app.batch.batches
    got = _outcomes(out / "outcomes.jsonl")
    assert sorted(o.case_id for o in got) == [f"c{i:03d}" for i in range(n)]
    assert len(second) == 2 and len(list(second.values())[1].items) == 3  # only the expired went again


def test_kill_9_after_submission_then_resume_polls_the_recorded_batch(tmp_path, monkeypatch):
    n = 4
    suite = make_suite(tmp_path / "suite", n)
    profile = Profile(default=ModelProfile(batch_polls=10**6))  # never ends while the first process lives
    out = tmp_path / "run"
    with BackgroundFakeProvider(profile) as fake:
        env = {**os.environ, **KEYS, **fake.env()}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rabench",
                "run",
                "--suite",
                str(suite),
                "--out",
                str(out),
                "--target",
                "diy:anthropic:claude-sonnet-4-5",
                "--batch",
                "--progress",
                "none",
                "--cache",
                str(tmp_path / "cache"),
                "--batch-poll",
                "0.05",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not read_records(out / "batches.jsonl"):
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert len(read_records(out / "batches.jsonl")) == 1 and len(fake.app.batch.batches) == 1
        fake.app.profile = Profile(default=ModelProfile(batch_polls=1))
        _env(monkeypatch, fake)
        summary = run(
            RunOptions(
                out=out,
                resume=True,
                batch=True,
                batch_poll_s=0.01,
                config=CONFIG,
                cache_root=tmp_path / "cache",
                progress="none",
            )
        )
        assert len(fake.app.batch.batches) == 1  # polled, not submitted again
    assert summary.statuses == {"diy:anthropic:claude-sonnet-4-5": {"ok": n}}
    assert len(_outcomes(out / "outcomes.jsonl")) == n


def test_batch_refuses_targets_without_a_batch_api(tmp_path, capsys):
    suite = make_suite(tmp_path / "suite", 2)
    code = main(
        [
            "run",
            "--suite",
            str(suite),
            "--out",
            str(tmp_path / "r"),
            "--target",
            "null",
            "--batch",
            "--progress",
            "none",
            "--cache",
            str(tmp_path / "cache"),
        ]
    )
    assert code == 2
    assert "has no batch API" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_batch_runs_report_says_so_latency_not_measured_cost_at_the_batch_price(tmp_path, monkeypatch):
    """Scored next to a synchronous run of the same suite: the batch target's latency rows are
    "not measured" with the reason (the spec's latency is per call), its cost rows are at the batch
    price and say so, and report.md and report.html say it was a batch run; the synchronous
    target's rows are what they were."""
    from rabench.contracts.files import read_rows
    from rabench.score.tasks.operations import BATCH_PRICE, NOT_MEASURED_BATCH

    n = 4
    suite = make_suite(tmp_path / "suite", n)
    with BackgroundFakeProvider(Profile(default=ModelProfile(batch_polls=1)), labels=load_suite_labels(suite)) as fake:
        _env(monkeypatch, fake)
        for name, target, batch in (("b", "diy:openai:gpt-5", True), ("s", "diy:anthropic:claude-sonnet-4-5", False)):
            run(
                RunOptions(
                    out=tmp_path / name,
                    suite_dir=str(suite),
                    target_ids=[target],
                    repetitions=1,
                    config=CONFIG,
                    cache_root=tmp_path / "cache",
                    progress="none",
                    batch=batch,
                    batch_poll_s=0.01,
                )
            )
    rep = tmp_path / "rep"
    assert main(["score", str(tmp_path / "b"), str(tmp_path / "s"), "--out", str(rep)]) == 0
    assert main(["report", str(rep)]) == 0
    rows = {
        (r.metric, r.target): r
        for r in read_rows(rep / "rows.json").rows
        if r.task == "operations" and r.stratum == "all"
    }
    for q in ("p50", "p95", "p99"):
        b = rows[(f"latency_{q}_s", "diy:openai:gpt-5")]
        assert (b.value, b.n, b.note) == (None, 0, NOT_MEASURED_BATCH)
        s = rows[(f"latency_{q}_s", "diy:anthropic:claude-sonnet-4-5")]
        assert s.value is not None and s.value > 0 and s.n == n and s.note == ""
    p = PRICES["openai/gpt-5"]
    cost = rows[("cost_per_check_usd", "diy:openai:gpt-5")]
    assert cost.value == pytest.approx(BATCH_DISCOUNT * (1500 * p["input"] + 250 * p["output"]) / 1e6)
    assert cost.note == BATCH_PRICE and rows[("cost_per_check_usd", "diy:anthropic:claude-sonnet-4-5")].note == ""
    md = (rep / "report.md").read_text()
    assert "Batch run: `diy:openai:gpt-5` answered through its provider's batch API" in md
    assert md.count("not measured (a batch run)") == 3  # p50, p95, p99 in the operations table
    assert "batch price" in md
    page = (rep / "report.html").read_text()
    assert "Batch run: <code>diy:openai:gpt-5</code>" in page and page.count(">not measured</td>") >= 3
