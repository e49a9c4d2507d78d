"""Token estimates of one DIY check, against the worked examples the providers document."""

from __future__ import annotations

from rabench.targets.diy.estimate import image_tokens, prepared_size, text_tokens


def test_openai_high_detail_tiles():
    # OpenAI's examples: 1024x1024 -> 768x768 -> 4 tiles -> 765 tokens; 2048x4096 -> 768x1536 -> 6 tiles -> 1105
    assert image_tokens("openai", 1024, 1024) == 765
    assert image_tokens("openai", 2048, 4096) == 1105
    assert image_tokens("gateway", 200, 300) == 85 + 170  # small: one tile
    assert image_tokens("openai", 4096, 8192, detail="low") == 85


def test_anthropic_and_gemini():
    assert image_tokens("anthropic", 1000, 1000) == 1334  # ceil(1000*1000/750)
    assert image_tokens("anthropic", 3136, 3136) == image_tokens("anthropic", 1568, 1568)  # long side capped
    assert image_tokens("gemini", 300, 384) == 258
    assert image_tokens("gemini", 1000, 2000) == 258 * 2 * 3


def test_prepared_size_and_text():
    assert prepared_size(6144, 3072) == (3072, 1536)
    assert prepared_size(800, 600) == (800, 600)
    assert text_tokens("x" * 9) == 3
