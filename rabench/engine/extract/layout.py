"""Text lines -> printed rows.

OCR returns a receipt's label and its amount as separate boxes ("TOTAL" at the
left, "13,97" at the right); extraction reasons about printed rows. Boxes whose
vertical centres lie within half a line height of each other are one row, read
left to right. A native PDF's text layer gives rows directly (``rows_from_text``).
Each row keeps its segments and their boxes, so a reason can point at the
pixels of a field (visual forensics) and the layout can tell label from amount.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from rabench.engine.ocr import OcrLine

Box = tuple[int, int, int, int]


class Segment(msgspec.Struct, frozen=True):
    text: str
    box: Box | None = None
    confidence: float = 1.0


class Row(msgspec.Struct, frozen=True):
    segments: tuple[Segment, ...]
    index: int = 0  # reading order, top to bottom

    @property
    def text(self) -> str:
        """Segments joined with two spaces, so column gaps stay visible to the parsers."""
        return "  ".join(s.text for s in self.segments)

    @property
    def box(self) -> Box | None:
        boxes = [s.box for s in self.segments if s.box is not None]
        if not boxes:
            return None
        return (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )

    @property
    def height(self) -> float:
        boxes = [s.box for s in self.segments if s.box is not None]
        if not boxes:
            return 0.0
        return sum(b[3] - b[1] for b in boxes) / len(boxes)


def rows_from_ocr(lines: Iterable[OcrLine]) -> list[Row]:
    """Group OCR lines into rows by vertical overlap, then order each row left to right."""
    items = sorted(lines, key=lambda ln: ln.y_center)
    groups: list[list[OcrLine]] = []
    for line in items:
        placed = False
        if groups:
            group = groups[-1]
            centre = sum(g.y_center for g in group) / len(group)
            height = max(1.0, sum(g.height for g in group) / len(group))
            tol = 0.5 * min(height, max(1.0, line.height))
            if abs(line.y_center - centre) <= tol:
                group.append(line)
                placed = True
        if not placed:
            groups.append([line])
    rows = []
    for i, group in enumerate(groups):
        group.sort(key=lambda ln: ln.box[0])
        rows.append(
            Row(
                segments=tuple(Segment(g.text, g.box, g.confidence) for g in group),
                index=i,
            )
        )
    return rows


def rows_from_text(text: str, boxes: Sequence[Box | None] | None = None) -> list[Row]:
    """Rows from a text layer: one row per non-blank line; runs of 2+ spaces or tabs
    separate segments (the columns a PDF generator laid out)."""
    import re

    rows = []
    lines = [ln for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        parts = [p.strip() for p in re.split(r"\t+| {2,}", line.strip()) if p.strip()]
        box = boxes[i] if boxes is not None and i < len(boxes) else None
        rows.append(Row(segments=tuple(Segment(p, box) for p in parts), index=len(rows)))
    return rows
