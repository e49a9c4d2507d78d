"""Anthropic Messages API: ``POST {base}/v1/messages``.

Wire format (docs.anthropic.com, Messages): headers ``x-api-key`` and
``anthropic-version``; ``max_tokens`` is required; the image is a content block
``{"type": "image", "source": {"type": "base64", "media_type", "data"}}``
placed before the text (as Anthropic recommends); the answer is the ``text``
blocks of ``content``; ``stop_reason == "refusal"`` is a refusal; tokens in
``usage.input_tokens`` (+ cache creation / read input tokens) and
``usage.output_tokens``. 529 (overloaded) is a 5xx and so retried.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from rabench.targets.diy.config import ProviderSettings
from rabench.targets.diy.reply import Reply, ReplyShapeError, Request, as_int


def image_value(image_b64: str, media_type: str) -> str:
    """The string the request body carries for the image: the base64 text itself."""
    return image_b64


def build(
    settings: ProviderSettings, key: str | None, model: str, prompt: str, image_b64: str | msgspec.Raw, media_type: str
) -> Request:
    """``image_b64``: the base64 text, or ``image_value`` of it already JSON-encoded (a Raw)."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": settings.max_output_tokens,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": image_b64}},
                    {"type": "text", "text": prompt},
                ],
            }
        ],
    }
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    headers = {"Content-Type": "application/json", "anthropic-version": settings.anthropic_version}
    if key:
        headers["x-api-key"] = key
    return Request(url=f"{settings.base_url}/v1/messages", headers=headers, body=body)


Count = Annotated[int, msgspec.Meta(ge=0)]


class _Block(msgspec.Struct):
    type: str | None = None
    text: str | None = None


class _Usage(msgspec.Struct):
    input_tokens: Count | None = None
    output_tokens: Count | None = None
    cache_creation_input_tokens: Count | None = None
    cache_read_input_tokens: Count | None = None


class _Response(msgspec.Struct):
    content: list[_Block]
    model: str | None = None
    stop_reason: str | None = None
    usage: _Usage | None = None


_decoder = msgspec.json.Decoder(_Response)


def decode(raw: bytes) -> Reply | None:
    """The usual response shape straight from bytes into msgspec Structs; None for anything
    else (``read`` then handles it)."""
    try:
        payload = _decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    u = payload.usage or _Usage()
    tokens = dict(
        input_tokens=(u.input_tokens or 0) + (u.cache_creation_input_tokens or 0) + (u.cache_read_input_tokens or 0),
        output_tokens=u.output_tokens or 0,
    )
    texts = [b.text or "" for b in payload.content if b.type == "text"]
    text = "".join(texts) if texts else None
    stop = payload.stop_reason
    if stop == "refusal":
        return Reply(text, payload.model, refusal="stop_reason=refusal", finish=stop, **tokens)
    return Reply(text, payload.model, finish=stop, **tokens)


def read(payload: Any) -> Reply:
    if not isinstance(payload, dict) or not isinstance(payload.get("content"), list):
        raise ReplyShapeError("no 'content' in the response")
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    tokens = dict(
        input_tokens=as_int(usage.get("input_tokens"))
        + as_int(usage.get("cache_creation_input_tokens"))
        + as_int(usage.get("cache_read_input_tokens")),
        output_tokens=as_int(usage.get("output_tokens")),
    )
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    texts = [b.get("text", "") for b in payload["content"] if isinstance(b, dict) and b.get("type") == "text"]
    text = "".join(texts) if texts else None
    stop = payload.get("stop_reason")
    if stop == "refusal":
        return Reply(text, model, refusal="stop_reason=refusal", finish=stop, **tokens)
    return Reply(text, model, finish=stop, **tokens)
