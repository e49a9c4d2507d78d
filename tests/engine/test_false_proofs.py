"""Issue 14's false-proof causes, end to end: a small receipt the test renders, read by the
`self` target through real OCR, must not carry a proof it has not earned (and a real
stale thumbnail still must). One test per cause; finer tests of each part live next to
the part (test_checks, test_currency, test_plausibility, test_extract_dates,
test_provenance, test_target_cli).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import piexif
import pytest
from PIL import Image

from _fx_receipts import exif_with_thumbnail, jpeg_bytes, receipt
from rabench.contracts import Verdict
from rabench.engine.target import SelfTarget
from rabench.targets.base import CheckRequest


@pytest.fixture(scope="module")
def target(self_target):
    return self_target


def _check(target: SelfTarget, path: Path, media_type: str, submitted_at: str | None = None) -> Verdict:
    req = CheckRequest(
        case_id=path.stem,
        original=path,
        media_type=media_type,
        prepared=path,
        prepared_media_type=media_type,
        submitted_at=submitted_at,
    )
    return asyncio.run(target.check(req))


def _proofs(v: Verdict) -> list[str]:
    return [r.proof_type or "" for r in v.reasons if r.kind == "proof"]


def _camera_jpeg(img: Image.Image, taken: str, path: Path) -> Path:
    """A phone JPEG: camera EXIF with DateTimeOriginal ``taken`` and a correct thumbnail."""
    t = img.copy()
    t.thumbnail((160, 160))
    ex = piexif.dump(
        {
            "0th": {piexif.ImageIFD.Make: "Apple", piexif.ImageIFD.Model: "iPhone 13"},
            "Exif": {piexif.ExifIFD.DateTimeOriginal: taken.encode()},
            "1st": {piexif.ImageIFD.Compression: 6},
            "thumbnail": jpeg_bytes(t, 80),
        }
    )
    path.write_bytes(jpeg_bytes(img, 90, ex))
    return path


# 1. arithmetic from misreading: an info line ("Einzelpreis") and a quantity line are not items
def test_unit_price_and_quantity_lines_are_not_counted_as_items(target, render, tmp_path):
    rows = [
        ("Datum: 12.03.2024", ""),
        ("", ""),
        ("GUT BIO JOGHURT", "0,35"),
        ("GUT BIO JOGHURT", "0,35"),
        ("GUT BIO JOGHURT", "0,35"),
        ("KAFFEE BOHNEN 2 x 9,95", "19,90"),
        ("  Einzelpreis EUR 9,95", ""),
        ("", ""),
        ("SUMME EUR", "20,95"),
        ("BAR", "20,95"),
    ]
    path = tmp_path / "de.png"
    render(rows, title="MARKT 24").save(path)
    v = _check(target, path, "image/png", "2024-03-15T10:00:00Z")
    assert v.fields.total == 20.95
    assert "arithmetic" not in _proofs(v), [r.text for r in v.reasons]


# 2. thumbnail: a right thumbnail after re-encoding and resizing is no proof; a stale one is
def test_a_right_thumbnail_after_resave_is_not_proof_and_a_stale_total_is(target, tmp_path):
    orig, _ = receipt(total="82.80", items=("20.00", "30.00", "12.80", "20.00"))
    edited, _ = receipt(total="99.41", items=("20.00", "30.00", "12.80", "20.00"))
    smaller = orig.resize((480, 880), Image.Resampling.LANCZOS)  # a messaging app's resize
    right = tmp_path / "right.jpg"
    right.write_bytes(jpeg_bytes(smaller, 72, exif_with_thumbnail(orig, thumb_px=320)))
    stale = tmp_path / "stale.jpg"
    stale.write_bytes(jpeg_bytes(edited, 88, exif_with_thumbnail(orig, thumb_px=320)))
    ok = _check(target, right, "image/jpeg")
    assert "thumbnail_mismatch" not in _proofs(ok), [r.text for r in ok.reasons]
    bad = _check(target, stale, "image/jpeg")
    proof = [r for r in bad.reasons if r.proof_type == "thumbnail_mismatch"]
    assert proof and "total" in (proof[0].fields or ()), [r.text for r in bad.reasons]


# 3. currency and age: ringgit with 6 % GST, a 2018 receipt submitted in 2018
def test_malaysian_receipt_from_2018_is_ringgit_without_age_or_tax_reasons(target, render, tmp_path):
    rows = [
        ("GST REG NO: 001234567890", ""),
        ("Date: 03/04/2018", ""),
        ("", ""),
        ("NASI LEMAK", "8.00"),
        ("TEH TARIK", "2.60"),
        ("", ""),
        ("Total Sales (Excluding GST)", "10.00"),
        ("GST 6%", "0.60"),
        ("Total Sales (Inclusive of GST)", "10.60"),
        ("CASH", "10.60"),
    ]
    path = tmp_path / "my.png"
    render(rows, title="KEDAI MAKAN SDN BHD").save(path)
    v = _check(target, path, "image/png", "2018-04-05T09:00:00Z")
    assert v.fields.currency == "MYR"
    assert not _proofs(v), [r.text for r in v.reasons]
    plaus = " ".join(r.text for r in v.reasons if r.kind == "plausibility")
    assert "old" not in plaus and "AU" not in plaus and "GB" not in plaus, plaus


# 4. photo before purchase from an item code: "XE11-22 - 30" is not 2030-11-22
def test_an_item_code_is_not_a_purchase_date_for_the_photo_date_proof(target, render, tmp_path):
    rows = [
        ("Date: 25/05/2024", ""),
        ("", ""),
        ("XE11-22 - 30 KABEL 3M", "9.99"),
        ("USB HUB", "15.00"),
        ("", ""),
        ("TOTAL", "24.99"),
        ("CARD", "24.99"),
    ]
    img = render(rows, title="ELECTRO SHOP")
    path = _camera_jpeg(img, "2024:05:26 18:30:00", tmp_path / "code.jpg")
    v = _check(target, path, "image/jpeg", "2024-05-30T09:00:00Z")
    assert v.fields.date == "2024-05-25"
    assert "photo_before_purchase" not in _proofs(v), [r.text for r in v.reasons]


# 5. a time before the date: "09:38 25.04.2020" is 2020-04-25, not 2009-04-25
def test_time_before_date_is_read_as_the_date_and_gives_no_proof(target, render, tmp_path):
    rows = [
        ("09:38 25.04.2020", ""),
        ("", ""),
        ("BROT", "2,49"),
        ("MILCH", "1,19"),
        ("", ""),
        ("SUMME EUR", "3,68"),
        ("BAR", "3,68"),
    ]
    img = render(rows, title="BAECKEREI")
    path = _camera_jpeg(img, "2020:04:26 08:00:00", tmp_path / "time.jpg")
    v = _check(target, path, "image/jpeg", "2020-04-28T09:00:00Z")
    assert v.fields.date == "2020-04-25"
    assert not _proofs(v), [r.text for r in v.reasons]


# 6. tax equal to the subtotal on a tax-inclusive receipt: a verdict, not a ZeroDivisionError
def test_tax_equal_to_the_subtotal_is_a_verdict_not_a_crash(target, render, tmp_path):
    rows = [
        ("Date: 03/04/2018", ""),
        ("", ""),
        ("ITEM A", "5.00"),
        ("", ""),
        ("Subtotal", "5.00"),
        ("GST 6% incl.", "5.00"),
        ("TOTAL", "5.00"),
    ]
    path = tmp_path / "zero.png"
    render(rows, title="SHOP SDN BHD").save(path)
    v = _check(target, path, "image/png", "2018-04-05T09:00:00Z")
    assert v.risk is not None and 0.0 <= v.risk <= 1.0


# 7. `engine check` prepares the file as a run does: see
# test_target_cli.py::test_check_prepares_the_file_as_a_run_does_and_gives_the_runs_verdict
# (a sideways photo > 3072 px read upright, and the same verdict as the run's).


def _strip_photo(seed: int):
    """A phone-style photo: a wide page with strong edges and a ruled line, the receipt's
    text a narrow column of small print (as when a receipt is shot on a table)."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    rng = np.random.default_rng(seed)
    w, h = 1158, 1600
    bg = (rng.normal(0, 1, (h // 8, w // 8)).cumsum(1) * 6 + 110).clip(0, 255).astype("uint8")
    img = Image.fromarray(bg).resize((w, h), Image.BICUBIC).convert("RGB")
    d = ImageDraw.Draw(img)
    d.rectangle((60, 60, w - 60, h - 60), fill=(235, 235, 240), outline=(40, 30, 20), width=6)
    d.line((60, 300, w - 60, 300), fill=(60, 50, 40), width=5)
    font = ImageFont.truetype("DejaVuSansMono.ttf", 13)
    for k in range(60):
        d.text(
            (420, 360 + 17 * k),
            "".join(rng.choice(list("ABCDEFGH 0123456789."), size=30)),
            fill=(30, 30, 30),
            font=font,
        )
    img = img.filter(ImageFilter.GaussianBlur(0.8))
    return Image.fromarray((np.asarray(img).astype(float) + rng.normal(0, 2.0, (h, w, 3))).clip(0, 255).astype("uint8"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_thumbnail_whose_whole_text_column_differs_alike_is_not_proof(seed):
    """Cause 2, as met on a genuine re-photographed receipt: the text is a narrow strip of the
    photo, so the judged windows are mostly the page's edges; the thumbnail's small print
    differs from the image alike all over the column (resampling). One text window then stood
    out against the clean edges and was claimed as a local edit (score 1.5-1.8). A window must
    stand out among windows with as much print as it has."""
    import io

    from PIL import Image

    from rabench.engine.provenance import thumbnail

    photo = _strip_photo(seed)
    thumb = photo.copy()
    thumb.thumbnail((160, 160), Image.LANCZOS)
    column = (int(0.35 * thumb.width), int(0.22 * thumb.height), int(0.75 * thumb.width), int(0.90 * thumb.height))
    thumb.paste(photo.resize(thumb.size, Image.NEAREST).crop(column), column[:2])
    tb, ib = io.BytesIO(), io.BytesIO()
    thumb.save(tb, "JPEG", quality=75)
    photo.save(ib, "JPEG", quality=90)
    result = thumbnail.compare(tb.getvalue(), Image.open(io.BytesIO(ib.getvalue())))
    assert result.checked and not result.mismatch
    assert result.local < thumbnail.OPINION_SHARE  # not even an opinion
