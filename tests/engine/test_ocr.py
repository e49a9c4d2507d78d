"""OCR reads rendered receipts, off the event loop, with boxes in the caller's pixels."""

from __future__ import annotations

import asyncio

from rabench.engine.ocr import OcrSettings, ProcessWorkerPool, ocr, read_file


def test_reads_text_with_boxes_and_confidences(ocr_pool, render):
    img = render([("Espresso", "2.20"), ("TOTAL", "2.20")], title="BEAN THERE")
    lines = asyncio.run(ocr(ocr_pool, img)).lines
    texts = [ln.text for ln in lines]
    assert any("BEAN" in t for t in texts)
    assert "2.20" in texts
    for ln in lines:
        x0, y0, x1, y1 = ln.box
        assert 0 <= x0 < x1 <= img.width and 0 <= y0 < y1 <= img.height
        assert 0.5 <= ln.confidence <= 1.0
    # the amount is printed at the right edge; its box says so
    amount = next(ln for ln in lines if ln.text == "2.20")
    assert amount.box[2] > img.width * 0.8


def test_downscaled_ocr_maps_boxes_back_to_the_original_size(ocr_pool, render):
    small = render([("TOTAL", "9.99")], width=640)
    big = small.resize((small.width * 3, small.height * 3))  # long side > max_side: OCR'd downscaled
    assert max(big.size) > OcrSettings().max_side
    lines = asyncio.run(ocr(ocr_pool, big)).lines
    amount = next(ln for ln in lines if "9.99" in ln.text)
    assert amount.box[2] > big.width * 0.8  # in the big image's coordinates, not the downscaled one


def test_blank_image_gives_no_lines(ocr_pool):
    from PIL import Image

    assert asyncio.run(ocr(ocr_pool, Image.new("RGB", (400, 600), "white"))).lines == []


def test_process_pool_runs_ocr_in_worker_processes(tmp_path, render):
    path = tmp_path / "r.png"
    render([("Croissant", "2.40"), ("TOTAL", "2.40")]).save(path)
    pool = ProcessWorkerPool(workers=1, preload=False)
    try:

        async def go():
            import os

            pid = await pool.submit(os.getpid)
            result = await pool.submit(read_file, str(path))
            return pid, result.lines

        pid, lines = asyncio.run(go())
    finally:
        pool.close()
    import os

    assert pid != os.getpid()
    assert "2.40" in [ln.text for ln in lines]


def test_upside_down_receipt_is_read_turned_round_in_reading_order(ocr_pool, render):
    img = render([("Espresso", "2.20"), ("Croissant", "2.40"), ("TOTAL", "4.60")]).rotate(180)
    result = asyncio.run(ocr(ocr_pool, img))
    assert result.rotation == 180
    texts = [ln.text for ln in sorted(result.lines, key=lambda ln: ln.y_center)]
    assert texts.index("Espresso") < texts.index("TOTAL")  # top to bottom as printed


def _small_receipt_on_a_page(render):
    from PIL import Image

    rows = [
        ("Receipt No. 55102", ""),
        ("Date: 25/12/2024", ""),
        ("Flat White", "3.60"),
        ("Blueberry Muffin", "2.90"),
        ("SUBTOTAL", "6.50"),
        ("VAT 20% incl.", "1.08"),
        ("TOTAL", "6.50"),
        ("Card", "6.50"),
    ]
    receipt = render(rows, title="GREENLEAF FOODS", width=352, size=16)
    page = Image.new("RGB", (2480, 3508), "white")  # A4 at 300 dpi, the till slip in a corner of it
    page.paste(receipt, (900, 700))
    return page, (900, 700, 900 + receipt.width, 700 + receipt.height)


def test_receipt_box_finds_a_small_receipt_on_a_large_white_page(render):
    from rabench.engine.ocr import receipt_box

    page, (x0, y0, x1, y1) = _small_receipt_on_a_page(render)
    box = receipt_box(page)
    assert box is not None
    bx0, by0, bx1, by1 = box
    assert x0 - 40 <= bx0 <= x0 + 40 and y0 - 40 <= by0 <= y0 + 60  # around the print, not the page
    assert x1 - 60 <= bx1 <= x1 + 40 and y1 - 60 <= by1 <= y1 + 40


def test_receipt_box_leaves_a_filled_picture_and_a_blank_page_alone(render):
    from PIL import Image

    from rabench.engine.ocr import receipt_box

    assert receipt_box(render([("Espresso", "2.20"), ("TOTAL", "2.20")] * 12, title="BEAN THERE")) is None
    assert receipt_box(Image.new("RGB", (2480, 3508), "white")) is None


def test_small_receipt_on_a_page_is_read_at_full_resolution(render):
    from rabench.engine.extract import extract_fields, rows_from_ocr
    from rabench.engine.ocr import OcrEngine

    page, (x0, y0, x1, y1) = _small_receipt_on_a_page(render)
    # the premise: the whole page shrunk to 1280 px leaves the slip's text too small to read
    whole = OcrEngine(OcrSettings(crop=False)).read(page)
    assert extract_fields(rows_from_ocr(whole.lines)).fields.total is None
    result = OcrEngine(OcrSettings()).read(page)
    ex = extract_fields(rows_from_ocr(result.lines))
    assert (ex.fields.total, ex.fields.date) == (6.50, "2024-12-25")
    assert [i.total for i in ex.line_items] == [3.60, 2.90]
    for ln in result.lines:  # boxes are in the page's pixels, on the slip
        bx0, by0, bx1, by1 = ln.box
        assert x0 - 5 <= bx0 < bx1 <= x1 + 5 and y0 - 5 <= by0 < by1 <= y1 + 5


def test_small_receipt_upside_down_on_a_page_maps_boxes_to_the_turned_frame(render):
    from rabench.engine.ocr import OcrEngine

    page, (x0, y0, x1, y1) = _small_receipt_on_a_page(render)
    result = OcrEngine(OcrSettings()).read(page.rotate(180))
    assert result.rotation == 180
    total = next(ln for ln in result.lines if ln.text == "TOTAL")
    # boxes refer to the image turned back round: where the slip was pasted on the page
    bx0, by0, bx1, by1 = total.box
    assert x0 <= bx0 < bx1 <= x1 and y0 <= by0 < by1 <= y1
