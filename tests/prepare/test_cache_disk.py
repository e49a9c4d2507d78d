"""The prepared-image cache's entries on disk (issue 19, the run path's fourth pass):
``find_on_disk`` built from one string and ``os.stat`` finds what ``Path.is_file`` over
``entry_stem`` found, and a file already on disk is answered without a pending entry."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import anyio
import pytest
from PIL import Image

from rabench.prepare.cache import PrepCache, PreparedFile
from rabench.prepare.image import PREP_VERSION
from rabench.prepare.worker import EXTENSIONS

SHA = "ab" + "0" * 62


def _by_pathlib(cache: PrepCache, sha256: str) -> PreparedFile | None:
    """What ``find_on_disk`` did before (commit 3b06d21)."""
    stem = cache.entry_stem(sha256)
    for suffix, media_type in EXTENSIONS.items():
        path = stem.with_name(stem.name + suffix)
        if path.is_file():
            return PreparedFile(path, media_type)
    return None


@pytest.mark.parametrize("suffix", list(EXTENSIONS))
def test_each_kind_of_entry_is_found_as_pathlib_found_it(tmp_path: Path, suffix: str) -> None:
    cache = PrepCache(tmp_path / "cache")
    assert cache.find_on_disk(SHA) is None and _by_pathlib(cache, SHA) is None
    entry = tmp_path / "cache" / "ab" / f"{SHA}.v{PREP_VERSION}{suffix}"
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"x")
    found = cache.find_on_disk(SHA)
    assert found == _by_pathlib(cache, SHA) == PreparedFile(entry, EXTENSIONS[suffix])


def test_a_folder_named_like_an_entry_is_not_one(tmp_path: Path) -> None:
    cache = PrepCache(tmp_path / "cache")
    stem = tmp_path / "cache" / "ab" / f"{SHA}.v{PREP_VERSION}"
    (stem.parent / (stem.name + ".jpg")).mkdir(parents=True)  # not a regular file: skipped
    assert cache.find_on_disk(SHA) is None
    (stem.parent / (stem.name + ".png")).write_bytes(b"x")
    assert (
        cache.find_on_disk(SHA)
        == _by_pathlib(cache, SHA)
        == PreparedFile(stem.parent / (stem.name + ".png"), "image/png")
    )
    (stem.parent / "a-file").write_bytes(b"x")  # the two-letter folder a file: ENOTDIR, not found
    blocked = PrepCache(stem.parent / "a-file")
    assert blocked.find_on_disk(SHA) is None and _by_pathlib(blocked, SHA) is None


def test_a_relative_cache_root_gives_the_same_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for root in (Path("cache"), Path("./cache/"), Path("cache/../cache")):
        cache = PrepCache(root)
        entry = Path("cache") / "ab" / f"{SHA}.v{PREP_VERSION}.webp"
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(b"x")
        assert cache.find_on_disk(SHA) == _by_pathlib(cache, SHA)
        assert str(cache.find_on_disk(SHA).path) == str(_by_pathlib(cache, SHA).path)  # type: ignore[union-attr]


def test_files_on_disk_are_answered_at_once_to_many_requests(tmp_path: Path) -> None:
    files = []
    for i in range(3):
        buf = io.BytesIO()
        Image.new("RGB", (20, 30), (i * 60, 0, 0)).save(buf, "PNG")
        path = tmp_path / f"r{i}.png"
        path.write_bytes(buf.getvalue())
        files.append((path, hashlib.sha256(buf.getvalue()).hexdigest()))
    first = PrepCache(tmp_path / "cache")

    async def every(cache: PrepCache) -> list[PreparedFile]:
        out: list[PreparedFile] = []

        async def one(path: Path, sha: str) -> None:
            out.append(await cache.get(path, sha, "image/png"))

        async with anyio.create_task_group() as tg:
            for k in range(12):
                tg.start_soon(one, *files[k % 3])
        return out

    made = anyio.run(every, first)
    assert first.stats.prepared == 3
    again = PrepCache(tmp_path / "cache")  # a new run: every file is on disk
    got = anyio.run(every, again)
    assert again.stats.prepared == 0 and again.stats.disk_hits == 3 and again.stats.memo_hits == 9
    assert sorted(p.path for p in got) == sorted(p.path for p in made)
    assert again._pending == {}  # nothing left waiting
    for path, sha in files:
        assert again.lookup(path, sha) is not None  # remembered: the run's later units cost a stat
