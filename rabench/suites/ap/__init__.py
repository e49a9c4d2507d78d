"""The ``ap`` suite kind: an accounts-payable bundle per case, an ``APVerdict`` per answer
(docs/ap.md, docs/methodology-ap.md). The suite's content lives in ``rabench.cases.ap``,
``rabench.engine.ap`` and ``rabench.score.tasks.ap_*``; this is its plug-in point."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rabench.contracts import APVerdict
from rabench.targets.ap_request import APRequest

if TYPE_CHECKING:
    from rabench.contracts import RunManifest
    from rabench.run.session import RunOptions, RunSummary
    from rabench.score.scorer import ScoreResult
    from rabench.targets.base import Target


class APSuite:
    kind = "ap"
    request_type = APRequest
    answer_type = APVerdict
    generate_help = "accounts-payable invoice bundles over five task families (docs/ap.md)"

    def validate(self, root: Path, *, check_hashes: bool) -> tuple[int, list[str]]:
        from rabench.cases.ap.validate import validate_ap_suite

        return validate_ap_suite(root, check_hashes=check_hashes)

    def audit(self, args: argparse.Namespace) -> int:
        from rabench.cli.cases_audit import run_ap_audit

        return run_ap_audit(args)

    def generate(self, args: argparse.Namespace, out: Path) -> str:
        from rabench.cli.cases_generate import generate_ap

        return generate_ap(args, out)

    def run(
        self,
        options: RunOptions,
        out: Path,
        suite_dir: str,
        targets: list[Target],
        repetitions: int,
        old: RunManifest | None,
    ) -> RunSummary:
        from rabench.run.session import run_ap_suite

        return run_ap_suite(options, out, suite_dir, targets, repetitions, old)

    def score(self, run_dirs: list[str], ray_address: str | None, reference: str | None = None) -> ScoreResult:
        from rabench.score.scorer import score_ap_runs

        return score_ap_runs(run_dirs, ray_address, reference)

    def fake_labels(self, suite: Path) -> dict[str, Any]:
        from rabench.fakeprovider.ap_labels import ap_suite_labels

        return dict(ap_suite_labels(suite))


SUITE = APSuite()
