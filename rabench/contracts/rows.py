"""``rows.json``: the scorer's one machine-readable output (shape in docs/methodology.md),
read back by ``rabench report``, ``rabench bench`` and the synthetic-vs-real views."""

from __future__ import annotations

from typing import Literal

import msgspec

from rabench.contracts.outcome import TargetInfo
from rabench.contracts.row import Row

FindingResult = Literal["win", "loss", "tie", "not_supported"]


class Finding(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One headline row of a ``self`` target against one baseline: win, loss, tie or not
    supported, from our target's side, with the reason (spec, "Findings")."""

    task: str
    metric: str
    target: str  # the reference target (rows.json header "reference")
    baseline: str  # the target it is compared with
    result: FindingResult  # from our target's side
    reason: str
    value: float | None = None
    baseline_value: float | None = None


class RunRef(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One run that was scored: its id, its targets, repetitions and price date."""

    run_id: str
    targets: list[str]
    repetitions: int
    price_date: str | None = None


class RowsHeader(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``rows.json``'s header: what was scored (suite, runs, targets) and by which scorer."""

    format: str
    spec: str
    contracts_version: int
    scorer_version: str
    suite_name: str
    suite_manifest_sha256: str
    runs: list[RunRef]
    targets: list[TargetInfo]
    bootstrap_resamples: int
    min_stratum_cases: int
    # the target the findings and the verdict compare every other target with (--reference;
    # default the first `self` target, else the first target named); None with one target
    reference: str | None = None
    # target ids in the order the run(s) named them
    named: list[str] = msgspec.field(default_factory=list)


class RowsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``reports/ID/rows.json``: the header, every row (task, metric, stratum, target, value,
    interval, n) and the findings; deterministic, byte-identical on a re-score."""

    header: RowsHeader
    rows: list[Row]
    findings: list[Finding]
