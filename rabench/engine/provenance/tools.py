"""Recognise tool names (AI generators, receipt generators, editors, office suites) in metadata values.

The list is data (``rabench/data/provenance_tools.json``) so that adding a tool
is a reviewed one-line change, not code; the categories decide the reason kind:
an AI or receipt generator named by the file itself is proof, an editor or an
office suite is only a file fact (spec, "Evidence").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

import msgspec

Category = Literal["ai_generators", "receipt_generators", "editors", "office"]
CATEGORIES: tuple[Category, ...] = ("ai_generators", "receipt_generators", "editors", "office")
DATA_FILE = Path(__file__).resolve().parents[2] / "data" / "provenance_tools.json"
MAX_VALUE_CHARS = 4096  # only the head of a value is matched: bounded regex time


class ToolHit(msgspec.Struct, frozen=True):
    category: Category
    tool: str  # display name from the data file


def _load() -> tuple[tuple[Category, str, tuple[re.Pattern[str], ...]], ...]:
    """Read the data file at import: a broken file must fail loudly here, not be swallowed
    later by the readers' robustness guards (which would silently disable every tag proof)."""
    raw = json.loads(DATA_FILE.read_text("utf-8"))
    rows = []
    for cat in CATEGORIES:
        for entry in raw.get(cat, []):
            pats = tuple(re.compile(p, re.IGNORECASE) for p in entry["patterns"])
            rows.append((cat, str(entry["name"]), pats))
    return tuple(rows)


_TABLE = _load()


def _table() -> tuple[tuple[Category, str, tuple[re.Pattern[str], ...]], ...]:
    return _TABLE


def classify(value: str) -> list[ToolHit]:
    """Every known tool named in ``value`` (most serious category first)."""
    text = value[:MAX_VALUE_CHARS]
    hits = [ToolHit(cat, name) for cat, name, pats in _table() if any(p.search(text) for p in pats)]
    return sorted(hits, key=lambda h: CATEGORIES.index(h.category))


def tool_names(category: Category) -> list[str]:
    """Display names of one category (for docs and tests)."""
    return [name for cat, name, _ in _table() if cat == category]
