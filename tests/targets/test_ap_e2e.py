"""End to end on an AP suite: ``self`` and a ``diy:openai-compatible`` target (through the fake
provider over loopback, answering from the suite's labels) run, are scored, and rows.json has
every row of docs/methodology-ap.md for both, with n and intervals, and findings between them."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
from ap_bundles import write_bundle_suite

from rabench.cli.main import main
from rabench.contracts import APVerdict, Outcome
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile, load_suite_labels
from rabench.score import output

DIY = "diy:openai-compatible:llava-1.6"
DOC = Path(__file__).resolve().parents[2] / "docs" / "methodology-ap.md"


def methodology_metrics() -> set[str]:
    names = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `([a-z0-9_<>]+)`", line)
        if m:
            names.add(m.group(1))
    return names


def test_self_and_diy_run_and_score_on_an_ap_suite(tmp_path, monkeypatch):
    suite = tmp_path / "suite"
    cases = write_bundle_suite(suite, n=14)
    out = tmp_path / "run"
    with BackgroundFakeProvider(
        Profile(seed=1, default=ModelProfile(latency=Latency(ms=1))), labels=load_suite_labels(suite)
    ) as fake:
        for k, v in {**fake.env(), "OPENAI_COMPATIBLE_API_KEY": "sk-test-0123456789"}.items():
            monkeypatch.setenv(k, v)
        code = main(
            [
                "run",
                "--suite",
                str(suite),
                "--out",
                str(out),
                "--progress",
                "none",
                "--repeat",
                "2",
                "--cache",
                str(tmp_path / "cache"),
                "--target",
                "self",
                "--target",
                DIY,
            ]
        )
    assert code == 0
    outcomes = [msgspec.json.decode(x, type=Outcome) for x in (out / "outcomes.jsonl").read_bytes().splitlines()]
    assert len(outcomes) == 2 * 2 * len(cases)
    assert all(o.status == "ok" and isinstance(o.verdict, APVerdict) for o in outcomes)
    labels = {c.id: c.label for c in cases}
    for o in outcomes:  # the fake played a perfect analyst; the engine's answers are its own
        if o.target == DIY:
            assert o.verdict.decision == labels[o.case_id].decision
    assert main(["score", str(out), "--out", str(tmp_path / "report")]) == 0
    doc = output.decode((tmp_path / "report" / "rows.json").read_bytes())
    assert doc.header.scorer_version == "ap-1"
    head = {(r.target, r.metric): r for r in doc.rows if r.stratum == "all"}
    for target in ("self", DIY):
        for name in methodology_metrics():
            if name == "<field>_accuracy":
                name = "total_accuracy"
            row = head[(target, name)]
            assert row.n >= 0
            if row.value is not None and row.interval != "none":
                assert row.lo is not None and row.hi is not None
    assert head[(DIY, "decision_accuracy")].value == 1.0 and head[(DIY, "decision_accuracy")].n == len(cases)
    assert head[("self", "decision_consistency")].value == 1.0  # deterministic controls
    assert {(f.target, f.baseline) for f in doc.findings} == {("self", DIY)}
    assert (tmp_path / "report" / "report.md").read_text().count("ap_decision") > 0


def test_bench_kind_ap_runs_scores_and_reports(tmp_path, monkeypatch):
    """make bench SUITE=ap: the bench on an ap suite, the AP section in both reports."""
    suite = tmp_path / "suite"
    write_bundle_suite(suite, n=7)
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "bench",
                "--kind",
                "ap",
                "--suite",
                str(suite),
                "--target",
                "self",
                "--repeat",
                "1",
                "--run-id",
                "t",
                "--config",
                str(tmp_path / "none.toml"),
            ]
        )
        == 0
    )
    report = tmp_path / "reports" / "t"
    assert "## Accounts payable" in (report / "report.md").read_text()
    assert "<section id='ap'>" in (report / "report.html").read_text()
    doc = output.decode((report / "rows.json").read_bytes())
    assert {r.metric for r in doc.rows if r.task == "ap_decision"} >= {"unsafe_release_rate", "expected_cost_per_1000"}
    assert main(["bench", "--kind", "ap", "--suite", str(suite), "--real", str(tmp_path)]) == 2


def test_an_ap_run_resumes_and_a_receipt_target_is_invalid_output(tmp_path):
    suite = tmp_path / "suite"
    cases = write_bundle_suite(suite, n=7)
    out = tmp_path / "run"
    args = [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "c"),
        "--target",
        "self",
        "--target",
        "null",
    ]
    assert main(args) == 0
    first = (out / "outcomes.jsonl").read_bytes()
    assert main([*args[:5], "--resume", "--progress", "none", "--cache", str(tmp_path / "c")]) == 0
    assert (out / "outcomes.jsonl").read_bytes() == first  # nothing left to run, nothing re-run
    outcomes = [msgspec.json.decode(x, type=Outcome) for x in first.splitlines()]
    assert len(outcomes) == 2 * len(cases)
    assert {o.status for o in outcomes if o.target == "null"} == {"invalid_output"}
    assert {o.status for o in outcomes if o.target == "self"} == {"ok"}
