"""numba's cache of compiled kernels, set up once for every module that uses numba (ground floor:
``rabench.score.kernels`` and ``rabench.engine.forensics.glyphs`` call it before their first
``@njit(cache=True)``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numba


def ensure_writable_cache() -> None:
    """numba caches compiled kernels beside each module; if the package folder is read-only
    (an installed package), cache under a per-user temp folder instead of failing."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    pycache = Path(__file__).parent / "__pycache__"
    try:
        pycache.mkdir(exist_ok=True)
        probe = pycache / f".rabench-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        fallback = Path(tempfile.gettempdir()) / f"rabench-numba-cache-{os.getuid()}"
        fallback.mkdir(parents=True, exist_ok=True)
        setattr(numba.config, "CACHE_DIR", str(fallback))  # noqa: B010 (numba.config has no stubs for it)
