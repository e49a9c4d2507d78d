"""Start a throw-away Debian ``redis-server`` on a free loopback port, for tests and benches.

Why a helper and not a fixture only: the Redis duplicate store's tests, the shared limiter's
tests, the Ray executor's tests and ``bench/redis_roundtrip.py`` all need the same real server,
started the same way: loopback only, no persistence (``--save ''``, ``--appendonly no``), no unix
socket, its working directory a temporary folder, stopped (and its folder removed) on exit even
when the body raises. The port is free when chosen; if another process grabs it before Redis binds
(a race no chooser can close), a fresh port is tried.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

_START_TIMEOUT_S = 10.0
_STOP_TIMEOUT_S = 5.0
_PORT_ATTEMPTS = 5


class RedisNotInstalled(RuntimeError):
    """``redis-server`` is not on PATH (``bash scripts/ensure-redis.sh`` installs it)."""


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ping(port: int, timeout: float = 0.5) -> bool:
    """True when a Redis server answers PING on 127.0.0.1:port (inline command, no client library)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _launch(binary: str, port: int, workdir: str) -> subprocess.Popen[bytes]:
    args = [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--unixsocket",
        "",
        "--dir",
        workdir,
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
        "--logfile",
        "",
    ]
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _wait_ready(proc: subprocess.Popen[bytes], port: int) -> bool:
    """True once PING answers; False if the server exited (e.g. the port was taken meanwhile)."""
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if ping(port):
            return True
        time.sleep(0.02)
    raise TimeoutError(f"redis-server on port {port} did not answer PING within {_START_TIMEOUT_S:.0f} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


@contextlib.contextmanager
def start_redis(port: int | None = None) -> Iterator[str]:
    """Run ``redis-server`` on 127.0.0.1 for the duration of the block; yields ``redis://127.0.0.1:<port>/0``.

    ``port=None`` picks a free one (retried on a bind race); an explicit port is used as given.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise RedisNotInstalled("redis-server is not installed: run `bash scripts/ensure-redis.sh`")
    workdir = tempfile.mkdtemp(prefix="rabench-redis-")
    try:
        attempts = 1 if port is not None else _PORT_ATTEMPTS
        last_output = b""
        for _ in range(attempts):
            chosen = port if port is not None else free_port()
            proc = _launch(binary, chosen, workdir)
            try:
                ready = _wait_ready(proc, chosen)
            except BaseException:
                _stop(proc)
                raise
            if not ready:
                last_output = proc.stdout.read() if proc.stdout is not None else b""
                _stop(proc)
                continue
            try:
                yield f"redis://127.0.0.1:{chosen}/0"
            finally:
                _stop(proc)
            return
        detail = last_output.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"redis-server did not start: {detail[-1] if detail else 'exited without output'}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
