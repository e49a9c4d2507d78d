"""Issue 32 defect 2: keep 20 of 82 lines of an outcomes file; score says what is missing per
target and repetition, report.md opens with it, --require-complete exits 1."""

from __future__ import annotations

from pathlib import Path

from rabench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_partial_run_is_announced(tmp_path, capsys):
    run = tmp_path / "r"
    argv = ["run", "--suite", str(ROOT / "cases/sample"), "--target", "null", "--repeat", "2", "--out", str(run)]
    assert main([*argv, "--progress", "none", "--cache", str(tmp_path / "c")]) == 0
    lines = (run / "outcomes.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 82
    (run / "outcomes.jsonl").write_bytes(b"".join(lines[:20]))
    capsys.readouterr()
    assert main(["score", str(run), "--out", str(tmp_path / "s")]) == 0  # announced, not refused
    out = capsys.readouterr().out
    # the runner writes in unit order: the 20 kept lines are repetition 0 and 1's first cases
    missing = [line for line in out.splitlines() if line.startswith("missing: ")]
    assert sum(int(line.split(": ")[2].split()[0]) for line in missing) == 62
    assert all(line.startswith("missing: null repetition ") for line in missing)
    report = (tmp_path / "s" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("> **Partial run: units are missing**")
    assert "units missing" in report.split("\n\n", 1)[0]
    assert main(["score", str(run), "--out", str(tmp_path / "s2"), "--require-complete"]) == 1
    assert "--require-complete" in capsys.readouterr().err


def test_complete_run_has_no_banner(tmp_path, capsys):
    run = tmp_path / "r"
    argv = ["run", "--suite", str(ROOT / "cases/sample"), "--target", "null", "--out", str(run)]
    assert main([*argv, "--progress", "none", "--cache", str(tmp_path / "c")]) == 0
    assert main(["score", str(run), "--out", str(tmp_path / "s"), "--require-complete"]) == 0
    assert "missing" not in capsys.readouterr().out
    assert not (tmp_path / "s" / "report.md").read_text(encoding="utf-8").startswith(">")
