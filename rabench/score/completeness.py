"""Which units a scored run is missing, per target and repetition (``rabench score`` banner).

A missing unit is scored as a failed run (the spec: every target on the same cases); this
module only makes that visible: one line per target and repetition that lacks units, for the
score output and the top of report.md, and ``--require-complete`` turns it into exit 1.
A unit the circuit breaker kept from being sent (``rabench.run.breaker``) counts as missing.
"""

from __future__ import annotations

from pathlib import Path

from rabench.run.manifest import read_manifest
from rabench.run.outcomes import OUTCOMES, scan_done


def missing_lines(run_dirs: list[str], case_ids: set[str]) -> list[str]:
    """``TARGET repetition R: M of N units missing`` for every (target, repetition) short of N."""
    lines: list[str] = []
    n = len(case_ids)
    for d in run_dirs:
        m = read_manifest(Path(d))
        done = scan_done(Path(d) / OUTCOMES)
        for t in m.targets:
            for rep in range(m.repetitions):
                have = sum(1 for cid in case_ids if (cid, t.id, rep) in done)
                if have < n:
                    lines.append(f"{t.id} repetition {rep}: {n - have} of {n} units missing")
    return lines


def banner(lines: list[str]) -> str:
    """The block report.md opens with when units are missing ('' when none are)."""
    if not lines:
        return ""
    body = "\n".join(f"> - {line}" for line in lines)
    return (
        "> **Partial run: units are missing** (each is scored as a failed run; "
        "`rabench run --resume --out RUN` runs them)\n" + body + "\n\n"
    )
