"""numba's cache set-up (rabench/numba_cache.py): a read-only package folder sends the cache to a
per-user temp folder; a writable one or NUMBA_CACHE_DIR leaves numba's setting alone."""

from __future__ import annotations

from pathlib import Path

import numba

from rabench import numba_cache


def test_cache_dir_is_set_only_when_the_folder_is_read_only(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", "unchanged")
    numba_cache.ensure_writable_cache()
    assert numba.config.CACHE_DIR == "unchanged"  # the worktree's rabench/ is writable

    real_write = Path.write_bytes

    def read_only(self: Path, data: bytes) -> int:
        if self.name.startswith(".rabench-probe-"):
            raise PermissionError(str(self))
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", read_only)
    numba_cache.ensure_writable_cache()
    assert Path(numba.config.CACHE_DIR).parent == tmp_path
    assert Path(numba.config.CACHE_DIR).is_dir()

    monkeypatch.setattr(numba.config, "CACHE_DIR", "unchanged")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "chosen"))
    numba_cache.ensure_writable_cache()
    assert numba.config.CACHE_DIR == "unchanged"  # the user's choice wins
