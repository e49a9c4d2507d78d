"""The soak (bench/soak.py) in small: 2,000 units through the real ``rabench run`` against the fake
provider with the full fault mix and one ``kill -9`` + ``--resume``; every check must pass.

The full soak (200,000 units, two kills) is a benchmark, not a test; its figures are in
docs/performance.md ("Soak"). This runs the same code, so a change that breaks "one outcome
per unit", "statuses match the injected faults" or "at most 3 retries" fails here first.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from relrun import ROOT, child_env

UNITS = 2000


@pytest.mark.slow  # ~15 s: the tail is set by the retry backoff and the hang timeout, not by N
def test_short_soak_passes_every_check(tmp_path):
    report = tmp_path / "soak.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "soak.py"),
            "--units",
            str(UNITS),
            "--kills",
            "1",
            "--concurrency",
            "64",
            "--workdir",
            str(tmp_path / "work"),
            "--json",
            str(report),
        ],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert report.exists(), proc.stderr[-3000:]
    r = json.loads(report.read_text())
    assert r["checks"] == {k: True for k in r["checks"]}, (r["mismatch_examples"], r["sessions"])
    assert proc.returncode == 0
    # the faults really happened, and each kind shows up where it should
    assert all(r["injected"][kind] > 0 for kind in ("429", "500", "502", "reset", "hang", "malformed"))
    assert r["outcome_lines"] == r["units_with_outcome"] == UNITS
    assert r["statuses"]["timeout"] > 0 and r["statuses"]["invalid_output"] > 0
    assert r["statuses"]["ok"] > 0.8 * UNITS
    assert r["max_attempts"] <= 4 and r["retries"] > 0
    assert [s["killed"] for s in r["sessions"]] == [True, False]
    assert r["sessions"][1]["start_outcomes"] > 0  # the resume started from what the killed run wrote
