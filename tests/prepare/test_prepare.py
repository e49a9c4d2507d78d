"""Every target gets an upright image of at most 3072 px and 3.75 MB; bad files fail with one line."""

import hashlib
import io
import os
import struct
import subprocess
import sys
import zlib

import anyio
import pytest
from PIL import Image

from rabench.prepare.cache import PrepCache
from rabench.prepare.image import MAX_BYTES, MAX_SIDE, PreparationError, prepare_bytes


def _jpeg(im, **kw):
    buf = io.BytesIO()
    im.save(buf, "JPEG", **kw)
    return buf.getvalue()


def _marked(w, h):
    """An image whose top-left quadrant is red and the rest white, so rotation is visible."""
    im = Image.new("RGB", (w, h), "white")
    im.paste((255, 0, 0), (0, 0, w // 2, h // 2))
    return im


def test_exif_orientation_is_applied():
    im = _marked(80, 40)
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: viewers rotate 90 degrees clockwise
    out = prepare_bytes(_jpeg(im, exif=exif, quality=95), "image/jpeg")
    got = Image.open(io.BytesIO(out.data))
    assert got.size == (40, 80) and not out.passed_through
    assert got.getexif().get(0x0112, 1) == 1
    # after a clockwise turn the red quadrant is at the top right
    r, g, b = got.getpixel((30, 5))
    assert r > 200 and g < 80
    assert got.getpixel((5, 75))[1] > 200  # bottom left white


def test_an_already_fine_image_passes_through_byte_for_byte():
    data = _jpeg(_marked(100, 60))
    out = prepare_bytes(data, "image/jpeg")
    assert out.passed_through and out.data == data and out.media_type == "image/jpeg"


def test_a_large_image_is_scaled_to_3072_px_on_its_longest_side():
    out = prepare_bytes(_jpeg(_marked(5000, 1200)), "image/jpeg")
    got = Image.open(io.BytesIO(out.data))
    assert max(got.size) == MAX_SIDE and abs(got.size[1] - round(1200 * MAX_SIDE / 5000)) <= 4


def test_noise_that_cannot_fit_at_high_quality_is_stepped_down_under_3_75_mb():
    noise = Image.frombytes("RGB", (3000, 3000), os.urandom(3000 * 3000 * 3))
    png = io.BytesIO()
    noise.save(png, "PNG", compress_level=1)
    assert len(png.getvalue()) > MAX_BYTES
    out = prepare_bytes(png.getvalue(), "image/png")
    assert len(out.data) <= MAX_BYTES and out.media_type == "image/jpeg"
    assert max(Image.open(io.BytesIO(out.data)).size) <= MAX_SIDE


def test_transparent_png_is_flattened_onto_white():
    im = Image.new("RGBA", (4000, 400), (0, 0, 0, 0))
    out = prepare_bytes(_png(im), "image/png")
    got = Image.open(io.BytesIO(out.data)).convert("RGB")
    assert got.getpixel((10, 1))[0] > 240


def _png(im):
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def test_pdf_first_page_is_rasterised():
    page1, page2 = _marked(600, 800), Image.new("RGB", (600, 800), "blue")
    buf = io.BytesIO()
    page1.save(buf, "PDF", save_all=True, append_images=[page2], resolution=72)
    out = prepare_bytes(buf.getvalue(), "application/pdf")
    got = Image.open(io.BytesIO(out.data)).convert("RGB")
    assert out.media_type == "image/jpeg" and max(got.size) <= MAX_SIDE
    assert got.size[1] > got.size[0]
    w, h = got.size
    assert got.getpixel((w // 4, h // 4))[0] > 200 and got.getpixel((w // 4, h // 4))[2] < 80  # page 1, red


def _png_claiming(width, height):
    """A tiny PNG whose header claims a huge size (a decompression bomb's signature)."""
    data = bytearray(_png(Image.new("L", (1, 1))))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


@pytest.mark.parametrize(
    "data,expected",
    [
        (b"", "empty file"),
        (b"not an image at all", "unreadable file"),
        (_jpeg(Image.new("RGB", (50, 50)))[:200], "unreadable file"),  # truncated
        (b"%PDF-1.4 garbage", "unreadable PDF"),
    ],
)
def test_corrupt_files_give_one_line(data, expected):
    with pytest.raises(PreparationError) as e:
        prepare_bytes(data, "image/jpeg")
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_decompression_bomb_is_refused_before_decoding():
    with pytest.raises(PreparationError) as e:
        prepare_bytes(_png_claiming(30_000, 30_000), "image/png")
    assert "too large to decode" in str(e.value) or "decompression bomb" in str(e.value)


def _files(tmp_path, n):
    out = []
    for i in range(n):
        data = _jpeg(_marked(40 + i, 30), exif=_rotated())
        p = tmp_path / f"f{i}.jpg"
        p.write_bytes(data)
        out.append((p, hashlib.sha256(data).hexdigest()))
    return out


def _rotated():
    exif = Image.Exif()
    exif[0x0112] = 3
    return exif


def test_concurrent_requests_prepare_each_file_once_and_hits_cost_no_decoding(tmp_path):
    files = _files(tmp_path, 5)
    cache = PrepCache(tmp_path / "cache")

    async def many():
        results = {}
        async with anyio.create_task_group() as tg:
            for k in range(40):
                path, sha = files[k % 5]

                async def one(k=k, path=path, sha=sha):
                    results[k] = await cache.get(path, sha, "image/jpeg")

                tg.start_soon(one)
        return results

    results = anyio.run(many)
    assert cache.stats.prepared == 5
    assert len({r.path for r in results.values()}) == 5
    for r in results.values():
        assert r.path.stat().st_size <= MAX_BYTES
    assert cache.stats.hashed == 5  # each original hashed once, however often it is asked for
    # a new process-like cache finds them on disk: the original is hashed, never decoded
    again = PrepCache(tmp_path / "cache")
    got = anyio.run(lambda: again.get(files[0][0], files[0][1]))
    assert again.stats.prepared == 0 and again.stats.disk_hits == 1 and again.stats.hashed == 1
    assert got == results[0]


def test_a_file_that_does_not_match_its_sha256_is_an_error_not_a_cache_entry(tmp_path):
    ((path, sha),) = _files(tmp_path, 1)
    cache = PrepCache(tmp_path / "cache")
    with pytest.raises(PreparationError, match="does not match"):
        anyio.run(lambda: cache.get(path, "0" * 64))
    assert not list((tmp_path / "cache").rglob("*.jpg"))


PREPARE_ALL = """
import sys, anyio
from pathlib import Path
from rabench.prepare.cache import PrepCache
cache = PrepCache(Path(sys.argv[1]))
pairs = [a.split('=') for a in sys.argv[2:]]
async def main():
    for p, sha in pairs:
        await cache.get(Path(p), sha)
anyio.run(main)
print(cache.stats.prepared)
"""


def test_two_processes_preparing_the_same_files_leave_whole_files(tmp_path):
    files = _files(tmp_path, 8)
    argv = [sys.executable, "-c", PREPARE_ALL, str(tmp_path / "cache")] + [f"{p}={s}" for p, s in files]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        assert p.wait(60) == 0
    entries = list((tmp_path / "cache").rglob("*"))
    assert not [e for e in entries if e.name.endswith(".tmp")]
    images = [e for e in entries if e.is_file()]
    assert len(images) == 8
    for e in images:
        Image.open(e).load()  # whole, decodable


# --- The cache never trusts the manifest's sha256 (issue 15) ---------------------------------


def test_a_file_replaced_after_it_was_cached_is_an_error_not_the_stale_image(tmp_path):
    ((path, sha),) = _files(tmp_path, 1)
    first = anyio.run(lambda: PrepCache(tmp_path / "cache").get(path, sha, "image/jpeg"))
    path.write_bytes(_jpeg(_marked(200, 90)))  # another receipt under the same name
    with pytest.raises(
        PreparationError,
        match=rf"the file's sha256 [0-9a-f]{{12}}\.\.\. does not match "
        rf"the manifest's {sha[:12]}\.\.\.",
    ):
        anyio.run(lambda: PrepCache(tmp_path / "cache").get(path, sha, "image/jpeg"))
    # the manifest updated too: the new bytes are prepared, not the old entry served
    new_sha = hashlib.sha256(path.read_bytes()).hexdigest()
    cache = PrepCache(tmp_path / "cache")
    second = anyio.run(lambda: cache.get(path, new_sha, "image/jpeg"))
    assert cache.stats.prepared == 1 and second.path != first.path


def test_a_wrong_sha256_never_shows_another_files_image(tmp_path):
    (a, sha_a), (b, _) = _files(tmp_path, 2)
    anyio.run(lambda: PrepCache(tmp_path / "cache").get(a, sha_a, "image/jpeg"))  # a is cached
    with pytest.raises(PreparationError, match="does not match the manifest's"):
        anyio.run(lambda: PrepCache(tmp_path / "cache").get(b, sha_a, "image/jpeg"))  # b claims a's hash


def test_a_file_changed_during_a_run_is_hashed_again(tmp_path):
    ((path, sha),) = _files(tmp_path, 1)
    cache = PrepCache(tmp_path / "cache")
    anyio.run(lambda: cache.get(path, sha, "image/jpeg"))
    anyio.run(lambda: cache.get(path, sha, "image/jpeg"))
    assert cache.stats.hashed == 1
    data = _jpeg(_marked(7, 7))
    path.write_bytes(data)
    os.utime(path, ns=(1, 1))  # even with an old mtime, the size, inode or ctime tell
    with pytest.raises(PreparationError, match="does not match"):
        anyio.run(lambda: cache.get(path, sha, "image/jpeg"))
    assert cache.stats.hashed == 2


def test_a_large_file_asked_for_at_once_is_hashed_once_off_the_loop(tmp_path):
    path = tmp_path / "big.jpg"
    path.write_bytes(_jpeg(_marked(60, 40)) + b"\0" * 400_000)  # over INLINE_HASH_BYTES: a worker thread
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    cache = PrepCache(tmp_path / "cache")

    async def many():
        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(cache.get, path, sha, "image/jpeg")

    anyio.run(many)
    assert cache.stats.hashed == 1 and cache.stats.prepared == 1


def test_lookup_answers_without_a_coroutine_only_what_get_would_answer(tmp_path):
    (path, sha), (other, other_sha) = _files(tmp_path, 2)
    cache = PrepCache(tmp_path / "cache")
    assert cache.lookup(path, sha) is None  # not hashed yet: get prepares it
    got = anyio.run(lambda: cache.get(path, sha, "image/jpeg"))
    assert cache.lookup(path, sha) == got and cache.lookup(path, sha.upper()) == got
    assert cache.lookup(path, other_sha) is None  # a hash that is not the file's: get raises
    assert cache.lookup(other, other_sha) is None  # another file, never hashed
    path.write_bytes(_jpeg(_marked(7, 7)))
    os.utime(path, ns=(1, 1))
    assert cache.lookup(path, sha) is None  # replaced: get hashes it again (and refuses it)
    with pytest.raises(PreparationError, match="does not match"):
        anyio.run(lambda: cache.get(path, sha, "image/jpeg"))
    assert cache.lookup(path, sha) is None
    path.unlink()
    assert cache.lookup(path, sha) is None
