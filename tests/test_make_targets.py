"""``make test-fast`` skips the ``slow`` tests and the lint; ``make test`` runs everything (issue 15)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pytest_line(target: str) -> str:
    done = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if " -m pytest " in line]
    assert len(lines) == 1, done.stdout
    return lines[0]


def test_make_test_fast_deselects_slow_and_lint_and_make_test_does_not():
    assert '-m "not slow and not lint"' in _pytest_line("test-fast")
    assert " -m " not in _pytest_line("test").split(" -m pytest ", 1)[1]


def test_the_fast_selection_leaves_out_slow_and_lint_tests_only():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not slow and not lint",
            "tests/test_lint.py",
            "tests/reliability/test_interrupt.py",
            "tests/prepare/test_bounds.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert ids and all(i.startswith("tests/prepare/test_bounds.py::") for i in ids), ids
