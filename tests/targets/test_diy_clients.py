"""Every provider client against the fake provider over loopback: what it sends, what each
reply maps to (Verdict, TransportFailure, TargetFailure kind), usage and cost, key scrubbing."""

from __future__ import annotations

import base64
import tomllib
from importlib import resources

import anyio
import pytest

from rabench.fakeprovider import Latency, ModelProfile, Profile
from rabench.targets.base import TargetFailure, TransportFailure
from rabench.contracts.targets_config import parse_targets_config as C
from rabench.targets.registry import make_target

from diyfakes import PROVIDERS

pytestmark = pytest.mark.anyio
IDS = [p[0] for p in PROVIDERS]
PRICES = tomllib.loads(resources.files("rabench").joinpath("data", "prices-2026-11-29.toml").read_text())["models"]


def scripted(*behaviours: str, require_key: bool = True, **kw) -> Profile:
    return Profile(require_key=require_key, default=ModelProfile(script=list(behaviours), **kw))


async def one_check(provider, model, receipt, config=None):
    target = make_target(f"diy:{provider}:{model}", C(config or {}))
    await target.open()
    try:
        return target, await target.check(receipt)
    finally:
        await target.close()


@pytest.mark.parametrize("provider,model,auth,style,key_env", PROVIDERS, ids=IDS)
async def test_request_matches_the_documented_wire_format(
    provider, model, auth, style, key_env, keys, receipt, fake_server
):
    profile = scripted("right", require_key=auth is not None)
    async with fake_server(profile) as fake:
        _, verdict = await one_check(provider, model, receipt)
    [req] = fake.requests
    image = receipt.prepared.read_bytes()
    b64 = base64.b64encode(image).decode()
    if auth:
        assert req.headers[auth] == style.format(key=keys[key_env])
    else:
        assert "authorization" not in req.headers  # no key configured: none sent
    assert req.headers["content-type"].startswith("application/json")
    body = req.body
    if provider in ("openai", "gateway", "openai-compatible"):
        assert req.path == "/v1/chat/completions"
        assert body["model"] == model
        [msg] = body["messages"]
        assert msg["role"] == "user"
        text, img = msg["content"]
        assert text["type"] == "text" and "JSON" in text["text"]
        assert img["type"] == "image_url" and img["image_url"]["url"] == f"data:image/png;base64,{b64}"
        assert ("max_tokens" if provider == "openai-compatible" else "max_completion_tokens") in body
    elif provider == "anthropic":
        assert req.path == "/v1/messages"
        assert req.headers["anthropic-version"] == "2023-06-01"
        assert body["model"] == model and body["max_tokens"] > 0
        img, text = body["messages"][0]["content"]
        assert img == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64}}
        assert text["type"] == "text" and "JSON" in text["text"]
    else:
        assert req.path == f"/v1beta/models/{model}:generateContent"
        assert "model" not in body
        img, text = body["contents"][0]["parts"]
        assert img == {"inlineData": {"mimeType": "image/png", "data": b64}}
        assert "JSON" in text["text"]
        assert body["generationConfig"]["maxOutputTokens"] > 0
    assert base64.b64decode(b64) == image
    # The fake answered about its canned receipt: the Verdict carries it, with usage and cost.
    assert verdict.fields.total == 10.8 and verdict.fields.currency == "USD" and verdict.risk == 0.1
    assert verdict.reasons and all(r.kind == "opinion" for r in verdict.reasons)
    usage = verdict.usage
    assert (usage.input_tokens, usage.output_tokens) == (1500, 250)
    price_key = {
        "openai": "openai/gpt-5",
        "gateway": "openai/gpt-5",
        "anthropic": "anthropic/claude-sonnet-4.5",
        "gemini": "google/gemini-2.5-flash",
    }.get(provider)
    if price_key:
        p = PRICES[price_key]
        assert usage.cost_usd == pytest.approx((1500 * p["input"] + 250 * p["output"]) / 1e6)
        assert usage.model_cost_usd == usage.cost_usd
    else:
        assert usage.cost_usd is None and usage.model_cost_usd is None  # unknown, not free


TRANSPORT = {"429": 429, "408": 408, "500": 500, "502": 502, "503": 503, "529": 529, "reset": None}
RECORDED = {
    "400": "error",
    "401": "error",
    "403": "error",
    "404": "error",
    "422": "error",
    "refusal": "refusal",
    "content_filter": "refusal",
    "other_model": "error",
    "unreadable": "invalid_output",
    "malformed": "invalid_output",
    "empty": "invalid_output",
}


@pytest.mark.parametrize("provider,model,auth,style,key_env", PROVIDERS, ids=IDS)
async def test_each_reply_maps_to_one_outcome(provider, model, auth, style, key_env, keys, receipt, fake_server):
    behaviours = list(TRANSPORT) + list(RECORDED) + ["wrong"]
    async with fake_server(scripted(*behaviours, retry_after="2", require_key=False)) as fake:
        target = make_target(f"diy:{provider}:{model}", C({}))
        await target.open()
        seen = {}
        for behaviour in behaviours:
            try:
                seen[behaviour] = await target.check(receipt)
            except (TransportFailure, TargetFailure) as exc:
                seen[behaviour] = exc
        await target.close()
    assert [r.behaviour for r in fake.requests] == behaviours
    for behaviour, status in TRANSPORT.items():
        exc = seen[behaviour]
        assert isinstance(exc, TransportFailure), behaviour
        assert exc.status == status
        assert exc.retry_after == (2.0 if status in (429, 503) else None)
    for behaviour, kind in RECORDED.items():
        exc = seen[behaviour]
        assert isinstance(exc, TargetFailure) and exc.status == kind, (behaviour, exc)
    assert "scripted 404" in str(seen["404"])  # the provider's own message
    assert "fake-other-model" in str(seen["other_model"])  # no silent fallback
    assert "too blurry" in str(seen["unreadable"])  # raw text kept
    assert seen["refusal"].usage.input_tokens == 1500  # tokens spent are still reported
    wrong = seen["wrong"]
    assert wrong.fields.merchant == "Somewhere Else Ltd" and wrong.risk == 0.9


@pytest.mark.parametrize("provider,model", [("openai", "gpt-4o"), ("anthropic", "claude-sonnet-4-5")])
async def test_dated_snapshot_of_the_pinned_alias_is_accepted(provider, model, keys, receipt, fake_server):
    profile = scripted("right", answer_model="{model}-20250929" if provider == "anthropic" else "{model}-2024-08-06")
    async with fake_server(profile):
        _, verdict = await one_check(provider, model, receipt)
    assert verdict.usage.model.startswith(model + "-")


@pytest.mark.parametrize("provider,model,auth,style,key_env", [p for p in PROVIDERS if p[2]], ids=IDS[:2] + IDS[3:])
async def test_a_key_echoed_by_the_provider_never_reaches_the_error(
    provider, model, auth, style, key_env, keys, receipt, fake_server
):
    async with fake_server(scripted("401", echo_key=True)) as fake:
        with pytest.raises(TargetFailure) as info:
            await one_check(provider, model, receipt)
    assert keys[key_env] in " ".join(fake.requests[0].headers.values())  # it was sent...
    assert keys[key_env] not in str(info.value)  # ...and scrubbed from what is recorded
    assert "Incorrect API key provided" in str(info.value)


async def test_one_session_reused_and_pool_sized_to_concurrency(keys, receipt, fake_server):
    profile = Profile(default=ModelProfile(latency=Latency(ms=60)))
    config = C({"providers": {"openai": {"concurrency": 2}}})
    async with fake_server(profile) as fake:
        target = make_target("diy:openai:gpt-5", config)
        await target.open()
        async with anyio.create_task_group() as tg:
            for _ in range(8):
                tg.start_soon(target.check, receipt)
        await target.close()
    assert len(fake.requests) == 8
    assert len({r.peer for r in fake.requests}) <= 2  # at most 2 sockets, reused


async def test_a_hung_request_is_cancelled_by_the_caller_and_the_target_still_works(keys, receipt, fake_server):
    async with fake_server(scripted("hang", "right")):
        target = make_target("diy:anthropic:claude-sonnet-4-5", C({}))
        await target.open()
        with anyio.move_on_after(0.3) as scope:
            await target.check(receipt)
        assert scope.cancelled_caught
        verdict = await target.check(receipt)
        await target.close()
    assert verdict.fields.total == 10.8


@pytest.mark.parametrize("echo", ["merchant", "reason", "model", "none"])
async def test_a_key_echoed_into_an_ok_answer_is_scrubbed_from_the_verdict(echo, receipt, monkeypatch):
    """The verdict and usage of an ok answer never hold the key, wherever the answer put it;
    the quick look for it (``_may_echo_key``) agrees with encoding the whole verdict."""
    import json

    import msgspec
    from aiohttp import web

    from rabench.targets.diy.target import _without_key

    key = "sk-echo-0123456789abcdef"
    answer = {
        "merchant": f"Shop {key}" if echo == "merchant" else "Shop",
        "total": 5.0,
        "risk": 0.2,
        "reasons": [f"the   header said\n{key}" if echo == "reason" else "fine"],
    }
    model = f"fake-vl-{key}" if echo == "model" else "fake-vl"

    async def reply(request: web.Request) -> web.Response:
        return web.json_response(
            {
                "model": model,
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
                "choices": [{"finish_reason": "stop", "message": {"content": json.dumps(answer)}}],
            }
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", reply)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setenv("RABENCH_OPENAI_COMPATIBLE_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", key)
    try:
        target, verdict = await one_check(
            "openai-compatible", "fake-vl", receipt, {"providers": {"openai-compatible": {"check_model": False}}}
        )
    finally:
        await runner.cleanup()
    raw = msgspec.json.encode(verdict)
    assert key.encode() not in raw
    assert (b"***" in raw) == (echo != "none")
    assert _without_key(verdict, key) == verdict  # nothing left for the full search to find
