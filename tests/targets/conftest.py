"""Shared fixtures: a real prepared-looking image, provider keys, a fake provider on loopback."""

from __future__ import annotations

import contextlib
import io

import pytest
from PIL import Image, ImageDraw

from rabench.fakeprovider import FakeProvider, Profile
from rabench.targets.base import CheckRequest

from diyfakes import KEYS


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def keys(monkeypatch):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    return KEYS


@pytest.fixture
def receipt(tmp_path):
    im = Image.new("RGB", (200, 300), "white")
    draw = ImageDraw.Draw(im)
    for i, line in enumerate(["CORNER SHOP", "2025-03-14", "TEA   5.00", "TOTAL 5.00"]):
        draw.text((10, 10 + 20 * i), line, fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    path = tmp_path / "prepared.png"
    path.write_bytes(buf.getvalue())
    return CheckRequest(
        case_id="c1", original=path, media_type="image/png", prepared=path, prepared_media_type="image/png"
    )


@pytest.fixture
def fake_server(monkeypatch):
    """``async with fake_server(profile) as fake``: a fake on 127.0.0.1:0, providers pointed at it."""

    @contextlib.asynccontextmanager
    async def serve(profile: Profile):
        async with FakeProvider(profile) as fake:
            for name, value in fake.env().items():
                monkeypatch.setenv(name, value)
            yield fake

    return serve
