"""Shared engine fixtures: one OCR pool per test session, and a receipt renderer.

Loading RapidOCR costs a second or two, so the whole session shares one
in-process thread pool (the real process pool is exercised once, in
test_ocr.py). Receipts are rendered with Pillow and the DejaVu fonts, so the
tests read real pixels through real OCR.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from rabench.contracts.targets_config import parse_targets_config
from rabench.engine.ocr import OcrSettings, ThreadWorkerPool
from rabench.engine.target import SelfTarget

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
MONO = FONT_DIR / "DejaVuSansMono.ttf"
BOLD = FONT_DIR / "DejaVuSansMono-Bold.ttf"


@pytest.fixture(scope="session")
def ocr_pool() -> Iterator[ThreadWorkerPool]:
    pool = ThreadWorkerPool(workers=1, settings=OcrSettings())
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def self_target(ocr_pool: ThreadWorkerPool) -> Iterator[SelfTarget]:
    """The ``self`` target with the default settings on the shared OCR pool. No "today": every
    time rule measures from the request's ``submitted_at``, or does not fire."""
    t = SelfTarget("self", parse_targets_config({"self": {}}), pool=ocr_pool)
    asyncio.run(t.open())
    yield t
    asyncio.run(t.close())


def render_receipt(
    rows: list[tuple[str, str]],
    *,
    width: int = 640,
    size: int = 24,
    title: str | None = None,
) -> Image.Image:
    """A white till roll: optional bold title, then label on the left and amount on the right."""
    font = ImageFont.truetype(str(MONO), size)
    bold = ImageFont.truetype(str(BOLD), int(size * 1.4))
    line_h = int(size * 1.6)
    height = 40 + (2 * line_h if title else 0) + line_h * len(rows) + 40
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    y = 30
    if title:
        draw.text((30, y), title, font=bold, fill="black")
        y += 2 * line_h
    for label, amount in rows:
        if label:
            draw.text((30, y), label, font=font, fill="black")
        if amount:
            w = draw.textlength(amount, font=font)
            draw.text((width - 30 - w, y), amount, font=font, fill="black")
        y += line_h
    return img


@pytest.fixture(name="render")
def render_fixture() -> Callable[..., Image.Image]:
    """``render(rows, title=..., width=..., size=...)`` -> a PIL image of a receipt."""
    return render_receipt


@pytest.fixture
def receipt_file(tmp_path: Path) -> Callable[..., Path]:
    """Render a receipt and save it (``fmt`` = JPEG or PNG); returns the path."""

    def make(rows: list[tuple[str, str]], *, fmt: str = "PNG", name: str = "receipt", **kw: object) -> Path:
        img = render_receipt(rows, **kw)  # type: ignore[arg-type]
        path = tmp_path / f"{name}.{'jpg' if fmt == 'JPEG' else fmt.lower()}"
        buf = io.BytesIO()
        img.save(buf, format=fmt, **({"quality": 92} if fmt == "JPEG" else {}))
        path.write_bytes(buf.getvalue())
        return path

    return make
