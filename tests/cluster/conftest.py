"""A real redis-server per test module (loopback, no persistence), started by rabench's own helper."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rabench.cluster.redis_proc import start_redis


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with start_redis() as url:
        yield url
