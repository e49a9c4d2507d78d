"""Lint and dead code: ruff (settings in pyproject.toml) and vulture are clean (issue 15).

``make test`` runs these; ``make test-fast`` skips them (marker ``lint``) for the edit loop.
vulture reads the package with the tests, benchmarks and scripts as its users, and
``scripts/vulture_whitelist.py`` for names used where it cannot see (each with its reason);
only findings inside ``rabench/`` count: dead code in the product is removed, not listed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.lint


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_is_clean():
    done = _run(str(BIN / "ruff"), "check", "--no-cache", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_ruff_settings_are_the_projects():
    done = _run(str(BIN / "ruff"), "check", "--show-settings", "rabench/__init__.py")
    assert done.returncode == 0, done.stderr
    assert "line_length = 120" in done.stdout  # pyproject.toml's [tool.ruff] is the one in force


def test_vulture_finds_no_dead_code_in_the_package():
    done = _run(str(BIN / "vulture"), "rabench", "tests", "bench", "scripts", "scripts/vulture_whitelist.py")
    found = [line for line in done.stdout.splitlines() if line.startswith("rabench/")]
    assert not found, "\n".join(found)
