"""What the report reads besides rows.json and details.json: ``cases.json`` (the per-case
viewer's data, written by the scorer) and ``real/track.json`` (where a real track came from,
written by ``rabench bench --real``)."""

from __future__ import annotations

import msgspec

from rabench.contracts.version import CONTRACTS_VERSION

CASES_FORMAT = "rabench.cases/1"

# (verdict, fake class, edited fields, provenance, the covered fields as "name=value, ...")
CaseLabelView = tuple[str, str | None, list[str], str, str]
# (kind, text as an index into ``strings``, the @fields it points at, proof type)
ReasonView = tuple[str, int, list[str], str | None]
# (repetition, status or "missing", risk, extracted fields (string index, -1: none),
#  reasons, error (string index, -1: none))
RunView = tuple[int, str, float | None, int, list[ReasonView], int]


class CaseView(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One case in cases.json: id, whether it is a base case and fake, its label, the strata it is
    in (indexes into ``strata``), its lineage, a thumbnail data URI and every target's runs
    (``runs[target index]``, one array per repetition)."""

    id: str
    base: bool
    fake: bool
    label: CaseLabelView
    strata: list[int]
    lineage: str | None
    img: str | None
    img_kind: str  # "prepared" | "original" | "none"
    runs: list[list[RunView]]


class CasesFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``reports/ID/cases.json``: every case with every target's runs, compact (texts stored once
    in ``strings``), for the per-case viewer in report.html."""

    format: str
    suite: str
    targets: list[str]
    strata: list[str]
    flag_at: float
    strings: list[str]
    cases: list[CaseView]
    contracts_version: int = CONTRACTS_VERSION


class TrackRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``reports/ID/real/track.json``: where the real track of ``rabench bench --real`` came from
    (source folder, format, content key, forging seed, the imported and forged suites)."""

    source: str
    format: str
    content_key: str
    seed: int
    imported: str
    forged: str
    contracts_version: int = CONTRACTS_VERSION
