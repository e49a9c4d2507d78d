"""``rabench cases forge``: labelled forgeries and genuine controls from a suite of drawn receipts."""

from __future__ import annotations

import hashlib
import io
import re
import sys
from datetime import date, datetime
from pathlib import Path

import numpy as np
import piexif
import pytest
from PIL import Image

from rabench.cases.forge import forge_suite
from rabench.cases.forge.plan import FAKE_CLASS
from rabench.cases.manifest import open_suite
from rabench.cases.validate import validate_suite
from rabench.contracts.case import submission_date
from rabench.contracts.labels import FakeClass

sys.path.insert(0, str(Path(__file__).parent))
from _forge_receipts import make_source_suite

N = 10


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return make_source_suite(tmp_path_factory.mktemp("src") / "suite", N)


@pytest.fixture(scope="module")
def forged(source: Path, tmp_path_factory) -> tuple[Path, object, list[tuple[int, int]]]:
    out = tmp_path_factory.mktemp("forged") / "suite"
    ticks: list[tuple[int, int]] = []
    summary = forge_suite(
        source, out, seed=3, progress=lambda d, t: ticks.append((d, t)), ocr_cache=tmp_path_factory.mktemp("ocr")
    )
    return out, summary, ticks


def _cases(root: Path):
    return list(open_suite(root))


def test_forged_suite_validates_with_fakes_and_controls(forged):
    out, summary, ticks = forged
    _, problems = validate_suite(out)
    assert problems == []
    cases = _cases(out)
    fakes = [lc for lc in cases if lc.case.label.is_fake]
    genuine = [lc for lc in cases if not lc.case.label.is_fake]
    assert len(fakes) == summary.n_fakes >= 6 and len(genuine) == summary.n_controls >= 3
    assert len({lc.case.tags["forge"] for lc in fakes}) >= 4
    for lc in fakes:
        assert lc.case.label.authenticity.fake_class in FakeClass.__args__  # type: ignore[attr-defined]
        assert lc.case.label.authenticity.fake_class == FAKE_CLASS[lc.case.tags["forge"]]
        assert lc.case.tags["class"] == lc.case.label.authenticity.fake_class
    assert all(lc.case.tags["class"] == "genuine" for lc in genuine)
    assert all(lc.case.tags["domain"] == "real" for lc in cases)  # the source header names an importer
    assert ticks[-1] == (N, N) and [d for d, _ in ticks] == list(range(1, N + 1))


def test_no_forgery_meets_its_own_original(forged):
    out, _, _ = forged
    suite = open_suite(out)
    sources = suite.header.meta["forged"]["sources"]
    by_source: dict[str, list] = {}
    for lc in suite:
        assert lc.case.lineage is None
        assert sources[lc.case.id] not in lc.case.id  # ids say nothing about the source or the kind
        by_source.setdefault(sources[lc.case.id], []).append(lc.case)
    pairs = 0
    for cases in by_source.values():
        kinds = {c.label.is_fake for c in cases}
        assert len(kinds) == 1, "a receipt is either a control or forged, never both"
        if len(cases) > 1:  # two forgeries of one receipt are never the same purchase
            a, b = sorted(cases, key=lambda c: c.id)
            assert (a.label.total, a.label.date) != (b.label.total, b.label.date)
            # ... but may look like one receipt to a duplicate memory: the second is checked after the
            # first, so what the memory holds (and the figures) do not depend on the run's timing
            assert (a.after, b.after) == ([], [a.id])
            pairs += 1
        else:
            assert cases[0].after == []
    assert pairs >= 1


def test_edited_values_are_what_the_image_prints(forged, ocr):
    """The label of a hand edit carries the new value, and the image prints it (read by OCR)."""
    out, _, _ = forged
    checked = 0
    for lc in _cases(out):
        kind = lc.case.tags["forge"]
        if kind not in ("total", "date", "merchant"):
            continue
        label = lc.case.label
        text = "".join(ocr(lc.read_bytes())).replace(" ", "")
        assert label.authenticity.edited_fields == [kind]
        if kind == "total":
            assert f"{label.total:.2f}" in text
        elif kind == "date":
            d = date.fromisoformat(label.date)
            assert f"{d.day:02d}/{d.month:02d}/{d.year}" in text
        else:
            assert label.merchant.replace(" ", "") in text
        checked += 1
    assert checked >= 3


def test_submission_follows_the_printed_date_and_camera_dates_fit(forged):
    out, _, _ = forged
    seen_photo_date = 0
    for lc in _cases(out):
        c = lc.case
        assert c.submitted_at is not None  # every drawn receipt has a labelled date
        printed = date.fromisoformat(c.label.date)
        submitted = datetime.fromisoformat(c.submitted_at)
        assert 1 <= (submitted.date() - printed).days <= 45
        if c.media_type != "image/jpeg":
            continue
        exif = piexif.load(lc.read_bytes())
        raw = exif["Exif"].get(piexif.ExifIFD.DateTimeOriginal)
        if raw is None:
            continue
        taken = datetime.strptime(raw.decode(), "%Y:%m:%d %H:%M:%S")
        assert taken < submitted
        if c.tags["forge"] == "photo_date":
            assert taken.date() < printed
            seen_photo_date += 1
        elif c.tags["forge"] != "date":  # a date edit may move the printed date past the photo
            assert taken.date() > printed
    assert seen_photo_date >= 1


def test_ai_forgeries_carry_source_type_tags(forged):
    out, _, _ = forged
    found = 0
    for lc in _cases(out):
        data = lc.read_bytes()
        if lc.case.tags["forge"] == "ai_full":
            assert b"digitalsourcetype/trainedAlgorithmicMedia" in data
            found += 1
        elif b"trainedAlgorithmicMedia" in data:
            assert lc.case.label.authenticity.fake_class == "ai_inpaint"
    assert found >= 1


def test_controls_are_the_receipt_unchanged(forged, source):
    """A control shows its source: an 'original' keeps the bytes, a re-save or a recompression
    keeps the pixels (up to JPEG noise), and every control keeps the source's label values."""
    out, _, _ = forged
    suite = open_suite(out)
    src = {lc.case.id: lc for lc in open_suite(source)}
    sources = suite.header.meta["forged"]["sources"]
    for lc in suite:
        if lc.case.label.is_fake:
            continue
        original = src[sources[lc.case.id]]
        assert lc.case.label.total == original.case.label.total
        assert lc.case.label.date == original.case.label.date
        if lc.case.tags["forge"] == "original":
            assert lc.case.sha256 == original.case.sha256
        elif lc.case.tags["forge"] in ("resaved", "recompressed"):
            a = np.asarray(Image.open(io.BytesIO(lc.read_bytes())).convert("L"), dtype=float)
            b = np.asarray(Image.open(io.BytesIO(original.read_bytes())).convert("L"), dtype=float)
            assert a.shape == b.shape and np.abs(a - b).mean() < 3.0


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_bytes(source, forged, tmp_path):
    """A second run (no OCR cache: every receipt read again) writes byte-identical files and manifest."""
    out, _, _ = forged
    again = tmp_path / "again"
    forge_suite(source, again, seed=3)
    assert _digest(again) == _digest(out)
    other = tmp_path / "other"
    forge_suite(source, other, seed=4, ocr_cache=tmp_path / "ocr")
    assert _digest(other) != _digest(out)


def test_submitted_at_is_valid_iso(forged):
    out, _, _ = forged
    for lc in _cases(out):
        assert submission_date(lc.case.submitted_at) is not None
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lc.case.submitted_at)


def test_no_forgery_still_prints_its_old_value(forged, source):
    """Read every total/date forgery back whole (as a target would): the old value is gone."""
    from rabench.cases.forge.readback import readback

    out, _, _ = forged
    stats = readback(str(out), str(source), out=io.StringIO())
    assert stats["total: new read"] >= 1 and stats["date: new read"] >= 1
    assert stats["total: old still read on a total row"] == 0 and stats["date: old still read"] == 0
