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
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


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
    assert size < 5_000_000
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
    sub = doc.subtotal if doc.subtotal is not None else items
    tax = 0 if LOCALES[doc.locale].tax_inclusive else (doc.tax or 0)
    return sub - doc.discount + tax + doc.service + doc.tip == doc.total


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
            tax = 0.0 if LOCALES[printed.locale].tax_inclusive else (lab.tax_total or 0.0)
            extras = (printed.service + printed.tip - printed.discount) / scale
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
