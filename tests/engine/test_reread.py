"""Re-reading the totals block at full resolution (``extract.reread``): a total the first read
missed is recovered from the pixels, and a re-read never makes an arithmetic proof."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from rabench.engine import ocr as ocr_mod
from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_ocr
from rabench.engine.extract.reread import FRAMINGS, reread_amounts
from rabench.engine.ocr import OcrLine

MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
ROWS = [
    ("Bread", "3.20"),
    ("Milk", "1.15"),
    ("Cheese", "4.85"),
    ("Apples", "2.30"),
    ("Coffee", "6.40"),
    ("Subtotal", "17.90"),
    ("Tax", "1.43"),
    ("TOTAL", "19.33"),
]


def _lines(rows: list[tuple[str, str, float]]) -> list[OcrLine]:
    """OCR lines as a first read gives them: a label at the left, its amount at the right."""
    out = [OcrLine("CORNER BAKERY", (20, 10, 300, 40), 0.99)]
    for k, (label, amount, conf) in enumerate(rows, start=1):
        y = 10 + 40 * k
        out.append(OcrLine(label, (20, y, 20 + 14 * len(label), y + 30), 0.99))
        if amount:
            out.append(OcrLine(amount, (500 - 14 * len(amount), y, 500, y + 30), conf))
    return out


def _first(lines: list[OcrLine]):  # type: ignore[no-untyped-def]
    ex = extract_fields(rows_from_ocr(lines))
    return ex, totals_add_up(ex)


def _painted(lines: list[OcrLine]):  # type: ignore[no-untyped-def]
    """A picture where line k's box is painted grey level k + 1, so a fake recogniser can tell
    which line a crop shows (its centre pixel)."""
    img = Image.new("RGB", (520, 40 * len(lines) + 60), "white")
    draw = ImageDraw.Draw(img)
    for k, ln in enumerate(lines):
        draw.rectangle(ln.box, fill=(k + 1,) * 3)
    return lambda: (img, 1.0)


def _no_region(_: Image.Image) -> list[OcrLine]:
    return []


def _reads(by_amount: dict[str, list[tuple[str, float]]], lines: list[OcrLine]):  # type: ignore[no-untyped-def]
    """A recogniser that answers per line (every framing of a line in turn), and records calls."""
    calls: list[int] = []
    seen: dict[int, int] = {}

    def recognise(crops: list[Image.Image]) -> list[tuple[str, float]]:
        calls.append(len(crops))
        out: list[tuple[str, float]] = []
        for c in crops:
            k = c.getpixel((c.width // 2, c.height // 2))[0] - 1
            n = seen[k] = seen.get(k, -1) + 1
            text = lines[k].text
            out.append(by_amount.get(text, [(text, 0.99)] * len(FRAMINGS))[n % len(FRAMINGS)])
        return out

    return recognise, calls


def test_a_receipt_that_adds_up_is_not_re_read():
    lines = _lines([(label, amount, 0.99) for label, amount in ROWS])
    ex, result = _first(lines)
    assert result.check.status == "passed"
    recognise, calls = _reads({}, lines)
    out, _, done = reread_amounts(lines, ex, True, _painted(lines), recognise=recognise, read_region=_no_region)
    assert calls == [] and done.lines == 0 and out is ex


def test_a_re_read_never_makes_a_proof_where_the_first_read_had_a_doubt():
    # the first read: a total at 0.85, below what a proof may rest on: not reconciled, no proof
    lines = _lines([*((label, amount, 0.99) for label, amount in ROWS[:-1]), ("TOTAL", "19.88", 0.85)])
    ex, result = _first(lines)
    assert result.signal is not None and result.signal.kind == "opinion"
    # every framing re-reads 19.38 surely: rule A takes it, and 17.90 + 1.43 is still not 19.38 —
    # with that total read at 0.99 the check would claim a proof; after a re-read it must not
    recognise, calls = _reads({"19.88": [("19.38", 0.99)] * len(FRAMINGS)}, lines)
    out, _, done = reread_amounts(lines, ex, False, _painted(lines), recognise=recognise, read_region=_no_region)
    assert out.fields.total == 19.38 and done.changed and calls
    after = totals_add_up(out)
    assert after.signal is not None and after.signal.kind == "opinion" and after.check.status == "not_run"
    assert "re-read at full resolution" in (after.signal.text or "")


def test_a_re_read_that_disagrees_takes_a_proof_away_and_never_changes_a_sure_amount():
    # the first read is sure of 19.88 (a proof: 17.90 + 1.43 = 19.33); the framings read 19.33
    lines = _lines([*((label, amount, 0.99) for label, amount in ROWS[:-1]), ("TOTAL", "19.88", 0.99)])
    ex, result = _first(lines)
    assert result.signal is not None and result.signal.kind == "proof"
    recognise, _ = _reads({"19.88": [("19.33", 0.99)] * len(FRAMINGS)}, lines)
    out, _, done = reread_amounts(lines, ex, False, _painted(lines), recognise=recognise, read_region=_no_region)
    assert out.fields.total == 19.88 and not done.changed  # read at 0.99: never replaced
    after = totals_add_up(out)
    assert after.signal is not None and after.signal.kind == "opinion"


def test_reconciling_takes_only_a_value_a_framing_read_and_only_one():
    # 150.00 at 0.80 for 130.00: one framing reads 130.00, which reconciles; the others 130.06
    rows = [
        ("Yarn", "130.00", 0.99),
        ("Subtotal", "130.00", 0.99),
        ("Total", "150.00", 0.80),
        ("Payment", "130.00", 0.99),
    ]
    lines = _lines(rows)
    ex, _ = _first(lines)
    assert ex.fields.total == 150.0
    reads = {"150.00": [("130.06", 0.83), ("130.06", 0.83), ("130.00", 0.71), ("130.06", 0.81)]}
    recognise, _ = _reads(reads, lines)
    out, _, done = reread_amounts(lines, ex, False, _painted(lines), recognise=recognise, read_region=_no_region)
    assert out.fields.total == 130.0 and done.changed  # what was paid agrees: 130.00
    assert totals_add_up(out).check.status != "failed"
    # no framing read the value that would reconcile: nothing is invented
    recognise, _ = _reads({"150.00": [("130.06", 0.83)] * len(FRAMINGS)}, lines)
    out, _, done = reread_amounts(lines, ex, False, _painted(lines), recognise=recognise, read_region=_no_region)
    assert out.fields.total == 150.0 and not done.changed


def _tall_receipt(tiny: int) -> Image.Image:
    """3000 px wide (the first read sees it at 1280): labels and amounts at 90 px, the total's
    digits at ``tiny`` px — about 5 px at the size the first read sees."""
    size, width = 90, 3000
    font, small = ImageFont.truetype(MONO, size), ImageFont.truetype(MONO, tiny)
    rows = [("CORNER BAKERY", ""), *ROWS]
    lh = int(size * 1.6)
    img = Image.new("RGB", (width, 80 + lh * len(rows)), "white")
    draw = ImageDraw.Draw(img)
    for k, (label, amount) in enumerate(rows):
        y = 30 + k * lh
        draw.text((30, y), label, font=font, fill="black")
        if amount:
            f = small if label == "TOTAL" else font
            draw.text(
                (width - 30 - draw.textlength(amount, font=f), y + (size - tiny) // 2 if f is small else y),
                amount,
                font=f,
                fill="black",
            )
    return img


@pytest.mark.slow
def test_a_total_printed_too_small_for_the_first_read_is_read_at_full_resolution(ocr_pool):
    img = _tall_receipt(11)
    first = ocr_mod.read_image(img)
    ex, result = _first(first.lines)
    assert ex.fields.total is None  # the first read missed the total's digits
    out, lines, done = reread_amounts(
        first.lines,
        ex,
        result.check.status == "passed",
        lambda: (img, 1.0),
        recognise=ocr_mod.recognise,
        read_region=ocr_mod.read_region,
    )
    assert out.fields.total == 19.33 and done.changed
    assert totals_add_up(out).check.status == "passed"
    assert any("re-read at full resolution" in d for d in out.doubts)


def test_a_re_read_never_moves_the_total_to_another_row():
    # a forger's total (62.90, read at 0.90) under the receipt's own "Total incl. GST 31.47": a
    # framing reads it "12.90" (one digit), which would hand the total to the row above and reconcile
    rows = [
        ("Paper", "41.07", 0.99),
        ("Great Saving", "-9.60", 0.99),
        ("Total Incl GST", "31.47", 0.99),
        ("Total", "62.90", 0.90),
    ]
    lines = _lines(rows)
    ex, result = _first(lines)
    assert ex.fields.total == 62.9 and result.check.status != "passed"
    recognise, _ = _reads({"62.90": [("62 .96", 0.55), ("12.90", 0.75), ("12.90", 0.75), ("2.6", 0.67)]}, lines)
    out, _, done = reread_amounts(lines, ex, False, _painted(lines), recognise=recognise, read_region=_no_region)
    assert out.fields.total == 62.9 and not done.changed
