"""What every wire format's reply is reduced to before it is classified.

Why: the classification (refusal? other model? readable answer?) is the same
policy for every provider; only reading the provider's JSON differs. Each client
module turns its own response shape into a ``Reply`` and the target classifies
that, so a new provider is a new reader, not a new policy.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec


class Request(msgspec.Struct, frozen=True):
    """One HTTP request a client wants sent (the target owns the session)."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]


class Reply(msgspec.Struct, frozen=True):
    text: str | None  # the model's answer text, None when there is none
    model: str | None  # the model id the provider says answered
    input_tokens: int = 0
    output_tokens: int = 0
    refusal: str | None = None  # set when the provider reports a refusal / content filter
    finish: str | None = None  # provider's finish / stop reason, for messages


class ReplyShapeError(ValueError):
    """A 2xx body that is JSON but not the provider's documented response shape."""


def error_message(raw: bytes) -> str:
    """The provider's error message: ``{"error": {"message": ...}}`` (OpenAI, Anthropic,
    Gemini and most compatible servers), else the body text."""
    text = raw.decode("utf-8", "replace")
    try:
        payload = json.loads(text)
    except ValueError:
        return text.strip()
    err = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(err, dict):
        kind = err.get("type") or err.get("status") or err.get("code")
        msg = str(err.get("message") or "").strip()
        return f"{kind}: {msg}" if kind and msg else msg or text.strip()
    if isinstance(err, str):
        return err
    return text.strip()


def as_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
