"""A receipt stored sideways or upside down in its pixels (no EXIF orientation to undo it) is
read turned: the more legible read is kept, its boxes are in the frame of the turned image, and
what points back at the file (thumbnail fields) is mapped back to the file's own frame."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from PIL import Image

from _fx_receipts import exif_with_thumbnail, jpeg_bytes, receipt
from rabench.engine import ocr as ocr_mod
from rabench.engine.extract import extract_fields, rows_from_ocr
from rabench.engine.ocr import OcrEngine, OcrSettings, turn, unturn_box
from rabench.targets.base import CheckRequest

ROWS = [
    ("Receipt No. 55102", ""),
    ("Date: 25/12/2024", ""),
    ("Flat White", "3.60"),
    ("Blueberry Muffin", "2.90"),
    ("TOTAL", "6.50"),
    ("Card", "6.50"),
]


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine(OcrSettings())


@pytest.mark.parametrize("given", [90, 270])
def test_a_sideways_receipt_is_read_turned_upright(engine, render, given):
    upright = render(ROWS, title="GREENLEAF FOODS")
    result = engine.read(upright.rotate(given, expand=True))
    assert result.rotation == (360 - given) % 360  # the turn that undoes it
    ex = extract_fields(rows_from_ocr(result.lines))
    assert (ex.fields.total, ex.fields.date) == (6.50, "2024-12-25")
    # boxes are in the turned frame, which is the upright receipt's own frame
    total = next(ln for ln in result.lines if ln.text == "TOTAL")
    assert total.box[2] <= upright.width and total.box[3] <= upright.height
    assert total.box[0] < upright.width / 2  # the label is printed on the left


@pytest.mark.parametrize("given", [90, 180, 270])
def test_a_small_receipt_turned_on_a_large_page_maps_boxes_to_the_turned_page(engine, render, given):
    receipt_img = render(ROWS, title="GREENLEAF FOODS", width=352, size=16)
    page = Image.new("RGB", (2480, 3508), "white")  # A4 at 300 dpi, the slip in a corner of it
    page.paste(receipt_img, (900, 700))
    x0, y0, x1, y1 = 900, 700, 900 + receipt_img.width, 700 + receipt_img.height
    result = engine.read(page.rotate(given, expand=True))
    assert result.rotation == (360 - given) % 360
    total = next(ln for ln in result.lines if ln.text == "TOTAL")
    bx0, by0, bx1, by1 = total.box  # turned back: where the slip was pasted on the upright page
    assert x0 - 5 <= bx0 < bx1 <= x1 + 5 and y0 - 5 <= by0 < by1 <= y1 + 5


def test_upright_receipts_are_read_once(engine, render, monkeypatch):
    reads = []
    real = OcrEngine._raw
    monkeypatch.setattr(OcrEngine, "_raw", lambda self, *a: reads.append(1) or real(self, *a))
    result = engine.read(render(ROWS, title="GREENLEAF FOODS"))
    assert (result.rotation, len(reads)) == (0, 1)


def test_the_angle_classifier_votes_turned_only_for_upside_down_print(engine, render):
    import numpy as np

    img = render(ROWS * 2, title="GREENLEAF FOODS")
    for im, turned in ((img, False), (img.rotate(180), True)):
        bgr = np.ascontiguousarray(np.asarray(im)[:, :, ::-1])
        share = engine._turned_share(bgr, engine._raw(bgr, False))
        assert (share > ocr_mod.TURNED_SHARE) is turned, share


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_unturn_box_maps_a_turned_box_back_to_the_file(rotation):
    rng = random.Random(rotation)
    for _ in range(20):
        w, h = rng.randint(40, 300), rng.randint(40, 300)
        x0, y0 = rng.randint(0, w - 10), rng.randint(0, h - 10)
        box = (x0, y0, rng.randint(x0 + 2, w), rng.randint(y0 + 2, h))
        im = Image.new("L", (w, h), 255)
        im.paste(0, box)
        turned = turn(im, rotation)
        found = Image.eval(turned, lambda v: 255 - v).getbbox()  # the black box, in the turned frame
        assert unturn_box(found, rotation, turned.size) == box


def test_thumbnail_fields_of_a_sideways_file_point_at_the_stale_total(self_target, tmp_path):
    # the file stores the receipt sideways (pixels, no EXIF orientation); its thumbnail shows the
    # same sideways picture before the total was changed: the proof must name the total
    orig, _ = receipt(total="82.80", items=("20.00", "30.00", "12.80", "20.00"))
    edited, _ = receipt(total="99.41", items=("20.00", "30.00", "12.80", "20.00"))
    orig, edited = orig.rotate(90, expand=True), edited.rotate(90, expand=True)
    paths = {}
    for name, img, thumb in (("right", orig, orig), ("stale", edited, orig)):
        paths[name] = Path(tmp_path / f"{name}.jpg")
        paths[name].write_bytes(jpeg_bytes(img, 88, exif_with_thumbnail(thumb, thumb_px=320)))
    verdicts = {}
    for name, path in paths.items():
        req = CheckRequest(
            case_id=name, original=path, media_type="image/jpeg", prepared=path, prepared_media_type="image/jpeg"
        )
        verdicts[name] = asyncio.run(self_target.check(req))
    assert verdicts["stale"].fields.total == 99.41
    assert any("read turned by" in d for d in verdicts["stale"].diagnostics or [])
    proof = [r for r in verdicts["stale"].reasons if r.proof_type == "thumbnail_mismatch"]
    assert proof and "total" in (proof[0].fields or ()), [r.text for r in verdicts["stale"].reasons]
    assert not [r for r in verdicts["right"].reasons if r.proof_type == "thumbnail_mismatch"]


def test_a_read_of_single_characters_is_not_taken_as_legible():
    # a small photo read sideways came out as 15 boxes of one or two characters at a mean confidence
    # of 0.77 (above the 0.75 line): an upright receipt has words lying flat
    from rabench.engine.ocr import OcrLine, _looks_illegible

    marks = [OcrLine(t, (10 * i, 0, 10 * i + 17, 18), 0.8) for i, t in enumerate("0C3320358522")]
    assert _looks_illegible(marks)
    words = marks + [
        OcrLine(t, (0, 30 * i, 120, 30 * i + 20), 0.95) for i, t in enumerate(["TOTAL", "Receipt", "Card 6.50"])
    ]
    assert not _looks_illegible(words)
    standing = marks + [OcrLine(t, (0, 0, 17, 120), 0.95) for t in ["TOTAL", "Receipt", "Card 6.50"]]
    assert _looks_illegible(standing)  # words standing on end are not a legible receipt either
