"""report.md: the rows a person reads first — headline tables per task, the
findings, then every stratum row — rendered from rows.json alone; with a real
track (``rabench bench --real``), first the synthetic | real comparison."""

from __future__ import annotations

from collections import defaultdict

from rabench.contracts import Row
from rabench.score.metrics import ORDER, TASKS
from rabench.score.output import RowsFile
from rabench.score.tasks import operations
from rabench.score.tracks import figure, gap_text, pair_tracks, summary


def fmt(x: float | None) -> str:
    if x is None:
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def cell(r: Row | None) -> str:
    if r is None:
        return ""
    if not r.supported:
        return "not supported"
    why = operations.not_measured_reason(r)
    if why is not None:
        return f"not measured ({why.split(' (')[0]})"
    text = fmt(r.value)
    if r.lo is not None and r.hi is not None:
        text += f" [{fmt(r.lo)}, {fmt(r.hi)}]"
    return f"{text} (n={r.n}{', batch price' if operations.BATCH_PRICE in r.note else ''})"


MARKS = {"worse": "**worse on real**", "better": "**better on real**"}


def tracks_section(synthetic: RowsFile, real: RowsFile, origin: str = "") -> list[str]:
    """Every headline row of both tracks side by side, the gap, and the disagreements in words."""
    pairs = pair_tracks(synthetic.rows, real.rows)
    h = real.header
    lines = [
        "## Synthetic vs real receipts",
        "",
        f"Synthetic: suite {synthetic.header.suite_name} (manifest `{synthetic.header.suite_manifest_sha256[:12]}`). "
        f"Real: suite {h.suite_name} (manifest `{h.suite_manifest_sha256[:12]}`), runs "
        + ", ".join(f"`{r.run_id}`" for r in h.runs)
        + " (its full report: real/report.md)"
        + (f": {origin}." if origin else "."),
        "",
        "Gap = real − synthetic. A row is marked when the two 95% intervals don't overlap "
        "(latency and cost: at least 1.2x apart), never on fewer than 10 cases or calls on a side "
        '(docs/methodology.md, "Synthetic vs real").',
        "",
        *[f"- {line}" for _, line in summary(pairs)],
        "",
        "| target | task | metric | synthetic | real | gap | |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in pairs:
        mark = MARKS.get(p.mark, p.reason)
        lines.append(
            f"| {p.target} | {p.task} | {p.metric} | {figure(p.synthetic)} | {figure(p.real)} "
            f"| {gap_text(p)} | {mark} |"
        )
    lines.append("")
    return lines


def render(doc: RowsFile, real: RowsFile | None = None, real_origin: str = "") -> str:
    h = doc.header
    targets = [t.id for t in h.targets]
    lines = [
        f"# {h.spec} — {h.suite_name}",
        "",
        f"Suite manifest sha256 `{h.suite_manifest_sha256}`; runs "
        + ", ".join(f"`{r.run_id}` ({r.repetitions} repetitions)" for r in h.runs)
        + f"; scorer {h.scorer_version}, contracts v{h.contracts_version}.",
        "",
        "Values with a 95% interval [lo, hi] (Wilson for rates, percentile bootstrap with "
        f"{h.bootstrap_resamples} resamples for AUC, detection at a false-flag rate and "
        "line-item F1) and n, the cases (or calls, or runs) the value rests on. "
        "Definitions: " + ("docs/methodology-ap.md." if h.scorer_version.startswith("ap-") else "docs/methodology.md."),
        "",
    ]
    from rabench.report.verdict import build as build_verdict, to_markdown

    batch = operations.batch_targets(doc.rows)
    if batch:
        lines += [operations.batch_sentence(batch), ""]
    lines += to_markdown(build_verdict(doc.rows, doc.header.targets, doc.header.reference, doc.header.named))
    from rabench.report import ap_section

    lines += ap_section.markdown(doc.rows)  # an ap suite's rows (docs/methodology-ap.md)
    if real is not None:
        lines += tracks_section(doc, real, real_origin)
        lines += ["# Synthetic track", ""]
    by_key: dict[tuple[str, str, str, str], Row] = {(r.task, r.metric, r.stratum, r.target): r for r in doc.rows}
    for task in TASKS:
        metrics = sorted({r.metric for r in doc.rows if r.task == task}, key=lambda m: ORDER[(task, m)])
        if not metrics:
            continue
        lines += [
            f"## {task.capitalize()}",
            "",
            "| metric | " + " | ".join(targets) + " |",
            "|---|" + "---|" * len(targets),
        ]
        for m in metrics:
            lines.append(f"| {m} | " + " | ".join(cell(by_key.get((task, m, "all", t))) for t in targets) + " |")
        lines.append("")
    if doc.findings:
        lines += ["## Findings", "", "| ours | baseline | task | metric | result | why |", "|---|---|---|---|---|---|"]
        for f in doc.findings:
            result = "not supported by baseline" if f.result == "not_supported" else f.result
            lines.append(f"| {f.target} | {f.baseline} | {f.task} | {f.metric} | {result} | {f.reason} |")
        lines.append("")
    strata: dict[str, list[Row]] = defaultdict(list)
    for r in doc.rows:
        if r.stratum != "all":
            strata[r.task].append(r)
    if strata:
        lines += ["## Strata", ""]
        for task in TASKS:
            if task not in strata:
                continue
            lines += [
                f"### {task.capitalize()}",
                "",
                "| metric | stratum | " + " | ".join(targets) + " |",
                "|---|---|" + "---|" * len(targets),
            ]
            keys = sorted({(r.metric, r.stratum) for r in strata[task]}, key=lambda k: (ORDER[(task, k[0])], k[1]))
            for m, s in keys:
                lines.append(f"| {m} | {s} | " + " | ".join(cell(by_key.get((task, m, s, t))) for t in targets) + " |")
            lines.append("")
    return "\n".join(lines)
