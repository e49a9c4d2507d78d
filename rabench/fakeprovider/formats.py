"""The three wire formats as the fake provider speaks them: reading requests,
writing answers, refusals and errors in each provider's documented shape.

Kept apart from the app so that each format is one small class, and so that a
test can see at a glance which fields the fake relies on.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import time
from typing import Any

from aiohttp import web

STATUS_TEXT = {
    400: ("invalid_request_error", "INVALID_ARGUMENT"),
    401: ("authentication_error", "UNAUTHENTICATED"),
    403: ("permission_error", "PERMISSION_DENIED"),
    404: ("not_found_error", "NOT_FOUND"),
    408: ("timeout_error", "DEADLINE_EXCEEDED"),
    422: ("invalid_request_error", "INVALID_ARGUMENT"),
    429: ("rate_limit_error", "RESOURCE_EXHAUSTED"),
    500: ("api_error", "INTERNAL"),
    502: ("api_error", "UNAVAILABLE"),
    503: ("api_error", "UNAVAILABLE"),
    529: ("overloaded_error", "UNAVAILABLE"),
}


def image_sha256(b64: str | None) -> str | None:
    """The sha256 of a request's base64 image (what the fake provider keys its answers on);
    None when there is no image or it is not valid base64."""
    if b64 is None:
        return None
    try:
        return hashlib.sha256(base64.b64decode(b64, validate=True)).hexdigest()
    except (binascii.Error, ValueError):
        return None


class OpenAIFormat:
    name = "openai"

    @staticmethod
    def model(request: web.Request, body: dict[str, Any]) -> str:
        return str(body.get("model", ""))

    @staticmethod
    def image_b64(body: dict[str, Any]) -> str | None:
        for msg in body.get("messages") or []:
            content = msg.get("content") if isinstance(msg, dict) else None
            for part in content if isinstance(content, list) else []:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    url = (part.get("image_url") or {}).get("url", "")
                    if url.startswith("data:") and ";base64," in url:
                        return url.split(";base64,", 1)[1]
        return None

    @staticmethod
    def has_key(request: web.Request) -> bool:
        auth = request.headers.get("Authorization", "")
        return auth.startswith("Bearer ") and len(auth) > len("Bearer ")

    @staticmethod
    def answer(
        model: str, text: str | None, tin: int, tout: int, *, refusal: str | None = None, finish: str = "stop"
    ) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish,
                    "message": {"role": "assistant", "content": text, "refusal": refusal},
                }
            ],
            "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
        }

    @classmethod
    def refusal(cls, model: str, tin: int, tout: int, content_filter: bool) -> dict[str, Any]:
        if content_filter:
            return cls.answer(model, None, tin, tout, finish="content_filter")
        return cls.answer(model, None, tin, tout, refusal="I'm sorry, I can't help with that.")

    @staticmethod
    def error(status: int, message: str) -> dict[str, Any]:
        kind = STATUS_TEXT.get(status, ("api_error", ""))[0]
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class AnthropicFormat:
    name = "anthropic"

    @staticmethod
    def model(request: web.Request, body: dict[str, Any]) -> str:
        return str(body.get("model", ""))

    @staticmethod
    def image_b64(body: dict[str, Any]) -> str | None:
        for msg in body.get("messages") or []:
            content = msg.get("content") if isinstance(msg, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "image":
                    source = block.get("source") or {}
                    if source.get("type") == "base64":
                        return source.get("data")
        return None

    @staticmethod
    def has_key(request: web.Request) -> bool:
        return bool(request.headers.get("x-api-key")) and bool(request.headers.get("anthropic-version"))

    @staticmethod
    def answer(model: str, text: str | None, tin: int, tout: int, *, stop: str = "end_turn") -> dict[str, Any]:
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}] if text is not None else [],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": tout},
        }

    @classmethod
    def refusal(cls, model: str, tin: int, tout: int, content_filter: bool) -> dict[str, Any]:
        return cls.answer(model, None, tin, tout, stop="refusal")

    @staticmethod
    def error(status: int, message: str) -> dict[str, Any]:
        kind = STATUS_TEXT.get(status, ("api_error", ""))[0]
        return {"type": "error", "error": {"type": kind, "message": message}}


class GeminiFormat:
    name = "gemini"

    @staticmethod
    def model(request: web.Request, body: dict[str, Any]) -> str:
        return request.match_info.get("model", "")

    @staticmethod
    def image_b64(body: dict[str, Any]) -> str | None:
        for content in body.get("contents") or []:
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else []:
                inline = (part.get("inlineData") or part.get("inline_data")) if isinstance(part, dict) else None
                if isinstance(inline, dict):
                    return inline.get("data")
        return None

    @staticmethod
    def has_key(request: web.Request) -> bool:
        return bool(request.headers.get("x-goog-api-key") or request.query.get("key"))

    @staticmethod
    def answer(model: str, text: str | None, tin: int, tout: int, *, finish: str = "STOP") -> dict[str, Any]:
        parts = [{"text": text}] if text is not None else []
        return {
            "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": finish, "index": 0}],
            "usageMetadata": {"promptTokenCount": tin, "candidatesTokenCount": tout, "totalTokenCount": tin + tout},
            "modelVersion": model,
            "responseId": "fake",
        }

    @classmethod
    def refusal(cls, model: str, tin: int, tout: int, content_filter: bool) -> dict[str, Any]:
        if content_filter:  # the answer was blocked
            return cls.answer(model, None, tin, 0, finish="SAFETY")
        return {  # the prompt was blocked: no candidates at all
            "promptFeedback": {"blockReason": "SAFETY"},
            "usageMetadata": {"promptTokenCount": tin, "totalTokenCount": tin},
            "modelVersion": model,
        }

    @staticmethod
    def error(status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": STATUS_TEXT.get(status, ("", "UNKNOWN"))[1]}}
