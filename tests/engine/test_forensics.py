"""Visual forensics: a pasted field stands out from the receipt's other lines; a clean receipt does not."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from _fx_receipts import receipt
from rabench.engine.forensics import EMIT_SCORE, field_scores, visual_signals


def _jpeg(img: Image.Image, q: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=q)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def _paste(dst: Image.Image, src: Image.Image, box, pad=4) -> Image.Image:
    x0, y0, x1, y1 = box
    out = dst.copy()
    out.paste(src.crop((x0 - pad, y0 - pad, x1 + pad, y1 + pad)), (x0 - pad, y0 - pad))
    return out


FIELDS = ("merchant", "date", "receipt_number", "subtotal", "tax_total", "total")


@pytest.mark.parametrize("seed", range(3))
def test_clean_receipt_has_no_opinions(seed):
    img, boxes = receipt(seed=seed, noise=4.0)
    img = _jpeg(img, 80)
    assert [s for s in visual_signals(img, boxes) if s.reason] == []
    assert all(s.score < EMIT_SCORE for s in field_scores(img, boxes))


@pytest.mark.parametrize("field", ["total", "date", "receipt_number"])
def test_noise_free_patch_is_flagged_on_that_field(field):
    """A re-typed value pasted from a clean rendering onto a noisy photo-like receipt."""
    img, boxes = receipt(noise=5.0, seed=1)
    img = _jpeg(img, 80)
    clean, _ = receipt(noise=0.0, total="92.50", date="2024-06-10", number="99999")
    fake = _jpeg(_paste(img, clean, boxes[field][0]), 92)
    sigs = [s for s in visual_signals(fake, boxes) if s.name == "visual.local_inconsistency"]
    assert sigs and sigs[0].fields == (field,) and sigs[0].kind == "opinion"
    assert sigs[0].value >= EMIT_SCORE
    others = {s.fields[0] for s in sigs[1:]}
    assert not (others & (set(FIELDS) - {field}))


def test_scores_are_continuous_and_rise_with_the_edit():
    img, boxes = receipt(noise=5.0, seed=2)
    base = _jpeg(img, 80)
    clean, _ = receipt(noise=0.0)  # same digits: only the noise of the patch changes
    weak = _jpeg(_paste(base, Image.blend(base, clean, 0.6), boxes["total"][0]), 92)
    strong = _jpeg(_paste(base, clean, boxes["total"][0]), 92)

    def score(im):
        return {s.field: s.score for s in field_scores(im, boxes)}["total"]

    assert score(base) < score(weak) < score(strong)


def test_bad_boxes_are_ignored_not_fatal():
    img, boxes = receipt()
    boxes = {"total": [(-50, -50, 3, 3)], "date": [(10_000, 10_000, 10_100, 10_100)], "merchant": [(5, 5, 5, 5)]}
    assert [s for s in visual_signals(img, boxes) if s.reason] == []
    assert visual_signals(Image.new("RGB", (50, 50), "white"), {"total": [(1, 1, 40, 40)]}) == []


def _on_table(img: Image.Image, seed: int = 0, noise: float = 8.0) -> tuple[Image.Image, tuple[int, int]]:
    """The receipt photographed on a dark, uneven table: background all round, light falling off
    down the page, sensor noise over everything."""
    rng = np.random.default_rng(seed)
    w, h = img.size
    W, H = w + 240, h + 160
    yy, xx = np.mgrid[0:H, 0:W]
    a = 55 + 25 * np.sin(xx / 37.0) * np.cos(yy / 53.0)
    paper = np.asarray(img.convert("L"), dtype=np.float32) * (0.85 + 0.15 * np.linspace(1, 0, h))[:, None]
    a[80 : 80 + h, 120 : 120 + w] = paper
    a = a + rng.normal(0, noise, a.shape)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).convert("RGB"), (120, 80)


def _shift(boxes, dx, dy):
    return [(x0 + dx, y0 + dy, x1 + dx, y1 + dy) for x0, y0, x1, y1 in boxes]


def test_photo_on_a_table_is_judged_against_the_readers_lines():
    """A photo's background merges every ink row into one, so without the reader's line boxes there
    is nothing to compare with; with them, a noise-free retyped total stands out and nothing else does."""
    lines: list = []
    img, boxes = receipt(noise=0.0, seed=3, lines=lines)
    photo, (dx, dy) = _on_table(img)
    retyped, _ = _on_table(receipt(noise=0.0, total="92.50")[0], noise=0.0)
    fboxes = {k: _shift(v, dx, dy) for k, v in boxes.items()}
    refs = _shift(lines, dx, dy)
    genuine = _jpeg(photo, 85)
    fake = _jpeg(_paste(photo, retyped, fboxes["total"][0]), 90)
    assert field_scores(fake, fboxes) == []  # the ink profile sees one giant "line"
    assert [s for s in visual_signals(genuine, fboxes, refs) if s.reason] == []
    sigs = [s for s in visual_signals(fake, fboxes, refs) if s.reason]
    assert sigs and sigs[0].fields == ("total",) and sigs[0].kind == "opinion"
    assert not {s.fields[0] for s in sigs[1:]} & (set(FIELDS) - {"total"})
