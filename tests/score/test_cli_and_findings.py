"""`rabench score` end to end, its one-line refusals, and the findings rules."""

from __future__ import annotations

import json
import shutil

import msgspec
import pytest

import score_golden as golden
from rabench.cli.main import main
from rabench.contracts import Row, RunManifest
from rabench.score.findings import compare


def test_score_command_writes_rows_json_and_report(tmp_path, capsys):
    run = golden.write(tmp_path)
    assert main(["score", str(run), "--out", str(tmp_path / "rep")]) == 0
    doc = json.loads((tmp_path / "rep" / "rows.json").read_text())
    assert doc["header"]["suite_manifest_sha256"] == json.loads((run / "run.json").read_text())["manifest_sha256"]
    assert doc["header"]["contracts_version"] == 2 and doc["header"]["scorer_version"]
    assert {"task", "metric", "stratum", "target", "value", "n"} <= set(doc["rows"][0])
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Authenticity" in md and "not supported" in md and "## Findings" in md
    assert "rows" in capsys.readouterr().out


def _second_run(tmp_path, run, run_id, targets=None, sha=None):
    other = tmp_path / "runs" / run_id
    shutil.copytree(run, other)
    m = msgspec.json.decode((other / "run.json").read_bytes(), type=RunManifest)
    m = msgspec.structs.replace(
        m,
        run_id=run_id,
        targets=targets if targets is not None else m.targets,
        manifest_sha256=sha or m.manifest_sha256,
    )
    (other / "run.json").write_bytes(msgspec.json.encode(m))
    return other, m


def test_refuses_runs_of_different_suites(tmp_path, capsys):
    run = golden.write(tmp_path)
    other, _ = _second_run(tmp_path, run, "other", sha="f" * 64)
    assert main(["score", str(run), str(other), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different suite" in err[0]


def test_refuses_a_target_scored_twice(tmp_path, capsys):
    run = golden.write(tmp_path)
    other, _ = _second_run(tmp_path, run, "again")
    assert main(["score", str(run), str(other), "--out", str(tmp_path / "rep")]) == 2
    assert "in both" in capsys.readouterr().err


def test_two_runs_one_per_target_score_together(tmp_path):
    run = golden.write(tmp_path)
    m = msgspec.json.decode((run / "run.json").read_bytes(), type=RunManifest)
    other, _ = _second_run(tmp_path, run, "diy-only", targets=[m.targets[1]])
    lines = [ln for ln in (other / "outcomes.jsonl").read_text().splitlines() if golden.DIY in ln]
    (other / "outcomes.jsonl").write_text("\n".join(lines) + "\n")
    (run / "run.json").write_bytes(msgspec.json.encode(msgspec.structs.replace(m, targets=[m.targets[0]])))
    lines = [ln for ln in (run / "outcomes.jsonl").read_text().splitlines() if golden.DIY not in ln]
    (run / "outcomes.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["score", str(run), str(other), "--out", str(tmp_path / "rep")]) == 0
    doc = json.loads((tmp_path / "rep" / "rows.json").read_text())
    assert [r["run_id"] for r in doc["header"]["runs"]] == ["diy-only", "golden"]
    assert {f["baseline"] for f in doc["findings"]} == {golden.DIY}


@pytest.mark.parametrize(
    "breakage,needle",
    [
        (lambda run: (run / "run.json").unlink(), "no run.json"),
        (lambda run: (run / "outcomes.jsonl").write_text("{not json\n"), "outcomes.jsonl:1"),
        (
            lambda run: (run / "outcomes.jsonl").write_text(
                '{"run_id":"g","case_id":"zzz","target":"self","repetition":0,"status":"ok","attempts":1}\n'
            ),
            "case zzz is not in the run's suite",
        ),
        (
            lambda run: (run.parent.parent / "suite" / "manifest.jsonl").open("a").write("\n\n"),
            "manifest changed since the run",
        ),
    ],
)
def test_bad_input_gets_one_clear_line(tmp_path, capsys, breakage, needle):
    run = golden.write(tmp_path)
    breakage(run)
    assert main(["score", str(run), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0]


def _row(metric, value, lo=None, hi=None, n=50, task="authenticity", supported=True):
    return Row(
        task=task,
        metric=metric,
        stratum="all",
        target="t",
        value=value,
        n=n,
        lo=lo,
        hi=hi,
        interval="wilson" if lo is not None else "none",
        supported=supported,
    )


def test_findings_need_non_overlapping_intervals_and_respect_direction():
    assert compare(_row("roc_auc", 0.9, 0.85, 0.95), _row("roc_auc", 0.7, 0.6, 0.8))[0] == "win"
    assert compare(_row("roc_auc", 0.9, 0.8, 0.95), _row("roc_auc", 0.7, 0.6, 0.8))[0] == "tie"  # touching
    ffr = "false_flag_rate_at_risk_0.5"
    assert compare(_row(ffr, 0.3, 0.25, 0.35), _row(ffr, 0.1, 0.05, 0.15))[0] == "loss"  # lower is better
    assert compare(_row("roc_auc", 0.9, 0.85, 0.95, n=9), _row("roc_auc", 0.7, 0.6, 0.8))[0] == "tie"


def test_findings_latency_and_cost_need_1_2x():
    lat = "latency_p50_s"
    assert compare(_row(lat, 1.0, task="operations"), _row(lat, 1.19, task="operations"))[0] == "tie"
    assert compare(_row(lat, 1.0, task="operations"), _row(lat, 1.2, task="operations"))[0] == "win"
    assert compare(_row(lat, 3.0, task="operations"), _row(lat, 1.0, task="operations"))[0] == "loss"
    cost = "expected_cost_per_1000_at_risk_0.5"
    assert compare(_row(cost, 500.0, task="decisions"), _row(cost, 1000.0, task="decisions"))[0] == "win"


def test_findings_report_unsupported_baseline_tasks():
    ours = _row("recall", 0.9, 0.8, 0.95, task="duplicates")
    theirs = _row("recall", None, n=0, task="duplicates", supported=False)
    assert compare(ours, theirs) == ("not_supported", "not supported by baseline")
