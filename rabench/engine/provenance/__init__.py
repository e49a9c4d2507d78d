"""Provenance: what the file itself says about where it came from (EXIF, XMP, PNG text, C2PA, PDF revisions).

One entry point, ``file_signals``, reads every block (``read.py``, bounded and
never raising) and judges it (``rules.py``: proofs vs file facts, spec
"Evidence"). The signal names, kinds and what counts as proof are listed in
docs/engine.md ("File forensics").
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from rabench.contracts.verdict import Fields
from rabench.engine.provenance.read import FileFacts, read_bytes, read_file
from rabench.engine.provenance.rules import signals as _signals
from rabench.engine.signals import Signal

__all__ = ["FileFacts", "file_signals", "read_file", "read_bytes"]


def file_signals(
    path: Path,
    media_type: str,
    *,
    printed_date: str | None,
    field_boxes: dict[str, list[tuple[int, int, int, int]]] | None = None,
    box_size: tuple[int, int] | None = None,
    extracted: Fields | None = None,
    now: dt.datetime | None = None,
) -> list[Signal]:
    """Every provenance signal for one file.

    ``printed_date``: the printed purchase date as ISO ``YYYY-MM-DD``, only when the
    reading attributes it to the purchase and it parsed unambiguously (else None: no
    photo-date proof). ``now``: the submission time (naive local); a capture time more
    than 2 days after it is a wrong camera clock (without it, the wall clock bounds it).
    Optional, to point proofs at fields: ``field_boxes`` (x0, y0, x1, y1) per field in
    an *upright* image of size ``box_size`` (width, height) -- lets a thumbnail
    mismatch name the fields in the region that differs; ``extracted`` -- lets a PDF
    modification name the fields whose values appear in the text the update added.

    Never raises on file content: what a reader cannot parse is a ``file.unreadable_part``
    fact. An exception out of here is a bug in our code and must surface as one (the
    pipeline turns it into an error outcome), not as a fact that hides it.
    """
    facts = read_file(Path(path), media_type)
    return _signals(
        facts, printed_date=printed_date, field_boxes=field_boxes, box_size=box_size, extracted=extracted, now=now
    )
