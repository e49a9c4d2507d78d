"""The throw-away redis-server: answers while the block runs, gone after it, no files left behind."""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path

import pytest

from rabench.cluster.redis_proc import ping, start_redis


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_server_answers_inside_the_block_and_is_gone_after(tmp_path: Path):
    before = set(Path(tempfile.gettempdir()).glob("rabench-redis-*"))
    with start_redis() as url:
        port = _port(url)
        assert url == f"redis://127.0.0.1:{port}/0"
        assert ping(port)
        # no persistence configured: a SAVE would be explicit, nothing is written on its own
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"CONFIG GET save\r\nCONFIG GET appendonly\r\n")
            reply = b""
            while reply.count(b"\r\n") < 10:
                reply += sock.recv(256)
        assert b"appendonly\r\n$2\r\nno" in reply
        assert b"save\r\n$0\r\n\r\n" in reply
    assert not ping(port)
    assert set(Path(tempfile.gettempdir()).glob("rabench-redis-*")) == before


def test_server_is_stopped_when_the_body_raises():
    with pytest.raises(KeyError), start_redis() as url:
        port = _port(url)
        raise KeyError("boom")
    assert not ping(port)


def test_an_explicit_port_already_taken_is_one_clear_error():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        with pytest.raises(RuntimeError, match="redis-server did not start"), start_redis(port=taken):
            pass


def test_two_servers_side_by_side_get_distinct_ports():
    with start_redis() as first, start_redis() as second:
        assert first != second
        assert ping(_port(first)) and ping(_port(second))
