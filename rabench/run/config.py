"""``bench/targets.toml``: per-provider limits and run defaults, plus CLI overrides.

Why one small file: limits belong to a provider account (all ``diy:openai:*``
targets share one OpenAI quota), not to a target, and they change more often
than code. The format (documented in docs/running.md)::

    [defaults]
    timeout_s = 180          # per attempt
    price_date = "2026-11-01"
    concurrency = 8          # calls in flight per provider unless the provider says otherwise
    rpm = 0                  # requests per minute per provider; 0 = no rate limit

    [providers.openai]       # one table per provider (registry.provider_of(target_id))
    rpm = 500
    concurrency = 16
    # base_url, api_key_env, ... are read by the targets themselves

CLI flags ``--rpm PROVIDER=N`` and ``--concurrency PROVIDER=N`` override the file.

The file is decoded once, into ``rabench.contracts.TargetsConfig`` (msgspec, unknown
keys forbidden, a did-you-mean for a misspelt key); every reader gets that struct.
"""

from __future__ import annotations

import math
from pathlib import Path

import msgspec

from rabench.contracts.targets_config import (
    DEFAULT_CONFIG,
    NOT_DIY,
    BenchSection,
    Defaults,
    ProviderTable,
    SelfSection,
    TargetsConfig,
    parse_targets_config,
    read_targets_config,
)
from rabench.errors import UserError

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_TIMEOUT_S",
    "BenchSection",
    "Defaults",
    "Limits",
    "ProviderTable",
    "SelfSection",
    "TargetsConfig",
    "default_timeout",
    "load_targets_config",
    "parse_overrides",
    "parse_targets_config",
    "price_date",
    "provider_limits",
    "with_overrides",
]

DEFAULT_TIMEOUT_S = 180.0
DEFAULT_CONCURRENCY = 8


class Limits(msgspec.Struct, frozen=True):
    """How hard one provider may be driven: requests per minute (None = unlimited) and calls in flight."""

    concurrency: int
    rpm: float | None = None
    shared: str | None = None  # redis:// URL: the cap and rate hold across processes (rabench.cluster.redis_limits)


def load_targets_config(path: str | Path | None) -> TargetsConfig:
    """The checked targets config; ``None`` means bench/targets.toml if it exists, else empty."""
    return read_targets_config(path)


def parse_overrides(values: list[str] | None, flag: str) -> dict[str, float]:
    """``["openai=500", "self=2"]`` -> ``{"openai": 500.0, "self": 2.0}``; one-line errors."""
    out: dict[str, float] = {}
    for value in values or []:
        name, eq, number = value.partition("=")
        if not eq or not name:
            raise UserError(f"{flag} {value!r}: expected PROVIDER=N, e.g. {flag} openai=100")
        try:
            out[name] = float(number)
        except ValueError:
            raise UserError(f"{flag} {value!r}: {number!r} is not a number") from None
        if out[name] < 0 or not math.isfinite(out[name]):
            raise UserError(f"{flag} {value!r}: must be a finite number >= 0")
    return out


def with_overrides(
    config: TargetsConfig, rpm: dict[str, float] | None, concurrency: dict[str, float] | None
) -> TargetsConfig:
    """A copy of ``config`` with CLI limits written into ``[providers.<name>]``.

    Targets size their connection pools from the same tables, so a ``--concurrency``
    override reaches them too (calls would otherwise queue for a socket inside a target).
    """
    providers = dict(config.providers)
    for name, value in (rpm or {}).items():
        table = providers.get(name, ProviderTable())
        providers[name] = msgspec.structs.replace(table, rpm=value)
    for name, value in (concurrency or {}).items():
        if value < 1:
            raise UserError(f"--concurrency {name}={value:g}: must be at least 1")
        table = providers.get(name, ProviderTable())
        providers[name] = msgspec.structs.replace(table, concurrency=int(value))
    return msgspec.structs.replace(config, providers=providers)


def provider_limits(
    config: TargetsConfig,
    provider: str,
    rpm: dict[str, float] | None = None,
    concurrency: dict[str, float] | None = None,
) -> Limits:
    """CLI flag, else ``[providers.<name>]``, else ``[defaults]``, else built-in defaults."""
    section = config.providers.get(provider, ProviderTable())
    conc: float | None = (concurrency or {}).get(provider)
    if conc is None:
        conc = section.concurrency
    if conc is None:
        conc = config.defaults.concurrency
    if conc is None:
        conc = DEFAULT_CONCURRENCY
    if conc < 1:
        raise UserError(f"concurrency for {provider} must be at least 1")
    r: float | None = (rpm or {}).get(provider)
    if r is None:
        r = section.rpm
    if r is None:
        r = config.defaults.rpm
    # the built-in null and self providers have no account quota to share (self is this machine's CPUs)
    shared = (
        None
        if provider in NOT_DIY
        else (section.shared_limits if section.shared_limits is not None else config.defaults.shared_limits)
    )
    return Limits(concurrency=int(conc), rpm=r or None, shared=shared or None)


def default_timeout(config: TargetsConfig) -> float:
    """``[defaults] timeout_s``, else 180 s."""
    return config.defaults.timeout_s or DEFAULT_TIMEOUT_S


def price_date(config: TargetsConfig) -> str | None:
    """``[defaults] price_date`` as written (None: the newest packaged price table)."""
    return config.defaults.price_date
