"""Small till receipts drawn with Pillow for the forge tests (no real data needed).

Each receipt prints a merchant name, a date, three item lines, a total, the cash
paid and the change, in DejaVu Sans Mono on slightly grey paper with a little
blur and grain, saved as a JPEG scan; its label covers merchant, date, total and
currency, as an imported real data set would.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import msgspec
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from rabench.contracts import Authenticity, Case, ReceiptLabel, SuiteHeader

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
MERCHANTS = (
    "CORNER BAKERY SDN BHD",
    "GOLDEN HARDWARE TRADING",
    "SUNRISE PHARMACY SDN BHD",
    "HAPPY NOODLE HOUSE",
    "GREEN LEAF GROCER",
    "ROYAL STATIONERY SHOP",
    "OCEAN SEAFOOD KITCHEN",
    "METRO BOOK CENTRE",
    "PEARL FLOWER STUDIO",
    "CITY SHOE REPAIR",
)
ITEMS = ("BREAD WHITE", "MILK 1L", "EGGS 10PCS", "RICE 5KG", "TEA BAGS", "SUGAR 1KG", "PENCIL HB", "TAPE CLEAR")


def receipt(i: int, *, total_override: float | None = None) -> tuple[bytes, dict[str, object]]:
    """JPEG bytes of receipt ``i`` and the values its label covers."""
    rng = np.random.default_rng(i)
    prices = [round(float(rng.integers(120, 990)) / 100, 1) for _ in range(3)]
    total = round(sum(prices), 2)
    cash = float(int(total // 10 + 1) * 10)
    day, month = 10 + i % 18, 1 + i % 12
    date = f"{day:02d}/{month:02d}/2018"
    merchant = MERCHANTS[i % len(MERCHANTS)]
    f = ImageFont.truetype(FONT, 22)
    big = ImageFont.truetype(BOLD, 24)
    width = 480
    rows: list[tuple[str, str, ImageFont.FreeTypeFont]] = [
        (merchant, "", big),
        ("", "", f),
        (f"Date: {date} 10:{i % 60:02d}", "", f),
        ("", "", f),
    ]
    for k, p in enumerate(prices):
        rows.append((ITEMS[(i + k) % len(ITEMS)], f"{p:.2f}", f))
    rows += [
        ("", "", f),
        ("TOTAL", f"{total:.2f}", f),
        ("CASH", f"{cash:.2f}", f),
        ("CHANGE", f"{cash - total:.2f}", f),
        ("", "", f),
        ("THANK YOU", "", f),
    ]
    img = Image.new("RGB", (width, 40 + 34 * len(rows)), (246, 244, 238))
    d = ImageDraw.Draw(img)
    y = 24
    for left, right, font in rows:
        if left:
            x = (width - font.getlength(left)) / 2 if font is big or left == "THANK YOU" else 30
            d.text((x, y), left, font=font, fill=(35, 35, 40))
        if right:
            d.text((width - 30 - font.getlength(right), y), right, font=font, fill=(35, 35, 40))
        y += 34
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    a = np.asarray(img, dtype=np.float32) + rng.normal(0, 3.0, size=(img.height, img.width, 1))
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=90)
    values = {
        "merchant": merchant,
        "date": f"2018-{month:02d}-{day:02d}",
        "total": total if total_override is None else total_override,
        "currency": "MYR",
    }
    return buf.getvalue(), values


def make_source_suite(root: Path, n: int, *, fake_ids: tuple[int, ...] = (), wrong_total: tuple[int, ...] = ()) -> Path:
    """A suite of ``n`` drawn receipts r000.. as an importer would write it (genuine unless in ``fake_ids``;
    the receipts in ``wrong_total`` are labelled with a total they do not print)."""
    (root / "files").mkdir(parents=True, exist_ok=True)
    lines = [
        msgspec.json.encode(
            SuiteHeader(suite="receipt", name="test/drawn", meta={"importer": "tests", "source": "drawn"})
        )
    ]
    for i in range(n):
        data, v = receipt(i, total_override=99.99 if i in wrong_total else None)
        rel = f"files/r{i:03d}.jpg"
        (root / rel).write_bytes(data)
        fake = i in fake_ids
        label = ReceiptLabel(
            authenticity=Authenticity(verdict="fake", fake_class="hand_edit", edited_fields=["total"])
            if fake
            else Authenticity(verdict="genuine"),
            **v,
        )  # type: ignore[arg-type]
        lines.append(
            msgspec.json.encode(
                Case(
                    id=f"r{i:03d}",
                    file=rel,
                    sha256=hashlib.sha256(data).hexdigest(),
                    media_type="image/jpeg",
                    label=label,
                )
            )
        )
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root
