"""One ``rabench run`` per run folder at a time: an flock'ed ``runs/ID/lock`` file.

Why flock and not "create the file if absent": the kernel drops an flock when
its process dies, however it dies (kill -9 included), so a stale lock from a
dead run is simply taken over, and two live runs can never both hold it. The
file keeps the holder's pid for the refusal message.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from rabench.errors import UserError

LOCK = "lock"


class RunLock:
    def __init__(self, run_dir: Path):
        self.path = run_dir / LOCK
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise UserError(
                f"{self.path.parent}: another rabench run (pid {holder}) is writing to this folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        # The file stays (unlinking it would race with a process that opened it
        # a moment ago); an unlocked lock file is simply taken over.
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
