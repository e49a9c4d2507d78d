"""``rabench report reports/X``: render report.html from rows.json (+ details.json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

from rabench.contracts.files import read_details, read_rows
from rabench.errors import UserError

REAL_TRACK = "real"  # REPORT_DIR/real/: the real track's scored rows (rabench bench --real)


def _with_real_track(report_dir: Path, real_path: Path) -> tuple[list, str, str]:
    """REPORT_DIR/real/rows.json beside the main one: rewrite report.md with the synthetic |
    real section too; return the real rows, suite name and origin (real/track.json) for the page."""
    from rabench.cli.bench_real import describe
    from rabench.score.output import decode
    from rabench.score.report_md import render as render_md

    record = real_path.parent / "track.json"
    origin = describe(msgspec.json.decode(record.read_bytes())) if record.is_file() else ""
    main_doc, real_doc = (decode(path.read_bytes(), str(path)) for path in (report_dir / "rows.json", real_path))
    (report_dir / "report.md").write_text(render_md(main_doc, real_doc, origin), encoding="utf-8")
    return msgspec.to_builtins(real_doc.rows), real_doc.header.suite_name, origin


def build(report_dir: Path) -> Path:
    from rabench.report.html import render

    rows_path = report_dir / "rows.json"
    if not rows_path.is_file():
        raise UserError(f"{report_dir}: no rows.json here (run `rabench score ... --out {report_dir}` first)")
    # Typed at the edge (contracts_version checked, unknown keys refused), then handed to
    # the page renderer as plain values.
    typed = read_rows(rows_path)
    doc = msgspec.to_builtins(typed)
    rows, findings, header = doc["rows"], doc["findings"], doc["header"]
    real_path = report_dir / REAL_TRACK / "rows.json"
    real_rows, real_suite, origin = (_with_real_track(report_dir, real_path) if real_path.is_file()
                                     else (None, "?", ""))
    details_path = report_dir / "details.json"
    details = msgspec.to_builtins(read_details(details_path)) if details_path.is_file() else {}
    cases_path = report_dir / "cases.json"
    try:
        cases = msgspec.json.decode(cases_path.read_bytes()) if cases_path.is_file() else None
    except msgspec.DecodeError as exc:
        raise UserError(f"{cases_path}: not a cases.json file ({exc})") from None
    runs = ", ".join(r.get("run_id", "?") for r in header.get("runs", []))
    title = (f"{header.get('spec', 'RA-Bench')} · suite {header.get('suite_name', '?')} · runs {runs} · "
             f"scorer {header.get('scorer_version', '?')}")
    meta = {"title": title, "synthetic_suite": header.get("suite_name", "?"),
            "real_suite": real_suite, "real_origin": origin}
    out = report_dir / "report.html"
    out.write_text(render(rows, findings, details, meta, real_rows, targets_info=header.get("targets"),
                          cases=cases), encoding="utf-8")
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
