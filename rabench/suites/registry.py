"""Suite kinds -> ``Suite`` objects, imported lazily (as ``targets.registry`` does targets).

``suite_kind(folder)`` reads the kind once from the manifest header; ``get_suite(kind)``
imports only that kind's package, so a receipt run never loads the AP engine.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rabench.errors import UserError

if TYPE_CHECKING:
    from rabench.suites.base import Suite

# kind -> "module:attr"; the attr is the kind's Suite object
SUITES: dict[str, str] = {
    "receipt": "rabench.suites.receipt:SUITE",
    "ap": "rabench.suites.ap:SUITE",
}
# a folder without manifest.jsonl is read as this kind (its reader then names what is missing)
DEFAULT_KIND = "receipt"


def get_suite(kind: str) -> Suite:
    where = SUITES.get(kind)
    if where is None:
        raise UserError(f"unknown suite kind {kind!r}: this rabench reads {', '.join(sorted(SUITES))}")
    module_name, _, attr = where.partition(":")
    suite: Suite = getattr(importlib.import_module(module_name), attr)
    return suite


def suite_kind(folder: str | os.PathLike[str]) -> str:
    """The kind a suite folder (or its manifest.jsonl) names in its header."""
    from rabench.cases.manifest import MANIFEST, read_header

    path = Path(folder)
    manifest = path if path.name == MANIFEST else path / MANIFEST
    return read_header(manifest).suite if manifest.is_file() else DEFAULT_KIND


def suite_of(folder: str | os.PathLike[str]) -> Suite:
    return get_suite(suite_kind(folder))
