"""Leak audit: AUC arithmetic, the signals it reads from files, and the quick suite passing it."""

from __future__ import annotations

import io
from datetime import datetime

import numpy as np
import piexif
import pytest
from fpdf import FPDF
from PIL import Image, PngImagePlugin
from sklearn.metrics import roc_auc_score

from rabench.cases.audit import THRESHOLD, audit_records, audit_suite, auc_ties_half, file_signals, jpeg_quality
from rabench.cli.main import main


@pytest.mark.parametrize("seed", range(5))
def test_auc_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    pos = rng.integers(0, 6, size=40).astype(float)  # many ties on purpose
    neg = rng.integers(0, 5, size=55).astype(float)
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    assert auc_ties_half(pos, neg) == pytest.approx(roc_auc_score(y, np.r_[pos, neg]))


def _jpeg(quality: int, exif: bytes | None = None) -> bytes:
    img = Image.fromarray(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality, **({"exif": exif} if exif else {}))
    return buf.getvalue()


@pytest.mark.parametrize("q", [55, 75, 90])
def test_jpeg_quality_estimate_is_close(q):
    assert abs(jpeg_quality(Image.open(io.BytesIO(_jpeg(q)))) - q) <= 2


def test_signals_read_software_tags_from_every_format():
    exif = piexif.dump({"0th": {piexif.ImageIFD.Software: b"GIMP 2.10"}})
    assert file_signals(_jpeg(80, exif), "image/jpeg")["software_tag"] is True
    assert file_signals(_jpeg(80), "image/jpeg")["software_tag"] is False
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", "Screenshot")
    buf = io.BytesIO()
    Image.new("RGB", (20, 20), "white").save(buf, "PNG", pnginfo=info)
    png = file_signals(buf.getvalue(), "image/png")
    assert png["software_tag"] is True and png["exif_present"] is False and png["pixels"] == 400
    pdf = FPDF()
    pdf.set_creation_date(datetime(2025, 1, 1))
    pdf.set_producer("Skia/PDF")
    pdf.add_page()
    sig = file_signals(bytes(pdf.output()), "application/pdf")
    assert sig["software_tag"] is True and "pixels" not in sig


def test_audit_flags_a_planted_leak_and_passes_a_fair_signal():
    rng = np.random.default_rng(1)
    recs = []
    for i in range(60):
        fake = i % 2 == 0
        recs.append(
            (
                {"class": "ai_full" if fake else "genuine", "capture": "photo"},
                fake,
                {"format": "image/png" if fake else "image/jpeg", "byte_size": float(rng.normal(1e5, 1e4))},
            )
        )
    res = audit_records(recs)
    bad = {(r.signal, r.group) for r in res.failures()}
    assert ("format", "all") in bad and ("format", "ai_full") in bad
    assert not any(s == "byte_size" for s, _ in bad)


def test_audit_cli_prints_table_and_exit_code(tmp_path, capsys):
    from rabench.cases.synth.suite import generate_suite

    generate_suite(tmp_path / "s", split="sample", size="sample", workers=1)
    code = main(["cases", "audit", str(tmp_path / "s"), "--threshold", "1.0"])
    out = capsys.readouterr().out
    assert code == 0 and "byte_size" in out and "software_tag" in out


@pytest.mark.slow
def test_quick_suite_has_no_shortcut_signal(quick_suite):
    res = audit_suite(quick_suite)
    assert res.n_cases >= 250
    fails = res.failures(THRESHOLD)
    assert fails == [], [(r.signal, r.group, round(r.auc, 3), r.detail) for r in fails]
    groups = {r.group for r in res.rows}
    assert {"all", "ai_full", "ai_inpaint", "hand_edit", "generator", "pdf_edit", "photo_date"} <= groups


def test_submission_age_is_read_from_the_case_and_a_planted_age_leak_is_flagged(sample_suite):
    from msgspec import UNSET

    from rabench.cases.audit import submission_age

    assert submission_age("2024-05-10", "2024-05-01") == 9.0
    assert submission_age("2024-05-10T08:00:00Z", "2024-05-12") == -2.0
    assert submission_age(None, "2024-05-01") is None and submission_age("2024-05-10", UNSET) is None
    rows = {(r.signal, r.group): r for r in audit_suite(sample_suite).rows}
    assert rows[("submission_age", "all")].n_genuine >= 15  # every generated case carries submitted_at
    recs = [
        (
            {"class": "pdf_edit" if i % 2 else "genuine", "capture": "pdf"},
            bool(i % 2),
            {"format": "application/pdf", "submission_age": float(40 + i if i % 2 else i % 7)},
        )
        for i in range(40)
    ]
    bad = {(r.signal, r.group) for r in audit_records(recs).failures()}
    assert ("submission_age", "pdf_edit") in bad
