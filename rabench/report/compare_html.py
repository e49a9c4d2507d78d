"""``rabench compare RUN_A RUN_B --html FILE``: the comparison as one self-contained page.

First the headline rows that moved beyond their intervals (in sentences, with
both intervals), then every case whose decision changed, per target, now wrong
first, each with its receipt, its label and the risks before and after.
"""

from __future__ import annotations

import html
from collections import Counter

from rabench.report.casedata import image_of, thumb
from rabench.report.html import CSS
from rabench.report.style import num, target_colour
from rabench.score.compare import Comparison

MAX_THUMBS = 600

EXTRA_CSS = """
li.better::marker{color:#1a7f37}li.worse::marker{color:#c62828}
td.now-wrong{color:#c62828;font-weight:600}td.now-right{color:#1a7f37;font-weight:600}
table.changed img{width:48px;height:72px;object-fit:cover;object-position:top;border:1px solid #ddd}
table.changed td{vertical-align:top}
"""


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _fig(row) -> str:
    if row.value is None:
        return "–"
    if row.lo is not None and row.hi is not None:
        return f"{num(row.value, row.lo, row.hi)} (n={row.n})"
    return f"{row.value:.4g} (n={row.n})"


def render(c: Comparison, run_a: str, run_b: str) -> str:
    parts = [
        f"<h1>RA-Bench comparison</h1><p class='meta'>before: {_e(run_a)} · after: {_e(run_b)} · "
        f"targets in both: {_e(', '.join(c.targets))}</p>",
        "<h2 id='moved'>Rows that moved beyond their intervals</h2>",
    ]
    if c.moved:
        items = "".join(
            f"<li class='{m.direction}'><code>{_e(m.target)}</code> {_e(m.task)}/{_e(m.metric)}"
            f"{'' if m.stratum == 'all' else ' [' + _e(m.stratum) + ']'}: {_e(_fig(m.before))} → "
            f"{_e(_fig(m.after))}: <b>{m.direction}</b> ({_e(m.reason)})</li>"
            for m in c.moved
        )
        parts.append(f"<ul>{items}</ul>")
    else:
        parts.append("<p>No row moved beyond its interval.</p>")
    parts.append(
        f"<p class='meta'>{c.compared} rows compared. A row moved when the 95% intervals of the "
        "two runs don't overlap (latency and cost: at least 1.2x apart), never on fewer than 10 "
        "cases or calls.</p>"
    )
    parts.append(
        "<h2 id='changed'>Cases whose decision changed</h2><p class='meta'>A decision: flagged "
        'when most of the target\'s answered runs have risk ≥ 0.5, else approved; "no answer" when '
        f"no run answered. {c.cases} cases per target.</p>"
    )
    cases = {case.id: case for case in c.inp.cases.cases} if c.inp is not None else {}
    thumbs = 0
    for t in c.targets:
        mine = [x for x in c.changed if x.target == t]
        counts = ", ".join(f"{n} {k}" for k, n in Counter(x.now for x in mine).items()) or "none"
        parts.append(
            f"<h3><span class='sw' style='display:inline-block;width:10px;height:10px;"
            f"background:{target_colour(t)}'></span> <code>{_e(t)}</code>: {len(mine)} changed "
            f"<span class='meta'>({_e(counts)})</span></h3>"
        )
        if not mine:
            continue
        rows = []
        for x in mine:
            img = ""
            case = cases.get(x.case_id)
            if case is not None and thumbs < MAX_THUMBS:
                path, media, _ = image_of(c.inp, case)
                uri = thumb(path, media)
                if uri:
                    thumbs += 1
                    img = f"<img alt='' loading='lazy' src='{uri}'>"
            rb = "–" if x.risk_before is None else f"{x.risk_before:.2f}"
            ra = "–" if x.risk_after is None else f"{x.risk_after:.2f}"
            rows.append(
                f"<tr><td>{img}</td><td>{_e(x.case_id)}</td><td>{_e(x.label)}</td>"
                f"<td>{_e(x.before)} ({rb})</td><td>{_e(x.after)} ({ra})</td>"
                f"<td class='{x.now.replace(' ', '-')}'>{_e(x.now)}</td></tr>"
            )
        parts.append(
            "<table class='changed'><tr><th></th><th>case</th><th>label</th><th>before (risk)</th>"
            f"<th>after (risk)</th><th></th></tr>{''.join(rows)}</table>"
        )
    body = "".join(parts)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>RA-Bench comparison</title>"
        f"<style>{CSS}{EXTRA_CSS}</style></head><body><main>{body}</main></body></html>"
    )
