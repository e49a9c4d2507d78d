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
