"""``rabench report reports/X``: render report.html from rows.json (+ details.json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

from rabench.errors import UserError


def build(report_dir: Path) -> Path:
    from rabench.report.html import render

    rows_path = report_dir / "rows.json"
    if not rows_path.is_file():
        raise UserError(f"{report_dir}: no rows.json here (run `rabench score ... --out {report_dir}` first)")
    try:
        doc = msgspec.json.decode(rows_path.read_bytes())
        rows, findings, header = doc["rows"], doc.get("findings", []), doc.get("header", {})
    except (msgspec.DecodeError, KeyError, TypeError) as exc:
        raise UserError(f"{rows_path}: not a rows.json file ({exc})") from None
    details_path = report_dir / "details.json"
    details = msgspec.json.decode(details_path.read_bytes()) if details_path.is_file() else {}
    runs = ", ".join(r.get("run_id", "?") for r in header.get("runs", []))
    title = (f"{header.get('spec', 'RA-Bench')} · suite {header.get('suite_name', '?')} · runs {runs} · "
             f"scorer {header.get('scorer_version', '?')}")
    out = report_dir / "report.html"
    out.write_text(render(rows, findings, details, {"title": title}), encoding="utf-8")
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
            "Read REPORT_DIR/rows.json and details.json (written by `rabench score`) and write "
            "REPORT_DIR/report.html: headline tables per task with 95%% intervals as error bars, "
            "findings per baseline, strata tables, ROC curves, a reliability diagram, the cost "
            "sweep, latency distributions and the worst misses with their receipts. The page has "
            "no scripts and loads nothing from the network."
        ),
    )
    p.add_argument("report_dir", metavar="REPORT_DIR", help="folder with rows.json, e.g. reports/X")
    p.set_defaults(func=_run)
