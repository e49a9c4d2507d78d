"""Provider settings: built-in defaults, overlaid by ``[providers.<name>]``, then env.

Why here and frozen: a target's behaviour (where it connects, which key it
reads, how many sockets it may open) must be decided once, before the first
call, and recorded in run.json (without the key). Base URLs can be overridden by
``RABENCH_<NAME>_BASE_URL`` so tests and the fake provider can redirect any
provider without editing bench/targets.toml.
"""

from __future__ import annotations

import os
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import msgspec

from rabench.contracts.targets_config import TargetsConfig
from rabench.errors import UserError

# The client module that speaks to the provider (rabench/targets/diy/<wire>.py).
Wire = Literal["openai", "gateway", "openai-compatible", "anthropic", "gemini"]


class ProviderSettings(msgspec.Struct, frozen=True):
    name: str
    wire: Wire
    base_url: str
    api_key_env: str | None
    key_required: bool = True
    concurrency: int = 8  # pool size = the runner's cap: [providers.X], else [defaults], else 8
    rpm: float | None = None  # read by the runner's limiter, not here
    shared_limits: str | None = (
        None  # redis:// URL: read by the runner's limiter (rabench.cluster.redis_limits), not here
    )
    max_output_tokens: int = 8192
    max_tokens_field: str = "max_completion_tokens"  # openai wire only
    temperature: float | None = None  # None: the provider's default (GPT-5 accepts no other)
    image_detail: str | None = "high"  # openai wire: image_url.detail
    anthropic_version: str = "2023-06-01"
    strip_prefix: bool = False  # gateway: "openai/gpt-5" answers may say "gpt-5"
    check_model: bool = True  # reject answers from a different model than the pinned one
    price_models: dict[str, str] = {}  # model -> price table key, when the ids differ
    check_models: list[str] = []  # models `rabench targets check` tries
    connect_timeout_s: float = 30.0


BUILTIN: dict[str, dict[str, Any]] = {
    "openai": {
        "wire": "openai",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "OPENAI_API_KEY",
        "check_models": ["gpt-5-mini"],
    },
    "gateway": {
        "wire": "gateway",
        "base_url": "https://ai-gateway.vercel.sh/v1",
        "api_key_env": "AI_GATEWAY_API_KEY",
        "strip_prefix": True,
        "check_models": ["openai/gpt-5-mini"],
    },
    "openai-compatible": {
        "wire": "openai-compatible",
        "base_url": "http://127.0.0.1:8000/v1",
        "api_key_env": "OPENAI_COMPATIBLE_API_KEY",
        "key_required": False,
        "max_tokens_field": "max_tokens",
        "image_detail": None,
    },
    "anthropic": {
        "wire": "anthropic",
        "base_url": "https://api.anthropic.com",
        "api_key_env": "ANTHROPIC_API_KEY",
        "max_output_tokens": 4096,
        "check_models": ["claude-haiku-4-5"],
    },
    "gemini": {
        "wire": "gemini",
        "base_url": "https://generativelanguage.googleapis.com",
        "api_key_env": "GEMINI_API_KEY",
        "check_models": ["gemini-2.5-flash"],
    },
}


def env_base_url_var(name: str) -> str:
    return "RABENCH_" + name.upper().replace("-", "_").replace(".", "_") + "_BASE_URL"


def provider_names(config: TargetsConfig) -> list[str]:
    """Built-in providers plus every ``[providers.<name>]`` table, in a stable order."""
    # Only tables with a `wire` are DIY providers ([providers.null] / [providers.self] are runner limits).
    extra = [n for n, t in config.providers.items() if n not in BUILTIN and t.wire is not None]
    return list(BUILTIN) + sorted(extra)


def provider_settings(name: str, config: TargetsConfig) -> ProviderSettings:
    """Resolve one provider's settings (UserError naming the problem if they are bad)."""
    given = config.providers.get(name)
    # The keys the table sets (None: absent); api_key_env = "" means "no key".
    table: dict[str, Any] = (
        {} if given is None else {k: v for k, v in msgspec.structs.asdict(given).items() if v is not None}
    )
    if name in BUILTIN:
        base = dict(BUILTIN[name])
    else:
        preset = table.get("wire")
        if preset not in BUILTIN:
            raise UserError(
                f"unknown provider {name!r}: add [providers.{name}] with wire = one of "
                f"{', '.join(BUILTIN)} to bench/targets.toml"
            )
        base = dict(BUILTIN[preset])
    merged = {**base, **table, "name": name}
    if "concurrency" not in table:  # same fallback as the runner's limits (rabench/run/config.py)
        merged["concurrency"] = config.defaults.concurrency or 8
    merged["concurrency"] = int(merged["concurrency"])
    if table.get("api_key_env") == "":
        merged["api_key_env"] = None
    env_url = os.environ.get(env_base_url_var(name))
    if env_url:
        merged["base_url"] = env_url
    merged["base_url"] = str(merged["base_url"]).rstrip("/")
    known = set(ProviderSettings.__struct_fields__)
    merged = {k: v for k, v in merged.items() if k in known}
    try:
        settings = msgspec.convert(merged, ProviderSettings)
    except msgspec.ValidationError as exc:
        raise UserError(f"bench/targets.toml [providers.{name}]: {exc}") from None
    if settings.concurrency < 1:
        raise UserError(f"bench/targets.toml [providers.{name}]: concurrency must be >= 1")
    if urlsplit(settings.base_url).scheme not in ("http", "https"):
        raise UserError(f"[providers.{name}] base_url {settings.base_url!r} is not an http(s) URL")
    return settings


def api_key(settings: ProviderSettings) -> str | None:
    """The key from the environment (never from a file we might commit)."""
    if not settings.api_key_env:
        return None
    return os.environ.get(settings.api_key_env) or None


def public_url(url: str) -> str:
    """The URL without user:password, safe for run.json."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
