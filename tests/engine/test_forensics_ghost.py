"""JPEG ghosts: a field pasted into a compressed receipt and saved again has another compression
history than the receipt's other text; an honest receipt saved twice has one history everywhere."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from _fx_receipts import receipt
from rabench.engine.forensics import ghost_signals, visual_signals


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
    assert _ghost(_jpeg(_jpeg(img, 55), 92), boxes, lines) < 3.0


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
