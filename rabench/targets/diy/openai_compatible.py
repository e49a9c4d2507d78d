"""Any OpenAI-compatible server (vLLM, Ollama, llama.cpp server, LM Studio).

Same wire format as ``openai``; differences are settings, not code: the base
URL is yours (``[providers.openai-compatible] base_url`` or
``RABENCH_OPENAI_COMPATIBLE_BASE_URL``), the key is optional
(``OPENAI_COMPATIBLE_API_KEY``), ``max_tokens`` instead of
``max_completion_tokens`` (what these servers accept), no ``image_url.detail``.
Local models have no list price, so their cost is unknown unless
``price_models`` maps them to a priced id.
"""

from __future__ import annotations

from rabench.targets.diy.openai import build, decode, image_value, read

__all__ = ["build", "decode", "image_value", "read"]
