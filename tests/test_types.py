"""`make test` runs mypy, strict on rabench/contracts, rabench/run and rabench/score
(configured in pyproject.toml, [tool.mypy]); any type error fails the suite. A static check
like ruff and vulture (marker ``lint``): ``make lint`` runs it, ``make test-fast`` skips it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.lint


def test_mypy_strict_is_clean_on_contracts_run_and_score():
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout
