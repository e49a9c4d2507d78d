"""rows.json: the scorer's one machine-readable output (shape in docs/methodology.md).

Deterministic on purpose: rows sorted by (task, target, metric, stratum) in a
fixed order, no timestamps and no paths, so re-scoring the same runs gives
byte-identical files that can be diffed and hashed.
"""

from __future__ import annotations

import msgspec

from rabench.contracts import Row
from rabench.contracts.files import decode_rows
from rabench.contracts.rows import RowsFile, RowsHeader, RunRef
from rabench.score.metrics import ORDER, TASKS

SCORER_VERSION = "0.2.0-2"  # RA-Bench 0.2.0 definitions, scorer revision 2 (spec audit, issue 7)
SPEC = "RA-Bench 0.2.0"
FORMAT = "rabench.rows/1"


Header = RowsHeader  # the name this module used before the contract moved


__all__ = [
    "FORMAT",
    "SCORER_VERSION",
    "SPEC",
    "Header",
    "RowsFile",
    "RowsHeader",
    "RunRef",
    "decode",
    "encode",
    "sort_key",
]


def sort_key(row: Row) -> tuple[int, str, int, tuple[int, str]]:
    stratum_rank = (0, "") if row.stratum == "all" else (1, row.stratum)
    return (TASKS.index(row.task), row.target, ORDER[(row.task, row.metric)], stratum_rank)


def encode(doc: RowsFile) -> bytes:
    raw = msgspec.json.encode(doc)
    return msgspec.json.format(raw, indent=1) + b"\n"


def decode(data: bytes, where: str = "rows.json") -> RowsFile:
    """Version-checked, unknown fields refused: a one-line UserError otherwise."""
    return decode_rows(data, where)
