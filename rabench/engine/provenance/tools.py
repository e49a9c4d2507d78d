"""Recognise tool names (AI generators, receipt generators, editors, office suites) in metadata values.

The list is data (``rabench/data/provenance_tools.json``) so that adding a tool
is a reviewed one-line change, not code; the categories decide the reason kind:
an AI or receipt generator named by the file itself is proof, an editor or an
office suite is only a file fact (spec, "Evidence").
"""

from __future__ import annotations

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


class ToolEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One tool: its display name and case-insensitive regular expressions."""

    name: str
    patterns: tuple[str, ...]


class ToolTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename={"doc": "_doc"}):
    """``rabench/data/provenance_tools.json``: the tool names the provenance readers recognise."""

    version: int
    ai_generators: tuple[ToolEntry, ...]
    receipt_generators: tuple[ToolEntry, ...]
    editors: tuple[ToolEntry, ...]
    office: tuple[ToolEntry, ...]
    doc: str = ""


TABLE_VERSION = 1


def _load(data: bytes | None = None) -> tuple[tuple[Category, str, tuple[re.Pattern[str], ...]], ...]:
    """Decode the data file once, at import, as a typed contract: an unknown key, a wrong
    version or a bad pattern fails loudly here, not later inside the readers' robustness
    guards (which would silently disable every tag proof)."""
    raw = DATA_FILE.read_bytes() if data is None else data
    table = msgspec.json.decode(raw, type=ToolTable)
    if table.version != TABLE_VERSION:
        raise ValueError(f"{DATA_FILE.name}: version {table.version}, this rabench reads {TABLE_VERSION}")
    rows = []
    for cat in CATEGORIES:
        entries: tuple[ToolEntry, ...] = getattr(table, cat)
        for entry in entries:
            pats = tuple(re.compile(p, re.IGNORECASE) for p in entry.patterns)
            rows.append((cat, entry.name, pats))
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
