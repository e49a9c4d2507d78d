"""report.html's "Synthetic vs real receipts" section (``rabench bench --real``).

Every headline row of both tracks side by side per target, the gap (real −
synthetic), the mark when they disagree beyond their intervals, the same
sentences as report.md, and one interval chart per target with both tracks on
it (authenticity and evidence rows: what the real track is for). Pairing and the rule live in ``rabench.score.tracks``; this only draws.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from rabench.contracts import Row
from rabench.report import charts
from rabench.score.tracks import Pair, gap_text, pair_tracks, summary

CSS = """
table.tracks td.worse{color:#c62828;font-weight:600;text-align:left}
table.tracks td.better{color:#1a7f37;font-weight:600;text-align:left}
table.tracks td.why{color:#777;font-size:12px;text-align:left;white-space:normal;min-width:150px;max-width:220px}
table.tracks td:nth-child(2),table.tracks th:nth-child(2){text-align:left}
ul.tracks li.worse{color:#c62828}ul.tracks li.better{color:#1a7f37}ul.tracks li{margin:3px 0}
"""
MARK_TEXT = {"worse": "▼ worse on real", "better": "▲ better on real"}


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}" if abs(x) < 100 else f"{x:,.0f}"  # 1e-18 -> 0.000


def _cells(row: Row | None) -> str:
    if row is None:
        return "<td></td><td></td>"
    if not row.supported:
        return '<td class="ns" colspan="2">not supported</td>'
    ci = f"[{_num(row.lo)}, {_num(row.hi)}] " if row.lo is not None and row.hi is not None else ""
    return f"<td>{_e(_num(row.value))}</td><td class='ci'>{_e(ci)}n={row.n}</td>"


def _table(pairs: Sequence[Pair]) -> str:
    body = []
    for p in pairs:
        mark = (
            f"<td class='{p.mark}' title='{_e(p.reason)}'>{_e(MARK_TEXT[p.mark])}</td>"
            if p.mark != "none"
            else f"<td class='why'>{_e(p.reason)}</td>"
        )
        body.append(
            f"<tr><td>{_e(p.task)}</td><td>{_e(p.metric)}</td>{_cells(p.synthetic)}"
            f"{_cells(p.real)}<td>{_e(gap_text(p))}</td>{mark}</tr>"
        )
    return (
        "<table class='tracks'><tr><th>task</th><th>metric</th><th colspan='2'>synthetic</th>"
        "<th colspan='2'>real</th><th>gap</th><th></th></tr>" + "".join(body) + "</table>"
    )


CHART_TASKS = ("authenticity", "evidence")  # what the real track is for; the table has the rest


def _chart(target: str, pairs: Sequence[Pair]) -> str:
    """Authenticity and evidence rates with their intervals, synthetic and real, one row each."""

    def ok(r: Row | None) -> bool:
        return r is not None and r.supported and r.value is not None and 0.0 <= r.value <= 1.0

    shown = [p for p in pairs if p.task in CHART_TASKS and ok(p.synthetic) and ok(p.real)]
    if not shown:
        return ""
    names = [p.metric + (" ▼" if p.mark == "worse" else " ▲" if p.mark == "better" else "") for p in shown]
    series = {
        track: [(r.value, r.lo, r.hi) for r in (getattr(p, track) for p in shown)] for track in ("synthetic", "real")
    }
    svg = charts.interval_chart(names, series, title=f"{target}: authenticity and evidence, 95% intervals")
    return f"<div class='card'>{svg}</div>"


def section(synthetic_rows: Sequence[Row], real_rows: Sequence[Row], meta: Mapping[str, str]) -> str:
    """The whole section as HTML; ``meta`` may hold ``synthetic_suite`` and ``real_suite`` names
    and ``real_origin`` (where the real receipts came from)."""
    pairs = pair_tracks(synthetic_rows, real_rows)
    lines = []
    for mark, text in summary(pairs):
        lines.append(f"<li class='{mark}'>{_e(text)}</li>")
    parts = [
        "<section id='tracks'><h2>Synthetic vs real receipts</h2>",
        f"<p class='meta'>Synthetic: {_e(meta.get('synthetic_suite', '?'))} · real: "
        f"{_e(meta.get('real_suite', '?'))}"
        + (f", {_e(meta['real_origin'])}" if meta.get("real_origin") else "")
        + " (its full report: real/report.html). Gap = real − synthetic; "
        "marked when the two 95% intervals don't overlap (latency and cost: at least 1.2x apart), "
        "never on fewer than 10 cases or calls on a side.</p>",
        f"<ul class='tracks'>{''.join(lines)}</ul>",
    ]
    for target in dict.fromkeys(p.target for p in pairs):
        mine = [p for p in pairs if p.target == target]
        parts.append(f"<h3>{_e(target)}</h3><div class='grid'>{_chart(target, mine)}<div>{_table(mine)}</div></div>")
    return "".join(parts) + "</section>"
