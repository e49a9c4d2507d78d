"""``bench/targets.toml``: the targets config as rabench reads it (docs/running.md, docs/targets.md).

The file is decoded into ``TargetsConfig`` (msgspec, unknown keys forbidden): a
misspelt key (``concurency = 2``, ``rpn = 10``) would otherwise be ignored without a
word and leave a paid API without its limits, so it is an error naming the key and the
nearest valid one. Every table and key any part of rabench reads is listed here:
``[defaults]``, ``[providers.<name>]`` (runner limits plus the DIY settings of
``rabench.targets.diy.config.ProviderSettings``), ``[self]`` (the engine, docs/engine.md,
and its credit-pack price override, docs/targets.md) and ``[bench]``.

The file is written by people, not by rabench, so it carries no ``contracts_version``:
its keys are checked instead.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from rabench.errors import UserError

DEFAULT_CONFIG = Path("bench") / "targets.toml"


Positive = Annotated[int, msgspec.Meta(ge=1)]
NonNegative = Annotated[float, msgspec.Meta(ge=0)]
Seconds = Annotated[float, msgspec.Meta(gt=0)]


def _iso_date(value: str | None, where: str) -> None:
    if value is not None:
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{where} {value!r} is not a YYYY-MM-DD date") from None


def redis_url_problem(url: str) -> str | None:
    """Why ``url`` is not a ``redis://host[:port][/db]`` URL rabench can use, else None."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"{url!r} is not a redis://host:port/db URL ({exc})"
    if parts.scheme not in ("redis", "rediss"):
        return f"{url!r} is not a redis:// or rediss:// URL"
    if not parts.hostname:
        return f"{url!r} names no host (redis://host:port/db)"
    db = parts.path.lstrip("/")
    if db and not db.isdigit():
        return f"{url!r}: the database after the port must be a number, not {db!r}"
    if parts.query or parts.fragment or (port is not None and port == 0):
        return f"{url!r}: only redis://[user:password@]host:port/db is read"
    return None


def _store_location(value: str | None) -> None:
    """``duplicate_store``: a SQLite file path, or a redis:// URL (docs/running.md, "Running on a cluster")."""
    if value is not None and "://" in value:
        _redis_url(value, "duplicate_store")


def _redis_url(value: str | None, key: str) -> None:
    problem = None if value is None else redis_url_problem(value)
    if problem is not None:
        raise ValueError(f"{key} {problem}")


class Defaults(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[defaults]``: what applies to every provider without its own value."""

    timeout_s: Seconds | None = None  # per attempt; absent: 180
    concurrency: Positive | None = None  # calls in flight per provider; absent: 8
    rpm: NonNegative | None = None  # requests per minute per provider; 0 or absent: no limit
    price_date: str | None = None  # YYYY-MM-DD: the price table in force on that date
    price_file: str | None = None  # a price table file instead of the packaged ones
    shared_limits: str | None = None  # redis:// URL: every provider's limits hold across runner processes

    def __post_init__(self) -> None:
        _iso_date(self.price_date, "price_date")
        _redis_url(self.shared_limits, "shared_limits")


class ProviderTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[providers.<name>]``: the runner's limits for one provider account, and the DIY
    client settings read by ``rabench.targets.diy.config`` (docs/targets.md)."""

    concurrency: Positive | None = None
    rpm: NonNegative | None = None
    shared_limits: str | None = None  # redis:// URL ("" = this provider's limits stay in-process)
    wire: Literal["openai", "gateway", "openai-compatible", "anthropic", "gemini"] | None = None
    base_url: str | None = None
    api_key_env: str | None = None  # "" = no key
    key_required: bool | None = None
    max_output_tokens: Positive | None = None
    max_tokens_field: str | None = None
    temperature: float | None = None
    image_detail: str | None = None
    anthropic_version: str | None = None
    strip_prefix: bool | None = None
    check_model: bool | None = None
    price_models: dict[str, str] | None = None
    check_models: list[str] | None = None
    connect_timeout_s: Seconds | None = None

    def __post_init__(self) -> None:
        _redis_url(self.shared_limits or None, "shared_limits")


RUNNER_KEYS = ("concurrency", "rpm")  # all that applies to the built-in null and self providers
DIY_BUILTIN = ("openai", "gateway", "openai-compatible", "anthropic", "gemini")
NOT_DIY = ("null", "self")


class SelfSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[self]``: the in-process engine (docs/engine.md) and its credit-pack price (docs/targets.md)."""

    workers: Positive | None = None
    pool: Literal["process", "thread"] | None = None
    ocr_max_side: Positive | None = None
    today: str | None = None
    max_age_days: Annotated[int, msgspec.Meta(ge=0)] | None = None
    risk_model: str | None = None
    duplicate_store: str | None = None
    cost_per_check_usd: NonNegative | None = None
    pack_price_usd: NonNegative | None = None
    pack_checks: Positive | None = None

    def __post_init__(self) -> None:
        _iso_date(self.today, "today")
        _store_location(self.duplicate_store)


class BenchSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[bench]``: what ``rabench bench`` runs."""

    targets: list[str] | None = None


class TargetTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[targets."<target id>"]``: settings of one target (docs/running.md, "Spending cap")."""

    max_cost: NonNegative | None = None  # USD: no call of this target starts past it


class ExecutorSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[executor]``: where the ``self`` engine's CPU-bound work runs (docs/running.md,
    "Running on a cluster"); ``rabench run --executor/--address`` override it."""

    kind: Literal["in-process", "ray"] = "in-process"
    address: str | None = None  # the Ray head, "host:port" (kind = "ray")

    def __post_init__(self) -> None:
        if self.kind == "ray" and not self.address:
            raise ValueError("kind = 'ray' needs address = 'host:port' (the Ray head)")
        if self.kind != "ray" and self.address is not None:
            raise ValueError("address applies to kind = 'ray' only")
        if self.address is not None:
            host, sep, port = self.address.rpartition(":")
            if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"address {self.address!r} is not host:port")


class TargetsConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``bench/targets.toml`` as rabench reads it: every table and key, typed."""

    defaults: Defaults = Defaults()
    providers: dict[str, ProviderTable] = {}
    self: SelfSection = SelfSection()
    bench: BenchSection = BenchSection()
    targets: dict[str, TargetTable] = {}
    executor: ExecutorSection = ExecutorSection()


_TABLES: dict[str, type[msgspec.Struct]] = {
    "defaults": Defaults,
    "self": SelfSection,
    "bench": BenchSection,
    "executor": ExecutorSection,
}


def _printable(text: str) -> str:
    """A table name as one line (a quoted TOML key may hold any character)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _did_you_mean(key: str, valid: list[str]) -> str:
    near = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    return f"did you mean {near[0]}?" if near else "valid keys: " + ", ".join(valid)


def _unknown_keys(raw: dict[str, Any]) -> str | None:
    """The first key no part of rabench reads, as ``[table] key: ...``, else None."""
    top = list(TargetsConfig.__struct_fields__)
    for name, value in raw.items():
        if name not in top:
            return f"unknown table or key {name!r} ({_did_you_mean(name, top)})"
        if not isinstance(value, dict):
            return f"{name} must be a table ([{name}])"  # a known name: printable
        if name == "targets":
            for tid, table in value.items():
                if not isinstance(table, dict):
                    return f"[targets.{_printable(tid)!r}] must be a table"
                for key in table:
                    if key not in TargetTable.__struct_fields__:
                        hint = _did_you_mean(key, list(TargetTable.__struct_fields__))
                        return f"[targets.{_printable(tid)!r}] unknown key {key!r} ({hint})"
            continue
        tables = [(_printable(p), t) for p, t in value.items()] if name == "providers" else [(None, value)]
        for provider, table in tables:
            if provider is not None and not isinstance(table, dict):
                return f"[providers.{provider}] must be a table"
            where = f"[providers.{provider}]" if provider is not None else f"[{name}]"
            struct = ProviderTable if provider is not None else _TABLES[name]
            valid = list(struct.__struct_fields__)
            if provider in NOT_DIY:
                valid = list(RUNNER_KEYS)
            for key in table:
                if key not in valid:
                    hint = _did_you_mean(key, valid)
                    if provider in NOT_DIY and key in ProviderTable.__struct_fields__:
                        hint = f"only {' and '.join(RUNNER_KEYS)} apply to the built-in {provider} provider"
                    return f"{where} unknown key {key!r} ({hint})"
            if provider is not None and provider not in DIY_BUILTIN + NOT_DIY and "wire" not in table:
                near = difflib.get_close_matches(provider, list(DIY_BUILTIN + NOT_DIY), n=1, cutoff=0.6)
                return (
                    f"{where} is not a provider rabench knows"
                    + (f" (did you mean {near[0]}?)" if near else "")
                    + f"; a provider of your own needs wire = one of {', '.join(DIY_BUILTIN)}"
                )
    return None


def _dates_as_text(raw: dict[str, Any]) -> None:
    """TOML dates written without quotes (``price_date = 2026-11-29``) read as the same text."""
    for table, key in (("defaults", "price_date"), ("self", "today")):
        section = raw.get(table)
        if isinstance(section, dict) and isinstance(section.get(key), _dt.date):
            section[key] = section[key].isoformat()


def parse_targets_config(raw: dict[str, Any], where: str = "targets config") -> TargetsConfig:
    """Check a parsed targets.toml: unknown keys and wrong types are one-line UserErrors."""
    _dates_as_text(raw)
    problem = _unknown_keys(raw)
    if problem is not None:
        raise UserError(f"{where}: {problem}")
    tables: dict[str, Any] = {}
    for name, value in raw.items():
        if name == "providers":
            tables[name] = {
                p: _table(t, ProviderTable, f"[providers.{_printable(p)}]", where) for p, t in value.items()
            }
        elif name == "targets":
            tables[name] = {t: _table(v, TargetTable, f"[targets.{_printable(t)!r}]", where) for t, v in value.items()}
        else:
            tables[name] = _table(value, _TABLES[name], f"[{name}]", where)
    return TargetsConfig(**tables)


def _table(value: dict[str, Any], struct: type[msgspec.Struct], name: str, where: str) -> Any:
    try:
        return msgspec.convert(value, struct)
    except msgspec.ValidationError as exc:
        text = str(exc).replace("`", "").replace(" | null", "")
        message, sep, path = text.rpartition(" - at $.")
        raise UserError(f"{where}: {name} {path}: {message}" if sep else f"{where}: {name}: {text}") from None


def read_targets_config(path: str | Path | None) -> TargetsConfig:
    """Read and check a targets config; ``None`` means bench/targets.toml if it exists, else empty."""
    explicit = path is not None
    p = Path(path) if path is not None else DEFAULT_CONFIG
    if not p.is_file():
        if explicit:
            raise UserError(f"{p}: no such config file")
        return TargetsConfig()
    try:
        with p.open("rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{p}: not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{p}: not valid TOML: not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse_targets_config(raw, str(p))
