"""The ``Suite`` protocol: what a suite kind tells the stages that read its folders.

The seam is inspect_ai's ``Task(dataset, solver, scorer)`` cut down to what rabench's stages
need: each stage (validate, audit, generate, run, score, the fake provider) calls the one
method it needs on the suite its folder's header names, and knows nothing else about it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rabench.contracts import Answer, RunManifest
    from rabench.run.session import RunOptions, RunSummary
    from rabench.score.scorer import ScoreResult
    from rabench.targets.base import CheckRequest, Target


class Suite(Protocol):
    """One suite kind. ``kind`` is the manifest header's ``suite`` value."""

    kind: str
    request_type: type[CheckRequest]  # what a target is asked per case
    answer_type: type[Answer]  # what a target answers (a member of contracts.answer.Answer)
    generate_help: str  # one line for ``rabench cases generate --suite KIND``

    def validate(self, root: Path, *, check_hashes: bool) -> tuple[int, list[str]]:
        """(cases read, problems) of the folder; no problem means valid."""
        ...

    def audit(self, args: argparse.Namespace) -> int:
        """``rabench cases audit``: print the leak audit; 1 if a signal leaks, else 0."""
        ...

    def generate(self, args: argparse.Namespace, out: Path) -> str:
        """``rabench cases generate``: write the suite to ``out``; the one summary line."""
        ...

    def run(
        self,
        options: RunOptions,
        out: Path,
        suite_dir: str,
        targets: list[Target],
        repetitions: int,
        old: RunManifest | None,
    ) -> RunSummary:
        """``rabench run`` on a folder of this kind (the caller holds the run folder's lock)."""
        ...

    def score(self, run_dirs: list[str], ray_address: str | None, reference: str | None = None) -> ScoreResult:
        """``rabench score``: the rows of runs of one suite of this kind."""
        ...

    def fake_labels(self, suite: Path) -> dict[str, Any]:
        """The fake provider's answer key: sha256 of what a request carries -> label."""
        ...
