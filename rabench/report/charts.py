"""Charts as inline SVG strings (matplotlib, Agg), so report.html needs no network to view.

Each function takes plain data and returns one ``<svg>`` element; nothing here
reads files or knows about the scorer, so charts are testable on their own.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from rabench.contracts.details import ReliabilityBin
from rabench.report.style import target_colour

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

plt.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text (searchable, crisp)
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "svg.hashsalt": "rabench",  # stable element ids: same data, same bytes
    }
)
PAD = 0.03  # axes run a little past 0 and 1 so a value of exactly 0 or 1 is drawn whole


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(
        buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None, "Format": None, "Type": None}
    )
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def colour(target: str) -> str:
    """A target's colour, the same in every chart and every report (``style.target_colour``)."""
    return target_colour(target)


def _base(target: str) -> str:
    """The target id of a series name like ``self at 0.5`` (its first word)."""
    return target.split(" ", 1)[0]


def curve_area(fpr: Sequence[float], tpr: Sequence[float]) -> float:
    """Area under the drawn ROC polyline (straight segments, so a tied group is a diagonal):
    the AUC with ties counted half, i.e. the Mann-Whitney statistic."""
    area = 0.0
    for i in range(1, len(fpr)):
        area += (fpr[i] - fpr[i - 1]) * (tpr[i] + tpr[i - 1]) / 2.0
    return area


def interval_chart(
    metrics: Sequence[str],
    series: Mapping[str, Sequence[tuple[float | None, float | None, float | None]]],
    *,
    title: str,
    xlim: tuple[float, float] | None = (0.0, 1.0),
) -> str:
    """Horizontal dots with 95% interval bars: one row per metric, one colour per target."""
    n_t = max(len(series), 1)
    fig, ax = plt.subplots(figsize=(5.2, 0.3 * len(metrics) * max(1, n_t / 2) + 0.9))
    step = 0.8 / n_t
    for t, (target, values) in enumerate(series.items()):
        for m, (value, lo, hi) in enumerate(values):
            if value is None:
                continue
            y = m - 0.4 + step * (t + 0.5)
            if lo is not None and hi is not None:
                bars = ax.errorbar(
                    [value],
                    [y],
                    xerr=[[max(0.0, value - lo)], [max(0.0, hi - value)]],
                    fmt="o",
                    ms=4,
                    color=colour(target),
                    capsize=2,
                    lw=1.2,
                    label=target if m == 0 else None,
                )
                for art in (bars.lines[0], *bars.lines[1], *bars.lines[2]):
                    art.set_clip_on(False)
            else:
                ax.plot([value], [y], "o", ms=4, color=colour(target), clip_on=False, label=target if m == 0 else None)
    ax.set_yticks(range(len(metrics)), metrics)
    ax.invert_yaxis()
    if xlim:
        ax.set_xlim(xlim[0] - PAD, xlim[1] + PAD)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, loc="left", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if labels:
        ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _svg(fig)


def roc_chart(curves: Mapping[str, tuple[Sequence[float], Sequence[float], str | None]]) -> str:
    """ROC curve per target: (false-flag rate, detection, AUC text for the legend).

    The points are the ends of each group of tied risks; joining them with straight
    lines draws a tied group as a diagonal (a target that gives every receipt the same
    risk is the chance diagonal, AUC 0.5), so the area under the drawn curve is the
    AUC with ties counted half (``curve_area``), the one in the table.
    """
    fig, ax = plt.subplots(figsize=(4.4, 4.2))
    ax.plot([0, 1], [0, 1], ls=":", color="#999", lw=1)
    for target, (fpr, tpr, auc) in curves.items():
        label = f"{target} (AUC {auc})" if auc else target
        ax.plot(fpr, tpr, "-", color=colour(target), lw=1.6, label=label, clip_on=False)
    ax.set_xlabel("false-flag rate (genuine flagged)")
    ax.set_ylabel("detection (fakes flagged)")
    ax.set_xlim(-PAD / 2, 1 + PAD / 2)
    ax.set_ylim(-PAD / 2, 1 + PAD / 2)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(0.0, -0.16), frameon=False)
    ax.set_title("ROC, base cases (ties drawn as diagonals)", loc="left", fontsize=10)
    return _svg(fig)


def reliability_chart(bins: Mapping[str, Sequence[ReliabilityBin]]) -> str:
    """Reliability diagram: mean risk vs share fake per bin, point size ~ runs in the bin."""
    fig, ax = plt.subplots(figsize=(4.2, 4.0))
    ax.plot([0, 1], [0, 1], ls=":", color="#999", lw=1)
    for target, all_bins in bins.items():
        rows = [r for r in all_bins if r.n > 0]
        if not rows:
            continue
        xs = [r.mean_risk for r in rows]
        ys = [r.share_fake for r in rows]
        sizes = [12 + 60 * r.n / max(x.n for x in rows) for r in rows]
        ax.plot(xs, ys, "-", color=colour(target), lw=1, alpha=0.7, clip_on=False)
        ax.scatter(xs, ys, s=sizes, color=colour(target), label=target, zorder=3, clip_on=False)
    ax.set_xlabel("mean risk in bin")
    ax.set_ylabel("share of fakes in bin")
    ax.set_xlim(-PAD, 1 + PAD)
    ax.set_ylim(-PAD, 1 + PAD)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.set_title("Reliability (10 equal-width bins)", loc="left", fontsize=10)
    return _svg(fig)


def cost_sweep_chart(
    scenarios: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    approve_all: Sequence[float | None],
) -> str:
    """Expected cost per 1,000 receipts per assumption, one bar group per scenario.

    ``series`` names are "<target> <what>" (coloured by the target; the second and later
    series of a target hatched). Every bar carries its value; $0 is a visible tick and
    label, an unknown cost (None) is written "unknown", never drawn as 0. The black
    tick is approving everything; the legend sits below the chart, off the bars.
    """
    n = max(len(series), 1)
    scenarios = [s.replace("$", r"\$") for s in scenarios]  # a '$' would start matplotlib mathtext
    fig, ax = plt.subplots(figsize=(7.2, 0.2 * len(scenarios) * n + 0.25 * len(scenarios) + 1.6))
    h = 0.8 / n
    top = max(
        [v for vals in series.values() for v in vals if v is not None]
        + [v for v in approve_all if v is not None]
        + [1.0]
    )
    seen: dict[str, int] = {}
    for t, (name, values) in enumerate(series.items()):
        target = _base(name)
        k = seen[target] = seen.get(target, -1) + 1
        ys = [i - 0.4 + h * (t + 0.5) for i in range(len(scenarios))]
        known = [(y, v) for y, v in zip(ys, values) if v is not None]
        ax.barh(
            [y for y, _ in known],
            [v for _, v in known],
            height=h * 0.9,
            color=colour(target),
            hatch="///" if k else None,
            edgecolor="white" if k else colour(target),
            lw=0,
            label=name.replace("$", r"\$"),
        )
        for y, v in zip(ys, values):
            if v is None:
                ax.text(0, y, " unknown", va="center", ha="left", fontsize=7, color="#c62828", style="italic")
            else:
                if v == 0:
                    ax.plot([0, 0], [y - h * 0.42, y + h * 0.42], color=colour(target), lw=2.5, clip_on=False)
                ax.text(v + top * 0.01, y, rf"\${v:,.0f}", va="center", ha="left", fontsize=7, color="#333")
    ys_a = [i for i, v in enumerate(approve_all) if v is not None]
    ax.scatter(
        [approve_all[i] for i in ys_a],
        ys_a,
        marker="|",
        s=420,
        color="#000",
        lw=1.6,
        label="approve everything",
        zorder=3,
    )
    ax.set_yticks(range(len(scenarios)), scenarios)
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.15)
    ax.set_xlabel("expected cost per 1,000 receipts (USD); right of the black tick = loses money")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(
        fontsize=7.5,
        loc="upper left",
        bbox_to_anchor=(0.0, -0.12 - 0.5 / (len(scenarios) * n + 4)),
        ncol=2,
        frameon=False,
    )
    ax.set_title("Cost sweep (one assumption varied at a time)", loc="left", fontsize=10)
    return _svg(fig)


def latency_chart(samples: Mapping[str, Sequence[float]]) -> str:
    """Latency distribution per target (box plot over successful calls, log scale)."""
    names = [k for k, v in samples.items() if v]
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * max(len(names), 1) + 1.0))
    if names:
        box = ax.boxplot(
            [samples[k] for k in names],
            orientation="horizontal",
            whis=(1, 99),
            showfliers=False,
            tick_labels=names,
            patch_artist=True,
        )
        for patch, name in zip(box["boxes"], names):
            patch.set_facecolor(colour(name))
            patch.set_alpha(0.55)
        ax.set_xscale("log")
    ax.set_xlabel("latency of the final attempt (s), whiskers p1-p99")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Latency, successful calls", loc="left", fontsize=10)
    return _svg(fig)
