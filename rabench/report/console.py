"""The headline table ``rabench bench`` prints: every name whole, every value inside its interval."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rabench.report.style import num


def _get(row: Any, key: str, default: Any = None) -> Any:
    return row.get(key, default) if isinstance(row, dict) else getattr(row, key, default)


def headline_table(rows: Iterable[Any]) -> str:
    """Rows of stratum "all" (dicts or ``Row``s) as a text table, one column per target.

    Columns are as wide as their longest entry (no metric or target name is cut);
    intervals are rounded outward at the value's precision (``style.num``), so a
    value is never printed outside its interval.
    """
    rows = [r for r in rows if _get(r, "stratum") == "all"]
    targets = list(dict.fromkeys(_get(r, "target") for r in rows))
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        value, lo, hi = _get(r, "value"), _get(r, "lo"), _get(r, "hi")
        if not _get(r, "supported", True):
            text = "not supported"
        elif value is None:
            text = "–"
        elif lo is not None and hi is not None:
            text = num(value, lo, hi)
        else:
            text = f"{value:.4g}"
        cells.setdefault((_get(r, "task"), _get(r, "metric")), {})[_get(r, "target")] = text
    w_task = max([len("task")] + [len(t) for t, _ in cells])
    w_metric = max([len("metric")] + [len(m) for _, m in cells])
    widths = {t: max([len(t)] + [len(by_t.get(t, "")) for by_t in cells.values()]) for t in targets}
    lines = [f"{'task':<{w_task}}  {'metric':<{w_metric}}  " + "  ".join(f"{t:>{widths[t]}}" for t in targets)]
    for (task, metric), by_t in cells.items():
        lines.append(
            f"{task:<{w_task}}  {metric:<{w_metric}}  " + "  ".join(f"{by_t.get(t, ''):>{widths[t]}}" for t in targets)
        )
    return "\n".join(lines)
