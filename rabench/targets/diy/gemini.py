"""Gemini API: ``POST {base}/v1beta/models/{model}:generateContent``.

Wire format (ai.google.dev/api/generate-content): header ``x-goog-api-key``;
``contents[0].parts`` holds ``inlineData {mimeType, data}`` (base64) and the
text; the answer is the non-thought ``text`` parts of ``candidates[0]``; a
blocked prompt has ``promptFeedback.blockReason`` (and no candidates); a
blocked answer has ``finishReason`` SAFETY (or another safety reason); tokens in
``usageMetadata.promptTokenCount`` and ``candidatesTokenCount`` +
``thoughtsTokenCount`` (thinking is billed as output); the model in
``modelVersion``.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

import msgspec

from rabench.targets.diy.config import ProviderSettings
from rabench.targets.diy.reply import Reply, ReplyShapeError, Request, as_int

SAFETY_FINISH = frozenset({"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"})


def image_value(image_b64: str, media_type: str) -> str:
    """The string the request body carries for the image: the base64 text itself."""
    return image_b64


def build(
    settings: ProviderSettings, key: str | None, model: str, prompt: str, image_b64: str | msgspec.Raw, media_type: str
) -> Request:
    """``image_b64``: the base64 text, or ``image_value`` of it already JSON-encoded (a Raw)."""
    config: dict[str, Any] = {"maxOutputTokens": settings.max_output_tokens}
    if settings.temperature is not None:
        config["temperature"] = settings.temperature
    body = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"inlineData": {"mimeType": media_type, "data": image_b64}},
                    {"text": prompt},
                ],
            }
        ],
        "generationConfig": config,
    }
    headers = {"Content-Type": "application/json"}
    if key:
        headers["x-goog-api-key"] = key
    url = f"{settings.base_url}/v1beta/models/{quote(model, safe='.-_')}:generateContent"
    return Request(url=url, headers=headers, body=body)


Count = Annotated[int, msgspec.Meta(ge=0)]


class _Part(msgspec.Struct):
    text: str | None = None
    thought: bool | None = None


class _Content(msgspec.Struct):
    parts: list[_Part] = []


class _Candidate(msgspec.Struct):
    content: _Content = msgspec.field(default_factory=_Content)
    finishReason: str | None = None


class _Meta(msgspec.Struct):
    promptTokenCount: Count | None = None
    candidatesTokenCount: Count | None = None
    thoughtsTokenCount: Count | None = None


class _Response(msgspec.Struct):
    candidates: list[_Candidate]
    modelVersion: str | None = None
    usageMetadata: _Meta | None = None
    promptFeedback: dict[str, Any] | None = None


_decoder = msgspec.json.Decoder(_Response)


def decode(raw: bytes) -> Reply | None:
    """The usual response shape (candidates, no blocked prompt) straight from bytes into msgspec
    Structs; None for anything else (``read`` then handles it)."""
    try:
        payload = _decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    if not payload.candidates or payload.promptFeedback:
        return None
    meta = payload.usageMetadata or _Meta()
    tokens = dict(
        input_tokens=meta.promptTokenCount or 0,
        output_tokens=(meta.candidatesTokenCount or 0) + (meta.thoughtsTokenCount or 0),
    )
    cand = payload.candidates[0]
    finish = cand.finishReason
    texts = [p.text for p in cand.content.parts if p.text is not None and not p.thought]
    text = "".join(texts) if texts else None
    if finish in SAFETY_FINISH:
        return Reply(text, payload.modelVersion, refusal=f"finishReason={finish}", finish=finish, **tokens)
    return Reply(text, payload.modelVersion, finish=finish, **tokens)


def read(payload: Any) -> Reply:
    if not isinstance(payload, dict):
        raise ReplyShapeError("response is not a JSON object")
    meta = payload.get("usageMetadata") if isinstance(payload.get("usageMetadata"), dict) else {}
    tokens = dict(
        input_tokens=as_int(meta.get("promptTokenCount")),
        output_tokens=as_int(meta.get("candidatesTokenCount")) + as_int(meta.get("thoughtsTokenCount")),
    )
    model = payload.get("modelVersion") if isinstance(payload.get("modelVersion"), str) else None
    feedback = payload.get("promptFeedback") if isinstance(payload.get("promptFeedback"), dict) else {}
    if feedback.get("blockReason"):
        return Reply(
            None, model, refusal=f"promptFeedback.blockReason={feedback['blockReason']}", finish=None, **tokens
        )
    candidates = payload.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        raise ReplyShapeError("no 'candidates' in the response")
    cand = candidates[0]
    finish = cand.get("finishReason")
    content = cand.get("content") if isinstance(cand.get("content"), dict) else {}
    parts = content.get("parts") if isinstance(content.get("parts"), list) else []
    texts = [
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    ]
    text = "".join(texts) if texts else None
    if finish in SAFETY_FINISH:
        return Reply(text, model, refusal=f"finishReason={finish}", finish=finish, **tokens)
    return Reply(text, model, finish=finish, **tokens)
