"""The typed fast path (``decode``: bytes -> msgspec Structs -> Reply) gives exactly what the
lenient reader (``read`` over ``json.loads``) gives, or declines (None) and leaves it to it."""

from __future__ import annotations

import json

import pytest

from rabench.targets.diy import anthropic, gemini, openai

OPENAI = [
    {
        "model": "gpt-5",
        "choices": [{"message": {"content": '{"total": 1}'}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1500, "completion_tokens": 250},
    },
    {"model": "gpt-5", "choices": [{"message": {"content": None, "refusal": " no. "}, "finish_reason": "stop"}]},
    {"model": "gpt-5", "choices": [{"message": {"content": "x", "refusal": "  "}, "finish_reason": "stop"}]},
    {"choices": [{"message": {"content": "partial"}, "finish_reason": "content_filter"}], "usage": {}},
    {
        "model": "m",
        "choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}],
    },
    {
        "model": "m",
        "choices": [{"message": {"content": "x"}}],
        "usage": {"prompt_tokens": -3, "completion_tokens": True},
    },
    {"model": 7, "choices": [{"message": {"content": "x"}}]},
    {"choices": []},
    {"choices": [{}], "id": "extra", "system_fingerprint": "fp"},
    {"choices": ["not an object"]},
    {"no": "choices"},
]
ANTHROPIC = [
    {
        "model": "claude",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 3},
    },
    {"model": "claude", "content": [{"type": "thinking", "thinking": "..."}], "stop_reason": "refusal"},
    {"model": "claude", "content": [], "stop_reason": "max_tokens", "usage": {"input_tokens": -1}},
    {"content": [{"type": "text"}]},
    {"content": "not a list"},
]
GEMINI = [
    {
        "modelVersion": "gemini-2.5-flash",
        "candidates": [
            {
                "content": {"parts": [{"text": "thinking", "thought": True}, {"text": "an"}, {"text": "swer"}]},
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "thoughtsTokenCount": 7},
    },
    {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "SAFETY"}]},
    {"promptFeedback": {"blockReason": "OTHER"}, "usageMetadata": {"promptTokenCount": 5}},
    {"candidates": [{"finishReason": "MAX_TOKENS"}]},
    {"candidates": []},
    {"candidates": [{"content": {"parts": [{"inlineData": {}}]}}]},
]


@pytest.mark.parametrize(("wire", "payloads"), [(openai, OPENAI), (anthropic, ANTHROPIC), (gemini, GEMINI)])
def test_decode_agrees_with_read_or_declines(wire, payloads):
    taken = 0
    for payload in payloads:
        raw = json.dumps(payload).encode()
        fast = wire.decode(raw)
        try:
            slow = wire.read(json.loads(raw))
        except ValueError:  # ReplyShapeError: the fast path must have declined
            assert fast is None, payload
            continue
        if fast is not None:
            taken += 1
            assert fast == slow, payload
    assert taken >= 3  # the usual shapes do take the fast path
    assert wire.decode(b"not json") is None


def test_b64_cache_encodes_each_prepared_image_once_and_stays_bounded(tmp_path):
    import anyio

    from rabench.targets.diy.target import B64Cache

    files = []
    for i in range(3):
        f = tmp_path / f"p{i}.png"
        f.write_bytes(bytes([i]) * 300)
        files.append(f)

    async def go() -> B64Cache:
        cache = B64Cache(max_chars=900)  # room for two 400-character encodings
        for f in files[:2] * 3:
            if cache.get(f) is None:
                await cache.load(f)
        assert cache.loads == 2  # three repetitions, each image encoded once
        await cache.load(files[2])
        assert cache.get(files[0]) is None and cache.get(files[2]) is not None  # oldest out
        assert cache.chars <= 900
        return cache

    anyio.run(go)


def test_the_image_json_is_encoded_once_is_what_encoding_the_string_gives_and_stays_bounded(tmp_path):
    import msgspec

    from rabench.targets.diy import anthropic, gemini, openai
    from rabench.targets.diy.target import B64Cache

    cache = B64Cache(max_json_bytes=1000)
    b64 = "QUJD" * 100  # 400 characters
    for wire in (openai, anthropic, gemini):
        raw = cache.json_value("p.png", wire, "image/png", b64)
        assert cache.json_value("p.png", wire, "image/png", b64) is raw  # encoded once
        assert bytes(raw) == msgspec.json.encode(wire.image_value(b64, "image/png"))
        assert cache.json_bytes <= 1000
    # a body built around the encoded image is, byte for byte, the body built around the string
    from rabench.contracts.targets_config import TargetsConfig
    from rabench.targets.diy.config import provider_settings

    for wire, name in ((openai, "openai"), (anthropic, "anthropic"), (gemini, "gemini")):
        s = provider_settings(name, TargetsConfig())
        raw = cache.json_value("p.png", wire, "image/jpeg", b64)
        assert msgspec.json.encode(wire.build(s, "k", "m", "P", raw, "image/jpeg").body) == msgspec.json.encode(
            wire.build(s, "k", "m", "P", b64, "image/jpeg").body
        )
    assert cache.json_bytes <= 1000 and len(cache._json) == 2  # the oldest went out


def test_a_request_body_is_the_same_whether_the_image_json_is_cached_or_not(tmp_path, monkeypatch):
    """The first call for an image encodes its JSON; later calls embed the cached bytes: the
    server gets the same body both times."""
    import anyio

    from rabench.targets.base import CheckRequest
    from rabench.targets.diy import target as diy_target

    image = tmp_path / "p.png"
    image.write_bytes(b"\x89PNG fake image bytes")
    bodies: list[bytes] = []

    class Session:
        def post(self, url, data, headers):  # type: ignore[no-untyped-def]
            bodies.append(data)
            raise OSError("no network in this test")

    async def go() -> None:
        from rabench.contracts.targets_config import TargetsConfig
        from rabench.targets.diy import openai
        from rabench.targets.diy.config import provider_settings

        t = diy_target.DiyTarget("diy:openai:m", provider_settings("openai", TargetsConfig()), openai, "m", None, None)
        t._session = Session()  # type: ignore[assignment]
        request = CheckRequest("c", image, "image/png", image, "image/png")
        for _ in range(2):
            try:
                await t.check(request)
            except Exception:
                pass

    monkeypatch.setattr(diy_target, "_B64_CACHE", diy_target.B64Cache())
    anyio.run(go)
    assert len(bodies) == 2 and bodies[0] == bodies[1]
    import base64

    assert base64.b64encode(image.read_bytes()) in bodies[0]
