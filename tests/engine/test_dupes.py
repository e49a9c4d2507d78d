"""The duplicate network: repeats match on content (exact, re-encoded, cropped, re-shot);
look-alike receipts from one template do not; SQLite persists."""

from __future__ import annotations

import numpy as np
import pytest

from _fx_receipts import jpeg_bytes, receipt
from rabench.cases.transforms import apply_transform, load_image
from rabench.contracts import Fields, LineItem
from rabench.engine.dupes.match import PHASH_MAX
from rabench.engine.dupes import (
    MemoryStore,
    SqliteStore,
    decide,
    duplicate_signal,
    hamming,
    make_fingerprint,
    phash,
)

ITEMS = ("3.20", "7.80", "12.00", "19.50")


def fields(number="10234", total=42.5, date="2024-05-10", merchant="Corner Market") -> Fields:
    return Fields(merchant=merchant, date=date, total=total, subtotal=total, tax_total=0.0, receipt_number=number)


def items(amounts=ITEMS) -> list[LineItem]:
    return [LineItem(description=f"ITEM {i}", total=float(a)) for i, a in enumerate(amounts)]


@pytest.fixture(scope="module")
def original():
    img, _ = receipt()
    data = jpeg_bytes(img, 90)
    return data, make_fingerprint(data, img, fields(), items())


def _fp(data, media, f=None, li=None):
    return make_fingerprint(data, load_image(data, media), f or fields(), items() if li is None else li)


def test_exact_repeat(original):
    data, fp = original
    store = MemoryStore()
    assert store.lookup_and_add(fp, "case-1") is None
    m = store.lookup_and_add(_fp(data, "image/jpeg"), "case-2")
    assert m is not None and (m.ref, m.kind, m.score) == ("case-1", "exact", 1.0)


@pytest.mark.parametrize("transform", ["reencode", "crop", "reshoot"])
@pytest.mark.parametrize("seed", range(3))
def test_transformed_copies_match_on_content(original, transform, seed):
    data, fp = original
    out, media = apply_transform(data, "image/jpeg", transform, np.random.default_rng(seed))
    store = MemoryStore()
    store.lookup_and_add(fp, "orig")
    m = store.lookup_and_add(_fp(out, media), "copy")
    assert m is not None and m.ref == "orig" and m.kind in ("text", "perceptual")


@pytest.mark.parametrize("transform", ["reencode", "crop"])
def test_copy_with_patchy_ocr_still_matches_by_looks_and_content(original, transform):
    """The copy's OCR missed the receipt number and items: date + total agree and the image is the same."""
    data, fp = original
    out, media = apply_transform(data, "image/jpeg", transform, np.random.default_rng(5))
    new = _fp(out, media, Fields(merchant="Corner Market", date="2024-05-10", total=42.5), [])
    m = decide(new, fp, "orig")
    # only when the pHash is within the strict limit (no unique key on one side)
    assert (m is not None and m.kind == "perceptual") == (hamming(new.phash, fp.phash) <= 4)


def test_same_template_receipts_look_alike_but_do_not_match(original):
    """Hard negatives: same merchant, template and day; one even has the same total."""
    data, fp = original
    store = MemoryStore()
    store.lookup_and_add(fp, "orig")
    look_alikes = [
        ("10235", "42.50", ("3.20", "7.80", "12.00", "19.50")),  # same total AND items, next receipt number
        ("10236", "42.50", ("5.00", "10.00", "8.00", "19.50")),  # same total, other items
        ("10237", "17.30", ("4.10", "13.20")),
    ]
    close = []
    for i, (number, total, its) in enumerate(look_alikes):
        img, _ = receipt(number=number, total=total, items=its, seed=20 + i)
        d = jpeg_bytes(img, 90)
        new = make_fingerprint(d, img, fields(number=number, total=float(total)), items(its))
        close.append(hamming(new.phash, fp.phash))
        assert store.lookup_and_add(new, f"neg-{i}") is None
    assert max(close) <= PHASH_MAX  # they really do look alike: looks alone would have matched


def test_hard_negative_without_receipt_numbers_is_told_apart_by_items(original):
    _, fp = original
    img, _ = receipt(number="10240", items=("5.00", "10.00", "8.00", "19.50"), seed=31)
    d = jpeg_bytes(img, 90)
    f = Fields(merchant="Corner Market", date="2024-05-10", total=42.5)
    # The earlier receipt: same template and day, other items (its own render, so not the same image).
    old_img, _ = receipt(number="10240", items=ITEMS, seed=31)
    old = make_fingerprint(b"x", old_img, f, items())
    new = make_fingerprint(d, img, f, items(("5.00", "10.00", "8.00", "19.50")))
    assert decide(new, old, "orig") is None


def test_text_rule_needs_a_unique_key():
    """Merchant + date + total alone (no receipt number, no items) is not enough for a text match."""
    a = make_fingerprint(b"a", receipt(seed=1)[0], Fields(merchant="Shop", date="2024-05-10", total=9.99), [])
    b = make_fingerprint(
        b"b",
        receipt(seed=2, merchant="ANOTHER PLACE", total="9.99")[0],
        Fields(merchant="Shop", date="2024-05-10", total=9.99),
        [],
    )
    m = decide(b, a, "a")
    assert m is None or m.kind == "perceptual"
    with_number = make_fingerprint(
        b"c", receipt(seed=3)[0], Fields(merchant="SHOP.", date="2024-05-10", total=9.99, receipt_number="A-77"), []
    )
    earlier = make_fingerprint(
        b"d",
        receipt(seed=4, merchant="ELSEWHERE LTD")[0],
        Fields(merchant="Shop", date="2024-05-10", total=9.99, receipt_number="a77"),
        [],
    )
    m2 = decide(with_number, earlier, "d")
    assert m2 is not None and m2.kind == "text"


def test_a_submission_never_matches_itself(original):
    _, fp = original
    store = MemoryStore()
    store.lookup_and_add(fp, "same")
    assert store.lookup_and_add(fp, "same") is None


def test_sqlite_store_persists_across_reopen(tmp_path, original):
    data, fp = original
    path = tmp_path / "dupes.sqlite"
    with SqliteStore(path) as s:
        assert s.lookup_and_add(fp, "case-1") is None
        assert len(s) == 1
    out, media = apply_transform(data, "image/jpeg", "crop", np.random.default_rng(0))
    with SqliteStore(path) as s:
        m = s.lookup_and_add(_fp(out, media), "case-2")
        assert m is not None and m.ref == "case-1"
        m2 = s.lookup_and_add(fp, "case-3")
        assert m2 is not None and m2.kind == "exact" and m2.ref in ("case-1", "case-2")
        assert len(s) == 3


def test_sqlite_and_memory_agree(tmp_path):
    """Same submissions, same answers: the backend changes, the rule does not."""
    rng = np.random.default_rng(9)
    subs = []
    for i in range(6):
        number = str(10300 + i % 3)
        img, _ = receipt(number=number, seed=40 + i)
        d = jpeg_bytes(img, int(rng.integers(60, 95)))
        subs.append((make_fingerprint(d, img, fields(number=number), items()), f"c{i}"))
    mem, sql = MemoryStore(), SqliteStore(tmp_path / "s.sqlite")
    got_m = [mem.lookup_and_add(fp, r) for fp, r in subs]
    got_s = [sql.lookup_and_add(fp, r) for fp, r in subs]
    assert [(m.ref, m.kind) if m else None for m in got_m] == [(m.ref, m.kind) if m else None for m in got_s]
    assert [m is not None for m in got_m] == [False, False, False, True, True, True]


def test_phash_is_64_bits_and_stable(original):
    data, fp = original
    img = load_image(data, "image/jpeg")
    assert 0 <= fp.phash < 2**64 and phash(img) == phash(img.copy())


def test_duplicate_signal_is_proof_naming_the_earlier_submission(original):
    data, fp = original
    store = MemoryStore()
    store.lookup_and_add(fp, "case-17")
    m = store.lookup_and_add(_fp(data, "image/jpeg"), "case-18")
    s = duplicate_signal(m)
    assert s.kind == "proof" and s.proof_type == "duplicate_match"
    assert "case-17" in s.text and "exact" in s.text


def _png_of(jpeg: bytes) -> bytes:
    """A lossless re-encode: the JPEG's decoded pixels saved as PNG (new bytes, same image)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(jpeg)) as im:
        im.save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_lossless_reencode_is_an_exact_match_on_the_image_hash(tmp_path, original, backend):
    data, _ = original
    png = _png_of(data)
    assert png != data
    store = MemoryStore() if backend == "memory" else SqliteStore(tmp_path / "s.sqlite")
    store.lookup_and_add(_fp(data, "image/jpeg"), "orig")
    m = store.lookup_and_add(_fp(png, "image/png"), "copy")
    assert m is not None and (m.ref, m.kind) == ("orig", "exact") and "identical image" in m.detail


def test_lossy_reencode_is_not_exact(original):
    from PIL import Image
    import io

    data, _ = original
    again = jpeg_bytes(Image.open(io.BytesIO(data)).convert("RGB"), 70)
    store = MemoryStore()
    store.lookup_and_add(_fp(data, "image/jpeg"), "orig")
    m = store.lookup_and_add(_fp(again, "image/jpeg"), "copy")
    assert m is not None and m.kind in ("text", "perceptual")


def test_sqlite_store_written_before_pixel_hashes_is_upgraded(tmp_path, original):
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE fingerprints (id INTEGER PRIMARY KEY, ref TEXT NOT NULL, sha256 TEXT NOT NULL,"
        " phash INTEGER NOT NULL, merchant TEXT NOT NULL, date TEXT, total INTEGER, subtotal INTEGER,"
        " tax_total INTEGER, receipt_number TEXT, items TEXT NOT NULL, version INTEGER NOT NULL,"
        " added_at REAL NOT NULL);"
        "INSERT INTO fingerprints VALUES (1, 'old', 'x', 0, 'm', NULL, NULL, NULL, NULL, NULL, '[]', 1, 0);"
    )
    db.commit()
    db.close()
    data, _ = original
    with SqliteStore(path) as s:
        assert len(s) == 1
        assert s.lookup_and_add(_fp(data, "image/jpeg"), "new") is None  # version-1 rows never match
        m = s.lookup_and_add(_fp(_png_of(data), "image/png"), "png")
        assert m is not None and (m.ref, m.kind) == ("new", "exact")
