"""Turn real, labelled receipt collections into a suite (``rabench cases import``).

One module per source format reads its source into draft cases and bad rows
(``folder``, ``sroie``, ``cord``); ``base.write_import`` does the rest the same
way for all: media type from magic bytes, stable ids, all-or-nothing on bad rows,
files copied with their sha256, ``manifest.jsonl`` written atomically.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rabench.cases.importers import cord, folder, sroie
from rabench.cases.importers.base import BadRows, ImportOptions, ImportReport, SourceRead, write_import
from rabench.errors import UserError

FORMATS: dict[str, Callable[[Path, ImportOptions, Path | None], SourceRead]] = {
    "folder": folder.read,
    "sroie": sroie.read,
    "cord": cord.read,
}


def import_suite(fmt: str, src: Path, out: Path, opts: ImportOptions | None = None) -> ImportReport:
    """Read ``src`` in format ``fmt`` and write a validated suite at ``out`` (or nothing)."""
    opts = opts or ImportOptions()
    reader = FORMATS.get(fmt)
    if reader is None:
        raise UserError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    src, out = Path(src), Path(out)
    if not src.exists():
        raise UserError(f"{src}: no such file or folder")
    read = reader(src, opts, out)
    return write_import(read, fmt=fmt, src=src, out=out, opts=opts)


__all__ = ["FORMATS", "BadRows", "ImportOptions", "ImportReport", "import_suite"]
