"""The synthetic suite generator: determinism, labels that match what is printed, suite structure."""

from __future__ import annotations

import hashlib
import io
from collections import Counter
from datetime import date
from pathlib import Path

import numpy as np
import piexif
import pytest
from pypdf import PdfReader

from rabench.cases.manifest import open_suite
from rabench.cases.synth.build import fake_docs
from rabench.cases.synth.catalogue import LOCALES
from rabench.cases.synth.plan import SEEDS, make_plan
from rabench.cases.synth.suite import generate_suite
from rabench.cases.validate import validate_suite
from rabench.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_same_seed_gives_identical_bytes_whatever_the_worker_count(sample_suite, tmp_path):
    again = tmp_path / "b"
    generate_suite(again, split="sample", size="sample", workers=2)
    a, b = _tree(sample_suite), _tree(again)
    assert a.keys() == b.keys() and len(a) > 40
    assert a == b


def test_sample_suite_is_valid_small_and_records_its_origin(sample_suite):
    count, problems = validate_suite(sample_suite)
    assert problems == []
    assert 38 <= count <= 45
    size = sum(p.stat().st_size for p in sample_suite.rglob("*") if p.is_file())
    assert size < 8_000_000  # 6.6 MB since scans are saved at scanner quality (85-100) and some are full pages
    meta = open_suite(sample_suite).header.meta
    assert meta["seed"] == SEEDS["sample"] and meta["split"] == "sample" and meta["size"] == "sample"
    assert meta["pillow"] and meta["pillow_simd"] is True and meta["generator"]


def test_committed_sample_is_valid():
    count, problems = validate_suite(REPO / "cases" / "sample")
    assert problems == [] and count >= 38


def test_different_splits_are_different_receipts():
    dev, test = make_plan("quick", SEEDS["dev"]), make_plan("quick", SEEDS["test"])
    d = [fake_docs(SEEDS["dev"], s)[1].total for s in dev.base[:20]]
    t = [fake_docs(SEEDS["test"], s)[1].total for s in test.base[:20]]
    assert d != t


def _identity_holds(doc) -> bool:
    """The printed arithmetic, re-derived here in minor units (independent of document.adds_up)."""
    items = sum(i.total for i in doc.items)
    for i in doc.items:
        if i.qty is not None and i.unit is not None and abs(i.qty * i.unit - i.total) > 0.5:
            return False
    if doc.subtotal is not None and doc.subtotal != items:
        return False
    if doc.tendered is not None and doc.tendered - doc.change != doc.total:
        return False
    sub = doc.subtotal if doc.subtotal is not None else items
    included = LOCALES[doc.locale].tax_inclusive if doc.tax_incl is None else doc.tax_incl
    tax = 0 if included else (doc.tax or 0)
    return sub - doc.discount + tax + doc.service + doc.tip + doc.rounding == doc.total


def test_labels_match_the_printed_facts(sample_suite):
    suite = open_suite(sample_suite)
    seed = suite.header.meta["seed"]
    plan = make_plan("sample", seed)
    specs = {("base", s.index): s for s in plan.base}
    cases = list(suite)
    ids = {c.case.id: n for n, c in enumerate(cases)}
    for pos, lc in enumerate(cases):
        c, lab = lc.case, lc.case.label
        date.fromisoformat(lab.date)  # dates parse as ISO
        for dep in c.depends_on():  # lineage/after targets exist and come first
            assert dep in ids and ids[dep] < pos
        if c.lineage is not None:
            continue
        key = plan.order[pos]
        _, printed, _, _ = fake_docs(seed, specs[key])
        scale = 10 ** LOCALES[printed.locale].currency.decimals
        assert lab.total == pytest.approx(printed.total / scale, abs=1e-9)
        assert lab.adds_up == _identity_holds(printed)
        assert c.tags["arithmetic"] == ("consistent" if lab.adds_up else "inconsistent")
        if lab.adds_up and lab.subtotal is not None:
            assert abs(sum(i.total for i in lab.line_items) - lab.subtotal) < 0.005
            tax = 0.0 if printed.inclusive else (lab.tax_total or 0.0)
            extras = (printed.service + printed.tip - printed.discount + printed.rounding) / scale
            assert abs(lab.subtotal + tax + extras - lab.total) < 0.005
        if lab.is_fake and c.tags["class"] in ("ai_inpaint", "hand_edit", "pdf_edit"):
            assert len(lab.authenticity.edited_fields) == 1
        assert c.tags["class"] == (lab.authenticity.fake_class or "genuine")


def test_every_case_has_every_stratum_tag(sample_suite):
    want = {"class", "arithmetic", "provenance", "capture", "format", "currency", "language", "layout", "injection"}
    for lc in open_suite(sample_suite):
        assert want <= set(lc.case.tags)
        assert lc.case.tags["provenance"] == lc.case.label.provenance


def test_proof_traces_are_in_the_files(sample_suite):
    seen = Counter()
    for lc in open_suite(sample_suite):
        c = lc.case
        if c.lineage is not None:
            continue
        data = lc.read_bytes()
        cls, prov = c.tags["class"], c.tags["provenance"]
        if cls == "pdf_edit":
            assert data.count(b"%%EOF") >= 2
            reader = PdfReader(io.BytesIO(data))
            first = data[: data.index(b"%%EOF") + 5]
            assert PdfReader(io.BytesIO(first)).pages[0].extract_text() != reader.pages[0].extract_text()
            seen[cls] += 1
        if cls == "photo_date":
            exif = piexif.load(data)
            taken = exif["Exif"][piexif.ExifIFD.DateTimeOriginal].decode()[:10].replace(":", "-")
            assert date.fromisoformat(taken) < date.fromisoformat(c.label.date)
            seen[cls] += 1
        if cls == "ai_full" and prov == "intact":
            assert b"trainedAlgorithmicMedia" in data
            seen[cls] += 1
        if cls == "ai_inpaint" and prov == "intact":
            assert b"compositeWithTrainedAlgorithmicMedia" in data
        if cls == "genuine":
            assert b"AlgorithmicMedia" not in data
    assert seen["pdf_edit"] and seen["photo_date"] and seen["ai_full"]


def test_printed_text_is_legible_to_ocr(sample_suite, ocr):
    """Genuine scans and screenshots: OCR reads the labelled total."""
    checked = 0
    for lc in open_suite(sample_suite):
        c = lc.case
        if c.lineage or c.tags["class"] != "genuine" or c.tags["capture"] not in ("scan", "screenshot"):
            continue
        text = "".join(ocr(lc.read_bytes())).replace(" ", "")
        digits = "".join(ch for ch in text if ch.isdigit())
        total = f"{c.label.total:.{0 if c.label.currency == 'JPY' else 2}f}".replace(".", "")
        assert total in digits, (c.id, c.label.total, text[:200])
        checked += 1
        if checked == 3:
            break
    assert checked >= 2


def test_quick_plan_has_every_stratum_the_spec_scores():
    plan = make_plan("quick", SEEDS["test"])
    base = plan.base
    by_class = Counter(s.cls for s in base)
    assert all(by_class[c] >= 10 for c in ("ai_full", "ai_inpaint", "hand_edit", "generator", "pdf_edit", "photo_date"))
    prov = Counter(s.provenance for s in base)
    assert min(prov.values()) >= 10 and set(prov) == {"intact", "stripped", "none"}
    inj = Counter(s.injection for s in base)
    assert inj[True] >= 10 and inj[False] >= 10
    assert len(plan.transforms) >= 30
    assert sum(1 for s in base if s.lookalike_of is not None) >= 15
    ai = [s for s in base if s.cls == "ai_full"]
    assert len(ai) / 3 <= sum(not s.slip for s in ai)


def test_cli_generate_refuses_a_non_empty_folder(tmp_path, capsys):
    (tmp_path / "x").write_text("keep me")
    assert main(["cases", "generate", "--split", "dev", "--size", "sample", "--out", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_committed_sample_matches_a_fresh_generation(sample_suite):
    """Same seed + same library versions => the committed sample is reproduced byte for byte.

    If this fails after a Pillow/numpy/fpdf2/pypdf upgrade, regenerate the sample:
    rabench cases generate --split sample --size sample --out cases/sample
    """
    assert _tree(REPO / "cases" / "sample") == _tree(sample_suite)


# --- structures real receipts print (issue 13) ---------------------------------------------------


def _docs(n: int, locale: str | None = None):
    from rabench.cases.synth.catalogue import MERCHANTS
    from rabench.cases.synth.document import build_doc

    pool = [m for m in MERCHANTS if locale is None or m.locale == locale]
    return [build_doc(np.random.default_rng([i, 99]), pool[i % len(pool)]) for i in range(n)]


def _printed(doc) -> list[tuple[str, str, str | None]]:
    from rabench.cases.synth.layouts import build_rows

    return [
        (r.left, r.value if r.kind in ("kv", "table") else "", r.field)
        for r in build_rows(doc, np.random.default_rng(0))
        if r.kind in ("text", "kv", "table")
    ]


def test_malaysian_gst_receipts_print_gst_rounding_and_their_label_adds_up():
    from rabench.cases.synth.document import adds_up, money
    from rabench.cases.synth.labels import label_for
    from rabench.cases.synth.plan import Spec

    docs = _docs(60, "my")
    rounded = 0
    for doc in docs:
        assert date(2015, 4, 1) <= doc.when <= date(2018, 5, 31) and doc.tax_rate == 6.0
        assert adds_up(doc)
        rows = _printed(doc)
        text = " ".join(left for left, _, _ in rows)
        assert "GST" in text and doc.merchant in text
        label = label_for(doc, Spec(index=0, cls="genuine", capture="scan", provenance="none"))
        assert label.currency == "MYR" and label.adds_up is True
        assert label.tax_total == pytest.approx(doc.tax / 100)
        if doc.tpl.rounding_line:
            rounded += 1
            assert doc.total % 5 == 0  # rounded to 5 sen
            adj = [v for left, v, _ in rows if left.startswith("ROUNDING")]
            assert adj == [money(doc.rounding, doc.loc, symbol=doc.tpl.symbol_all, sym=doc.tpl.symbol)]
            totals = [v for _, v, f in rows if f == "total"]
            assert totals and all(
                v.replace("RM", "").replace("$", "").strip() == money(doc.total, doc.loc) for v in totals
            )
    assert rounded >= 10
    assert any(d.tpl.symbol == "$" for d in docs) and any(d.tpl.symbol == "RM" for d in docs)
    assert any(d.inclusive for d in docs) and any(not d.inclusive for d in docs)


def test_repeated_rows_and_info_lines_are_printed_and_labelled_as_items():
    from rabench.cases.synth.labels import label_for
    from rabench.cases.synth.plan import Spec

    seen = Counter()
    for doc in _docs(300):
        descs = [i.desc for i in doc.items]
        rows = _printed(doc)
        label = label_for(doc, Spec(index=0, cls="genuine", capture="scan", provenance="none"))
        assert [li.description for li in label.line_items] == descs
        if doc.tpl.repeats and any(descs.count(d) >= 3 for d in descs):
            seen["repeats"] += 1
        for it in doc.items:
            if it.qty is None or not float(it.qty).is_integer():
                continue
            unit = it.unit / 10**doc.loc.currency.decimals
            li = next(x for x in label.line_items if x.description == it.desc and x.quantity == it.qty)
            assert li.unit_price == pytest.approx(unit) and li.total == pytest.approx(unit * it.qty, abs=0.006)
            info = [left for left, _, _ in rows if left.startswith("  ")]
            if doc.tpl.qty_style == "unit_word" and doc.locale == "de":
                assert any(x.startswith("  Einzelpreis EUR ") for x in info)
                seen["Einzelpreis"] += 1
            elif doc.tpl.qty_style in ("below", "above"):
                assert any(" x " in x for x in info)
                seen["n x price"] += 1
        if doc.tendered is not None:
            cash = [v for left, v, f in rows if f is None and left.upper() in ("CASH", "BAR", "ESPÈCES", "EFECTIVO")]
            assert cash and doc.tendered - doc.change == doc.total and doc.change >= 0
            seen["cash"] += 1
    assert seen["repeats"] >= 5 and seen["Einzelpreis"] >= 1 and seen["n x price"] >= 10 and seen["cash"] >= 20


def test_tax_inclusive_wordings_and_summary_tables_keep_the_labelled_tax():
    from rabench.cases.synth.layouts import build_rows

    styles = Counter()
    for doc in _docs(400):
        if doc.tax is None:
            continue
        rows = build_rows(doc, np.random.default_rng(0))
        tax_values = [r.value for r in rows if r.field == "tax_total"]
        from rabench.cases.synth.document import money

        assert tax_values and all(v.endswith(money(doc.tax, doc.loc)) for v in tax_values)
        if doc.inclusive and doc.tpl.tax_style == "total_incl":  # the total's own label says tax is included
            labels = [
                r.left for r in rows if r.kind == "kv" and r.left.upper().startswith(("TOTAL", "SUMME", "GESAMT"))
            ]
            assert any(k in x.upper() for x in labels for k in ("INCL", "INKL", "TTC", "IVA", "INCLUSIVE"))
        if doc.tpl.tax_style == "summary":
            assert any(r.kind == "table" for r in rows)
        styles[(doc.tpl.tax_style, doc.inclusive)] += 1
    for style in ("incl_line", "total_incl", "summary"):
        assert styles[(style, True)] >= 5, styles


def test_full_page_scans_put_the_receipt_in_about_a_third_of_the_page():
    from rabench.cases.synth import capture as cap

    pages = 0
    for i in range(400):
        g = cap.plan_capture("scan", (680, 1500), np.random.default_rng([i, 5]))
        if g.size[0] < 1600:
            continue
        pages += 1
        assert g.size in {(1654, 2339), (2480, 3508), (1700, 2200), (2550, 3300)}
        x0, y0, x1, y1 = cap.map_box((0, 0, 680, 1500), g)
        assert 0.25 <= (x1 - x0) / g.size[0] <= 0.5 and x0 >= -5 and x1 <= g.size[0] + 5 and y1 <= g.size[1] + 5
    assert 0.18 <= pages / 400 <= 0.32


def test_faded_thermal_print_lowers_the_contrast_unevenly():
    from PIL import Image, ImageDraw

    from rabench.cases.synth.render import age_print

    img = Image.new("RGB", (600, 900), (245, 245, 240))
    d = ImageDraw.Draw(img)
    for y in range(20, 880, 30):
        d.rectangle((40, y, 560, y + 12), fill=(30, 30, 30))
    fresh = np.asarray(age_print(img, np.random.default_rng(1), 0.0, 0.0), dtype=float)
    old = np.asarray(age_print(img, np.random.default_rng(1), 0.0, 0.6), dtype=float)
    ink = fresh[..., 0] < 100
    darkness = 245 - old[..., 0][ink]
    assert np.median(darkness) < 0.6 * (245 - 30)  # much paler ink
    bands = [245 - old[y + 2 : y + 10, 60:540, 0].mean() for y in range(20, 880, 30)]
    assert max(bands) > 1.3 * min(bands)  # unevenly
    assert (old[..., 0][ink] > 235).mean() > 0.01  # dropouts in the strokes


def test_submission_times_follow_purchase_and_file_times(sample_suite):
    from rabench.cases.synth.build import submission_delay

    cases = {lc.case.id: lc for lc in open_suite(sample_suite)}
    for cid, lc in cases.items():
        c = lc.case
        sub = date.fromisoformat(c.submitted_at)
        assert sub >= date.fromisoformat(c.label.date), cid
        if c.media_type == "image/jpeg":
            exif = piexif.load(lc.read_bytes())
            taken = exif["Exif"].get(piexif.ExifIFD.DateTimeOriginal)
            if taken:
                assert date.fromisoformat(taken.decode()[:10].replace(":", "-")) <= sub, cid
        if c.lineage is not None:
            assert sub > date.fromisoformat(cases[c.lineage.of].case.submitted_at)
    rng = np.random.default_rng(0)
    days = np.array([submission_delay(rng) for _ in range(20000)])
    assert np.median(days) <= 4 and 0.05 <= (days > 45).mean() <= 0.12 and 0.003 <= (days > 365).mean() <= 0.02
