"""OpenAI Chat Completions: ``POST {base}/chat/completions``.

Wire format (platform.openai.com/docs/api-reference/chat): ``Authorization:
Bearer <key>``; one user message whose ``content`` is a text part and an
``image_url`` part carrying the image as a base64 ``data:`` URL; the answer in
``choices[0].message.content``, a refusal in ``message.refusal`` or
``finish_reason == "content_filter"``; tokens in ``usage.prompt_tokens`` /
``usage.completion_tokens`` (reasoning tokens are part of completion tokens).
The gateway and OpenAI-compatible servers reuse this module.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from rabench.targets.diy.config import ProviderSettings
from rabench.targets.diy.reply import Reply, ReplyShapeError, Request, as_int


def image_value(image_b64: str, media_type: str) -> str:
    """The string the request body carries for the image: a base64 ``data:`` URL."""
    return f"data:{media_type};base64,{image_b64}"


def build(
    settings: ProviderSettings, key: str | None, model: str, prompt: str, image_b64: str | msgspec.Raw, media_type: str
) -> Request:
    """``image_b64``: the base64 text, or ``image_value`` of it already JSON-encoded (a Raw)."""
    url = image_b64 if isinstance(image_b64, msgspec.Raw) else image_value(image_b64, media_type)
    image: dict[str, Any] = {"url": url}
    if settings.image_detail:
        image["detail"] = settings.image_detail
    body: dict[str, Any] = {
        "model": model,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": prompt},
                    {"type": "image_url", "image_url": image},
                ],
            }
        ],
        settings.max_tokens_field: settings.max_output_tokens,
    }
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return Request(url=f"{settings.base_url}/chat/completions", headers=headers, body=body)


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some compatible servers return parts
        texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "".join(texts) if texts else None
    return None


Count = Annotated[int, msgspec.Meta(ge=0)]


class _Message(msgspec.Struct):
    content: str | None = None
    refusal: str | None = None


class _Choice(msgspec.Struct):
    message: _Message = msgspec.field(default_factory=_Message)
    finish_reason: str | None = None


class _Usage(msgspec.Struct):
    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None


class _Response(msgspec.Struct):
    choices: list[_Choice]
    model: str | None = None
    usage: _Usage | None = None


_decoder = msgspec.json.Decoder(_Response)


def decode(raw: bytes) -> Reply | None:
    """The usual response shape straight from bytes into msgspec Structs; None for anything
    else (``read`` then handles it, with its leniency and its error messages)."""
    try:
        payload = _decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    if not payload.choices:
        return None
    usage = payload.usage or _Usage()
    tokens = dict(input_tokens=usage.prompt_tokens or 0, output_tokens=usage.completion_tokens or 0)
    choice = payload.choices[0]
    message, finish, model = choice.message, choice.finish_reason, payload.model
    if message.refusal is not None and message.refusal.strip():
        return Reply(None, model, refusal=message.refusal.strip(), finish=finish, **tokens)
    if finish == "content_filter":
        return Reply(message.content, model, refusal="finish_reason=content_filter", finish=finish, **tokens)
    return Reply(message.content, model, finish=finish, **tokens)


def read(payload: Any) -> Reply:
    if not isinstance(payload, dict) or not isinstance(payload.get("choices"), list):
        raise ReplyShapeError("no 'choices' in the response")
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    tokens = dict(input_tokens=as_int(usage.get("prompt_tokens")), output_tokens=as_int(usage.get("completion_tokens")))
    if not payload["choices"]:
        raise ReplyShapeError("empty 'choices' in the response")
    choice = payload["choices"][0] if isinstance(payload["choices"][0], dict) else {}
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    finish = choice.get("finish_reason")
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return Reply(None, model, refusal=refusal.strip(), finish=finish, **tokens)
    if finish == "content_filter":
        return Reply(
            _content_text(message.get("content")),
            model,
            refusal="finish_reason=content_filter",
            finish=finish,
            **tokens,
        )
    return Reply(_content_text(message.get("content")), model, finish=finish, **tokens)
