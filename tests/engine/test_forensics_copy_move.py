"""Copy-move of characters: a glyph pasted from elsewhere on the same receipt is found and placed;
honest printings, re-encodes, rotations and digitally rendered (noise-free) receipts are not flagged."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from _fx_receipts import receipt
from rabench.engine.forensics import COPY_OPINION, copy_move_signals, visual_signals
from rabench.engine.forensics.glyphs import copy_move


def _jpeg(img: Image.Image, q: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=q)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def _printed(seed: int, noise: float = 14.0, **kw):
    """A receipt whose every character is a separate printing: the same font, independent grain."""
    lines: list = []
    img, boxes = receipt(noise=noise, seed=seed, lines=lines, **kw)
    return img, boxes, lines


def _copy(img: Image.Image, src: tuple[int, int, int, int], dst_xy: tuple[int, int]) -> Image.Image:
    """What an editor's copy-paste does: the pixels of ``src`` laid over ``dst_xy``."""
    out = img.copy()
    out.paste(img.crop(src), dst_xy)
    return out


def _copied(sigs):
    return [s for s in sigs if s.name == "visual.copied_glyph"]


def _measure(sigs) -> float:
    return next((s.value for s in sigs if s.name == "visual.copy_move"), 0.0)


@pytest.mark.parametrize("seed", range(3))
def test_honest_printings_are_not_copies(seed):
    img, boxes, lines = _printed(seed)
    sigs = copy_move_signals(_jpeg(img, 90), boxes, lines)
    assert _copied(sigs) == []
    assert 0.0 <= _measure(sigs) < COPY_OPINION - 1.5
    assert all(not s.reason for s in sigs)


def test_a_pasted_total_is_found_and_placed():
    """The total "42.50" overwritten with the pixels of the item amount "12.00" (same font and size)."""
    img, boxes, lines = _printed(1, total="42.50")
    item = next(b for b in lines if b[1] > boxes["date"][0][3] + 60 and b[0] > 300)  # an amount column box
    tx0, ty0, tx1, ty1 = boxes["total"][0]
    ix0, iy0, ix1, iy1 = item
    fake = _jpeg(_copy(img, (ix0 - 2, iy0 - 2, ix1 + 2, iy1 + 2), (tx0 - 2, ty0 - 2)), 95)
    sigs = copy_move_signals(fake, boxes, lines)
    found = _copied(sigs)
    assert len(found) == 1 and found[0].fields == ("total",) and found[0].kind == "opinion"
    assert found[0].reason and found[0].value >= COPY_OPINION
    # the reason names the source: a box inside the item amount that was copied
    twin = [t for t in copy_move(np.asarray(fake.convert("L"), dtype=np.float32), boxes, lines) if t.field == "total"][
        0
    ]
    cx, cy = (twin.twin[0] + twin.twin[2]) / 2, (twin.twin[1] + twin.twin[3]) / 2
    assert ix0 - 2 <= cx <= ix1 + 2 and iy0 - 2 <= cy <= iy1 + 2
    assert f"x {twin.twin[0]}-{twin.twin[2]}" in found[0].text
    # and the measurement for the risk model is far above a genuine receipt's
    assert _measure(sigs) > _measure(copy_move_signals(_jpeg(img, 92), boxes, lines)) + 2.0


def test_a_pasted_item_amount_gets_the_opinion_but_not_the_measurement():
    """An item amount overwritten with the pixels of another item's amount (an edit that breaks the
    items' sum): the opinion names the line items; the measurement ``visual.copy_move`` stays over
    the other fields only (a dozen item rows' largest score sits higher by chance)."""
    img, boxes, lines = _printed(1, total="42.50")
    amounts = [
        b for b in lines if b[1] > boxes["receipt_number"][0][3] + 30 and b[0] > 300 and b[3] < boxes["subtotal"][0][1]
    ]
    assert len(amounts) == 4
    with_items = {**boxes, "line_items": amounts}
    (sx0, sy0, sx1, sy1), (dx0, dy0, _, _) = amounts[2], amounts[0]
    fake = _jpeg(_copy(img, (sx0 - 2, sy0 - 2, sx1 + 2, sy1 + 2), (dx0 - 2, dy0 - 2)), 95)
    sigs = copy_move_signals(fake, with_items, lines)
    found = _copied(sigs)
    assert len(found) == 1 and found[0].fields == ("line_items",) and found[0].value >= COPY_OPINION
    assert _measure(sigs) < COPY_OPINION - 1.5
    assert _copied(copy_move_signals(_jpeg(img, 95), with_items, lines)) == []


def test_one_pasted_digit_is_enough():
    """Only the changed character pasted: the total's "4" replaced by the subtotal's "4" (42.50 -> 44.50
    style edits copy one glyph from another amount)."""
    img, boxes, lines = _printed(2, total="42.50", items=("4.20", "7.80", "12.00", "19.50"))
    gray = np.asarray(_jpeg(img, 95).convert("L"), dtype=np.float32)
    from rabench.engine.forensics.glyphs import find_glyphs

    g = find_glyphs(gray, lines)
    total = boxes["total"][0]
    in_total = sorted(
        b for b in g.boxes if total[0] <= b[0] and b[2] <= total[2] and total[1] <= b[1] and b[3] <= total[3]
    )
    first_item = next(b for b in lines if b[0] > 300 and b[1] > boxes["receipt_number"][0][3] + 30)
    in_item = sorted(
        b
        for b in g.boxes
        if first_item[0] <= b[0] and b[2] <= first_item[2] and first_item[1] <= b[1] and b[3] <= first_item[3]
    )
    src, dst = in_item[0], in_total[1]  # the item's "4" over the total's "2"
    w, h = src[2] - src[0], src[3] - src[1]
    fake = img.copy()
    fake.paste(Image.new("RGB", (dst[2] - dst[0] + 2, dst[3] - dst[1] + 2), (236, 236, 236)), (dst[0] - 1, dst[1] - 1))
    fake.paste(
        img.crop((src[0] - 1, src[1] - 1, src[0] + w + 1, src[1] + h + 1)),
        (dst[0] - 1, src[1] - first_item[1] + total[1] - 1),
    )
    sigs = copy_move_signals(_jpeg(fake, 95), boxes, lines)
    assert [s.fields for s in _copied(sigs)] == [("total",)]


@pytest.mark.parametrize("how", ["recompress", "turn180", "skew"])
def test_clean_reencode_or_rotation_is_not_flagged(how):
    img, boxes, lines = _printed(4)
    w, h = img.size
    if how == "recompress":
        out = _jpeg(_jpeg(img, 95), 70)
    elif how == "turn180":
        out = _jpeg(img.rotate(180), 88)
        flip = lambda b: (w - b[2], h - b[3], w - b[0], h - b[1])  # noqa: E731
        boxes = {k: [flip(b) for b in v] for k, v in boxes.items()}
        lines = [flip(b) for b in lines]
    else:  # a small turn in an editor resamples every glyph alike
        out = _jpeg(img.rotate(1.5, resample=Image.BICUBIC, fillcolor=(236, 236, 236)), 90)
    sigs = visual_signals(out, boxes, lines)
    assert _copied(sigs) == []
    assert _measure(sigs) < COPY_OPINION - 1.0


def test_digitally_rendered_receipt_is_not_a_copy_move():
    """A noise-free rendering prints every repeated character pixel-identical: the receipt's own
    pairs say so, and nothing is flagged (nor is the measurement high)."""
    img, boxes, lines = _printed(5, noise=0.0)
    for im in (img, _jpeg(img, 90)):
        sigs = copy_move_signals(im, boxes, lines)
        assert _copied(sigs) == []
        assert _measure(sigs) < 1.0


def test_nothing_to_compare_gives_nothing():
    assert copy_move_signals(Image.new("RGB", (80, 60), "white"), {"total": [(5, 5, 60, 40)]}, []) == []


def test_measurements_are_weighed_but_never_reasons():
    """reason=False signals feed the risk model by name only (no kind count) and never reach a Verdict."""
    from rabench.engine.risk import featurize
    from rabench.engine.signals import Signal
    from rabench.engine.target import order_signals

    m = Signal("visual.copy_move", "opinion", "measurement", reason=False, value=2.5)
    o = Signal("visual.copied_glyph", "opinion", "a copy", fields=("total",), value=5.0)
    names = ["kind:opinion", "visual.copy_move", "visual.copied_glyph"]
    assert featurize([m], names).tolist() == [0.0, 2.5, 0.0]
    assert featurize([m, o], names).tolist() == [1.0, 2.5, 5.0]
    shown = [s.to_reason().text for s in order_signals([m, o]) if s.reason]
    assert shown == ["a copy"]


def test_the_fit_picks_up_the_measurements():
    """`rabench engine fit` names its features from the signals it sees: the visual measurements
    become features (by name) and a fake-only copy opinion is weighed up."""
    from rabench.engine.risk import fit, probability
    from rabench.engine.signals import Signal

    def case(copy: float, fake: bool) -> list[Signal]:
        sigs = [
            Signal("visual.copy_move", "opinion", "m", reason=False, value=copy),
            Signal("visual.noise_z", "opinion", "m", reason=False, value=1.0),
        ]
        if fake:
            sigs.append(Signal("visual.copied_glyph", "opinion", "copy", fields=("total",), value=copy))
        return sigs

    rng = np.random.default_rng(0)
    sets = [case(float(rng.uniform(0, 2.5)), False) for _ in range(20)] + [
        case(float(rng.uniform(4.5, 8)), True) for _ in range(20)
    ]
    model = fit(sets, [0] * 20 + [1] * 20)
    assert {"visual.copy_move", "visual.copied_glyph"} <= set(model.features)
    assert "visual.noise_z" not in model.features  # risk.NOT_FITTED: it does not carry to real receipts
    assert probability(model, case(7.0, True)) > 0.5 > probability(model, case(1.0, False))
