"""Bounded work per file: header caps before decoding, and a deadline and a memory bound on the
worker process that prepares, which is killed on overrun or when the request is cancelled."""

from __future__ import annotations

import hashlib
import io
import time
from pathlib import Path

import anyio
import pytest
from hostile_images import many_scans_jpeg, wide_png
from PIL import Image

from rabench.prepare.cache import PrepCache
from rabench.prepare.image import MAX_ASPECT, MAX_JPEG_SCANS, PreparationError, jpeg_scan_count, prepare_bytes


def _write(tmp_path: Path, name: str, data: bytes) -> tuple[Path, str]:
    path = tmp_path / name
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def _png(im: Image.Image, **kw) -> bytes:
    buf = io.BytesIO()
    im.save(buf, "PNG", **kw)
    return buf.getvalue()


def _pids_alive(cache: PrepCache) -> list[int]:
    return [w.process.pid for w in cache.workers._all if w.alive()]


def test_a_100000_by_1_png_is_refused_from_its_header():
    data = wide_png()
    t0 = time.monotonic()
    with pytest.raises(PreparationError, match="too elongated to read: 100000x1 px"):
        prepare_bytes(data, "image/png")
    assert time.monotonic() - t0 < 1.0


@pytest.mark.parametrize("size", [(MAX_ASPECT * 100 + 1, 100), (100, MAX_ASPECT * 100 + 1)])
def test_any_image_longer_than_the_aspect_cap_is_refused(size):
    with pytest.raises(PreparationError, match=f"more than {MAX_ASPECT}:1"):
        prepare_bytes(_png(Image.new("L", size, 255)), "image/png")


def test_an_image_at_the_aspect_cap_is_prepared():
    out = prepare_bytes(_png(Image.new("L", (MAX_ASPECT * 100, 100), 255)), "image/png")
    assert (out.width, out.height) == (MAX_ASPECT * 100, 100)


def test_a_jpeg_of_thousands_of_scans_is_refused_before_decoding():
    data = many_scans_jpeg(3000, 2000)  # 99 kB; decoding it takes ~40 s
    assert jpeg_scan_count(data) == 2006
    t0 = time.monotonic()
    with pytest.raises(PreparationError, match=f"more than {MAX_JPEG_SCANS} scans"):
        prepare_bytes(data, "image/jpeg")
    assert time.monotonic() - t0 < 1.0


def test_ordinary_jpegs_have_few_scans():
    for progressive in (False, True):
        buf = io.BytesIO()
        Image.effect_noise((300, 200), 50).convert("RGB").save(buf, "JPEG", progressive=progressive)
        assert jpeg_scan_count(buf.getvalue()) == (10 if progressive else 1)


def test_a_preparation_past_its_deadline_is_killed_and_is_an_error(tmp_path):
    slow = _write(tmp_path, "slow.jpg", many_scans_jpeg(4000, MAX_JPEG_SCANS - 6))  # at the cap: ~3-4 s
    good = _write(tmp_path, "good.png", _png(Image.new("RGB", (300, 400), "white")))
    cache = PrepCache(tmp_path / "cache", timeout_s=0.5)

    async def main():
        t0 = time.monotonic()
        with pytest.raises(PreparationError, match="took longer than 0.5 s"):
            await cache.get(*slow, "image/jpeg")
        took = time.monotonic() - t0
        assert not _pids_alive(cache)  # the worker was killed, not left decoding
        ok = await cache.get(*good, "image/png")  # the next file gets a fresh worker
        return took, ok

    took, ok = anyio.run(main)
    assert took < 3.0
    assert ok.path.is_file() and cache.workers.started == 2
    cache.close()
    assert not _pids_alive(cache)


def test_a_preparation_over_its_memory_bound_is_an_error_and_the_next_file_is_prepared(tmp_path):
    big = _write(tmp_path, "big.png", _png(Image.new("RGB", (7000, 7000), "white"), compress_level=1))
    good = _write(tmp_path, "good.png", _png(Image.new("RGB", (300, 400), "white")))
    cache = PrepCache(tmp_path / "cache", memory_mb=200)  # 147 MB of pixels, plus their copies

    async def main():
        with pytest.raises(PreparationError, match="memory bound|out of memory|died"):
            await cache.get(*big, "image/png")
        return await cache.get(*good, "image/png")

    assert anyio.run(main).path.is_file()
    cache.close()


def test_cancelling_a_preparation_kills_its_worker_at_once(tmp_path):
    slow = _write(tmp_path, "slow.jpg", many_scans_jpeg(4000, MAX_JPEG_SCANS - 6))
    cache = PrepCache(tmp_path / "cache")

    async def main():
        # cancelled well before the worker can finish (start-up ~0.3 s, then a decode of 1.2-1.3 s on a
        # quiet 2-core host: a 1.0 s cancel let a fast moment finish the job and keep its worker idle)
        with anyio.move_on_after(0.4):
            await cache.get(*slow, "image/jpeg")
        assert cache.workers.started == 1 and cache.stats.prepared == 0  # it was running when cancelled
        assert not _pids_alive(cache)

    t0 = time.monotonic()
    anyio.run(main)
    assert time.monotonic() - t0 < 2.5  # the cancel returns at once (the kill waits at most 1 s for the worker)
    assert not list((tmp_path / "cache").rglob("*.jpg"))  # nothing half-written was kept


def test_workers_end_with_the_cache(tmp_path):
    good = _write(tmp_path, "good.png", _png(Image.new("RGB", (300, 400), "white")))
    cache = PrepCache(tmp_path / "cache")
    anyio.run(cache.get, *good, "image/png")
    procs = [w.process for w in cache.workers._all]
    assert procs and all(p.poll() is None for p in procs)  # kept for the next file
    del cache  # no close(): collected, the workers are told to end
    for p in procs:
        assert p.wait(5) == 0


def test_the_engine_refuses_an_elongated_original_it_is_given_directly(tmp_path):
    from rabench.engine.pipeline import UnreadableFile, analyse

    path, _ = _write(tmp_path, "wide.png", wide_png())
    t0 = time.monotonic()
    with pytest.raises(UnreadableFile, match="too elongated"):
        analyse(str(path), "image/png", None)  # no prepared image: the engine reads the original
    assert time.monotonic() - t0 < 2.0  # not OCR of a 1280 x 1 strip (6 s, 1.6 GB)
