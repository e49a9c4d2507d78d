"""A DIY target: one pinned model, asked the plain prompt over its provider's wire.

Why one ClientSession per target: connection reuse (TLS handshakes dominate a
small request) and a pool sized to the provider's concurrency cap, so the pool
never opens more sockets than the runner will use. No retries here: the runner
owns the one retry layer and sees ``TransportFailure`` for what it may retry.
"""

from __future__ import annotations

import base64
import os
from collections import OrderedDict
from collections.abc import Sized
from types import ModuleType
from typing import Any, Generic, TypeVar

import aiohttp
import anyio
import msgspec

from rabench.contracts import Capabilities, TargetInfo, Usage, Verdict
from rabench.targets.ap_request import APRequest
from rabench.targets.base import CheckRequest, TransportFailure
from rabench.targets.diy.classify import classify
from rabench.targets.diy.config import ProviderSettings, public_url
from rabench.targets.diy.errors import raise_for, scrub, truncate
from rabench.targets.diy.estimate import TYPICAL_OUTPUT_TOKENS, CallEstimate, image_tokens, text_tokens
from rabench.targets.diy.prices import ModelPrice, cost_usd
from rabench.targets.diy.prompt import PROMPT_VERSION, prompt_text
from rabench.targets.diy.reply import Reply


class DiyTarget:
    reads_original = False  # sends the prepared image only (rabench.targets.base.Target)

    def __init__(
        self,
        target_id: str,
        settings: ProviderSettings,
        wire: ModuleType,
        model: str,
        key: str | None,
        price: tuple[str, ModelPrice] | None,
        *,
        price_date: str | None = None,
    ):
        self.settings = settings
        self.model = model
        self._wire = wire
        self._key = key
        self._key_has_space = any(c.isspace() for c in key or "")
        self._price = price[1] if price else None
        self._prompt = prompt_text()
        self._session: aiohttp.ClientSession | None = None
        self.info = TargetInfo(
            id=target_id,
            kind="diy",
            capabilities=Capabilities(checks=False, memory=False, proofs=False),
            model=model,
            provider=settings.name,
            prompt_version=PROMPT_VERSION,
            settings={
                "wire": settings.wire,
                "base_url": public_url(settings.base_url),
                "api_key_env": settings.api_key_env,
                "concurrency": settings.concurrency,
                "max_output_tokens": settings.max_output_tokens,
                "temperature": settings.temperature,
                "price_key": price[0] if price else None,
                "price_input_per_mtok": self._price.input if self._price else None,
                "price_output_per_mtok": self._price.output if self._price else None,
                "price_date": price_date,
            },
        )

    def __repr__(self) -> str:  # never show the key
        return f"DiyTarget({self.info.id!r}, base_url={public_url(self.settings.base_url)!r})"

    async def open(self) -> None:
        if self._session is None:
            n = self.settings.concurrency
            self._session = aiohttp.ClientSession(
                # one base URL, so one host: ``limit`` alone bounds the sockets (a per-host limit
                # equal to it added bookkeeping per request and bounded nothing more)
                connector=aiohttp.TCPConnector(limit=n),
                # No total timeout: every caller bounds ``check`` itself (the runner's per-attempt
                # timer, ``rabench targets check``'s ``wait_for``), and aiohttp's total armed and
                # cancelled a second timer per request that could never fire first. The connect
                # timeout costs nothing on a reused socket and stays.
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.settings.connect_timeout_s),
            )

    async def reset(self, repetition: int) -> None:
        return None  # a plain prompt has no memory across checks

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def usage(self, input_tokens: int, output_tokens: int, model: str | None) -> Usage:
        cost = cost_usd(self._price, input_tokens, output_tokens)
        return Usage(
            model=model or self.model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=cost,
            model_cost_usd=cost,
        )

    def estimate_call(self, width: int, height: int) -> CallEstimate:
        """Input tokens and cost of one check on a prepared image of ``width`` x ``height``
        (``rabench.targets.diy.estimate``); the costs are None when the model has no price."""
        s = self.settings
        tokens = text_tokens(self._prompt) + image_tokens(s.wire, width, height, detail=s.image_detail)
        return CallEstimate(
            input_tokens=tokens,
            typical_usd=cost_usd(self._price, tokens, min(TYPICAL_OUTPUT_TOKENS, s.max_output_tokens)),
            max_usd=cost_usd(self._price, tokens, s.max_output_tokens),
        )

    async def check(self, request: CheckRequest) -> Verdict:
        if self._session is None:
            await self.open()
        assert self._session is not None
        prompt, parse = self._prompt, None
        media_type = request.prepared_media_type
        # the receipt prompt: the image's JSON, encoded once for every call that sends it
        image: str | msgspec.Raw | None = None
        if not isinstance(request, APRequest):
            image = _B64_CACHE.json_cached(request.prepared, self._wire, media_type)
        image_b64 = ""
        if image is None:
            got = _B64_CACHE.get(request.prepared)
            image_b64 = got if got is not None else await _B64_CACHE.load(request.prepared)
        if isinstance(request, APRequest):  # an ap suite: the AP prompt with the bundle inlined
            from rabench.targets.diy.ap import ap_prompt
            from rabench.targets.diy.ap_answer import parse_ap_answer

            prompt, parse = await anyio.to_thread.run_sync(ap_prompt, request), parse_ap_answer
        if image is None:
            image = (
                image_b64
                if parse is not None
                else _B64_CACHE.json_value(request.prepared, self._wire, media_type, image_b64)
            )
        req = self._wire.build(self.settings, self._key, self.model, prompt, image, media_type)
        if isinstance(request, APRequest):  # the bundle's other invoice pages, in the wire's shape
            from rabench.targets.diy.ap import images, more_images

            extra = []
            for doc in images(request)[1:]:
                b64 = _B64_CACHE.get(doc.prepared) or await _B64_CACHE.load(doc.prepared)
                extra.append((b64, doc.prepared_media_type or doc.media_type))
            more_images(req.body, image_b64, request.prepared_media_type, extra)
        body = _encode(req.body)
        secrets = (self._key,) if self._key else ()
        try:
            async with self._session.post(req.url, data=body, headers=req.headers) as resp:
                raw = await resp.read()
                status, headers = resp.status, resp.headers
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            detail = str(exc) or type(exc).__name__
            raise TransportFailure(
                truncate(scrub(f"connection error: {type(exc).__name__}: {detail}", secrets))
            ) from None
        result = classify(
            status,
            headers,
            raw,
            wire=self._wire,
            pinned=self.model,
            check_model=self.settings.check_model,
            strip_prefix=self.settings.strip_prefix,
            secrets=secrets,
            **({"parse": parse} if parse is not None else {}),
        )
        usage = None
        reply = result.reply
        key = self._key if reply is not None and (parse is not None or self._may_echo_key(reply)) else None
        if reply is not None:
            usage = _without_key(self.usage(reply.input_tokens, reply.output_tokens, reply.model), key)
        raise_for(result.decision, usage)
        assert result.verdict is not None
        # an APVerdict on an ap suite; the runner's call path accepts either
        return _without_key(msgspec.structs.replace(result.verdict, usage=usage), key)  # type: ignore[no-any-return]

    def _may_echo_key(self, reply: Reply) -> bool:
        """Can the key be in the Verdict or usage built from ``reply`` (the receipt prompt's)?
        Their strings are cut from the reply's text and model id (or the pinned model):
        stripped, shortened, runs of whitespace made one space, never joined to each other; so
        a key without whitespace is in them only if it is in those. This spares encoding every
        verdict to look for the key (``_without_key``)."""
        key = self._key
        if not key:
            return False
        if self._key_has_space:
            return True
        return key in (reply.text or "") or key in (reply.model or "") or key in self.model


def _without_key(value: Any, key: str | None) -> Any:
    """The struct with every copy of the key replaced by ``***``: a hostile or buggy server
    may echo request headers into an answer, which would otherwise land in outcomes.jsonl."""
    if not key or value is None:
        return value
    raw = msgspec.json.encode(value)
    needle = msgspec.json.encode(key)[1:-1]
    if needle not in raw:
        return value
    return msgspec.json.decode(raw.replace(needle, b"***"), type=type(value))


def _read_b64(path: Any) -> str:
    with open(path, "rb") as fh:
        return base64.b64encode(fh.read()).decode("ascii")


_encode = msgspec.json.Encoder().encode
K = TypeVar("K")
V = TypeVar("V", bound=Sized)
INLINE_READ_BYTES = 256 * 1024  # smaller prepared images are read and encoded on the event loop


class SizedLRU(Generic[K, V]):
    """A dict bounded by the summed ``len`` of its values, least recently used out first (the
    newest entry always stays, however large)."""

    __slots__ = ("limit", "size", "_items")

    def __init__(self, limit: int):
        self.limit = limit
        self.size = 0
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= len(old)
        self._items[key] = value
        self.size += len(value)
        while self.size > self.limit and len(self._items) > 1:
            _, dropped = self._items.popitem(last=False)
            self.size -= len(dropped)


class B64Cache:
    """Prepared images as base64, encoded once and shared by every repetition and target.

    A prepared file never changes under its name (``<sha256>.v<PREP_VERSION>.<ext>``, written
    under a temporary name and renamed), so its path is the key: no ``stat`` per call. Bounded
    by ``max_chars`` (least recently used out first). A file above
    ``INLINE_READ_BYTES`` is read and encoded in a worker thread the first time; every later
    call for it costs a dict lookup, not a thread hop.
    """

    def __init__(self, max_chars: int = 256 * 1024 * 1024, max_json_bytes: int = 64 * 1024 * 1024):
        self._b64: SizedLRU[str, str] = SizedLRU(max_chars)
        self._json: SizedLRU[tuple[str, str, str], msgspec.Raw] = SizedLRU(max_json_bytes)
        self.loads = 0

    @property
    def chars(self) -> int:
        return self._b64.size

    @property
    def json_bytes(self) -> int:
        return self._json.size

    def json_cached(self, path: Any, wire: ModuleType, media_type: str) -> msgspec.Raw | None:
        """``json_value`` when it is in the cache (no base64 needed), else None."""
        return self._json.get((str(path), wire.__name__, media_type))

    def json_value(self, path: Any, wire: ModuleType, media_type: str, image_b64: str) -> msgspec.Raw:
        """The image's value in ``wire``'s request body (``wire.image_value``: the base64, or a
        ``data:`` URL), JSON-encoded once: a body then embeds it with a copy, where encoding the
        string again scanned every character (about 0.5 ms a call for a 300 KB image). Bounded
        by ``max_json_bytes``, least recently used out first: a run sends one image's repetitions
        and targets close together, so a small window keeps the reuse."""
        key = (str(path), wire.__name__, media_type)
        value = self._json.get(key)
        if value is None:
            value = msgspec.Raw(_encode(wire.image_value(image_b64, media_type)))
            self._json.put(key, value)
        return value

    def get(self, path: Any) -> str | None:
        return self._b64.get(str(path))

    async def load(self, path: Any) -> str:
        key = str(path)
        if os.path.getsize(key) <= INLINE_READ_BYTES:
            value = _read_b64(key)
        else:
            value = await anyio.to_thread.run_sync(_read_b64, key)
        self.loads += 1
        self._b64.put(key, value)
        return value


_B64_CACHE = B64Cache()
