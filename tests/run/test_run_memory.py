"""Streaming: a 20,000-case suite runs in bounded memory (no full-suite list of cases or images).

Measured on a real ``rabench run`` process (peak RSS, no tracer slowing it
down): the peak for 20,000 cases must stay within a few MB of the peak for 500
cases. Holding the 20,000 decoded cases alone would take about 21 MB.
"""

import subprocess
import sys

import pytest

from runsuite import make_suite

PROBE = (
    "import resource, sys\n"
    "from rabench.cli.main import main\n"
    "rc = main(sys.argv[1:])\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    "sys.exit(rc)\n"
)


def _peak_rss_kb(tmp_path, suite, name):
    argv = [
        sys.executable,
        "-c",
        PROBE,
        "run",
        "--suite",
        str(suite),
        "--target",
        "null",
        "--out",
        str(tmp_path / name),
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
        "--concurrency",
        "null=64",
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("MAXRSS")]
    outcomes = (tmp_path / name / "outcomes.jsonl").read_bytes().count(b"\n")
    return int(line.split()[1]), outcomes


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_suite(tmp_path):
    small = make_suite(tmp_path / "small", 500, distinct_files=20)
    big = make_suite(
        tmp_path / "big", 20_000, distinct_files=20, lineage={i: i - 10_000 for i in range(10_000, 10_100)}
    )
    small_kb, n_small = _peak_rss_kb(tmp_path, small, "r-small")
    big_kb, n_big = _peak_rss_kb(tmp_path, big, "r-big")
    assert (n_small, n_big) == (500, 20_000)
    growth_mb = (big_kb - small_kb) / 1024
    print(f"peak RSS {small_kb} KB -> {big_kb} KB")
    assert growth_mb < 8, f"peak RSS grew by {growth_mb:.1f} MB from 500 to 20,000 cases"


def _traced_peak(tmp_path, suite, repetitions, name):
    import tracemalloc

    from rabench.run.session import RunOptions, run

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        summary = run(
            RunOptions(
                out=tmp_path / name,
                suite_dir=str(suite),
                target_ids=["null"],
                repetitions=repetitions,
                progress="none",
                cache_root=tmp_path / "cache",
            )
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary.statuses["null"] == {"ok": 1_000 * repetitions}
    return peak - base


def test_a_target_that_never_suspends_leaves_nothing_behind_per_unit(tmp_path):
    """Issue 19: with a target that answers without suspending (``null``), each unit's
    cancelled timeout timer stayed in the event loop's timer heap for the whole run
    (~200 B a unit, 312 MB at 1M units). 20,000 units must peak no higher than 2,000
    (before the fix: about 3.6 MB higher)."""
    suite = make_suite(tmp_path / "s", 1_000, distinct_files=5)
    _traced_peak(tmp_path, suite, 1, "warm")  # first-time imports and caches out of the figures
    small = _traced_peak(tmp_path, suite, 2, "r2")
    big = _traced_peak(tmp_path, suite, 20, "r20")
    print(f"traced peak {small / 1e6:.2f} MB (2,000 units) -> {big / 1e6:.2f} MB (20,000 units)")
    assert big - small < 500_000, f"peak grew {(big - small) / 1e6:.2f} MB from 2,000 to 20,000 units"
