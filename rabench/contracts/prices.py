"""The price table: ``rabench/data/prices-<YYYY-MM-DD>.toml`` (or ``[defaults] price_file``).

Why data, not code: the spec prices a DIY check as "its model tokens x the AI
Gateway list price on the run's price date", so the price is an input of the
run (recorded as ``price_date`` in run.json), not a constant. A run uses the
newest packaged file dated on or before its ``[defaults] price_date``.

A model the table does not list costs ``None`` (unknown), never 0. A table that
cannot be read (bad TOML, an unknown key, a negative price, a missing
``price_file``) is an error that stops the run: costs computed without it would
be ``None`` for every target and the cost rows would read "unknown" in silence.
"""

from __future__ import annotations

import datetime as _dt
import re
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated

import msgspec

from rabench.contracts.targets_config import TargetsConfig
from rabench.errors import UserError

_FILE_RE = re.compile(r"^prices-(\d{4}-\d{2}-\d{2})\.toml$")
# Where a direct provider's model id sits in the gateway's "creator/model" namespace.
GATEWAY_PREFIX = {"openai": "openai/", "anthropic": "anthropic/", "gemini": "google/", "gateway": ""}

UsdPerMillion = Annotated[float, msgspec.Meta(ge=0)]


class ModelPrice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One model's list price in USD per million tokens, as listed by ``source`` on ``date``."""

    input: UsdPerMillion
    output: UsdPerMillion
    date: str
    source: str
    aliases: list[str] = []  # other ids of the same model: "anthropic:claude-sonnet-4-5"
    note: str = ""


class SelfPrice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The price table's ``[self]``: Receipt Audit's smallest credit pack, its list price and
    how many checks it buys."""

    pack_price_usd: Annotated[float, msgspec.Meta(ge=0)] | None = None
    pack_checks: Annotated[int, msgspec.Meta(ge=1)] | None = None
    date: str = ""
    source: str = ""
    note: str = ""


class PriceTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A price table file: list prices of DIY models (``[models."creator/model"]``) and the
    ``self`` credit pack, in force from ``price_date``. ``path`` is filled in when read."""

    price_date: str
    models: dict[str, ModelPrice] = {}
    self_pack: SelfPrice = msgspec.field(default_factory=SelfPrice, name="self")
    currency: str = "USD"
    unit: str = "per_million_tokens"
    path: str = ""

    def __post_init__(self) -> None:
        try:
            _dt.date.fromisoformat(self.price_date)
        except ValueError:
            raise ValueError(f"price_date {self.price_date!r} is not a YYYY-MM-DD date") from None
        if self.currency != "USD" or self.unit != "per_million_tokens":
            raise ValueError(f"prices must be USD per_million_tokens, not {self.currency} {self.unit}")

    def lookup(self, provider: str, model: str, *, price_model: str | None = None) -> tuple[str, ModelPrice] | None:
        """The price entry for a DIY target's model, or None when the table has none."""
        candidates = []
        if price_model:
            candidates.append(price_model)
        prefix = GATEWAY_PREFIX.get(provider)
        if prefix is not None:
            candidates.append(prefix + model)
        for key in candidates:
            if key in self.models:
                return key, self.models[key]
        wanted = {f"{provider}:{model}"}
        for key, price in self.models.items():
            if wanted.intersection(price.aliases):
                return key, price
        return None


def _packaged_files() -> Mapping[str, Traversable]:
    out: dict[str, Traversable] = {}
    for entry in resources.files("rabench").joinpath("data").iterdir():
        m = _FILE_RE.match(entry.name)
        if m:
            out[m[1]] = entry
    return out


def resolve_price_date(config: TargetsConfig) -> str | None:
    """The run's price date: ``[defaults] price_date``, else the newest packaged table's."""
    if config.defaults.price_date is not None:
        return config.defaults.price_date
    files = _packaged_files()
    return max(files) if files else None


def load_price_table(config: TargetsConfig) -> PriceTable | None:
    """The table in force on the run's price date (``[defaults] price_file`` overrides);
    None only when no packaged table is dated on or before the price date."""
    price_file = config.defaults.price_file
    if price_file:
        try:
            raw = Path(price_file).read_bytes()
        except OSError as exc:
            raise UserError(f"[defaults] price_file {price_file}: cannot read: {exc.strerror or exc}") from None
        return read_price_table(raw, price_file)
    date = resolve_price_date(config)
    if date is None:
        return None
    eligible = {d: f for d, f in _packaged_files().items() if d <= date}
    if not eligible:
        return None
    newest = max(eligible)
    return read_price_table(eligible[newest].read_bytes(), f"rabench/data/prices-{newest}.toml")


@cache
def read_price_table(raw: bytes, name: str) -> PriceTable:
    """Decode one price table file; anything wrong is a one-line UserError naming the file."""
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{name}: bad price table: not valid TOML: {exc}") from None
    for entry in [data, *(m for m in (data.get("models") or {}).values() if isinstance(m, dict))]:
        for key in ("price_date", "date"):  # unquoted TOML dates read as the same text
            if isinstance(entry.get(key), _dt.date):
                entry[key] = entry[key].isoformat()
    if "path" in data:
        raise UserError(f"{name}: bad price table: unknown key 'path'")
    data["path"] = name
    try:
        return msgspec.convert(data, PriceTable)
    except msgspec.ValidationError as exc:
        raise UserError(f"{name}: bad price table: {str(exc).replace('`', '')}") from None


def self_cost_per_check(config: TargetsConfig) -> float | None:
    """What the caller pays for one ``self`` check: smallest pack's list price / its checks.

    Values come from the price table's ``[self]`` table; ``[self] pack_price_usd`` and
    ``pack_checks`` in bench/targets.toml override them, and ``[self] cost_per_check_usd``
    is the fallback when neither gives a pack. None when all are unknown. A broken price
    table is a UserError, never None.
    """
    table = load_price_table(config)
    base = table.self_pack if table is not None else SelfPrice()
    price = config.self.pack_price_usd if config.self.pack_price_usd is not None else base.pack_price_usd
    checks = config.self.pack_checks if config.self.pack_checks is not None else base.pack_checks
    if price is not None and checks:
        return float(price) / int(checks)
    return config.self.cost_per_check_usd
