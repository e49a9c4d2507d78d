"""report.html: one self-contained page (inline CSS, SVG, data and script; no network).

Sections: the verdict (``report/verdict.py``: per pair of targets, who wins on
what, with intervals, and the money line), synthetic vs real (when there is a
real track, ``report/tracks.py``), headline per task (table + interval chart),
findings per baseline, ROC curves, reliability diagram, cost sweep, latency,
strata tables, the worst misses and the per-case viewer (``report/viewer.py``).
Input is what the scorer wrote: ``rows.json``, ``details.json`` and
``cases.json`` (see docs/methodology.md for their shapes).
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rabench.contracts import Row, TargetInfo
from rabench.contracts.details import DetailsFile, WorstMiss
from rabench.contracts.rows import Finding
from rabench.contracts.views import CasesFile
from rabench.report import charts, tracks, verdict, viewer
from rabench.report.style import num, target_colour
from rabench.score.tasks import operations
from rabench.score.tasks.decisions import DEFAULTS

TASK_ORDER = ["extraction", "checks", "authenticity", "duplicates", "decisions", "evidence", "operations"]
RATE_TASKS = {"extraction", "checks", "authenticity", "duplicates", "evidence"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:24px 28px 64px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:36px 0 10px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}.meta{color:#666;font-size:13px}
table{border-collapse:collapse;background:#fff;margin:6px 0 14px;font-size:13px}
th,td{padding:4px 10px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f0f2f5;font-weight:600}
td.ci{color:#777;font-size:12px}td.not_supported{color:#999;font-style:italic}table.findings td:nth-child(2),table.findings th:nth-child(2){text-align:left}.ns{color:#999;font-style:italic}
.win{color:#1a7f37;font-weight:600}.loss{color:#c62828;font-weight:600}.tie{color:#666}
.grid{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}.card{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:10px}
svg{max-width:100%;height:auto}details{margin:6px 0}summary{cursor:pointer;font-weight:600}
.miss{display:flex;gap:14px;background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:10px;margin:8px 0}
.miss img{max-width:160px;max-height:260px;border:1px solid #ddd}.miss pre{font-size:12px;margin:0;white-space:pre-wrap}
.kind{display:inline-block;font-size:11px;padding:0 5px;border-radius:3px;background:#eef;margin-right:4px}
#verdict{background:#fff;border:1px solid #d6dbe3;border-left:5px solid #1f5fa8;border-radius:6px;padding:6px 18px 10px;margin-top:14px}
#verdict h2{margin-top:10px}#verdict h3{margin:14px 0 4px}#verdict ul{margin:4px 0;padding-left:20px}#verdict li{margin:3px 0}
#verdict li.win{color:inherit;font-weight:normal}#verdict li.loss{color:inherit;font-weight:normal}
#verdict li.win::marker{color:#1a7f37}#verdict li.loss::marker{color:#c62828}#verdict .money li.loss{color:#c62828}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:baseline}
nav.toc{font-size:13px;margin:6px 0}nav.toc a{margin-right:12px}
p.batch{background:#fff8e1;border:1px solid #f0d98c;border-radius:6px;padding:6px 12px}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def fmt(value: float | None, metric: str = "") -> str:
    if value is None:
        return "–"
    if any(k in metric for k in ("latency", "_s", "p50", "p95", "p99")) and "rate" not in metric:
        return f"{value:.3g} s" if "latency" in metric else f"{value:.3g}"
    if "cost" in metric:
        return f"${value:,.4g}"
    return f"{value:.3f}"


def _cell(row: Row | None) -> str:
    if row is None:
        return "<td></td><td></td>"
    if not row.supported:
        return '<td class="ns" colspan="2">not supported</td>'
    why = operations.not_measured_reason(row)
    if why is not None:
        return f'<td class="ns" title="{_e(why)}">not measured</td><td class="ci">{_e(why.split(" (")[0])}</td>'
    ci = ""
    if row.lo is not None and row.hi is not None:
        ci = f"[{fmt(row.lo, row.metric)}, {fmt(row.hi, row.metric)}]"
    if operations.BATCH_PRICE in row.note:
        ci = f"{ci} batch price".strip()
    return f'<td title="n={row.n}">{_e(fmt(row.value, row.metric))}</td><td class="ci">{_e(ci)} n={row.n}</td>'


Grouped = dict[str, dict[str, dict[str, dict[str, Row]]]]


def _group(rows: Iterable[Row]) -> Grouped:
    """{task: {stratum: {metric: {target: row}}}}, in first-seen order."""
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for r in rows:
        out[r.task][r.stratum][r.metric][r.target] = r
    return out


def _table(metrics: Mapping[str, Mapping[str, Row]], targets: Sequence[str]) -> str:
    head = "".join(f'<th colspan="2">{_e(t)}</th>' for t in targets)
    body = []
    for metric, by_target in metrics.items():
        cells = "".join(_cell(by_target.get(t)) for t in targets)
        body.append(f"<tr><td>{_e(metric)}</td>{cells}</tr>")
    return f"<table><tr><th>metric</th>{head}</tr>{''.join(body)}</table>"


def _headline_chart(task: str, metrics: Mapping[str, Mapping[str, Row]], targets: Sequence[str]) -> str:
    if task not in RATE_TASKS:
        return ""
    names = [
        m
        for m, bt in metrics.items()
        if any(r.supported and r.value is not None and 0.0 <= r.value <= 1.0 for r in bt.values())
    ]
    if not names:
        return ""
    series = {}
    for t in targets:
        vals = []
        for m in names:
            r = metrics[m].get(t)
            vals.append(
                (r.value, r.lo, r.hi) if r is not None and r.supported and r.value is not None else (None, None, None)
            )
        series[t] = vals
    return f'<div class="card">{charts.interval_chart(names, series, title=f"{task}: 95% intervals")}</div>'


def _findings(findings: Sequence[Finding]) -> str:
    """One compact matrix: a row per headline metric, a column per (ours vs baseline)."""
    if not findings:
        return "<p class='meta'>One target only: nothing to compare it with.</p>"
    pairs = list(dict.fromkeys((f.target, f.baseline) for f in findings))
    cells: dict = defaultdict(dict)
    totals: dict = defaultdict(lambda: defaultdict(int))
    for f in findings:
        pair = (f.target, f.baseline)
        cells[(f.task, f.metric)][pair] = f
        totals[pair][f.result] += 1
    head = "".join(f"<th>{_e(a)} vs {_e(b)}</th>" for a, b in pairs)
    summary = "".join(
        "<td class='meta'>" + _e(", ".join(f"{v} {k}" for k, v in sorted(totals[p].items()))) + "</td>" for p in pairs
    )
    body = []
    for (task, metric), by_pair in cells.items():
        tds = []
        for p in pairs:
            f = by_pair.get(p)
            if f is None:
                tds.append("<td></td>")
                continue
            res = f.result
            label = "not supported" if res == "not_supported" else res
            tds.append(f"<td class='{_e(res)}' title='{_e(f.reason)}'>{_e(label)}</td>")
        body.append(f"<tr><td>{_e(task)}</td><td>{_e(metric)}</td>{''.join(tds)}</tr>")
    return (
        f"<table class='findings'><tr><th>task</th><th>metric</th>{head}</tr>"
        f"<tr><td></td><td class='meta'>summary</td>{summary}</tr>{''.join(body)}</table>"
        "<p class='meta'>win/loss only when the 95% intervals don't overlap (latency and cost: "
        "at least 1.2x apart); a tie when either side rests on fewer than 10 cases or calls. "
        "Hover a cell for the reason.</p>"
    )


def _worst(misses: Sequence[WorstMiss]) -> str:
    if not misses:
        return "<p class='meta'>No misses recorded.</p>"
    out = []
    for m in misses:
        img = f"<img alt='{_e(m.case_id)}' src='{_e(m.thumbnail)}'>" if m.thumbnail else ""
        reasons = "".join(f"<li><span class='kind'>{_e(r.kind)}</span>{_e(r.text)}</li>" for r in m.reasons)
        out.append(
            f"<div class='miss'>{img}<div><b>{_e(m.case_id)}</b> · {_e(m.target)} · "
            f"{_e(m.why)}<h3>label</h3><pre>{_e(m.label)}</pre>"
            f"<h3>verdict</h3><pre>{_e(m.verdict)}</pre><ul>{reasons}</ul></div></div>"
        )
    return "".join(out)


def scenario_label(stratum: str) -> str:
    """``all`` -> the default assumptions spelled out; ``assumption=p=0.05`` -> ``p=0.05 (rest default)``."""
    if stratum == "all":
        return "default: p={p:g}, C_miss=${c_miss:g}, C_review=${c_review:g}".format(**DEFAULTS)
    name = stratum.removeprefix("assumption=")
    key, _, value = name.partition("=")
    return f"{key}={'$' if key.startswith('c_') else ''}{value} (rest default)"


def _cost_sweep(grouped: Grouped, targets: Sequence[str]) -> str:
    decisions = grouped.get("decisions", {})
    scenarios = []
    for stratum, metrics in decisions.items():
        if stratum == "all" or stratum.startswith("assumption="):
            if any(m.startswith("expected_cost") for m in metrics):
                scenarios.append(stratum)
    scenarios.sort(key=lambda s: s != "all")  # the default first
    if not scenarios:
        return ""
    metric_names = sorted(
        {m for s in scenarios for m in decisions[s] if m.startswith("expected_cost") and "approve" not in m}
    )
    series: dict[str, list[float | None]] = {}
    for t in targets:
        for m in metric_names:
            rows_ = [decisions[s].get(m, {}).get(t) for s in scenarios]
            if all(r is None for r in rows_):
                continue
            # A row that exists without a value is an unknown cost (drawn "unknown", never 0).
            series[f"{t} at risk ≥ {m.rsplit('_', 1)[-1]}"] = [
                r.value if r is not None and r.supported else None for r in rows_
            ]
    approve = []
    for s in scenarios:
        v = None
        for m, bt in decisions[s].items():
            if "approve" in m:
                v = next((r.value for r in bt.values() if r.value is not None), None)
        approve.append(v)
    if not series:
        return ""
    labels = [scenario_label(s) for s in scenarios]
    return (
        f'<div class="card">{charts.cost_sweep_chart(labels, series, approve)}</div>'
        "<p class='meta'>p: share of receipts that are fake; C_miss: what a missed fake costs; "
        "C_review: what reviewing a flagged receipt costs. A bar right of the black tick (approve "
        "everything) means flagging at that threshold costs more than checking nothing.</p>"
    )


def _verdict(rows: Sequence[Row], targets_info: Sequence[TargetInfo], findings: Sequence[Finding] = ()) -> str:
    # the findings' reference and order, so the verdict and the findings table compare the same pairs
    ref = findings[0].target if findings else None
    named = list(dict.fromkeys([ref, *(f.baseline for f in findings)])) if ref else []
    v = verdict.build(rows, targets_info, ref, named)
    who = "".join(
        f"<li><span class='sw' style='background:{target_colour(w.split('`')[1])}'></span>{verdict.to_html(w)}</li>"
        for w in v.who
    )
    out = [f"<section id='verdict'><h2>Verdict</h2><ul>{who}</ul>"]
    if not v.pairs:
        out.append(
            "<p>Only one target ran: nothing to compare it with. Add <code>null</code> or "
            "<code>meta</code> (no key needed) or a DIY target.</p>"
        )
    for p in v.pairs:
        tally = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(p.tally.items()))
        items = "".join(f"<li class='{_e(x.result)}'>{verdict.to_html(x.text)}</li>" for x in p.sentences)
        rest = f"<li>{verdict.to_html(p.rest)}</li>" if p.rest else ""
        out.append(
            f"<h3><code>{_e(p.ours)}</code> vs <code>{_e(p.other)}</code> "
            f"<span class='meta'>({_e(tally)})</span></h3><ul>{items}{rest}</ul>"
        )
    if v.money_head:
        items = "".join(f"<li class='{_e(x.result)}'>{verdict.to_html(x.text)}</li>" for x in v.money)
        out.append(f"<h3>Money</h3><p>{verdict.to_html(v.money_head)}</p><ul class='money'>{items}</ul>")
    out.append(
        "<p class='meta'>A win or loss only when the 95% intervals don't overlap (latency and cost: "
        "at least 1.2x apart), never on fewer than 10 cases. Intervals are rounded outward.</p></section>"
    )
    return "".join(out)


def render(
    rows: Sequence[Row],
    findings: Sequence[Finding],
    details: DetailsFile | None,
    meta: Mapping[str, str],
    real_rows: Sequence[Row] | None = None,
    *,
    targets_info: Sequence[TargetInfo] | None = None,
    cases: CasesFile | None = None,
) -> str:
    """The page; with ``real_rows`` (the real track's rows) it opens with synthetic | real.
    ``targets_info``: rows.json's header targets (id, kind, ...), for the verdict;
    ``cases``: cases.json, for the per-case viewer."""
    grouped = _group(rows)
    targets = list(dict.fromkeys(r.target for r in rows))
    tasks = [t for t in TASK_ORDER if t in grouped] + [t for t in grouped if t not in TASK_ORDER]
    info = list(targets_info) if targets_info else [TargetInfo(id=t, kind="other") for t in targets]
    details = details if details is not None else DetailsFile()
    toc = (
        "<nav class='toc'><a href='#verdict'>Verdict</a><a href='#headline'>Headline</a>"
        "<a href='#findings'>Findings</a><a href='#curves'>Curves</a><a href='#cost'>Cost</a>"
        "<a href='#worst'>Worst misses</a><a href='#cases'>Cases</a></nav>"
    )
    parts = [f"<h1>RA-Bench report</h1><p class='meta'>{_e(meta.get('title', ''))}</p>{toc}"]
    batch = operations.batch_targets(rows)
    if batch:
        parts.append(f"<p class='batch'>{verdict.to_html(operations.batch_sentence(batch))}</p>")
    parts.append(_verdict(rows, info, findings))
    from rabench.report import ap_section

    parts.append(ap_section.html(rows))  # an ap suite's rows (docs/methodology-ap.md)
    if real_rows is not None:
        parts.append(tracks.section(rows, real_rows, meta))
        parts.append(
            "<h2>Synthetic track</h2><p class='meta'>Everything below is the synthetic "
            "suite; the real track's own page is real/report.html.</p>"
        )
    parts.append("<h2 id='headline'>Headline (stratum “all”)</h2>")
    for task in tasks:
        metrics = grouped[task].get("all", {})
        if not metrics:
            continue
        parts.append(
            f"<h3 id='task-{_e(task)}'>{_e(task)}</h3><div class='grid'>"
            f"<div>{_table(metrics, targets)}</div>{_headline_chart(task, metrics, targets)}</div>"
        )
    ref = f"<code>{_e(findings[0].target)}</code> vs every other target" if findings else "the reference vs the others"
    parts.append(f"<h2 id='findings'>Findings: {ref}</h2>" + _findings(findings))
    figs = []
    if details.roc:
        auc = {
            r.target: r
            for r in rows
            if r.task == "authenticity" and r.metric == "roc_auc" and r.stratum == "all" and r.value is not None
        }
        curves = {
            t: (c.fpr, c.tpr, num(auc[t].value, auc[t].lo, auc[t].hi) if t in auc else None)
            for t, c in details.roc.items()
        }
        figs.append(f"<div class='card'>{charts.roc_chart(curves)}</div>")
    if details.reliability:
        figs.append(f"<div class='card'>{charts.reliability_chart(details.reliability)}</div>")
    if figs:
        parts.append("<h2 id='curves'>Authenticity curves</h2><div class='grid'>" + "".join(figs) + "</div>")
    sweep = _cost_sweep(grouped, targets)
    if sweep:
        parts.append("<h2 id='cost'>Expected cost</h2>" + sweep)
    if details.latency:
        parts.append("<h2>Latency</h2><div class='card'>" + charts.latency_chart(details.latency) + "</div>")
    parts.append("<h2>Strata</h2>")
    for task in tasks:
        strata = [s for s in grouped[task] if s != "all"]
        if not strata:
            continue
        inner = "".join(f"<h3>{_e(s)}</h3>{_table(grouped[task][s], targets)}" for s in strata)
        parts.append(f"<details><summary>{_e(task)} ({len(strata)} strata)</summary>{inner}</details>")
    parts.append("<h2 id='worst'>Worst misses</h2>" + _worst(details.worst))
    parts.append(viewer.section(cases))
    body = "".join(parts)
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>RA-Bench report</title><style>{CSS}{viewer.CSS}{tracks.CSS if real_rows is not None else ''}</style></head><body><main>{body}</main></body></html>"
    )
