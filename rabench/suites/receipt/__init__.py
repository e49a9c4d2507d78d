"""The receipt suite kind: one receipt file per case, a ``Verdict`` per answer (RA-Bench 0.2.0)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rabench.contracts import Verdict
from rabench.targets.base import CheckRequest

if TYPE_CHECKING:
    from rabench.contracts import RunManifest
    from rabench.run.session import RunOptions, RunSummary
    from rabench.score.scorer import ScoreResult
    from rabench.targets.base import Target


class ReceiptSuite:
    kind = "receipt"
    request_type = CheckRequest
    answer_type = Verdict
    generate_help = "receipts: genuine, six fake classes, duplicates, hard negatives (docs/cases.md)"

    def validate(self, root: Path, *, check_hashes: bool) -> tuple[int, list[str]]:
        from rabench.cases.validate import validate_receipt_suite

        return validate_receipt_suite(root, check_hashes=check_hashes)

    def audit(self, args: argparse.Namespace) -> int:
        from rabench.cli.cases_audit import run_receipt_audit

        return run_receipt_audit(args)

    def generate(self, args: argparse.Namespace, out: Path) -> str:
        from rabench.cli.cases_generate import generate_receipt

        return generate_receipt(args, out)

    def run(
        self,
        options: RunOptions,
        out: Path,
        suite_dir: str,
        targets: list[Target],
        repetitions: int,
        old: RunManifest | None,
    ) -> RunSummary:
        from rabench.run.session import run_receipt

        return run_receipt(options, out, suite_dir, targets, repetitions, old)

    def score(self, run_dirs: list[str], ray_address: str | None, reference: str | None = None) -> ScoreResult:
        from rabench.score.scorer import score_receipt_runs

        return score_receipt_runs(run_dirs, ray_address, reference)

    def fake_labels(self, suite: Path) -> dict[str, Any]:
        from rabench.fakeprovider.app import receipt_suite_labels

        return dict(receipt_suite_labels(suite))


SUITE = ReceiptSuite()
