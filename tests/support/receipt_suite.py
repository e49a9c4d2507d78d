"""A small real suite for fake-provider and DIY end-to-end tests: receipt-like PNGs + labels."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import msgspec
from PIL import Image, ImageDraw

from rabench.contracts import Authenticity, Case, LineItem, ReceiptLabel, SuiteHeader


def receipt_png(i: int) -> bytes:
    im = Image.new("RGB", (160, 220), "white")
    draw = ImageDraw.Draw(im)
    for row, line in enumerate([f"SHOP {i}", f"2025-01-0{1 + i % 9}", f"TOTAL {10 + i}.50"]):
        draw.text((8, 8 + 18 * row), line, fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def make_suite(root: Path, n: int) -> Path:
    """``n`` base cases c000.. (every third one a fake with an edited total)."""
    root.mkdir(parents=True, exist_ok=True)
    lines = [msgspec.json.encode(SuiteHeader(suite="receipt", name="fakeprovider-test"))]
    for i in range(n):
        data = receipt_png(i)
        name = f"r{i:03d}.png"
        (root / name).write_bytes(data)
        fake = i % 3 == 2
        label = ReceiptLabel(
            authenticity=Authenticity(verdict="fake", fake_class="hand_edit", edited_fields=["total"])
            if fake
            else Authenticity(verdict="genuine"),
            merchant=f"Shop {i}",
            date=f"2025-01-0{1 + i % 9}",
            total=10 + i + 0.5,
            currency="EUR",
            subtotal=None,
            line_items=[LineItem(description="Item", total=10 + i + 0.5, quantity=1, unit_price=10 + i + 0.5)],
        )
        case = Case(
            id=f"c{i:03d}", file=name, sha256=hashlib.sha256(data).hexdigest(), media_type="image/png", label=label
        )
        lines.append(msgspec.json.encode(case))
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root
