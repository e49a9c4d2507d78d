"""Visual forensics: does the area around a field look like the rest of the receipt?

Why local and why only an opinion: a stripped fake (no metadata left) still
carries the traces of its edit where the edit is -- a pasted or re-typed amount
has its own noise, JPEG history, paper tone or font weight. We measure those
around each extracted field box and compare them with the receipt's other text
lines (robust z-scores: median and MAD over the lines). Receipts legitimately
print totals bolder or larger, so font metrics are compared with the rest of
the *same* line when it has ink (the "TOTAL" label beside the amount), and the
verdict is an ``opinion``: a model-free measurement, but one a caller cannot
verify as tampering.

``value`` of each signal is the field's inconsistency score: the largest robust
|z| over the ``SCORED`` features (noise, edge sharpness, ink), clipped to [0, 10]; 0 = typical of this receipt, >= 3 =
unusual; signals are emitted from ``EMIT_SCORE`` (4) on. ``field_scores`` gives the
score of every field (also those below the threshold) for the risk model.

Copy-move (``glyphs``): a character pasted from elsewhere on the same receipt is a
copy, closer to its source than any two honest printings of this receipt are to each
other. Its score (log of how much closer than the receipt's usual pairs) is a
measurement for the risk model on every receipt, and an opinion naming both places
only when overwhelming (``COPY_OPINION``; on genuine scans and photos the largest
score measured was far below it, see docs/engine.md).

Measurements the risk model weighs on every receipt, never shown as reasons
(``Signal.reason=False``): ``visual.noise_z``, ``visual.sharpness_z`` and
``visual.ink_z`` (each the largest |z| of that feature over the fields, 0-10) and
``visual.copy_move`` (the largest copy-move score over the fields except line items, 0-10) and
``visual.jpeg_ghost`` (``ghost``: how far a field's compression history, seen by compressing the
image again at a range of qualities, is from the receipt's other text lines', 0-10).
"""

from __future__ import annotations

import msgspec
import numpy as np
from PIL import Image

from rabench.engine.forensics.features import FEATURES, FONT_FEATURES, features, line_boxes
from rabench.engine.forensics.ghost import ghost_score
from rabench.engine.forensics.glyphs import Twin, copy_move
from rabench.engine.signals import Signal

Box = tuple[int, int, int, int]
EMIT_SCORE = 4.0
MAX_SCORE = 10.0
MIN_REFERENCES = 4
# Line items are ordinary text lines (references), not one field: the largest of a dozen item rows'
# scores is large by chance alone.
UNSCORED = frozenset({"line_items"})
# Compared only with the rest of the same row: font metrics (headers and totals are legitimately
# bigger or bolder) and the paper tone (light falls off across a photo).
ROW_FEATURES = FONT_FEATURES + ("paper",)
MAX_REFERENCES = 80  # reference text boxes kept (evenly spread)
# The features a field's score (and so its opinion) is taken over. Measured on genuine receipts
# (docs/engine.md, "Visual forensics on real receipts"): text height, stroke width and paper tone
# differ between honest lines as much as around edits (a bold total, a photo's light fall-off), so
# they are kept in ``z`` for the record but score nothing; blockiness neither (phone photos vary).
SCORED = ("noise", "sharpness", "ink")
# Floors on the spread so a perfectly clean digital receipt (zero spread) does not turn noise into z=inf.
FLOORS = {"noise": 0.08, "blockiness": 0.08, "paper": 3.0, "ink": 6.0, "stroke": 0.5, "height": 1.5, "sharpness": 4.0}
_LABELS = {
    "noise": "noise level",
    "blockiness": "JPEG block pattern",
    "paper": "paper tone",
    "ink": "ink darkness",
    "stroke": "stroke width",
    "height": "text height",
    "sharpness": "edge sharpness",
}

# Copy-move opinion (fields and line items): a glyph this much closer to its twin (log units over the receipt's usual
# pairs, shape and fine detail together) than the receipt's 90th percentile, and a glyph big enough
# to carry detail. Genuine scans and photos measured: at most 2.8 (docs/engine.md); pastes 3.3-9.
COPY_OPINION = 4.5
COPY_MIN_PX = 30  # glyph box area in px (a "1" of 2 x 10 px is too thin to tell)
# A digitally rendered line (a typed annotation on a scan) has every repeated character identical,
# each with its twin somewhere else: no opinion when two or more glyphs, over a quarter of the glyph's
# line, are copy-like that way (two characters pasted from two places still get one).
COPY_MAX_LINE_SHARE = 0.25
COPY_UNSCORED = frozenset({"line_items"})  # left out of the measurement ``visual.copy_move`` only

__all__ = [
    "FieldScore",
    "field_scores",
    "visual_signals",
    "copy_move_signals",
    "ghost_signals",
    "EMIT_SCORE",
    "COPY_OPINION",
]


class FieldScore(msgspec.Struct, frozen=True):
    field: str
    score: float  # max robust |z| over features, clipped to [0, MAX_SCORE]
    z: dict[str, float]  # per feature, signed
    references: int  # text lines compared against


def _to_gray(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("L"), dtype=np.float32)


def field_scores(
    image: Image.Image, field_boxes: dict[str, list[Box]], reference_boxes: list[Box] | None = None
) -> list[FieldScore]:
    """Every field's inconsistency score. ``reference_boxes``: the receipt's text lines as the
    reader found them (OCR boxes); without them, lines come from the ink row profile, which
    only works on a flat page (a photo's background and slope merge every row into one)."""
    gray = _to_gray(image)
    h, w = gray.shape
    boxes = {k: [_clip(b, w, h) for b in v if _clip(b, w, h)] for k, v in field_boxes.items()}
    boxes = {k: v for k, v in boxes.items() if v and k not in UNSCORED}
    if not boxes:
        return []
    taken = [b for v in boxes.values() for b in v]
    given = [c for c in (_clip(b, w, h) for b in (reference_boxes or [])) if c]
    lines = _spread(given, MAX_REFERENCES) if given else line_boxes(gray)
    refs = [b for b in lines if not any(_overlap(b, t) for t in taken)]
    ref_feats = [f for f in (features(gray, b) for b in refs) if f is not None]
    if len(ref_feats) < MIN_REFERENCES:
        return []
    ref = {k: np.array([f[k] for f in ref_feats if k in f]) for k in FEATURES}
    out = []
    for name, bs in boxes.items():
        z_best: dict[str, float] = {}
        for b in bs:
            f = features(gray, b)
            if f is None:
                continue
            same_row = _row_rest_boxes(gray, b, given) if given else _row_rest(gray, b)
            for k in FEATURES:
                if k not in f:
                    continue
                if k in ROW_FEATURES:
                    # font metrics only against the rest of the same line (headers and totals are
                    # legitimately bigger or bolder than the body); spread from the whole receipt
                    if same_row is None or k not in same_row:
                        continue
                    centre = same_row[k]
                else:
                    centre = float(np.median(ref[k])) if len(ref[k]) else f[k]
                spread = 1.4826 * float(np.median(np.abs(ref[k] - np.median(ref[k])))) if len(ref[k]) else 0.0
                z = (f[k] - centre) / max(spread, FLOORS[k])
                if abs(z) > abs(z_best.get(k, 0.0)):
                    z_best[k] = float(z)
        if z_best:
            score = min(MAX_SCORE, max([abs(v) for k, v in z_best.items() if k in SCORED] or [0.0]))
            out.append(FieldScore(name, round(score, 3), {k: round(v, 2) for k, v in z_best.items()}, len(ref_feats)))
    return out


def visual_signals(
    image: Image.Image, field_boxes: dict[str, list[Box]], reference_boxes: list[Box] | None = None
) -> list[Signal]:
    """Opinion-level signals for fields whose surroundings differ from the rest of the receipt or
    whose characters are copies of others on it, and the measurements behind them (reason=False)."""
    try:
        scores = field_scores(image, field_boxes, reference_boxes)
    except Exception:  # a measurement must never fail a check; no opinion then
        scores = []
    out = copy_move_signals(image, field_boxes, reference_boxes)
    out += ghost_signals(image, field_boxes, reference_boxes)
    for k in SCORED:
        zs = [abs(s.z[k]) for s in scores if k in s.z]
        if zs:
            out.append(
                Signal(
                    f"visual.{k}_z",
                    "opinion",
                    f"largest field |z| of the {_LABELS[k]}",
                    reason=False,
                    value=round(min(MAX_SCORE, max(zs)), 3),
                )
            )
    for s in sorted(scores, key=lambda s: -s.score):
        if s.score < EMIT_SCORE:
            continue
        top = sorted(((k, v) for k, v in s.z.items() if k in SCORED), key=lambda kv: -abs(kv[1]))[:2]
        what = ", ".join(f"{_LABELS[k]} {'higher' if v > 0 else 'lower'} (z {v:+.1f})" for k, v in top)
        out.append(
            Signal(
                "visual.local_inconsistency",
                "opinion",
                f"The area around the {s.field.replace('_', ' ')} differs from the receipt's other {s.references} text lines: {what}",
                fields=(s.field,),
                value=s.score,
            )
        )
    return out


def ghost_signals(
    image: Image.Image, field_boxes: dict[str, list[Box]], reference_boxes: list[Box] | None = None
) -> list[Signal]:
    """The JPEG-ghost measurement (reason=False): the fields' compression history against the
    receipt's other text lines (the same references as ``field_scores``)."""
    try:
        gray = _to_gray(image)
        h, w = gray.shape
        fields = [c for k, v in field_boxes.items() if k not in UNSCORED for c in (_clip(b, w, h) for b in v) if c]
        given = [c for c in (_clip(b, w, h) for b in (reference_boxes or [])) if c]
        lines = _spread(given, MAX_REFERENCES) if given else line_boxes(gray)
        refs = [b for b in lines if not any(_overlap(b, t) for t in fields)]
        score = ghost_score(gray, fields, refs)
    except Exception:  # a measurement must never fail a check
        return []
    if score is None:
        return []
    return [
        Signal(
            "visual.jpeg_ghost", "opinion", "largest field difference in compression history", reason=False, value=score
        )
    ]


def copy_move_signals(
    image: Image.Image, field_boxes: dict[str, list[Box]], reference_boxes: list[Box] | None = None
) -> list[Signal]:
    """The copy-move measurement (reason=False) and, when overwhelming, an opinion naming the field,
    the copied character's box and its source's box (a reviewer can compare the two)."""
    try:
        gray = _to_gray(image)
        h, w = gray.shape
        boxes = {k: [c for c in (_clip(b, w, h) for b in v) if c] for k, v in field_boxes.items()}
        lines = [c for c in (_clip(b, w, h) for b in (reference_boxes or [])) if c] or line_boxes(gray)
        every = copy_move(gray, boxes, lines)
    except Exception:  # a measurement must never fail a check
        return []
    twins = [t for t in every if t.field not in COPY_UNSCORED]
    out = (
        [
            Signal(
                "visual.copy_move",
                "opinion",
                "largest copy-move score over the fields",
                reason=False,
                value=max(t.score for t in twins),
            )
        ]
        if twins
        else []
    )
    # the opinion also looks at line items: the measurement leaves them out (a dozen rows' largest
    # score sits higher by chance), but no genuine receipt's item reached the opinion's bar
    for t in sorted(every, key=lambda t: -t.score):
        if not _copy_opinion(t):
            continue
        where = f" (in the {', '.join(f.replace('_', ' ') for f in t.twin_fields)})" if t.twin_fields else ""
        out.append(
            Signal(
                "visual.copied_glyph",
                "opinion",
                f"A character of the {t.field.replace('_', ' ')} at {_where(t.glyph)} and the one at "
                f"{_where(t.twin)}{where} are pixel copies of each other, one pasted over the receipt: shape "
                f"correlation {t.shape:.4f}, fine-detail correlation {t.detail:.4f}, where this receipt's "
                f"{t.glyphs} characters reach {t.usual_shape:.3f} and {t.usual_detail:.3f} with their closest "
                "look-alike (90th percentile); two printings of a character are never that alike",
                fields=tuple(dict.fromkeys((t.field, *t.twin_fields))),
                value=t.score,
            )
        )
        break  # one place to look at is enough; the measurement carries the rest
    return out


def _copy_opinion(t: Twin) -> bool:
    area = (t.glyph[2] - t.glyph[0]) * (t.glyph[3] - t.glyph[1])
    digital = t.line_others >= 2 and t.line_share > COPY_MAX_LINE_SHARE
    return t.score >= COPY_OPINION and area >= COPY_MIN_PX and not digital


def _where(b: Box) -> str:
    return f"x {b[0]}-{b[2]}, y {b[1]}-{b[3]}"


def _clip(b: Box, w: int, h: int) -> Box | None:
    x0, y0, x1, y1 = (int(v) for v in b)
    x0, x1 = max(0, min(x0, x1)), min(w, max(x0, x1))
    y0, y1 = max(0, min(y0, y1)), min(h, max(y0, y1))
    return (x0, y0, x1, y1) if x1 - x0 >= 4 and y1 - y0 >= 4 else None


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _spread(boxes: list[Box], n: int) -> list[Box]:
    if len(boxes) <= n:
        return boxes
    step = len(boxes) / n
    return [boxes[int(i * step)] for i in range(n)]


def _row_rest_boxes(gray: np.ndarray, b: Box, lines: list[Box]) -> dict[str, float] | None:
    """Font features of the reader's other boxes on the box's text row (the label beside an amount)."""
    x0, y0, x1, y1 = b
    h = max(1, y1 - y0)
    same = [
        o for o in lines if not _overlap(o, b) and min(y1, o[3]) - max(y0, o[1]) >= 0.5 * min(h, max(1, o[3] - o[1]))
    ]
    feats = [f for f in (features(gray, o) for o in same) if f is not None and f.get("ink_px", 0) >= 20]
    if not feats:
        return None
    big = max(feats, key=lambda f: f["ink_px"])
    return {k: big[k] for k in ROW_FEATURES if k in big}


def _row_rest(gray: np.ndarray, b: Box) -> dict[str, float] | None:
    """Font features of the rest of the box's text row (left and right of it), if it has ink."""
    h, w = gray.shape
    x0, y0, x1, y1 = b
    parts = [(0, y0, x0, y1), (x1, y0, w, y1)]
    feats = [features(gray, p) for p in parts if p[2] - p[0] >= 8]
    feats = [f for f in feats if f is not None and f.get("ink_px", 0) >= 20]
    if not feats:
        return None
    big = max(feats, key=lambda f: f["ink_px"])
    return {k: big[k] for k in ROW_FEATURES if k in big}
