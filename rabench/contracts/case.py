"""A case: one file to check, its tags, its place in the duplicate lineage, its label.

Case ids are checked where a Case is decoded (so ``cases validate``, ``run``, ``derive``
and every generator and importer get the same rule): 1 to 128 ASCII letters, digits,
``.``, ``_`` or ``-``, the first a letter or digit. With no ``/``, no ``\\``, no control
character and no leading dot, an id is always a safe single file name (never ``..``), so
code that names a file after a *validated* id cannot leave its folder. Ids are unique
ignoring case (``id_key``): a suite must behave the same on a case-insensitive file system
(macOS, Windows), where ``A1.jpg`` and ``a1.jpg`` are one file. NFC normalisation is part of
the key for completeness; the ASCII alphabet makes it the identity.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from typing import Annotated, Any, Literal

import msgspec

from rabench.contracts.labels import Label
from rabench.contracts.version import SUITE_VERSION

MediaType = Literal["image/jpeg", "image/png", "image/webp", "image/tiff", "application/pdf"]
Transform = Literal["reencode", "crop", "reshoot"]
# What a suite holds: receipts (one file per ``Case``) or AP bundles (``APCase``, several documents).
SuiteKind = Literal["receipt", "ap"]


def submission_date(value: str) -> _dt.date:
    """The calendar date of an ISO 8601 submission time (``2024-05-01`` or ``2024-05-01T10:00:00Z``)."""
    text = value.strip()
    try:
        if len(text) == 10:
            return _dt.date.fromisoformat(text)
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        raise ValueError(f"submitted_at {value!r} is not an ISO 8601 date or date-time") from None


MAX_ID_LENGTH = 128
ID_RULE = "1-128 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit"
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_SHA256_RE = re.compile(r"[0-9a-fA-F]{64}")


def _shown(value: str) -> str:
    """``value`` quoted on one line (control characters escaped), cut at 80 characters."""
    text = repr(value[:80])
    return text[:-1] + "...'" if len(value) > 80 else text


def check_id(value: str, what: str = "id") -> str:
    """``value`` if it is a safe case id, else ValueError (a one-line validation error)."""
    if not isinstance(value, str) or _ID_RE.fullmatch(value) is None:
        size = f" ({len(value)} characters)" if isinstance(value, str) and len(value) > MAX_ID_LENGTH else ""
        raise ValueError(f"{what} {_shown(value)}{size} is not a valid case id: use {ID_RULE}")
    return value


def id_key(value: str) -> str:
    """The key under which two ids are the same case: NFC-normalised and case-folded."""
    return unicodedata.normalize("NFC", value).casefold()


class Lineage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """This case is a transform of case ``of`` (a duplicate submission of it)."""

    of: str
    transform: Transform

    def __post_init__(self) -> None:
        check_id(self.of, "lineage.of")


class Case(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One file of a suite to check (``manifest.jsonl``, line 2 onwards): id, file relative to the
    suite folder, its sha256 and media type, the label, tags, duplicate lineage and ordering."""

    id: Annotated[str, msgspec.Meta(description=f"case id: {ID_RULE}; unique ignoring case")]
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
        check_id(self.id)
        for other in self.after:
            check_id(other, "after")
        if not self.file or any(not c.isprintable() for c in self.file):
            raise ValueError(f"file {_shown(self.file)} is empty or holds a control character")
        if _SHA256_RE.fullmatch(self.sha256) is None:
            raise ValueError(f"sha256 {_shown(self.sha256)} is not 64 hexadecimal digits")
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

    suite: SuiteKind  # "receipt" (rabench/contracts/labels.py) or "ap" (rabench/contracts/ap.py)
    name: str  # e.g. "ra-bench-0.2.0/quick/test"
    contracts_version: int = SUITE_VERSION  # the suite format is version 1's (contracts.version)
    # Free-form provenance: generator version, seed, Pillow build, importer, ...
    meta: dict[str, Any] = {}
