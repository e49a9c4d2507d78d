"""Target ids -> target objects, and the provider each id is limited under.

Ids: ``null`` (instant answers, for tests and overhead benchmarks), ``self``
(the in-process engine, ``rabench.engine.target``), ``diy:<provider>:<model>``
(a model asked one plain prompt, ``rabench.targets.diy``). Implementations are
imported lazily so that running ``null`` never loads OCR models.

``config`` is the checked ``bench/targets.toml`` (``TargetsConfig``, docs/targets.md):
``[providers.<name>]`` tables carry base_url, api_key_env, rpm, concurrency;
``[defaults]`` carries timeout_s and price_date.
"""

from __future__ import annotations

import importlib

from rabench.contracts import TargetsConfig
from rabench.errors import UserError
from rabench.targets.base import Target

# kind -> "module:factory"; factory(target_id, config) -> Target
FACTORIES = {
    "null": "rabench.targets.null:make_null_target",
    "meta": "rabench.targets.meta:make_meta_target",
    "self": "rabench.engine.target:make_self_target",
    "diy": "rabench.targets.diy:make_diy_target",
}


def parse_target_id(target_id: str) -> tuple[str, str | None, str | None]:
    """``diy:openai:gpt-5`` -> ("diy", "openai", "gpt-5"); ``self`` -> ("self", None, None).

    The model part may itself contain ':' or '/' (``diy:gateway:openai/gpt-5``).
    """
    if target_id in ("null", "self", "meta") or target_id.startswith(("null:", "self:", "meta:")):
        kind, _, rest = target_id.partition(":")
        return kind, None, rest or None
    if target_id.startswith("diy:"):
        parts = target_id.split(":", 2)
        if len(parts) == 3 and parts[1] and parts[2]:
            return "diy", parts[1], parts[2]
    raise UserError(f"unknown target {target_id!r}: use 'self', 'null', 'meta' or 'diy:<provider>:<model>'")


def provider_of(target_id: str) -> str:
    """The name whose rate limit and concurrency cap a target's calls count against."""
    kind, provider, _ = parse_target_id(target_id)
    return provider if kind == "diy" else kind


def make_target(target_id: str, config: TargetsConfig | None = None) -> Target:
    kind, _, _ = parse_target_id(target_id)
    module_name, _, attr = FACTORIES[kind].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UserError(f"target kind {kind!r} is not available in this build") from None
        raise
    target: Target = getattr(module, attr)(target_id, config if config is not None else TargetsConfig())
    return target
