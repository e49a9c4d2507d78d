"""The forge's parts: character cells, finding labelled values, new values, saving, labels, CLI errors."""

from __future__ import annotations

import datetime as dt
import io
import sys
from pathlib import Path

import msgspec
import numpy as np
import piexif
import pytest
from PIL import Image, ImageDraw, ImageFont

from rabench.cases.forge import edits as ed
from rabench.cases.forge import printed
from rabench.cases.forge import saving as sv
from rabench.cases.forge.cells import cut_line
from rabench.cases.forge.labels import forged_label
from rabench.cases.forge.locate import find_dates, locate
from rabench.cases.forge.make import Output
from rabench.cases.forge.ocr_cache import Reader
from rabench.cli.main import main
from rabench.contracts import Authenticity, LineItem, ReceiptLabel
from rabench.engine.ocr import OcrLine

sys.path.insert(0, str(Path(__file__).parent))
from _forge_receipts import make_source_suite, receipt

FONTS = "/usr/share/fonts/truetype/dejavu/"


@pytest.mark.parametrize("font", ["DejaVuSans.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf"])
def test_cells_find_each_printed_character(font):
    f = ImageFont.truetype(FONTS + font, 26)
    text = "TOTAL 1,207.50"
    img = Image.new("L", (420, 60), 245)
    ImageDraw.Draw(img).text((20, 12), text, font=f, fill=30)
    gray = np.asarray(img)
    x0, y0, x1, y1 = ImageDraw.Draw(img).textbbox((20, 12), text, font=f)
    cells = cut_line(gray, (x0, y0, x1, y1), text)
    assert cells is not None and cells.chars == text.replace(" ", "")
    k = 0
    for i, ch in enumerate(text):
        if ch == " ":
            continue
        # the character's own ink, from the font's placement of this prefix
        left = 20 + f.getlength(text[:i])
        bx0, _, bx1, _ = f.getbbox(ch)
        centre = left + (bx0 + bx1) / 2
        a, b = cells.xs[k]
        assert a <= centre <= b, (ch, a, centre, b)
        k += 1


def test_cells_refuse_a_box_without_ink():
    gray = np.full((40, 200), 240, dtype=np.uint8)
    assert cut_line(gray, (10, 10, 190, 30), "12.50") is None


@pytest.mark.parametrize(
    "text,iso,printed_as",
    [
        ("25/12/20188:13:39PM", "2018-12-25", "25/12/2018"),  # the OCR ran the time on
        ("10Mar201818:24", "2018-03-10", "10Mar2018"),
        ("[Sales]2018-01-0522:55:25", "2018-01-05", "2018-01-05"),
        ("Date:02/02/1719:46", "2017-02-02", "02/02/17"),
        ("Oct3,2016", "2016-10-03", "Oct3,2016"),
        ("06/03/2018", "2018-03-06", "06/03/2018"),
    ],
)
def test_dates_are_found_as_labelled(text, iso, printed_as):
    spots = find_dates([OcrLine(text, (0, 0, 100, 20), 0.99)], iso)
    assert [s.spot.text for s in spots] == [printed_as]


def test_a_date_is_not_found_under_another_reading():
    # 06/03/2018 read month-first is the 3rd of June: not the labelled 6th of March
    assert find_dates([OcrLine("06/03/2018", (0, 0, 100, 20), 0.99)], "2018-06-30") == []


def _line(text: str, y: int, x: int = 20) -> OcrLine:
    return OcrLine(text, (x, y, x + 10 * len(text), y + 20), 0.99)


def test_total_is_found_on_total_rows_only_and_items_that_add_up():
    lines = [
        _line("Bread", 100),
        _line("9.00", 100, 300),
        _line("TOTAL", 140),
        _line("9.00", 140, 300),
        _line("CASH", 170),
        _line("10.00", 170, 300),
        _line("CHANGE", 200),
        _line("1.00", 200, 300),
    ]
    f = locate(lines, total=9.0, date=None, merchant=None, image_height=400)
    assert [(a.spot.line, a.spot.text) for a in f.total] == [(3, "9.00")]  # not the item row
    assert [a.value for a in f.items] == [9.0] and f.adds_up
    assert f.tender.value == 10.0 and f.change.value == 1.0
    assert "total" not in f.why
    f = locate(lines, total=12.5, date=None, merchant=None, image_height=400)
    assert f.total == [] and "not printed on a row that says total" in f.why["total"]


def test_a_printing_of_the_total_that_did_not_read_stops_the_edit():
    """ "Total incl. GST 2700" (the point lost): editing only the readable printing would leave
    the image showing the old total beside the new one, so nothing is edited."""
    lines = [
        _line("Bread", 100),
        _line("27.00", 100, 300),
        _line("TotalInclGST", 140),
        _line("2700", 140, 300),
        _line("TotalPayable", 170),
        _line("27.00", 170, 300),
    ]
    f = locate(lines, total=27.0, date=None, merchant=None, image_height=400)
    assert f.total == [] and "could not be read" in f.why["total"]
    lines = [_line("Date:05/03/2018", 50), _line("Printed 5-3-2O18", 300)]
    f = locate(lines, total=None, date="2018-03-05", merchant=None, image_height=400)
    assert f.date == [] and "could not be read" in f.why["date"]


def test_new_values_keep_the_receipt_format():
    rng = np.random.default_rng(0)
    for _ in range(20):
        t = printed.new_total("1,207.50", 1207.5, rng)
        assert "," in t and t[-3] == "." and printed.amount_value(t) > 1207.5
        t = printed.new_total("26,60", 26.6, rng)
        assert t[-3] == "," and printed.amount_value(t) > 26.6
    spot = find_dates([OcrLine("5-Mar-18", (0, 0, 1, 1), 1.0)], "2018-03-05")[0]
    for _ in range(20):
        day, text = printed.new_date(spot, dt.date(2018, 3, 5), rng)
        assert len(text) == len("5-Mar-18") and day != dt.date(2018, 3, 5)
        assert text == printed.print_date(spot, day)


def test_a_photo_edited_after_it_was_taken_keeps_the_old_thumbnail():
    rng = np.random.default_rng(1)
    before = Image.new("RGB", (300, 400), (240, 240, 235))
    ImageDraw.Draw(before).rectangle((60, 60, 240, 140), fill=(20, 20, 20))
    after = before.copy()
    ImageDraw.Draw(after).rectangle((60, 60, 240, 140), fill=(240, 240, 235))
    b, a = sv.photograph([before, after], rng)
    saved = sv.save_photo(a, dt.datetime(2024, 5, 2, 10, 0), rng, thumbnail_of=b)
    thumb = Image.open(io.BytesIO(piexif.load(saved.data)["thumbnail"])).convert("L")
    shown = Image.open(io.BytesIO(saved.data)).convert("L").resize(thumb.size)
    old = b.convert("L").resize(thumb.size)
    diff_shown = np.abs(np.asarray(thumb, float) - np.asarray(shown, float)).max()
    diff_old = np.abs(np.asarray(thumb, float) - np.asarray(old, float)).max()
    assert diff_shown > 100 > 3 * diff_old  # the thumbnail shows the black box the image no longer has
    exif = piexif.load(saved.data)
    assert exif["Exif"][piexif.ExifIFD.DateTimeOriginal] == b"2024:05:02 10:00:00"


def _label(**kw) -> ReceiptLabel:
    return ReceiptLabel(
        authenticity=Authenticity(verdict="genuine"),
        total=12.5,
        date="2018-03-05",
        merchant="CORNER BAKERY",
        currency="MYR",
        **kw,
    )


def _out(changes, edited=(), before=None) -> Output:
    return Output(b"", "image/jpeg", "intact", None, changes, edited, "editor", {"adds_up_before": before})


def test_labels_state_what_the_edit_did_to_the_arithmetic():
    items = [LineItem("Bread", 4.5), LineItem("Milk", 8.0)]
    lab = forged_label(
        _label(line_items=items),
        "item_consistent",
        _out({"line_item": (4.5, 6.0), "total": 14.0, "subtotal_from": 12.5}, ("total",), True),
    )
    assert lab.is_fake and lab.authenticity.fake_class == "hand_edit" and lab.adds_up is True
    assert lab.total == 14.0 and [i.total for i in lab.line_items] == [6.0, 8.0]
    lab = forged_label(_label(line_items=items), "item_break", _out({"line_item": (8.0, 9.5)}, (), True))
    assert lab.adds_up is False and lab.total == 12.5 and lab.authenticity.edited_fields == []
    lab = forged_label(_label(), "total", _out({"total": 19.5}, ("total",), None))
    assert lab.total == 19.5 and lab.adds_up is msgspec.UNSET  # nothing known about the items
    lab = forged_label(_label(), "total", _out({"total": 19.5}, ("total",), True))
    assert lab.adds_up is False
    lab = forged_label(_label(), "rephoto", _out({}, (), True))
    assert not lab.is_fake and lab.adds_up is True and lab.provenance == "intact"


def test_item_and_total_changed_together_still_add_up(ocr):
    """The consistent edit changes one item, the total and the change, and the image shows it."""
    data, v = receipt(4)
    image = Image.open(io.BytesIO(data)).convert("RGB")
    reader = Reader(None)
    lines = reader.read(image, "x")
    found = locate(lines, total=v["total"], date=v["date"], merchant=v["merchant"], image_height=image.height)
    assert found.adds_up and found.change is not None
    made = ed.edit_item(
        ed.Receipt(image, lines, found, reader), v["total"], np.random.default_rng(2), consistent=True, label_items=None
    )
    buf = io.BytesIO()
    Image.fromarray(np.clip(made.pixels, 0, 255).astype(np.uint8)).save(buf, "PNG")
    amounts = []
    for text in ocr(buf.getvalue()):
        t = text.replace(" ", "")
        if t.replace(".", "").isdigit() and "." in t:
            amounts.append(float(t))
    items, total, cash, change = amounts[:3], amounts[3], amounts[4], amounts[5]
    assert total == made.changes["total"] != v["total"]
    assert round(sum(items), 2) == total and round(cash - total, 2) == change


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["cases", "forge", str(tmp_path / "missing"), "--out", str(tmp_path / "o1")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such suite folder" in err[0]

    src = make_source_suite(tmp_path / "fakes", 2, fake_ids=(0, 1))
    assert main(["cases", "forge", str(src), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no genuine receipt images" in err[0]

    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("keep me")
    assert main(["cases", "forge", str(src), "--out", str(busy)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already exists" in err[0]
    assert (busy / "x").read_text() == "keep me"


def test_cli_shows_progress_and_says_why_edits_were_not_made(tmp_path, capsys):
    """Receipts labelled with a total they do not print get no total edit, and the summary says why."""
    src = make_source_suite(tmp_path / "src", 4, wrong_total=(0, 1, 2, 3))
    out = tmp_path / "out"
    assert main(["cases", "forge", str(src), "--out", str(out), "--seed", "1", "--no-cache"]) == 0
    cap = capsys.readouterr()
    assert "forged from 4/4 receipts" in cap.err
    assert "total: the labelled total is not printed on a row that says total" in cap.out
    assert "fakes over" in cap.out and "genuine controls" in cap.out
    from rabench.cases.manifest import open_suite

    assert all(lc.case.tags["forge"] != "total" for lc in open_suite(out))
