"""The fake classes' own work: what each fraud tool does to a receipt.

- ``ai_full_doc``: plausible-but-wrong content (a tax rate the country does not
  have, misspelt labels, garbled item names, an invented merchant); rendering
  quirks come from ``render.Quirks``.
- ``inpaint``: one field's region regenerated in the same photo, smoother and
  slightly tinted (no sensor noise) and blended with a feathered mask.
- ``retype``: the field's value painted over with a flat paper-coloured patch
  and retyped upright in another font (font metrics and missing noise differ).
- ``generator_doc``: a receipt-generator template's placeholder-like details.
pdf_edit and photo_date live in ``build`` (they are about the file, not the pixels).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from rabench.cases.synth import capture as cap
from rabench.cases.synth.catalogue import LOCALES, MERCHANT_WORDS
from rabench.cases.synth.document import Doc, Item, expected_total
from rabench.cases.synth.render import font

Box = tuple[int, int, int, int]

_WRONG_RATES = (17.0, 12.5, 9.0, 15.0, 22.0, 6.5)
_MISSPELL = {
    "TOTAL": "TOTAI",
    "SUBTOTAL": "SUBTOTL",
    "SUMME": "SUMNE",
    "Thank you for your visit!": "Thank you for you visit!!",
}


def _garble(word: str, rng: np.random.Generator) -> str:
    if len(word) < 4:
        return word
    i = int(rng.integers(1, len(word) - 2))
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def ai_full_doc(doc: Doc, rng: np.random.Generator) -> Doc:
    """Plausible but wrong details, as image models write them."""
    out = doc
    changes = rng.permutation(4)[: int(rng.integers(1, 4))]
    for c in changes:
        if c == 0 and out.tax is not None:  # a tax rate the country does not use
            rate = float(_WRONG_RATES[int(rng.integers(len(_WRONG_RATES)))])
            out = dataclasses.replace(out, tax_rate=rate)
        elif c == 1:  # garbled item names
            items = tuple(
                Item(" ".join(_garble(w, rng) for w in it.desc.split(" ")), it.total, it.qty, it.unit, it.qty_fmt)
                for it in out.items
            )
            out = dataclasses.replace(out, items=items)
        elif c == 2:  # invented merchant
            a, b = rng.choice(len(MERCHANT_WORDS), size=2, replace=False)
            noun = {
                "thermal": "Cafe",
                "supermarket": "Foods",
                "restaurant": "Grill",
                "fuel": "Petrol",
                "hotel": "Hotel",
                "taxi": "Cabs",
                "pharmacy": "Pharma",
                "ecommerce": "Shop",
            }[out.layout]
            out = dataclasses.replace(out, merchant=f"{MERCHANT_WORDS[a]} {MERCHANT_WORDS[b]} {noun}")
        else:  # an address line in the wrong country's format
            other = LOCALES[("us", "de", "fr", "gb")[int(rng.integers(4))]]
            out = dataclasses.replace(out, address=(out.address[0], f"{other.city[0]} {int(rng.integers(100, 99999))}"))
    return out


def generator_doc(doc: Doc, rng: np.random.Generator) -> Doc:
    """Template details a receipt generator fills in: placeholder street, sequential number, round time."""
    street = ("123 Main Street", "1 Example Road", "Musterstraße 1", "10 Rue Exemple")[int(rng.integers(4))]
    return dataclasses.replace(
        doc,
        address=(street, doc.address[1]),
        receipt_number=f"{int(rng.integers(1, 999)):06d}",
        time=f"{int(rng.integers(9, 18)):02d}:00",
    )


def user_typed_total(doc: Doc, rng: np.random.Generator) -> Doc:
    """Generator users type the total themselves; sometimes it does not match the lines."""
    delta = int(rng.integers(1, 9)) * (10 if doc.loc.currency.decimals else 100)
    return dataclasses.replace(doc, total=expected_total(doc) + delta)


def field_mask(size: tuple[int, int], boxes: list[Box], pad: int = 6) -> Image.Image:
    m = Image.new("L", size, 0)
    d = ImageDraw.Draw(m)
    for b in boxes:
        d.rectangle((b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad), fill=255)
    return m


def inpaint(
    original: Image.Image, regenerated: Image.Image, mask_doc: Image.Image, g: cap.Geom, rng: np.random.Generator
) -> Image.Image:
    """Blend the regenerated capture into the original inside the (warped, feathered) field mask."""
    mask = cap.warp_mask(mask_doc, g).filter(ImageFilter.GaussianBlur(2.5))
    regen = regenerated.convert(original.mode)
    if original.mode == "RGB":
        a = np.asarray(regen, dtype=np.float32) * np.array(rng.uniform(0.97, 1.03, size=3), dtype=np.float32)
        regen = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    return Image.composite(regen, original, mask)


def retype(
    img: Image.Image,
    boxes_out: list[Box],
    texts: list[str],
    family: str,
    rng: np.random.Generator,
    aligns: list[str] | None = None,
) -> Image.Image:
    """Cover each box with the surrounding paper colour and type the new text in another font."""
    mode = img.mode
    out = img.convert("RGB")
    a = np.asarray(out)
    d = ImageDraw.Draw(out)
    other = {"mono": "sans", "sans": "mono", "serif": "sans", "condensed": "serif"}[family]
    aligns = aligns or ["right"] * len(texts)
    for (x0, y0, x1, y1), text, align in zip(boxes_out, texts, aligns):
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(out.width - 1, x1), min(out.height - 1, y1)
        if x1 <= x0 or y1 <= y0:
            continue
        ring = (
            np.concatenate([a[max(0, y0 - 6) : y0, x0:x1].reshape(-1, 3), a[y1 : y1 + 6, x0:x1].reshape(-1, 3)])
            if y0 > 0
            else a[y1 : y1 + 6, x0:x1].reshape(-1, 3)
        )
        paper = tuple(int(v) for v in np.median(ring, axis=0)) if len(ring) else (245, 245, 245)
        region = a[y0:y1, x0:x1].reshape(-1, 3)
        ink = tuple(int(v) for v in np.percentile(region, 3, axis=0)) if len(region) else (30, 30, 30)
        h = y1 - y0
        f = font(other, bool(rng.random() < 0.5), max(12, int(h * float(rng.uniform(1.0, 1.2)))))
        tw = f.getlength(text)
        pad = int(rng.integers(1, 4))
        tx = {"right": x1 - tw, "center": (x0 + x1 - tw) / 2, "left": x0}.get(align, x1 - tw)
        d.rectangle((min(x0, int(tx)) - pad, y0 - pad, max(x1, int(tx + tw)) + pad, y1 + pad), fill=paper)
        d.text((tx + float(rng.uniform(-3, 3)), y0 - h * 0.12 + float(rng.uniform(-2, 2))), text, font=f, fill=ink)
    return out.convert(mode) if mode != "RGB" else out
