"""``rabench targets list|check``: what DIY providers are configured, and an opt-in live check."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from rabench.errors import UserError

if TYPE_CHECKING:
    from rabench.contracts.targets_config import TargetsConfig


def _config(path: str | None) -> TargetsConfig:
    from rabench.contracts.targets_config import read_targets_config

    return read_targets_config(path)


def _list(args: argparse.Namespace) -> int:
    from rabench.targets.diy.config import api_key, provider_names, provider_settings, public_url
    from rabench.targets.diy.prices import load_price_table, resolve_price_date

    config = _config(args.config)
    print(f"{'provider':<18} {'wire':<18} {'key':<34} base_url")
    for name in provider_names(config):
        s = provider_settings(name, config)
        if s.api_key_env:
            key = f"{s.api_key_env} ({'set' if api_key(s) else 'unset'})"
        else:
            key = "(none)"
        print(f"{name:<18} {s.wire:<18} {key:<34} {public_url(s.base_url)}")
    table = load_price_table(config)
    date = resolve_price_date(config)
    if table is None:
        print(f"prices: no price table in force on {date}: DIY cost is unknown")
    else:
        print(f"prices: {table.path} ({len(table.models)} models) for price date {date}")
    print("target ids: diy:<provider>:<model>, e.g. diy:openai:gpt-5, diy:gateway:openai/gpt-5")
    return 0


def _tiny_png() -> bytes:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (240, 120), "white")
    draw = ImageDraw.Draw(im)
    for y, line in enumerate(["TEST SHOP", "2025-01-02", "TOTAL  1.00 USD"]):
        draw.text((10, 10 + 30 * y), line, fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _check_ids(config: TargetsConfig, wanted: list[str]) -> list[str]:
    """The targets a run would use: --target, else the DIY targets of the config's [bench]
    targets; only without either, each provider's check_models."""
    from rabench.targets.diy.config import provider_names, provider_settings

    if wanted:
        return wanted
    bench = [t for t in (config.bench.targets or []) if t.startswith("diy:")]
    if bench:
        return bench
    ids = []
    for name in provider_names(config):
        for model in provider_settings(name, config).check_models:
            ids.append(f"diy:{name}:{model}")
    return ids


async def _check_one(target_id: str, config: TargetsConfig, image: Path, timeout_s: float) -> dict[str, Any]:
    from rabench.targets.base import CheckRequest, TargetFailure, TransportFailure
    from rabench.targets.diy import make_diy_target
    from rabench.targets.diy.config import api_key, provider_settings
    from rabench.targets.registry import parse_target_id

    _, provider, model = parse_target_id(target_id)
    settings = provider_settings(provider or "", config)
    row: dict[str, Any] = {"target": target_id}
    if settings.key_required and not api_key(settings):
        return {**row, "status": "skipped", "detail": f"{settings.api_key_env} unset"}
    target = make_diy_target(target_id, config)
    info = target.info.settings
    row["price"] = (
        (f"{info['price_key']} in ${info['price_input_per_mtok']}/M out ${info['price_output_per_mtok']}/M")
        if info.get("price_key")
        else "none (cost unknown)"
    )
    request = CheckRequest(
        case_id="live-check", original=image, media_type="image/png", prepared=image, prepared_media_type="image/png"
    )
    started = time.monotonic()
    await target.open()
    try:
        verdict = await asyncio.wait_for(target.check(request), timeout_s)
        usage = verdict.usage
        row.update(
            status="ok",
            model=usage.model if usage else None,
            tokens=f"{usage.input_tokens}+{usage.output_tokens}" if usage else None,
            cost_usd=usage.cost_usd if usage else None,
        )
    except TransportFailure as exc:
        row.update(status="transport", detail=str(exc))
    except TargetFailure as exc:
        row.update(status=exc.status, detail=str(exc)[:300], model=exc.usage.model if exc.usage else None)
    except TimeoutError:
        row.update(status="timeout", detail=f"no answer in {timeout_s:g} s")
    finally:
        await target.close()
    row["latency_s"] = round(time.monotonic() - started, 3)
    return row


async def _gateway_prices(config: TargetsConfig) -> list[str]:
    """Compare the price table with the gateway's live ``/v1/models`` list."""
    from rabench.targets.diy.config import api_key, provider_settings
    from rabench.targets.diy.errors import scrub
    from rabench.targets.diy.gateway import read_model_prices
    from rabench.targets.diy.prices import load_price_table

    settings = provider_settings("gateway", config)
    key = api_key(settings)
    if not key:
        return [f"prices: skipped, {settings.api_key_env} unset"]
    table = load_price_table(config)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
            async with session.get(f"{settings.base_url}/models", headers={"Authorization": f"Bearer {key}"}) as resp:
                payload = json.loads(await resp.read())
    except (TimeoutError, aiohttp.ClientError, ValueError, OSError) as exc:
        return [scrub(f"prices: could not read {settings.base_url}/models: {exc}", [key])]
    live = read_model_prices(payload)
    lines = []
    for model_id, price in sorted((table.models if table else {}).items()):
        if model_id not in live:
            lines.append(f"prices: {model_id}: not listed by the gateway")
            continue
        li, lo = live[model_id]
        same = abs(li - price.input) < 1e-9 and abs(lo - price.output) < 1e-9
        lines.append(
            f"prices: {model_id}: table {price.input}/{price.output}, gateway {li:g}/{lo:g}"
            + ("" if same else "  <- differs")
        )
    return lines


def _check(args: argparse.Namespace) -> int:
    config = _config(args.config)
    ids = _check_ids(config, args.target or [])
    if not ids:
        raise UserError("no targets to check: pass --target diy:<provider>:<model> or set check_models")

    async def go() -> tuple[list[dict[str, Any]], list[str]]:
        with tempfile.TemporaryDirectory() as tmp:
            image = Path(tmp) / "live-check.png"
            image.write_bytes(_tiny_png())
            rows = [await _check_one(t, config, image, args.timeout) for t in ids]
        return rows, (await _gateway_prices(config) if args.prices else [])

    rows, price_lines = asyncio.run(go())
    failed = 0
    for row in rows:
        extra = "  ".join(
            f"{k}={row[k]}"
            for k in ("model", "latency_s", "tokens", "cost_usd", "price", "detail")
            if row.get(k) is not None
        )
        print(f"{row['target']}: {row['status']}  {extra}")
        # A refusal or an unreadable answer about a tiny test image still proves the wire works.
        failed += row["status"] in ("transport", "error", "timeout")
    for line in price_lines:
        print(line)
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "targets",
        help="List DIY providers and run the opt-in live check.",
        description="DIY targets are diy:<provider>:<model>. 'list' shows providers, "
        "their key variables (set or not, never the value) and base URLs; 'check' sends "
        "one tiny request per target whose key is set. See docs/targets.md.",
    )
    tsub = p.add_subparsers(dest="targets_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    lp = tsub.add_parser(
        "list",
        help="Providers, key variables, base URLs and the price table in force.",
        description="Print every DIY provider (built-in and [providers.*] in the config) "
        "with its wire format, API key variable (set/unset), base URL, and the price table "
        "in force on the configured price date.",
    )
    lp.add_argument("--config", help="targets config (default bench/targets.toml if present)")
    lp.set_defaults(func=_list)

    cp = tsub.add_parser(
        "check",
        help="Opt-in live check: one tiny request per target whose key is set.",
        description="Send one tiny generated receipt image with the plain prompt to each "
        "target a run would use (--target, else the DIY targets of [bench] targets in the "
        "config, else each provider's check_models) whose API key variable is set; "
        "report status, answering model id, latency, tokens, cost and the price found. "
        "Targets without a key are skipped. This spends real (tiny) money. Exit 1 if a "
        "target could not be reached (transport error, HTTP error, timeout).",
    )
    cp.add_argument("--config", help="targets config (default bench/targets.toml if present)")
    cp.add_argument("--target", action="append", metavar="ID", help="target id to check (repeatable)")
    cp.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    cp.add_argument(
        "--prices", action="store_true", help="also compare the price table with the gateway's live /v1/models prices"
    )
    cp.set_defaults(func=_check)
