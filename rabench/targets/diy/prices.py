"""List prices as data, and what one check costs at them.

Why data, not code: the spec prices a DIY check as "its model tokens x the AI
Gateway list price on the run's price date", so the price is an input of the
run (recorded as ``price_date`` in run.json), not a constant. Price files live
in ``rabench/data/prices-<YYYY-MM-DD>.toml``; a run uses the newest file dated
on or before its ``[defaults] price_date``
(the table and its loader: ``rabench.contracts.prices``). A model without a price costs
``None`` (unknown), never 0: a free-looking baseline would win the cost row by
a missing number.
"""

from __future__ import annotations

from rabench.contracts.prices import (
    GATEWAY_PREFIX,
    ModelPrice,
    PriceTable,
    SelfPrice,
    load_price_table,
    read_price_table,
    resolve_price_date,
    self_cost_per_check,
)

__all__ = [
    "GATEWAY_PREFIX",
    "ModelPrice",
    "PriceTable",
    "SelfPrice",
    "cost_usd",
    "load_price_table",
    "read_price_table",
    "resolve_price_date",
    "self_cost_per_check",
]


def cost_usd(price: ModelPrice | None, input_tokens: int, output_tokens: int) -> float | None:
    """Tokens x list price; None when the price is unknown."""
    if price is None:
        return None
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000
