"""The AI Gateway: OpenAI Chat Completions at ``https://ai-gateway.vercel.sh/v1``.

Same wire format as ``openai`` (the gateway implements the OpenAI spec), with
``creator/model`` ids (``openai/gpt-5``, ``anthropic/claude-sonnet-4.5``,
``google/gemini-2.5-flash``) and ``AI_GATEWAY_API_KEY`` as a Bearer token. Its
``GET /v1/models`` lists each model's price per token, which is where the DIY
price table comes from (``rabench targets check --prices`` compares them).
"""

from __future__ import annotations

from typing import Any

from rabench.targets.diy.openai import build, decode, image_value, read

__all__ = ["build", "decode", "image_value", "read", "read_model_prices"]


def read_model_prices(payload: Any) -> dict[str, tuple[float, float]]:
    """``/v1/models`` -> {id: (input, output) USD per million tokens} for priced models."""
    out: dict[str, tuple[float, float]] = {}
    data = payload.get("data") if isinstance(payload, dict) else None
    for model in data if isinstance(data, list) else []:
        pricing = model.get("pricing") if isinstance(model, dict) else None
        if not isinstance(pricing, dict) or not isinstance(model.get("id"), str):
            continue
        try:
            out[model["id"]] = (float(pricing["input"]) * 1e6, float(pricing["output"]) * 1e6)
        except (KeyError, TypeError, ValueError):
            continue
    return out
