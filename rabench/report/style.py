"""One colour per target id, and numbers printed with their intervals honestly.

Colours: a target keeps its colour in every chart of a report and in every
report (so `self` is never blue in one chart and orange in the next). ``self``,
``null`` and ``meta`` have fixed colours; any other id is hashed (sha256, not
Python's salted ``hash``) into a palette that excludes those three. Two ids may
share a colour; the legend always names them.

Numbers: an interval is rounded outward (lower end down, upper end up) at the
precision of its value, so the printed value always lies inside the printed
interval (never ``0.998 [1.00,1.00]``); when a percentile-bootstrap interval does
not contain its own estimate (possible at the edges), the printed interval is
widened to contain it.
"""

from __future__ import annotations

import hashlib
import math

FIXED = {"self": "#1f5fa8", "null": "#8c8c8c", "meta": "#b8860b"}
# Distinct from the fixed three (no blue near #1f5fa8, no grey, no dark gold).
PALETTE = ("#d1603d", "#3a9a5b", "#8a56ac", "#c2185b", "#00838f", "#6d4c41", "#e6a100", "#9e9d24", "#7cb342", "#ef6c00")


def target_colour(target_id: str) -> str:
    """The colour of a target id: fixed for self/null/meta, else from a hash of the id."""
    base = target_id.split(":", 1)[0] if target_id.startswith(("null:", "self:", "meta:")) else target_id
    if base in FIXED:
        return FIXED[base]
    digest = hashlib.sha256(target_id.encode()).digest()
    return PALETTE[int.from_bytes(digest[:4], "big") % len(PALETTE)]


def _down(x: float, d: int) -> float:
    f = 10**d
    return math.floor(x * f + 1e-9) / f


def _up(x: float, d: int) -> float:
    f = 10**d
    return math.ceil(x * f - 1e-9) / f


def interval_parts(
    value: float, lo: float | None, hi: float | None, digits: int, scale: float = 1.0
) -> tuple[str, str | None, str | None]:
    """(value, lo, hi) as text at ``digits`` decimals after multiplying by ``scale``;
    the interval rounded outward and widened to contain the value."""
    v = value * scale
    vt = f"{v:.{digits}f}"
    if lo is None or hi is None:
        return vt, None, None
    lo_s, hi_s = min(lo * scale, v), max(hi * scale, v)
    lo_t, hi_t = _down(lo_s, digits), _up(hi_s, digits)
    shown = float(vt)
    lo_t, hi_t = min(lo_t, shown), max(hi_t, shown)
    return vt, f"{lo_t:.{digits}f}", f"{hi_t:.{digits}f}"


def pct(value: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """A rate as ``71% [63, 78]``; one decimal when the interval is narrower than 4 points."""
    if value is None:
        return "unknown"
    narrow = lo is not None and hi is not None and (hi - lo) < 0.04
    digits = 1 if narrow or (0 < value < 0.01) or (0.99 < value < 1) else 0
    v, a, b = interval_parts(value, lo, hi, digits, 100.0)
    return f"{v}%" + (f" [{a}, {b}]" if a is not None else "")


def num(value: float | None, lo: float | None = None, hi: float | None = None, digits: int = 3) -> str:
    """A plain number as ``0.931 [0.899, 0.958]``."""
    if value is None:
        return "unknown"
    v, a, b = interval_parts(value, lo, hi, digits)
    return v + (f" [{a}, {b}]" if a is not None else "")


def money(value: float | None) -> str:
    """Dollars: ``$2,005``, ``$0.0021``; None is ``unknown`` (never $0)."""
    if value is None:
        return "unknown"
    if value == 0:
        return "$0"
    if abs(value) >= 10:
        return f"${value:,.0f}"
    if abs(value) >= 1:
        return f"${value:,.2f}"
    return f"${value:.2g}"
