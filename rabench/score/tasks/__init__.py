"""One module per RA-Bench task; each turns per-run facts into rows.

Every task module exposes ``rows(ctx: TaskContext) -> list[Row]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rabench.score.load import CaseTable, TargetRuns
from rabench.score.reduce import RunFacts, per_case


@dataclass(slots=True)
class TaskContext:
    target: TargetRuns
    cases: CaseTable
    facts: RunFacts
    tags: dict[str, np.ndarray]  # dimension=value -> mask over cases
    runs: np.ndarray  # runs per case for this target

    @property
    def tid(self) -> str:
        return self.target.id

    @property
    def has_runs(self) -> np.ndarray:
        return self.runs > 0

    @property
    def base(self) -> np.ndarray:
        """Base cases (no lineage) this target ran."""
        base: np.ndarray = self.cases.is_base & self.has_runs
        return base

    def share(self, values: np.ndarray) -> np.ndarray:
        return per_case(self.facts, values, self.cases.n)
