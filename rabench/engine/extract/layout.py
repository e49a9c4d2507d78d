"""Text lines -> printed rows.

OCR returns a receipt's label and its amount as separate boxes ("TOTAL" at the
left, "13,97" at the right); extraction reasons about printed rows. Boxes whose
vertical centres lie within half a line height of each other are one row, read
left to right. A native PDF's text layer gives rows directly (``rows_from_text``).
Each row keeps its segments and their boxes, so a reason can point at the
pixels of a field (visual forensics) and the layout can tell label from amount.
"""

from __future__ import annotations

import re
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


def slope_model(lines: Sequence[OcrLine]) -> tuple[float, float]:
    """Text slope as a function of height on the page, ``slope(y) = a + b·y``.

    A photo taken at an angle is a perspective view: the text's slope changes
    from the top of the receipt to the bottom. A weighted least-squares line
    through the lines' baseline slopes (long lines weigh more; wild slopes are
    ignored) follows that; with few lines it falls back to a constant slope.
    """
    pts = [(ln.y_center, ln.slope, float(max(1, ln.box[2] - ln.box[0]))) for ln in lines if abs(ln.slope) < 0.5]
    if not pts:
        return 0.0, 0.0
    wsum = sum(w for _, _, w in pts)
    my = sum(y * w for y, _, w in pts) / wsum
    ms = sum(sl * w for _, sl, w in pts) / wsum
    var = sum(w * (y - my) ** 2 for y, _, w in pts)
    if len(pts) < 6 or var <= 0:
        return ms, 0.0
    b = sum(w * (y - my) * (sl - ms) for y, sl, w in pts) / var
    return ms - b * my, b


def rows_from_ocr(lines: Iterable[OcrLine]) -> list[Row]:
    """Group OCR lines into printed rows, following the text's slope.

    A photographed receipt is rarely level: the amount at the right edge of a
    row can sit half a line above or below its label. Lines are ordered by
    their centre's height *along the local slope*, and a line joins the row
    whose baseline, extended to the line's x, passes within 0.6 of a line
    height of its centre. A last pass pairs a row holding only an amount with
    a neighbouring row holding only its label.
    """
    items = list(lines)
    a, b = slope_model(items)

    def slope_at(y: float) -> float:
        return max(-0.5, min(0.5, a + b * y))

    def level_y(ln: OcrLine) -> float:
        cx = (ln.box[0] + ln.box[2]) / 2
        return ln.y_center - slope_at(ln.y_center) * cx

    items.sort(key=level_y)
    groups: list[list[OcrLine]] = []
    for line in items:
        cx = (line.box[0] + line.box[2]) / 2
        best = None
        best_gap = None
        for group in groups[-3:]:  # only the last few rows can still be open
            ref = max(group, key=lambda g: g.box[2] - g.box[0])
            rx = (ref.box[0] + ref.box[2]) / 2
            predicted = ref.y_center + slope_at(ref.y_center) * (cx - rx)
            height = max(1.0, min(ref.height, line.height))
            gap = abs(line.y_center - predicted)
            if gap <= 0.6 * height and (best_gap is None or gap < best_gap):
                if not any(_overlap_x(g, line) for g in group):
                    best, best_gap = group, gap
        if best is not None:
            best.append(line)
        else:
            groups.append([line])
    groups = _pair_orphans(groups)
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


_MONEYISH = re.compile(r"^[^A-Za-z]*\d[.,]\d{2}[^A-Za-z]*$|^[$€£¥￥]?\s?\d{1,3}(,\d{3})+$")


def _only_amount(group: list[OcrLine]) -> bool:
    return len(group) == 1 and bool(_MONEYISH.match(group[0].text.strip()))


def _only_label(group: list[OcrLine]) -> bool:
    return (
        len(group) == 1
        and not any(ch.isdigit() for ch in group[0].text[-4:])
        and sum(ch.isalpha() for ch in group[0].text) >= 2
        or (len(group) == 1 and group[0].text.rstrip().endswith("%"))
    )


def _pair_orphans(groups: list[list[OcrLine]]) -> list[list[OcrLine]]:
    """Join a lone amount at the right with an adjacent lone label at the left."""
    out: list[list[OcrLine]] = []
    i = 0
    while i < len(groups):
        g = groups[i]
        nxt = groups[i + 1] if i + 1 < len(groups) else None
        if nxt is not None and (
            (_only_amount(g) and _only_label(nxt) and nxt[0].box[2] < g[0].box[0])
            or (_only_label(g) and _only_amount(nxt) and g[0].box[2] < nxt[0].box[0])
        ):
            pair_h = max(g[0].height, nxt[0].height)
            if abs(g[0].y_center - nxt[0].y_center) <= 1.6 * pair_h:
                out.append(g + nxt)
                i += 2
                continue
        out.append(g)
        i += 1
    return out


def _overlap_x(a: OcrLine, b: OcrLine) -> bool:
    """Two boxes side by side in one row never overlap much horizontally."""
    inter = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
    return inter > 0.3 * min(a.box[2] - a.box[0], b.box[2] - b.box[0])


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
