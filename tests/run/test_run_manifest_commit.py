"""run.json's ``git_commit``: asked of git once per process (issue 19: a subprocess per run cost
about 1 ms of the run's CPU), and the same in every run of that process."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from runsuite import make_suite

from rabench.run import manifest as run_manifest
from rabench.run.manifest import read_manifest
from rabench.run.session import RunOptions, run


def test_git_is_asked_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[list[str]] = []
    real = subprocess.run

    def counting(args: list[str], **kw: Any) -> Any:
        asked.append(args)
        return real(args, **kw)

    run_manifest.git_commit.cache_clear()
    monkeypatch.setattr(run_manifest.subprocess, "run", counting)
    try:
        first = run_manifest.git_commit()
        assert run_manifest.git_commit() == first
        assert len(asked) == 1 and asked[0][-2:] == ["rev-parse", "HEAD"]
    finally:
        run_manifest.git_commit.cache_clear()


def test_runs_in_one_process_record_the_same_commit(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", 3)
    for name in ("a", "b"):
        run(
            RunOptions(
                out=tmp_path / name,
                suite_dir=str(suite),
                target_ids=["null"],
                progress="none",
                cache_root=tmp_path / "prepared",
            )
        )
    a, b = read_manifest(tmp_path / "a"), read_manifest(tmp_path / "b")
    assert a.git_commit == b.git_commit == run_manifest.git_commit()
