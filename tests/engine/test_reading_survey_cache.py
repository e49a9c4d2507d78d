"""The reading survey's OCR cache is keyed by the image's bytes, not its file name: every suite
keeps its files in ``files/`` under ids like ``f00001.jpg``, so a name-keyed cache shared by two
suites handed one suite's OCR lines to the other's receipt."""

from __future__ import annotations

import msgspec

from rabench.engine.extract.reading_survey import _ocr_lines, cache_name
from rabench.engine.ocr import OcrLine, OcrResult


def test_same_name_other_bytes_is_another_cache_entry_and_same_bytes_the_same(tmp_path):
    a = tmp_path / "A-forged" / "files" / "f00001.jpg"
    b = tmp_path / "B1-forged" / "files" / "f00001.jpg"
    for path, data in ((a, b"\xff\xd8\xff first receipt"), (b, b"\xff\xd8\xff second receipt")):
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
    assert cache_name(a.read_bytes()) != cache_name(b.read_bytes())
    assert cache_name(a.read_bytes()) == cache_name(bytes(a.read_bytes()))


def test_a_cached_reading_is_returned_for_the_bytes_it_was_made_from(tmp_path):
    image = tmp_path / "files" / "f00001.jpg"
    image.parent.mkdir()
    image.write_bytes(b"\xff\xd8\xff not decoded: the cache answers first")
    cache = tmp_path / "cache"
    cache.mkdir()
    lines = OcrResult([OcrLine("TOTAL 12.50", (0, 0, 100, 20), 0.99)])
    (cache / cache_name(image.read_bytes())).write_bytes(msgspec.json.encode(lines))
    assert _ocr_lines(image, cache) == lines
