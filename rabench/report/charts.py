"""Charts as inline SVG strings (matplotlib, Agg), so report.html needs no network to view.

Each function takes plain data and returns one ``<svg>`` element; nothing here
reads files or knows about the scorer, so charts are testable on their own.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",  # text stays text (searchable, crisp)
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "rabench",  # stable element ids: same data, same bytes
})
PALETTE = ["#1f5fa8", "#d1603d", "#3a9a5b", "#8a56ac", "#b8860b", "#4d4d4d", "#c2185b", "#00838f"]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


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
                ax.errorbar([value], [y], xerr=[[max(0.0, value - lo)], [max(0.0, hi - value)]], fmt="o", ms=4,
                            color=colour(t), capsize=2, lw=1.2, label=target if m == 0 else None)
            else:
                ax.plot([value], [y], "o", ms=4, color=colour(t), label=target if m == 0 else None)
    ax.set_yticks(range(len(metrics)), metrics)
    ax.invert_yaxis()
    if xlim:
        ax.set_xlim(*xlim)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, loc="left", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if labels:
        ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _svg(fig)


def roc_chart(curves: Mapping[str, tuple[Sequence[float], Sequence[float], float | None]]) -> str:
    """ROC curve per target: (false-flag rate, detection, AUC)."""
    fig, ax = plt.subplots(figsize=(4.2, 4.0))
    ax.plot([0, 1], [0, 1], ls=":", color="#999", lw=1)
    for i, (target, (fpr, tpr, auc)) in enumerate(curves.items()):
        label = f"{target} (AUC {auc:.3f})" if auc is not None else target
        ax.step(fpr, tpr, where="post", color=colour(i), lw=1.6, label=label)
    ax.set_xlabel("false-flag rate (genuine flagged)")
    ax.set_ylabel("detection (fakes flagged)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8, loc="lower right", frameon=False)
    ax.set_title("ROC, base cases", loc="left", fontsize=10)
    return _svg(fig)


def reliability_chart(bins: Mapping[str, Sequence[Mapping[str, float]]]) -> str:
    """Reliability diagram: mean risk vs share fake per bin, point size ~ runs in the bin."""
    fig, ax = plt.subplots(figsize=(4.2, 4.0))
    ax.plot([0, 1], [0, 1], ls=":", color="#999", lw=1)
    for i, (target, rows) in enumerate(bins.items()):
        rows = [r for r in rows if r.get("n", 0) > 0]
        if not rows:
            continue
        xs = [r["mean_risk"] for r in rows]
        ys = [r["share_fake"] for r in rows]
        sizes = [12 + 60 * r["n"] / max(x["n"] for x in rows) for r in rows]
        ax.plot(xs, ys, "-", color=colour(i), lw=1, alpha=0.7)
        ax.scatter(xs, ys, s=sizes, color=colour(i), label=target, zorder=3)
    ax.set_xlabel("mean risk in bin")
    ax.set_ylabel("share of fakes in bin")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.set_title("Reliability (10 equal-width bins)", loc="left", fontsize=10)
    return _svg(fig)


def cost_sweep_chart(
    scenarios: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    approve_all: Sequence[float | None],
) -> str:
    """Expected cost per 1,000 receipts per assumption, one bar group per scenario."""
    fig, ax = plt.subplots(figsize=(6.4, 0.36 * len(scenarios) * max(1, len(series)) + 1.0))
    n = max(len(series), 1)
    h = 0.8 / n
    for t, (name, values) in enumerate(series.items()):
        ys = [i - 0.4 + h * (t + 0.5) for i in range(len(scenarios))]
        ax.barh(ys, [v if v is not None else 0 for v in values], height=h * 0.9,
                color=colour(t), label=name)
    ax.scatter([v if v is not None else 0 for v in approve_all], range(len(scenarios)),
               marker="|", s=300, color="#000", label="approve everything", zorder=3)
    ax.set_yticks(range(len(scenarios)), scenarios)
    ax.invert_yaxis()
    ax.set_xlabel("expected cost per 1,000 receipts (USD)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right", frameon=False)
    ax.set_title("Cost sweep (one assumption varied at a time)", loc="left", fontsize=10)
    return _svg(fig)


def latency_chart(samples: Mapping[str, Sequence[float]]) -> str:
    """Latency distribution per target (box plot over successful calls, log scale)."""
    names = [k for k, v in samples.items() if v]
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * max(len(names), 1) + 1.0))
    if names:
        ax.boxplot([samples[k] for k in names], orientation="horizontal", whis=(1, 99), showfliers=False,
                   tick_labels=names)
        ax.set_xscale("log")
    ax.set_xlabel("latency of the final attempt (s), whiskers p1-p99")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Latency, successful calls", loc="left", fontsize=10)
    return _svg(fig)
