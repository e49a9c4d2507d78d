"""Preparation in worker processes, each job bounded in wall-clock time and memory.

Why processes: the header checks in ``rabench.prepare.image`` refuse what is
known to be hostile before decoding, but a decoder can still be slow or greedy
on a file nobody foresaw, and a thread running C code can be neither stopped
nor capped. A worker process can: each job has a deadline (``timeout_s``;
past it the worker is killed and the case gets an ``error`` outcome saying so)
and each worker an address-space limit (``RLIMIT_AS``, ``memory_mb``; an
allocation past it fails inside the decoder and the case gets an ``error``
outcome). Cancelling a job (Ctrl-C, a run ending) kills its worker at once, so
an interrupted run never waits for a decode to finish.

Only small messages cross the pipes (a JSON line each way): the job is (source path, sha256, declared
media type, cache root) and the answer the cache file's path and media type;
the worker reads, verifies, prepares and writes the cache entry itself
(atomically: a temporary name, then ``os.replace``).

Workers are plain subprocesses (``python -m rabench.prepare.worker``, so no
caller needs an ``if __name__ == "__main__"`` guard), started lazily on the
first cache miss (~0.2 s each) and reused; they ignore SIGINT (a terminal's Ctrl-C reaches the whole process
group; the parent decides, by cancelling), and end when their stdin closes,
so a parent killed with ``kill -9`` leaves none behind.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

import anyio
import msgspec

from rabench.prepare.image import PreparationError, prepare_bytes

PREP_TIMEOUT_S = 60.0  # per file; a 64 Mpx photo prepares in ~2-4 s on a busy core
PREP_MEMORY_MB = 2048  # address space of a worker; preparing an 80 Mpx RGBA PNG peaks at ~1 GB
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the worker imports this very rabench
EXTENSIONS = {".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}
SUFFIX_OF = {v: k for k, v in EXTENSIONS.items()}


def entry_stem(root: Path, sha256: str, version: int) -> Path:
    return root / sha256[:2] / f"{sha256}.v{version}"


def find_on_disk(stem: Path) -> tuple[Path, str] | None:
    for suffix, media_type in EXTENSIONS.items():
        path = stem.with_name(stem.name + suffix)
        if path.is_file():
            return path, media_type
    return None


def prepare_to_disk(source: Path, sha256: str, media_type: str, stem: Path) -> tuple[Path, str]:
    """Read, verify, prepare and write one cache entry atomically (in a worker process)."""
    found = find_on_disk(stem)  # another process may have just written it
    if found is not None:
        return found
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise PreparationError(f"cannot read {source.name}: {exc.strerror or exc}") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:  # changed between hashing and reading: never cache under the wrong key
        raise PreparationError(
            f"the file's sha256 {actual[:12]}... does not match {sha256[:12]}... (it changed during the run)"
        )
    prepared = prepare_bytes(data, media_type)
    stem.parent.mkdir(parents=True, exist_ok=True)
    final = stem.with_name(stem.name + SUFFIX_OF[prepared.media_type])
    fd, tmp = tempfile.mkstemp(dir=stem.parent, prefix=f".{stem.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(prepared.data)
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return final, prepared.media_type


def _serve(memory_mb: int) -> None:
    """A worker's loop (``python -m rabench.prepare.worker MB``): one JSON job per stdin line,
    one JSON answer per stdout line, until stdin closes (the parent ended) or a ``null`` job."""
    import resource

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        job = msgspec.json.decode(line)
        if job is None:
            return
        try:
            path, media_type = prepare_to_disk(Path(job[0]), job[1], job[2], Path(job[3]))
            reply = ["ok", str(path), media_type]
        except PreparationError as exc:
            reply = ["error", str(exc), ""]
        except MemoryError:
            reply = ["error", f"preparation needed more than its {memory_mb:,} MB memory bound (stopped)", ""]
        except Exception as exc:  # a bug or an unforeseen decoder failure: this case only
            text = " ".join(str(exc).split())[:300]
            reply = ["error", f"preparation failed: {type(exc).__name__}: {text}", ""]
        out.write(msgspec.json.encode(reply) + b"\n")
        out.flush()


class _Worker:
    """One worker process and the parent's ends of its pipes."""

    __slots__ = ("process", "buffer")

    def __init__(self, memory_mb: int):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rabench.prepare.worker", str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={
                **os.environ,
                "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")])),
            },
        )
        self.buffer = b""

    def send(self, job: list[str] | None) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(msgspec.json.encode(job) + b"\n")
        self.process.stdin.flush()

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        try:
            self.process.kill()
            self.process.wait(1.0)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._close_pipes()

    def stop(self) -> None:
        """Ask an idle worker to exit (it is between jobs); kill it if it does not."""
        try:
            self.send(None)
            self.process.wait(1.0)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.kill()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


def _stop_all(workers: set[_Worker]) -> None:
    for w in list(workers):
        w.stop()
    workers.clear()


class PrepWorkers:
    """Up to ``size`` worker processes; ``await prepare(...)`` runs one job in one of them."""

    def __init__(self, size: int = 2, *, timeout_s: float = PREP_TIMEOUT_S, memory_mb: int = PREP_MEMORY_MB):
        self.size = size
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.started = 0  # workers started (a killed one is replaced by a new one)
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._slots: anyio.Semaphore | None = None
        weakref.finalize(self, _stop_all, self._all)  # workers end with this object, close() or not

    async def prepare(self, source: Path, sha256: str, media_type: str, stem: Path) -> tuple[Path, str]:
        """The cache entry's (path, media type); PreparationError on refusal, overrun or a dead worker."""
        if self._slots is None:
            self._slots = anyio.Semaphore(self.size)
        async with self._slots:
            worker = self._take()
            finished = False
            try:
                try:
                    worker.send([str(source), sha256, media_type, str(stem)])
                except OSError:
                    raise PreparationError("the preparation worker could not be reached (it had died)") from None
                reply = await self._reply(worker)
                finished = True
            finally:
                if finished:
                    self._idle.append(worker)
                else:  # overrun, a dead worker, or cancelled (Ctrl-C): it must not go on working
                    self._drop(worker)
        status, text, kind = reply
        if status != "ok":
            raise PreparationError(text)
        return Path(text), kind

    def _take(self) -> _Worker:
        while self._idle:
            worker = self._idle.pop()
            if worker.alive():
                return worker
            self._drop(worker)
        worker = _Worker(self.memory_mb)
        self.started += 1
        self._all.add(worker)
        return worker

    def _drop(self, worker: _Worker) -> None:
        worker.kill()
        self._all.discard(worker)

    async def _reply(self, worker: _Worker) -> list[str]:
        """Wait for the worker's answer line, at most ``timeout_s``; it may die instead."""
        loop = asyncio.get_running_loop()
        stdout = worker.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        while b"\n" not in worker.buffer:
            ready = loop.create_future()
            loop.add_reader(fd, _wake, ready)
            try:
                async with asyncio.timeout(self.timeout_s):
                    await ready
            except TimeoutError:
                raise PreparationError(
                    f"preparation took longer than {self.timeout_s:g} s (stopped; the file is too slow to decode)"
                ) from None
            finally:
                loop.remove_reader(fd)
            chunk = os.read(fd, 65536)
            if not chunk:  # the worker died (out of memory outside Python's reach, a crash)
                try:
                    code: int | None = worker.process.wait(1.0)
                except subprocess.TimeoutExpired:
                    code = None
                how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
                raise PreparationError(f"the preparation worker died ({how})")
            worker.buffer += chunk
        line, _, worker.buffer = worker.buffer.partition(b"\n")
        return msgspec.json.decode(line, type=list[str])

    def close(self) -> None:
        self._idle.clear()
        _stop_all(self._all)


if __name__ == "__main__":
    _serve(int(sys.argv[1]))


def _wake(ready: asyncio.Future[None]) -> None:
    """The reader callback: the worker's stdout has bytes to read."""
    if not ready.done():
        ready.set_result(None)
