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
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import msgspec

from rabench.errors import UserError

DEFAULT_CONFIG = Path("bench") / "targets.toml"
DEFAULT_TIMEOUT_S = 180.0
DEFAULT_CONCURRENCY = 8


class Limits(msgspec.Struct, frozen=True):
    """How hard one provider may be driven: requests per minute (None = unlimited) and calls in flight."""

    concurrency: int
    rpm: float | None = None


def load_config(path: str | Path | None) -> dict[str, Any]:
    """Parse the config; ``None`` means the default path if it exists, else an empty config."""
    explicit = path is not None
    p = Path(path) if explicit else DEFAULT_CONFIG
    if not p.is_file():
        if explicit:
            raise UserError(f"{p}: no such config file")
        return {}
    try:
        with p.open("rb") as fh:
            config = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{p}: not valid TOML: {exc}") from None
    for table in ("defaults", "providers"):
        if table in config and not isinstance(config[table], dict):
            raise UserError(f"{p}: [{table}] must be a table")
    for name, section in config.get("providers", {}).items():
        if not isinstance(section, dict):
            raise UserError(f"{p}: [providers.{name}] must be a table")
    return config


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


def with_overrides(config: dict[str, Any], rpm: dict[str, float] | None,
                   concurrency: dict[str, float] | None) -> dict[str, Any]:
    """A copy of ``config`` with CLI limits written into ``[providers.<name>]``.

    Targets size their connection pools from the same tables, so a ``--concurrency``
    override reaches them too (calls would otherwise queue for a socket inside a target).
    """
    providers = {name: dict(section) for name, section in config.get("providers", {}).items()}
    for key, values in (("rpm", rpm), ("concurrency", concurrency)):
        for name, value in (values or {}).items():
            providers.setdefault(name, {})[key] = int(value) if key == "concurrency" else value
    return {**config, "providers": providers}


def _number(config: dict[str, Any], table: str, key: str, where: str) -> float | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise UserError(f"targets config: [{where}] {key} must be a number >= 0, not {value!r}")
    return float(value)


def provider_limits(
    config: dict[str, Any],
    provider: str,
    rpm: dict[str, float] | None = None,
    concurrency: dict[str, float] | None = None,
) -> Limits:
    """CLI flag, else ``[providers.<name>]``, else ``[defaults]``, else built-in defaults."""
    defaults = config.get("defaults", {})
    section = config.get("providers", {}).get(provider, {})
    conc = (concurrency or {}).get(provider)
    if conc is None:
        conc = _number(section, "providers", "concurrency", f"providers.{provider}")
    if conc is None:
        conc = _number(defaults, "defaults", "concurrency", "defaults")
    if conc is None:
        conc = DEFAULT_CONCURRENCY
    if conc < 1:
        raise UserError(f"concurrency for {provider} must be at least 1")
    r = (rpm or {}).get(provider)
    if r is None:
        r = _number(section, "providers", "rpm", f"providers.{provider}")
    if r is None:
        r = _number(defaults, "defaults", "rpm", "defaults")
    return Limits(concurrency=int(conc), rpm=r or None)


def default_timeout(config: dict[str, Any]) -> float:
    value = _number(config.get("defaults", {}), "defaults", "timeout_s", "defaults")
    return value if value else DEFAULT_TIMEOUT_S


def price_date(config: dict[str, Any]) -> str | None:
    value = config.get("defaults", {}).get("price_date")
    return str(value) if value is not None else None
