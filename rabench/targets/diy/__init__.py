"""DIY targets: ``diy:<provider>:<model>``, a multimodal model asked one plain prompt.

``make_diy_target`` is what ``rabench.targets.registry`` calls; providers and
their settings are in ``config``, the wire formats in one module each
(``openai``, ``gateway``, ``openai_compatible``, ``anthropic``, ``gemini``), the
prompt in ``prompt``, the answer parser in ``answer``, the error policy in
``errors`` / ``classify`` and prices in ``prices``. See docs/targets.md.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rabench.contracts.targets_config import TargetsConfig
from rabench.errors import UserError
from rabench.targets.diy.config import api_key, provider_settings
from rabench.targets.diy.prices import load_price_table, resolve_price_date, self_cost_per_check
from rabench.targets.diy.target import DiyTarget

__all__ = ["DiyTarget", "make_diy_target", "self_cost_per_check", "wire_module"]


def wire_module(wire: str) -> ModuleType:
    return importlib.import_module("rabench.targets.diy." + wire.replace("-", "_"))


def make_diy_target(target_id: str, config: TargetsConfig) -> DiyTarget:
    """``diy:<provider>:<model>`` + parsed bench/targets.toml -> a DiyTarget (not yet open)."""
    from rabench.targets.registry import parse_target_id

    kind, provider, model = parse_target_id(target_id)
    if kind != "diy" or not provider or not model:
        raise UserError(f"{target_id!r} is not a diy:<provider>:<model> target id")
    settings = provider_settings(provider, config)
    key = api_key(settings)
    if settings.key_required and not key:
        raise UserError(f"{target_id} needs the environment variable {settings.api_key_env} (its API key)")
    table = load_price_table(config)
    price = None
    if table is not None:
        price = table.lookup(
            settings.name if settings.name in ("openai", "anthropic", "gemini", "gateway") else settings.wire,
            model,
            price_model=settings.price_models.get(model),
        )
    return DiyTarget(
        target_id,
        settings,
        wire_module(settings.wire),
        model,
        key,
        price,
        price_date=resolve_price_date(config),
    )
