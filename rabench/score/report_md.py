"""report.md: the rows a person reads first — headline tables per task, the
findings, then every stratum row — rendered from rows.json alone."""

from __future__ import annotations

from collections import defaultdict

from rabench.contracts import Row
from rabench.score.metrics import ORDER, TASKS
from rabench.score.output import RowsFile


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
    text = fmt(r.value)
    if r.lo is not None and r.hi is not None:
        text += f" [{fmt(r.lo)}, {fmt(r.hi)}]"
    return f"{text} (n={r.n})"


def render(doc: RowsFile) -> str:
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
        "Definitions: docs/methodology.md.",
        "",
    ]
    by_key: dict[tuple[str, str, str, str], Row] = {
        (r.task, r.metric, r.stratum, r.target): r for r in doc.rows
    }
    for task in TASKS:
        metrics = sorted({r.metric for r in doc.rows if r.task == task}, key=lambda m: ORDER[(task, m)])
        if not metrics:
            continue
        lines += [f"## {task.capitalize()}", "", "| metric | " + " | ".join(targets) + " |",
                  "|---|" + "---|" * len(targets)]
        for m in metrics:
            lines.append(f"| {m} | " + " | ".join(cell(by_key.get((task, m, "all", t))) for t in targets) + " |")
        lines.append("")
    if doc.findings:
        lines += ["## Findings", "", "| ours | baseline | task | metric | result | why |",
                  "|---|---|---|---|---|---|"]
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
            lines += [f"### {task.capitalize()}", "", "| metric | stratum | " + " | ".join(targets) + " |",
                      "|---|---|" + "---|" * len(targets)]
            keys = sorted({(r.metric, r.stratum) for r in strata[task]},
                          key=lambda k: (ORDER[(task, k[0])], k[1]))
            for m, s in keys:
                lines.append(f"| {m} | {s} | " + " | ".join(cell(by_key.get((task, m, s, t))) for t in targets) + " |")
            lines.append("")
    return "\n".join(lines)
