"""JPEG ghosts: a field pasted into a compressed receipt and saved again has another compression
history than the receipt's other text; an honest receipt saved twice has one history everywhere."""

from __future__ import annotations

import io

import pytest
import numpy as np
from PIL import Image

from _fx_receipts import receipt
from rabench.engine.forensics import ghost_signals, visual_signals
from rabench.engine.forensics.ghost import curve_score, scaled_curves


def _jpeg(img: Image.Image, q: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=q)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def _ghost(img: Image.Image, boxes, lines) -> float:
    sigs = ghost_signals(img, boxes, lines)
    assert all(s.name == "visual.jpeg_ghost" and not s.reason for s in sigs)
    return sigs[0].value if sigs else 0.0


def _scanned(seed: int, total: str = "42.50"):
    lines: list = []
    img, boxes = receipt(noise=6.0, seed=seed, total=total, lines=lines)
    return img, boxes, lines


@pytest.mark.parametrize("seed", range(3))
def test_an_honest_receipt_saved_twice_has_one_history(seed):
    img, boxes, lines = _scanned(seed)
    # below 4: under the 99th percentile of 231 genuine real receipts (SROIE scans and US photos,
    # docs/engine.md "Round 6"); the pasted total of the next test reaches 10
    assert _ghost(_jpeg(_jpeg(img, 55), 92), boxes, lines) < 4.0


@pytest.mark.parametrize("seed", range(3))
def test_a_total_pasted_from_an_uncompressed_source_differs(seed):
    """The scanner's JPEG (quality 55), a total taken from an uncompressed rendering pasted over it
    off the 8-px grid, saved again at 92: only the total was compressed once."""
    img, boxes, lines = _scanned(seed)
    clean, _ = receipt(noise=6.0, seed=seed + 10, total="92.50")
    x0, y0, x1, y1 = boxes["total"][0]
    scan = _jpeg(img, 55)
    scan.paste(clean.crop((x0 - 3, y0 - 3, x1 + 3, y1 + 3)), (x0 - 3, y0 - 3))
    fake = _jpeg(scan, 92)
    honest = _jpeg(_jpeg(img, 55), 92)
    assert _ghost(fake, boxes, lines) >= 4.0
    assert _ghost(fake, boxes, lines) > 2 * _ghost(honest, boxes, lines)


def test_the_measurement_reaches_visual_signals_and_needs_references():
    img, boxes, lines = _scanned(0)
    assert any(s.name == "visual.jpeg_ghost" for s in visual_signals(_jpeg(img, 80), boxes, lines))
    assert ghost_signals(img, boxes, lines[:2]) == []  # fewer than 4 reference lines
    assert ghost_signals(img, {}, lines) == []


# A ghost curve over the qualities 40..95 as text compressed at some lower quality gives it: the change
# falls as the quality rises.
_BASE = np.array([1.0, 0.8, 0.5, 0.36, 0.28, 0.24, 0.2, 0.15, 0.1])


def _max_scaled_score(ref: np.ndarray, fld: np.ndarray) -> float:
    """The scaling before round 6 (each curve over its maximum, spread floor 0.02), for contrast."""
    r, f = ref / ref.max(1, keepdims=True), fld / fld.max(1, keepdims=True)
    centre = np.median(r, 0)
    spread = np.maximum(1.4826 * np.median(np.abs(r - centre), 0), 0.02)
    return float(min(10.0, (np.abs(f - centre) / spread).max()))


def test_a_field_with_the_references_history_is_ordinary_where_its_peak_moves():
    """Scaled by its maximum, almost every curve is exactly 1 at quality 40, the references' spread
    there collapses to the floor, and a field whose curve (drawn like theirs) peaks at 50 instead
    scores 10. Scaled by its mean, no quality is pinned."""
    new, old = [], []
    for seed in range(200):
        rng = np.random.default_rng(seed)
        ref = _BASE * np.exp(rng.normal(0, 0.15, (30, 9))) * rng.uniform(5, 50, (30, 1))
        fld = _BASE * np.exp(rng.normal(0, 0.15, (1, 9))) * 20
        new.append(curve_score(scaled_curves(ref), scaled_curves(fld)))
        old.append(_max_scaled_score(ref, fld))
    assert max(new) < 8.0 and np.mean(np.array(new) >= 4.0) <= 0.05
    assert max(old) >= 8.0  # what the fix is for


@pytest.mark.parametrize("seed", range(5))
def test_a_field_compressed_once_elsewhere_still_stands_out(seed):
    """A field last compressed at quality 75 (its curve dips there) against text of another history."""
    rng = np.random.default_rng(seed)
    ref = _BASE * np.exp(rng.normal(0, 0.1, (30, 9))) * rng.uniform(5, 50, (30, 1))
    once = np.array([[0.9, 0.7, 0.55, 0.4, 0.05, 0.2, 0.2, 0.15, 0.1]]) * 20
    assert curve_score(scaled_curves(ref), scaled_curves(once)) >= 5.0
