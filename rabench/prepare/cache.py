"""The prepared-image cache: each file prepared once, on disk, shared by every target and run.

Why: preparation decodes and re-encodes images (tens of milliseconds each); a
run asks for the same file once per target and repetition, and later runs ask
again. The cache makes a repeated request cost a dictionary lookup (in
process) or one ``stat`` (on disk) and never a decode.

* Key: the sha256 of the file's *bytes* (never the manifest's word for it) plus
  ``PREP_VERSION``. Each cache object hashes a file the first time it is asked
  for it and again whenever its size, mtime, ctime or inode change, so every run
  hashes every original once (about 1 ms per MB, docs/running.md) and a file
  replaced after it was cached is prepared again. When the bytes' hash differs
  from the manifest's, the request fails (a ``PreparationError`` naming both
  hashes, which the runner records as an ``error`` outcome): the target is never
  shown another file's image, nor a file the label was not written for.
* Layout: ``<root>/<sha[:2]>/<sha>.v<PREP_VERSION>.<jpg|png|webp>``. The root is
  ``--cache``, else ``$RABENCH_CACHE/prepared``, else ``.cache/prepared``.
* Once per file: concurrent requests for one key in a process wait for the
  first one; across processes a file is written to a temporary name and
  renamed into place atomically, so a reader never sees half a file.
* Hashing a large original runs in a worker thread; preparing (decoding,
  encoding, writing the entry) runs in worker processes
  (``rabench.prepare.worker``), at most ``threads`` at once, each job bounded in
  time (``timeout_s``) and memory (``memory_mb``) and killed when cancelled.
* Failures (corrupt file, decompression bomb) are remembered per key for the
  life of the cache object, so a bad file costs one attempt per run, not one per
  target and repetition; a hash mismatch costs one ``stat`` per request.
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG

import anyio
import anyio.to_thread

from rabench.prepare.image import PREP_VERSION, PreparationError
from rabench.prepare.worker import EXTENSIONS, PREP_MEMORY_MB, PREP_TIMEOUT_S, PrepWorkers


def default_cache_root() -> Path:
    env = os.environ.get("RABENCH_CACHE")
    return Path(env) / "prepared" if env else Path(".cache") / "prepared"


@dataclass(frozen=True, slots=True)
class PreparedFile:
    path: Path
    media_type: str


class _Pending:
    __slots__ = ("event", "result")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.result: PreparedFile | PreparationError | None = None


@dataclass(slots=True)
class CacheStats:
    prepared: int = 0  # files actually decoded and encoded by this object
    disk_hits: int = 0  # found on disk (no decoding)
    memo_hits: int = 0  # found in this process's memory
    failures: int = 0
    hashed: int = 0  # originals read and hashed (once per file and run, again if it changed)


# errno values ``Path.is_file`` takes for "no such file" (pathlib's ``_IGNORED_ERRNOS``)
_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
# Files up to this size are hashed on the event loop (about 0.1 ms); larger ones in a worker thread.
INLINE_HASH_BYTES = 256 * 1024
FileSignature = tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns


def file_signature(path: Path) -> FileSignature:
    """What changes when a file is replaced or rewritten (raises OSError)."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def hash_file(path: Path) -> str:
    """sha256 of the file's bytes, read in 1 MiB chunks (PreparationError if unreadable)."""
    h = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError as exc:
        raise PreparationError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    return h.hexdigest()


class PrepCache:
    """``await cache.get(path, sha256, media_type)`` -> the prepared file (or PreparationError)."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        threads: int = 2,
        memo_size: int = 8192,
        timeout_s: float = PREP_TIMEOUT_S,
        memory_mb: int = PREP_MEMORY_MB,
    ):
        self.root = Path(root) if root is not None else default_cache_root()
        self._root_str = str(self.root).rstrip("/")  # "/" alone: "", so entries start "/ab/"
        self.workers = PrepWorkers(threads, timeout_s=timeout_s, memory_mb=memory_mb)
        self.stats = CacheStats()
        self._memo: OrderedDict[str, PreparedFile | PreparationError] = OrderedDict()
        self._memo_size = memo_size
        self._pending: dict[str, _Pending] = {}
        self._limiter = anyio.CapacityLimiter(threads)
        self._hashes: OrderedDict[tuple[str, FileSignature], str] = OrderedDict()
        self._hashing: dict[tuple[str, FileSignature], anyio.Event] = {}

    def close(self) -> None:
        """End the preparation workers (they also end when this object is collected)."""
        self.workers.close()

    def entry_stem(self, sha256: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.v{PREP_VERSION}"

    def find_on_disk(self, sha256: str) -> PreparedFile | None:
        """The entry of ``sha256`` if a regular file holds it (``entry_stem`` plus a suffix of
        ``EXTENSIONS``). Built as one string and tested with ``os.stat``: what ``Path.is_file``
        does, an error it would not ignore raised the same, for a third of the time."""
        stem = f"{self._root_str}/{sha256[:2]}/{sha256}.v{PREP_VERSION}"
        for suffix, media_type in EXTENSIONS.items():
            path = stem + suffix
            try:
                st = os.stat(path)
            except OSError as exc:
                if exc.errno in _MISSING:
                    continue
                raise
            except ValueError:
                continue
            if S_ISREG(st.st_mode):
                return PreparedFile(Path(path), media_type)
        return None

    async def content_hash(self, source: Path) -> str:
        """The sha256 of ``source``'s bytes: hashed once per file while it stays unchanged."""
        try:
            sig = (str(source), file_signature(source))
        except OSError as exc:
            raise PreparationError(f"cannot read {source.name}: {exc.strerror or exc}") from None
        while True:
            known = self._hashes.get(sig)
            if known is not None:
                return known
            busy = self._hashing.get(sig)
            if busy is None:
                break
            await busy.wait()  # another request is hashing this file; then it is known (or failed)
            if sig not in self._hashes:
                break
        if sig[1][2] <= INLINE_HASH_BYTES:  # cheaper than a trip to a worker thread
            return self._hashed(sig, hash_file(source))
        done = self._hashing[sig] = anyio.Event()
        try:
            return self._hashed(sig, await anyio.to_thread.run_sync(hash_file, source, limiter=self._limiter))
        finally:
            del self._hashing[sig]
            done.set()

    def _hashed(self, sig: tuple[str, FileSignature], digest: str) -> str:
        self.stats.hashed += 1
        self._hashes[sig] = digest
        if len(self._hashes) > self._memo_size:
            self._hashes.popitem(last=False)
        return digest

    def lookup(self, source: Path, sha256: str) -> PreparedFile | None:
        """``get``'s answer when this object already has it: ``source`` unchanged since it was
        hashed (one ``stat``), its hash the manifest's, its file prepared. None: ask ``get``
        (which prepares, waits, or raises). No coroutine: the usual call of a run costs a stat."""
        try:
            sig = (str(source), file_signature(source))
        except OSError:
            return None
        key = self._hashes.get(sig)
        if key is None or key != sha256.lower():
            return None
        memo = self._memo.get(key)
        if type(memo) is not PreparedFile:
            return None
        self.stats.memo_hits += 1
        return memo

    async def get(self, source: Path, sha256: str, media_type: str = "") -> PreparedFile:
        """The prepared image of ``source``, whose bytes must hash to ``sha256`` (the manifest's)."""
        expected = sha256.lower()
        key = await self.content_hash(source)
        if key != expected:
            self.stats.failures += 1
            raise PreparationError(
                f"the file's sha256 {key[:12]}... does not match the manifest's {expected[:12]}... "
                "(the file changed after the manifest was written; rabench cases validate lists such files)"
            )
        memo = self._memo.get(key)
        if memo is not None:
            self.stats.memo_hits += 1
            if isinstance(memo, PreparationError):
                raise memo
            return memo
        pending = self._pending.get(key)
        if pending is not None:
            await pending.event.wait()
            self.stats.memo_hits += 1
            return self._unwrap(pending.result)
        found = self.find_on_disk(key)  # no await since the look at _pending: nobody else is on it
        if found is not None:
            self.stats.disk_hits += 1
            self._remember(key, found)
            return found
        pending = self._pending[key] = _Pending()
        try:
            try:
                path, kind = await self.workers.prepare(source, key, media_type, self.entry_stem(key))
                pending.result = PreparedFile(path, kind)
                self.stats.prepared += 1
            except PreparationError as exc:
                self.stats.failures += 1
                pending.result = exc
            self._remember(key, pending.result)
        finally:
            if pending.result is None:  # cancelled: waiters get an error, nothing is remembered
                pending.result = PreparationError("preparation cancelled")
            del self._pending[key]
            pending.event.set()
        return self._unwrap(pending.result)

    @staticmethod
    def _unwrap(result: PreparedFile | PreparationError | None) -> PreparedFile:
        if isinstance(result, PreparedFile):
            return result
        raise result if result is not None else PreparationError("preparation failed")

    def _remember(self, key: str, value: PreparedFile | PreparationError) -> None:
        self._memo[key] = value
        if len(self._memo) > self._memo_size:
            self._memo.popitem(last=False)
