"""rows.json: the scorer's one machine-readable output (shape in docs/methodology.md).

Deterministic on purpose: rows sorted by (task, target, metric, stratum) in a
fixed order, no timestamps and no paths, so re-scoring the same runs gives
byte-identical files that can be diffed and hashed.
"""

from __future__ import annotations

import msgspec

from rabench.contracts import CONTRACTS_VERSION, Row, TargetInfo
from rabench.score.findings import Finding
from rabench.score.metrics import ORDER, TASKS

SCORER_VERSION = "0.2.0-2"  # RA-Bench 0.2.0 definitions, scorer revision 2 (spec audit, issue 7)
SPEC = "RA-Bench 0.2.0"
FORMAT = "rabench.rows/1"


class RunRef(msgspec.Struct, frozen=True):
    run_id: str
    targets: list[str]
    repetitions: int
    price_date: str | None = None


class Header(msgspec.Struct, frozen=True):
    format: str
    spec: str
    contracts_version: int
    scorer_version: str
    suite_name: str
    suite_manifest_sha256: str
    runs: list[RunRef]
    targets: list[TargetInfo]
    bootstrap_resamples: int
    min_stratum_cases: int


class RowsFile(msgspec.Struct, frozen=True):
    header: Header
    rows: list[Row]
    findings: list[Finding]


def sort_key(row: Row) -> tuple:
    stratum_rank = (0, "") if row.stratum == "all" else (1, row.stratum)
    return (TASKS.index(row.task), row.target, ORDER[(row.task, row.metric)], stratum_rank)


def encode(doc: RowsFile) -> bytes:
    raw = msgspec.json.encode(doc)
    return msgspec.json.format(raw, indent=1) + b"\n"


def decode(data: bytes) -> RowsFile:
    return msgspec.json.decode(data, type=RowsFile)
