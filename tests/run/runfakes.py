"""In-process fake targets and a real loopback HTTP server for the runner's tests.

The fakes implement the Target protocol directly (no monkeypatching): each
test says what the target does per call (sleep, hang, raise a failure), and the
fake records when each call started and finished.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
from aiohttp import web

from rabench.contracts import Capabilities, TargetInfo, Usage, Verdict
from rabench.run.config import Limits
from rabench.run.retry import RetryPolicy
from rabench.run.session import RunOptions, run
from rabench.targets.base import CheckRequest, TargetFailure, TransportFailure

FAST_RETRY = RetryPolicy(max_retries=3, wait_initial_s=0.01, wait_max_s=0.05, wait_jitter_s=0.0)


class FakeTarget:
    """``behaviour(request, attempt_number) -> Verdict`` (may be async, may raise)."""

    def __init__(
        self, tid: str = "fake", behaviour: Callable | None = None, *, memory: bool = False, provider: str = "fake"
    ):
        self.info = TargetInfo(id=tid, kind="other", provider=provider, capabilities=Capabilities(memory=memory))
        self.behaviour = behaviour
        self.calls: list[tuple[str, int, float, float | None]] = []  # (case, rep, start, end)
        self.attempts: dict[tuple[str, int], int] = {}
        self.resets: list[int] = []
        self.opened = self.closed = False
        self.active = 0
        self.max_active = 0

    async def open(self) -> None:
        self.opened = True

    async def reset(self, repetition: int) -> None:
        self.resets.append(repetition)

    async def close(self) -> None:
        self.closed = True

    async def check(self, request: CheckRequest) -> Verdict:
        key = (request.case_id, request.repetition)
        n = self.attempts[key] = self.attempts.get(key, 0) + 1
        idx = len(self.calls)
        self.calls.append((request.case_id, request.repetition, time.monotonic(), None))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            out = self.behaviour(request, n) if self.behaviour else Verdict()
            if asyncio.iscoroutine(out):
                out = await out
            return out
        finally:
            self.active -= 1
            c = self.calls[idx]
            self.calls[idx] = (c[0], c[1], c[2], time.monotonic())


def run_fake(
    suite: Path,
    out: Path,
    targets: list,
    *,
    repetitions: int = 1,
    concurrency: int = 8,
    rpm: float | None = None,
    timeout_s: float = 30.0,
    policy: RetryPolicy = FAST_RETRY,
    resume: bool = False,
    cache: Path | None = None,
):
    providers = {t.info.provider for t in targets}
    return run(
        RunOptions(
            out=out,
            suite_dir=str(suite),
            repetitions=repetitions,
            resume=resume,
            concurrency={p: concurrency for p in providers},
            rpm={p: rpm for p in providers} if rpm else {},
            timeout_s=timeout_s,
            policy=policy,
            cache_root=cache or out.parent / "cache",
            progress="none",
        ),
        targets=targets,
    )


class LoopbackServer:
    """A real aiohttp server on 127.0.0.1 in its own thread and event loop.

    ``handler(request_json, hit_number) -> (status, headers, body_dict)``; the server
    records arrival times and the most requests it was serving at once.
    """

    def __init__(self, handler: Callable, delay_s: float = 0.0):
        self.handler = handler
        self.delay_s = delay_s
        self.arrivals: list[float] = []
        self.hits: dict[str, int] = {}
        self.active = 0
        self.max_active = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    async def _handle(self, request: web.Request) -> web.Response:
        self.arrivals.append(time.monotonic())
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            body = await request.json()
            key = body["case_id"]
            n = self.hits[key] = self.hits.get(key, 0) + 1
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            status, headers, payload = self.handler(body, n)
            return web.json_response(payload, status=status, headers=headers)
        finally:
            self.active -= 1

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/check", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/check"


class HttpTarget:
    """A minimal HTTP-calling target: POST the case id, map the wire status to the runner's failures.

    No retries inside the client (one retry layer): 408/429/5xx and connection errors
    become TransportFailure (with Retry-After), other 4xx a TargetFailure.
    """

    def __init__(self, url: str, tid: str = "http-fake", provider: str = "loopback"):
        self.url = url
        self.info = TargetInfo(id=tid, kind="other", provider=provider)
        self.session: aiohttp.ClientSession | None = None
        self.sent: list[float] = []  # monotonic time each call left the runner's gate

    async def open(self) -> None:
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    async def reset(self, repetition: int) -> None:
        return None

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()

    async def check(self, request: CheckRequest) -> Verdict:
        assert self.session is not None
        self.sent.append(time.monotonic())
        try:
            async with self.session.post(self.url, json={"case_id": request.case_id}) as resp:
                payload = await resp.json()
                status = resp.status
                retry_after = resp.headers.get("Retry-After")
        except aiohttp.ClientError as exc:
            raise TransportFailure(f"connection error: {exc}") from None
        if status in (408, 429) or status >= 500:
            raise TransportFailure(
                f"HTTP {status}", status=status, retry_after=float(retry_after) if retry_after else None
            )
        if status >= 400:
            raise TargetFailure("error", f"HTTP {status}: {payload}")
        return Verdict(risk=payload.get("risk"), usage=Usage(input_tokens=payload.get("tokens", 0)))


__all__ = ["FAST_RETRY", "FakeTarget", "HttpTarget", "Limits", "LoopbackServer", "run_fake"]
