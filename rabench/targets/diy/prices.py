"""List prices as data, and what one check costs at them.

Why data, not code: the spec prices a DIY check as "its model tokens x the AI
Gateway list price on the run's price date", so the price is an input of the
run (recorded as ``price_date`` in run.json), not a constant. Price files live
in ``rabench/data/prices-<YYYY-MM-DD>.toml``; a run uses the newest file dated
on or before its ``[defaults] price_date``. A model without a price costs
``None`` (unknown), never 0: a free-looking baseline would win the cost row by
a missing number.
"""

from __future__ import annotations

import datetime as _dt
import re
import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from rabench.errors import UserError

_FILE_RE = re.compile(r"^prices-(\d{4}-\d{2}-\d{2})\.toml$")
# Where a direct provider's model id sits in the gateway's "creator/model" namespace.
GATEWAY_PREFIX = {"openai": "openai/", "anthropic": "anthropic/", "gemini": "google/", "gateway": ""}


class ModelPrice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """USD per million tokens, as listed by ``source`` on ``date``."""

    input: float
    output: float
    date: str
    source: str
    aliases: list[str] = []  # other ids of the same model: "anthropic:claude-sonnet-4-5"
    note: str = ""


class SelfPrice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Receipt Audit's smallest credit pack: its list price and how many checks it buys."""

    pack_price_usd: float | None = None
    pack_checks: int | None = None
    date: str = ""
    source: str = ""
    note: str = ""


class PriceTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    price_date: str
    models: dict[str, ModelPrice] = {}
    self_pack: SelfPrice = msgspec.field(default_factory=SelfPrice, name="self")
    currency: str = "USD"
    unit: str = "per_million_tokens"
    path: str = ""

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


def cost_usd(price: ModelPrice | None, input_tokens: int, output_tokens: int) -> float | None:
    """Tokens x list price; None when the price is unknown."""
    if price is None:
        return None
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000


def _packaged_files() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in resources.files("rabench").joinpath("data").iterdir():
        m = _FILE_RE.match(entry.name)
        if m:
            out[m[1]] = entry
    return out


def resolve_price_date(config: dict[str, Any]) -> str | None:
    """The run's price date: ``[defaults] price_date``, else the newest packaged table's."""
    date = (config.get("defaults") or {}).get("price_date")
    if date is not None:
        date = str(date)
        try:
            _dt.date.fromisoformat(date)
        except ValueError:
            raise UserError(f"[defaults] price_date {date!r} is not a YYYY-MM-DD date") from None
        return date
    files = _packaged_files()
    return max(files) if files else None


def load_price_table(config: dict[str, Any]) -> PriceTable | None:
    """The table in force on the run's price date (``[defaults] price_file`` overrides)."""
    defaults = config.get("defaults") or {}
    if defaults.get("price_file"):
        return _load(Path(str(defaults["price_file"])).read_bytes(), str(defaults["price_file"]))
    date = resolve_price_date(config)
    if date is None:
        return None
    eligible = {d: f for d, f in _packaged_files().items() if d <= date}
    if not eligible:
        return None
    newest = max(eligible)
    return _load(eligible[newest].read_bytes(), f"rabench/data/prices-{newest}.toml")


@cache
def _load(raw: bytes, name: str) -> PriceTable:
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        data["path"] = name
        return msgspec.convert(data, PriceTable)
    except (tomllib.TOMLDecodeError, msgspec.ValidationError, UnicodeDecodeError) as exc:
        raise UserError(f"{name}: bad price table: {exc}") from None


def self_cost_per_check(config: dict[str, Any]) -> float | None:
    """What the caller pays for one ``self`` check: smallest pack's list price / its checks.

    Values come from the price table's ``[self]`` table; ``[self] pack_price_usd`` and
    ``pack_checks`` in bench/targets.toml override them. None when either is unknown.
    The engine adds its own model tokens (at ``cost_usd``) on top when it calls a model.
    """
    table = load_price_table(config)
    base = table.self_pack if table is not None else SelfPrice()
    override = config.get("self") or {}
    price = override.get("pack_price_usd", base.pack_price_usd)
    checks = override.get("pack_checks", base.pack_checks)
    if price is None or not checks:
        return None
    return float(price) / int(checks)
