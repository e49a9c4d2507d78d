"""What one DIY check will cost before it is sent: prompt and image tokens at the list price.

Why estimates and not counts: the providers count tokens on their side; what we
can know beforehand is the prompt's length and the prepared image's size, and
each provider documents how an image of a given size is billed:

* OpenAI wire (``openai``, ``gateway``, ``openai-compatible``), detail ``high``:
  the image is fitted into 2048 x 2048, its short side brought down to 768, and
  billed 85 + 170 tokens per 512 px tile; detail ``low``: 85 tokens.
* Anthropic: the long side is brought down to 1568 px, then width x height / 750.
* Gemini: 258 tokens when both sides are at most 384 px, else 258 per 768 px tile.

Text is taken at 4 characters per token. Output is the one number nobody can know
beforehand (reasoning models think at length): ``estimate_usd`` gives two figures,
one at ``TYPICAL_OUTPUT_TOKENS`` (an assumption, named as such by ``rabench run
--dry-run``) and an upper bound at the provider's ``max_output_tokens``.
"""

from __future__ import annotations

import math
from pathlib import Path

import msgspec

from rabench.prepare.image import MAX_SIDE

CHARS_PER_TOKEN = 4.0
TYPICAL_OUTPUT_TOKENS = 1000  # an assumption: the JSON answer plus some reasoning


class CallEstimate(msgspec.Struct, frozen=True):
    input_tokens: int
    typical_usd: float | None  # None: the model has no price
    max_usd: float | None  # output at max_output_tokens


def prepared_size(width: int, height: int) -> tuple[int, int]:
    """The size preparation gives an image of ``width`` x ``height`` (longest side <= MAX_SIDE)."""
    if max(width, height) > MAX_SIDE:
        scale = MAX_SIDE / max(width, height)
        return max(1, round(width * scale)), max(1, round(height * scale))
    return width, height


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height from the file's header (no decode); None if unreadable."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.size
    except Exception:
        return None


def image_tokens(wire: str, width: int, height: int, *, detail: str | None = "high") -> int:
    if width <= 0 or height <= 0:
        return 0
    if wire == "anthropic":
        scale = min(1.0, 1568 / max(width, height))
        return math.ceil(width * scale * height * scale / 750)
    if wire == "gemini":
        if width <= 384 and height <= 384:
            return 258
        return 258 * math.ceil(width / 768) * math.ceil(height / 768)
    if detail == "low":
        return 85
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)
