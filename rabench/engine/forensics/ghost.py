"""JPEG ghosts: was a field's area compressed a different number of times, or at another quality,
than the rest of the receipt's text?

Why: a pasted or retyped amount has its own compression history. When an edited JPEG is saved
again, the untouched text has been through the camera's or scanner's compression and the
editor's, while the pasted pixels have only been through the editor's (or through another
file's). Re-compressing the image at a range of qualities and measuring how much each area
changes (its "ghost" curve over quality, H. Farid, "Exposing digital forgeries from JPEG
ghosts", IEEE TIFS 2009) shows that history: an area last quantised at quality q barely
changes when compressed at q again. A receipt's honest text lines share one history, so their
curves agree; the field's curve is compared with theirs (robust z per quality, the curve
scaled by its own mean so the amount of ink does not matter).

Why the mean and not the maximum (issue 14, round 6): scaled by its maximum, almost every box's
curve is exactly 1 at the lowest quality, so the references' spread there collapses to the floor
and a box whose curve peaks one quality later scores 10 whatever its history; a genuine SROIE scan
did (a merchant line), and so did the genuine receipts' top values, which kept the risk fit from
trusting the measurement's tail. Scaled by the mean, no quality is pinned (docs/engine.md,
"Round 6").

A measurement for the risk model (``visual.jpeg_ghost``, ``Signal.reason=False``), never a
reason: a re-photographed or rescaled edit has no history left to find, and on phone photos
the curves spread more (docs/engine.md, "Copy-move and measurements").
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

Box = tuple[int, int, int, int]
QUALITIES = (40, 50, 60, 70, 75, 80, 85, 90, 95)
MIN_REFERENCES = 4
SPREAD_FLOOR = 0.05  # on the curve scaled to a mean of 1 (0.02 of the maximum before round 6: about the same share)
MAX_SCORE = 10.0


def _curves(gray: np.ndarray, boxes: list[Box]) -> np.ndarray:
    """Per box, the mean squared change when the image is compressed at each quality, scaled by its mean.
    Only the part of the image holding the boxes is compressed, cut on the 8-px JPEG grid so its
    blocks are the file's."""
    x0 = min(b[0] for b in boxes) // 8 * 8
    y0 = min(b[1] for b in boxes) // 8 * 8
    gray = gray[y0 : max(b[3] for b in boxes), x0 : max(b[2] for b in boxes)]
    boxes = [(a - x0, b - y0, c - x0, d - y0) for a, b, c, d in boxes]
    img = Image.fromarray(np.clip(np.rint(gray), 0, 255).astype(np.uint8))
    out = np.zeros((len(boxes), len(QUALITIES)), dtype=np.float64)
    for j, q in enumerate(QUALITIES):
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=q)
        buf.seek(0)
        with Image.open(buf) as again:
            back = np.asarray(again, dtype=np.float32)
        for i, (x0, y0, x1, y1) in enumerate(boxes):
            d = back[y0:y1, x0:x1] - gray[y0:y1, x0:x1]
            out[i, j] = float(np.mean(d * d)) if d.size else 0.0
    return scaled_curves(out)


def scaled_curves(raw: np.ndarray) -> np.ndarray:
    """Each box's curve (one row per box) over its own mean: its shape, whatever the amount of ink."""
    scaled: np.ndarray = raw / (raw.mean(axis=1, keepdims=True) + 1e-6)
    return scaled


def ghost_score(gray: np.ndarray, fields: list[Box], references: list[Box]) -> float | None:
    """The largest robust |z| over qualities of any field box's ghost curve against the reference
    text boxes' curves (0-10); None with fewer than ``MIN_REFERENCES`` references or no field."""
    if not fields or len(references) < MIN_REFERENCES:
        return None
    curves = _curves(gray, references + fields)
    return curve_score(curves[: len(references)], curves[len(references) :])


def curve_score(ref: np.ndarray, fld: np.ndarray) -> float:
    """The largest robust |z| (median, 1.4826 MAD floored at ``SPREAD_FLOOR``) of any field curve at
    any quality against the reference curves (rows: boxes, scaled), clipped to ``MAX_SCORE``."""
    centre = np.median(ref, axis=0)
    spread = np.maximum(1.4826 * np.median(np.abs(ref - centre), axis=0), SPREAD_FLOOR)
    z = np.abs(fld - centre) / spread
    return round(float(min(MAX_SCORE, z.max())), 3)
