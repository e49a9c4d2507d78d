"""A case: one file to check, its tags, its place in the duplicate lineage, its label."""

from __future__ import annotations

import datetime as _dt
from typing import Any, Literal

import msgspec

from rabench.contracts.labels import Label
from rabench.contracts.version import CONTRACTS_VERSION

MediaType = Literal["image/jpeg", "image/png", "image/webp", "image/tiff", "application/pdf"]
Transform = Literal["reencode", "crop", "reshoot"]


def submission_date(value: str) -> _dt.date:
    """The calendar date of an ISO 8601 submission time (``2024-05-01`` or ``2024-05-01T10:00:00Z``)."""
    text = value.strip()
    try:
        if len(text) == 10:
            return _dt.date.fromisoformat(text)
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        raise ValueError(f"submitted_at {value!r} is not an ISO 8601 date or date-time") from None


class Lineage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """This case is a transform of case ``of`` (a duplicate submission of it)."""

    of: str
    transform: Transform


class Case(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    file: str  # relative to the suite folder, POSIX separators
    sha256: str
    media_type: MediaType
    label: Label
    # One value per dimension: {"class": "ai_full", "capture": "photo", ...}.
    tags: dict[str, str] = {}
    lineage: Lineage | None = None
    # Ids that must have been checked first (e.g. the receipt a hard negative looks like).
    after: list[str] = []
    # When the receipt was submitted (ISO 8601 date or date-time). Time rules (receipt age,
    # "future" dates) are measured from it; absent = those rules do not fire (DESIGN.md).
    submitted_at: str | None = None

    def __post_init__(self) -> None:
        if self.submitted_at is not None:
            submission_date(self.submitted_at)  # ValueError -> a one-line validation error

    @property
    def is_base(self) -> bool:
        """Base cases are not transforms of another case (spec, "Which cases count")."""
        return self.lineage is None

    def depends_on(self) -> list[str]:
        deps = list(self.after)
        if self.lineage is not None:
            deps.append(self.lineage.of)
        return deps


class SuiteHeader(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="suite_header"):
    """First line of ``manifest.jsonl``: what kind of suite and where it came from."""

    suite: str  # the suite kind: "receipt" (later "invoice")
    name: str  # e.g. "ra-bench-0.2.0/quick/test"
    contracts_version: int = CONTRACTS_VERSION
    # Free-form provenance: generator version, seed, Pillow build, importer, ...
    meta: dict[str, Any] = {}
