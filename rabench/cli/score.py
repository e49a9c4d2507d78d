"""``rabench score runs/A [runs/B ...] --out reports/X``: rows.json + report.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rabench.score.completeness import banner, missing_lines


def _run(args: argparse.Namespace) -> int:
    from rabench.score.scorer import score_runs, write_outputs

    from rabench.errors import UserError

    if args.address is not None and args.executor != "ray":
        raise UserError("--address needs --executor ray")
    if args.executor == "ray" and args.address is None:
        raise UserError("--executor ray needs --address HOST:PORT (the Ray head)")
    result = score_runs(
        args.runs, ray_address=args.address if args.executor == "ray" else None, reference=args.reference
    )
    rows_path, md_path = write_outputs(result, args.out)
    n_find = len(result.findings)
    missing = _missing(args.runs)
    if missing:  # issue 32: a partial run is announced, in the output and atop report.md
        md = Path(md_path)
        md.write_text(banner(missing) + md.read_text(encoding="utf-8"), encoding="utf-8")
        for line in missing:
            print(f"missing: {line}", file=sys.stdout)
    print(f"{len(result.rows)} rows, {n_find} findings -> {rows_path}, {md_path}", file=sys.stdout)
    ref = result.doc.header.reference
    if ref is not None:
        others = list(dict.fromkeys(f.baseline for f in result.findings))
        print(f"reference: {ref} (vs {', '.join(others)})", file=sys.stdout)
    if missing and args.require_complete:
        print(f"rabench: --require-complete: {len(missing)} target repetitions have missing units", file=sys.stderr)
        return 1
    return 0


def _missing(runs: list[str]) -> list[str]:
    from rabench.run.manifest import read_manifest
    from rabench.score.load import load_cases, runs_of_one_suite

    if read_manifest(Path(runs[0])).suite_kind == "ap":
        return []  # not counted for AP suites yet
    _, _, suite_dir = runs_of_one_suite(runs)
    cases, _, _ = load_cases(str(suite_dir))
    return missing_lines(runs, {c.id for c in cases.cases})


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="Score runs against their suite's labels: every RA-Bench 0.2.0 row with intervals.",
        description=(
            "Read each RUN folder (run.json + outcomes.jsonl) and the suite it names, and write "
            "OUT/rows.json (every row: task, metric, stratum, target, value, 95% interval, n, "
            "bootstrap seed; plus the findings of the reference target against every other "
            "target: --reference, else the first 'self' target, else the first target named) and "
            "OUT/report.md. Several runs (e.g. one per target) are scored together only if they "
            "used the same suite; a target may appear in one run only. Re-scoring the same runs "
            "gives a byte-identical rows.json. Definitions: docs/methodology.md."
        ),
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folder(s), e.g. runs/2026-11-29-a")
    p.add_argument("--out", required=True, metavar="OUT", help="output folder, e.g. reports/X")
    p.add_argument(
        "--executor",
        choices=("in-process", "ray"),
        default="in-process",
        help="ray: each target's task rows (the bootstraps) as Ray tasks on the cluster at --address; "
        'rows.json is byte-identical (docs/running.md, "Running on a cluster")',
    )
    p.add_argument(
        "--reference",
        default=None,
        metavar="TARGET",
        help="the target the verdict and the findings compare every other target with (default: "
        "the 'self' target when present, else the first target the run named)",
    )
    p.add_argument(
        "--require-complete",
        action="store_true",
        help="exit 1 when a target or repetition is missing units (they are listed either way)",
    )
    p.add_argument("--address", default=None, metavar="HOST:PORT", help="the Ray head for --executor ray")
    p.set_defaults(func=_run)
