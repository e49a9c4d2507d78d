"""The fake provider: an aiohttp.web app speaking OpenAI Chat Completions,
Anthropic Messages and Gemini generateContent, with scripted behaviours.

Why a real server: the clients' request building, connection pooling, status
handling and body parsing are the parts most likely to be wrong, and they are
only exercised by real HTTP over a real socket (DESIGN.md, "Real parts"). The
app records every request it received (headers, JSON body, behaviour chosen) so
tests can assert what each client sent.

Routes: ``POST /v1/chat/completions`` (OpenAI, the gateway, compatible servers),
``POST /v1/messages`` (Anthropic), ``POST /v1beta/models/{model}:generateContent``
(Gemini), ``GET /v1/models`` (gateway-style model list with prices).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import msgspec
from aiohttp import web

from rabench.contracts import ReceiptLabel
from rabench.contracts.ap import APLabel
from rabench.fakeprovider.answers import answer_text
from rabench.fakeprovider.batch import BatchRoutes
from rabench.fakeprovider.formats import AnthropicFormat, GeminiFormat, OpenAIFormat, image_sha256
from rabench.fakeprovider.profile import HTTP_BEHAVIOURS, Profile

FORMATS = {"openai": OpenAIFormat, "anthropic": AnthropicFormat, "gemini": GeminiFormat}


class RecordedRequest(msgspec.Struct, frozen=True):
    wire: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any
    model: str
    image_sha256: str | None
    n: int  # how many requests with this model and image came before
    behaviour: str
    peer: str = ""  # client address:port (the same port = a reused connection)


def load_suite_labels(suite: Path) -> dict[str, ReceiptLabel | APLabel]:
    """sha256 of each case's original file, and of its prepared image, -> label. For an ap
    suite, the first invoice image of each bundle (the image an AP request carries). The
    suite's kind says how (``Suite.fake_labels``)."""
    from rabench.suites.registry import suite_of

    return suite_of(suite).fake_labels(suite)


def receipt_suite_labels(suite: Path) -> dict[str, ReceiptLabel | APLabel]:
    """A receipt suite's answer key (``rabench.suites.receipt``)."""
    from rabench.cases.manifest import open_suite

    try:
        from rabench.prepare import PreparationError, prepare_bytes
    except ImportError:  # pragma: no cover - prepare is part of the package
        prepare_bytes = None  # type: ignore[assignment]
    labels: dict[str, ReceiptLabel | APLabel] = {}
    for loaded in open_suite(suite):
        data = loaded.read_bytes()
        labels[hashlib.sha256(data).hexdigest()] = loaded.case.label
        if prepare_bytes is not None:
            try:
                prepared = prepare_bytes(data, loaded.case.media_type)
            except PreparationError:
                continue
            labels[hashlib.sha256(prepared.data).hexdigest()] = loaded.case.label
    return labels


def _peer(request: web.Request) -> str:
    info = request.transport.get_extra_info("peername") if request.transport else None
    return f"{info[0]}:{info[1]}" if info else ""


class FakeApp:
    def __init__(self, profile: Profile, labels: dict[str, ReceiptLabel | APLabel] | None = None, record: bool = True):
        self.profile = profile
        self.labels = labels or {}
        # every request with its body, for tests that look at what was sent; off in the CLI
        # server, where nothing can read it and it would grow (and slow the GC) without end
        self.record = record
        self.requests: list[RecordedRequest] = []
        self._seen: dict[tuple[str, str], int] = {}
        self._active: dict[str, int] = {}  # requests being answered, per model (max_in_flight)

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handler("openai"))
        app.router.add_post("/v1/messages", self._handler("anthropic"))
        app.router.add_post("/v1beta/models/{model}:generateContent", self._handler("gemini"))
        app.router.add_get("/v1/models", self._models)
        self.batch = BatchRoutes(self)  # the providers' batch APIs (rabench.fakeprovider.batch)
        self.batch.add_to(app.router)
        return app

    async def _models(self, request: web.Request) -> web.Response:
        data = [
            {
                "id": mid,
                "object": "model",
                "type": "language",
                "pricing": {"input": f"{p[0] / 1e6:.12g}", "output": f"{p[1] / 1e6:.12g}"},
            }
            for mid, p in sorted(self.profile.prices.items())
        ]
        return web.json_response({"object": "list", "data": data})

    def _handler(self, wire: str):
        fmt = FORMATS[wire]

        async def handle(request: web.Request) -> web.StreamResponse:
            raw = await request.read()
            try:
                body = json.loads(raw)
            except ValueError:
                return web.json_response(fmt.error(400, "request body is not JSON"), status=400)
            model = fmt.model(request, body) if isinstance(body, dict) else ""
            image_sha = image_sha256(fmt.image_b64(body) if isinstance(body, dict) else None)
            key = (model, image_sha or "")
            n = self._seen.get(key, 0)
            self._seen[key] = n + 1
            if self.profile.require_key and not fmt.has_key(request):
                behaviour = "401"
                latency, rng = 0.0, None
            elif not model or image_sha is None:
                behaviour = "400"
                latency, rng = 0.0, None
            else:
                behaviour, latency, rng = self.profile.choose(model, image_sha, n)
                limit = self.profile.for_model(model).max_in_flight
                if limit and self._active.get(model, 0) >= limit:
                    behaviour, latency = "429", 0.0
            if self.record:
                self.requests.append(
                    RecordedRequest(
                        wire=wire,
                        path=request.path,
                        headers={k.lower(): v for k, v in request.headers.items()},
                        body=body,
                        model=model,
                        image_sha256=image_sha,
                        n=n,
                        behaviour=behaviour,
                        peer=_peer(request),
                    )
                )
            self._active[model] = self._active.get(model, 0) + 1
            try:
                if latency > 0:
                    await asyncio.sleep(latency)
                return await self._respond(request, fmt, behaviour, model, image_sha, rng)
            finally:
                self._active[model] -= 1

        return handle

    async def _respond(
        self, request: web.Request, fmt: Any, behaviour: str, model: str, image_sha: str | None, rng: Any
    ) -> web.StreamResponse:
        mp = self.profile.for_model(model)
        if behaviour in HTTP_BEHAVIOURS:
            status = int(behaviour)
            headers = {}
            if status in (429, 503) and mp.retry_after is not None:
                headers["Retry-After"] = mp.retry_after
            message = {401: "missing or invalid API key", 400: "request has no model or no base64 image"}.get(
                status, f"scripted {status} from the fake provider"
            )
            if mp.echo_key and status < 500:
                sent = [
                    v
                    for k, v in request.headers.items()
                    if k.lower() in ("authorization", "x-api-key", "x-goog-api-key")
                ]
                message += f" (Incorrect API key provided: {' '.join(sent)})"
            return web.json_response(fmt.error(status, message), status=status, headers=headers)
        if behaviour == "reset":
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError  # aiohttp drops the handler quietly
        if behaviour == "hang":
            await asyncio.sleep(mp.hang_s)
            behaviour = "right"
        if behaviour == "malformed":
            return web.Response(body=b'{"id": "x", "choices": [{"message": ', content_type="application/json")
        answered = model
        if mp.answer_model:
            answered = mp.answer_model.replace("{model}", model)
        if behaviour == "other_model":
            answered = mp.other_model
            behaviour = "right"
        tin, tout = mp.input_tokens, mp.output_tokens
        if behaviour in ("refusal", "content_filter"):
            payload = fmt.refusal(answered, tin, tout, behaviour == "content_filter")
        elif behaviour == "empty":
            payload = fmt.answer(answered, None, tin, 0)
        else:
            label = self.labels.get(image_sha or "")
            payload = fmt.answer(answered, answer_text(behaviour, label, rng), tin, tout)
        return web.json_response(payload)


class FakeProvider:
    """Run the fake in-process: ``async with FakeProvider(profile) as fake: fake.url``."""

    def __init__(
        self,
        profile: Profile,
        *,
        labels: dict[str, ReceiptLabel | APLabel] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        record: bool = True,
    ):
        self.app = FakeApp(profile, labels, record=record)
        self.host, self.port = host, port
        self._runner: web.AppRunner | None = None

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.app.requests

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> str:
        self._runner = web.AppRunner(self.app.make_app(), handle_signals=False, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        sockets = site._server.sockets if site._server is not None else []  # type: ignore[union-attr]
        if sockets:
            self.port = sockets[0].getsockname()[1]
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeProvider:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def env(self) -> dict[str, str]:
        """``RABENCH_<PROVIDER>_BASE_URL`` values pointing every built-in provider here."""
        return {
            "RABENCH_OPENAI_BASE_URL": f"{self.url}/v1",
            "RABENCH_GATEWAY_BASE_URL": f"{self.url}/v1",
            "RABENCH_OPENAI_COMPATIBLE_BASE_URL": f"{self.url}/v1",
            "RABENCH_ANTHROPIC_BASE_URL": self.url,
            "RABENCH_GEMINI_BASE_URL": self.url,
        }


class BackgroundFakeProvider:
    """The fake on its own event loop in a thread, for callers that run their own
    ``asyncio.run`` (the CLI, ``rabench run`` in an end-to-end test)::

        with BackgroundFakeProvider(profile) as fake:
            os.environ.update(fake.env()); main(["run", ...])
    """

    def __init__(self, profile: Profile, **kwargs: Any):
        self.fake = FakeProvider(profile, **kwargs)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-provider", daemon=True)

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.fake.start(), self._loop).result(30)
        return self.fake

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.fake.stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
