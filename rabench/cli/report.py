"""``rabench report reports/X``: render report.html from rows.json (+ details.json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rabench.contracts import Row
from rabench.contracts.files import read_cases, read_details, read_rows, read_track
from rabench.errors import UserError

REAL_TRACK = "real"  # REPORT_DIR/real/: the real track's scored rows (rabench bench --real)


def _with_real_track(report_dir: Path, real_path: Path) -> tuple[list[Row], str, str]:
    """REPORT_DIR/real/rows.json beside the main one: rewrite report.md with the synthetic |
    real section too; return the real rows, suite name and origin (real/track.json) for the page."""
    from rabench.cli.bench_real import describe
    from rabench.report.markdown import render as render_md

    record = real_path.parent / "track.json"
    origin = describe(read_track(record)) if record.is_file() else ""
    main_doc, real_doc = read_rows(report_dir / "rows.json"), read_rows(real_path)
    (report_dir / "report.md").write_text(render_md(main_doc, real_doc, origin), encoding="utf-8")
    return real_doc.rows, real_doc.header.suite_name, origin


def build(report_dir: Path) -> Path:
    from rabench.report.html import render

    rows_path = report_dir / "rows.json"
    if not rows_path.is_file():
        raise UserError(f"{report_dir}: no rows.json here (run `rabench score ... --out {report_dir}` first)")
    # Every file is typed at the edge: contracts_version checked first, unknown keys refused.
    doc = read_rows(rows_path)
    header = doc.header
    real_path = report_dir / REAL_TRACK / "rows.json"
    real_rows, real_suite, origin = _with_real_track(report_dir, real_path) if real_path.is_file() else (None, "?", "")
    details_path = report_dir / "details.json"
    details = read_details(details_path) if details_path.is_file() else None
    cases_path = report_dir / "cases.json"
    cases = read_cases(cases_path) if cases_path.is_file() else None
    runs = ", ".join(r.run_id for r in header.runs)
    title = f"{header.spec} · suite {header.suite_name} · runs {runs} · scorer {header.scorer_version}"
    meta = {"title": title, "synthetic_suite": header.suite_name, "real_suite": real_suite, "real_origin": origin}
    out = report_dir / "report.html"
    out.write_text(
        render(doc.rows, doc.findings, details, meta, real_rows, targets_info=header.targets, cases=cases),
        encoding="utf-8",
    )
    return out


def _run(args: argparse.Namespace) -> int:
    out = build(Path(args.report_dir))
    print(f"report: {out}", file=sys.stdout)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="Render report.html (self-contained, no network) from a scored report folder.",
        description=(
            "Read REPORT_DIR/rows.json, details.json and cases.json (written by `rabench score`) and "
            "write REPORT_DIR/report.html, one self-contained file: the verdict first (per pair of "
            "targets, who wins on each headline row, with 95% intervals, and the expected cost "
            "against approving everything), headline tables per task with intervals as error bars, "
            "findings per baseline, strata tables, ROC curves, a reliability diagram, the cost "
            "sweep, latency distributions, the worst misses with their receipts and a per-case "
            "viewer (filter by stratum, target, status, disagreements; every target's runs side by "
            "side). It loads nothing from the network. When REPORT_DIR/real/rows.json exists "
            "(the real track of `rabench bench --real`), the page and report.md open with every "
            "headline row of both tracks side by side and where they disagree."
        ),
    )
    p.add_argument("report_dir", metavar="REPORT_DIR", help="folder with rows.json, e.g. reports/X")
    p.set_defaults(func=_run)
