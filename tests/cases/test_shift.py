"""Two-sample shift check: alike suites score near 0.5, a systematically different suite near 1.0."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import msgspec
import numpy as np
import pytest
from PIL import Image

from rabench.cases.manifest import MANIFEST, open_suite
from rabench.cases.shift import design, out_of_fold, shift, suite_signals
from rabench.cases.synth.suite import generate_suite
from rabench.cli.main import main
from rabench.contracts import SuiteHeader


def _records(rng: np.random.Generator, n: int, *, bright: float = 230.0) -> list[dict]:
    return [
        {
            "format": "image/jpeg",
            "byte_size": float(rng.lognormal(12, 0.5)),
            "pixels": float(rng.lognormal(13.5, 0.3)),
            "jpeg_quality": float(rng.integers(75, 96)),
            "luma_mean": float(rng.normal(bright, 12)),
            "luma_std": float(rng.normal(30, 6)),
            "saturation_mean": float(abs(rng.normal(0.05, 0.03))),
            "exif_present": bool(rng.random() < 0.5),
            "software_tag": bool(rng.random() < 0.3),
        }
        for _ in range(n)
    ]


def test_same_distribution_is_near_half_and_a_shifted_one_is_separated():
    rng = np.random.default_rng(3)
    same = shift(_records(rng, 150), _records(rng, 150), n_boot=300)
    assert 0.35 < same.auc < 0.65 and same.lo < 0.5 < same.hi
    moved = shift(_records(rng, 150), _records(rng, 150, bright=200.0), n_boot=300)
    assert moved.auc > 0.9 and moved.lo > 0.8
    assert moved.per_signal[0].signal == "luma_mean"  # the signal that moved is named first
    assert next(iter(moved.weights)) == "luma_mean"


def test_only_common_formats_are_compared_unless_asked():
    rng = np.random.default_rng(4)
    a = _records(rng, 40)
    b = _records(rng, 40) + [
        {"format": "application/pdf", "byte_size": 5e4, "exif_present": False, "software_tag": True} for _ in range(30)
    ]
    res = shift(a, b, n_boot=200)
    assert (res.n_a, res.n_b) == (40, 40) and res.dropped == (0, 30)
    assert res.formats["application/pdf"] == (0, 30)
    everything = shift(a, b, n_boot=200, formats="all")
    assert everything.n_b == 70 and everything.auc > res.auc  # "is it a PDF?" separates them


def test_missing_values_get_an_indicator_not_a_crash():
    recs = [
        {
            "format": "image/png",
            "byte_size": 1e5,
            "pixels": 1e6,
            "luma_mean": 200.0,
            "exif_present": False,
            "software_tag": False,
        },
        {
            "format": "image/jpeg",
            "byte_size": 2e5,
            "pixels": 2e6,
            "jpeg_quality": 90.0,
            "luma_mean": 210.0,
            "exif_present": True,
            "software_tag": False,
        },
    ]
    x, names = design(recs)
    assert "jpeg_quality:missing" in names and np.isfinite(x).all()
    assert "software_tag=False" not in names  # a constant column carries nothing


def test_out_of_fold_scores_never_see_their_own_label():
    """Pure noise features with labels: in-sample fitting would overfit; out-of-fold must not."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(80, 30))
    y = np.r_[np.zeros(40), np.ones(40)]
    from rabench.cases.audit import auc_ties_half

    scores = out_of_fold(x, y, folds=5, seed=0)
    assert auc_ties_half(scores[y == 1], scores[y == 0]) < 0.7


def _regrade(src: Path, dst: Path) -> None:
    """A copy of ``src`` as a different 'source' would make it: images greyed, darkened, saved at quality 100."""
    suite = open_suite(src)
    (dst / "files").mkdir(parents=True)
    enc = msgspec.json.Encoder()
    lines = [enc.encode(SuiteHeader(suite="receipt", name="regraded"))]
    for lc in suite:
        data, media, name = lc.read_bytes(), lc.case.media_type, lc.case.file
        if media != "application/pdf":
            img = Image.open(io.BytesIO(data)).convert("L").point(lambda v: int(v * 0.7))
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=100)
            data, media, name = buf.getvalue(), "image/jpeg", name.rsplit(".", 1)[0] + ".jpg"
        (dst / name).write_bytes(data)
        case = msgspec.structs.replace(lc.case, file=name, media_type=media, sha256=hashlib.sha256(data).hexdigest())
        lines.append(enc.encode(case))
    (dst / MANIFEST).write_bytes(b"\n".join(lines) + b"\n")


@pytest.mark.slow
def test_cli_on_generated_suites(sample_suite, tmp_path, capsys):
    other = tmp_path / "other"
    generate_suite(other, split="sample", size="sample", seed=7, workers=1)
    assert main(["cases", "shift", str(sample_suite), str(other), "--bootstrap", "300", "--formats", "all"]) == 0
    out = capsys.readouterr().out
    auc = float(out.split("shift AUC ")[1].split()[0])
    assert auc < 0.75, out  # two seeds of one generator: not separable
    regraded = tmp_path / "regraded"
    _regrade(sample_suite, regraded)
    assert main(["cases", "shift", str(sample_suite), str(regraded), "--bootstrap", "300"]) == 0
    out = capsys.readouterr().out
    assert float(out.split("shift AUC ")[1].split()[0]) > 0.9, out
    assert "signals that separate most" in out and len(suite_signals(regraded)) >= 30


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    assert main(["cases", "shift", str(tmp_path / "nope"), str(tmp_path / "nope2")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such suite folder" in err


def test_where_keeps_only_matching_tags_and_rejects_a_malformed_filter(sample_suite, capsys):
    scans = suite_signals(sample_suite, where={"capture": "scan"})
    everything = suite_signals(sample_suite)
    assert 0 < len(scans) < len(everything)
    assert all(r["format"] == "image/jpeg" for r in scans)
    assert main(["cases", "shift", str(sample_suite), str(sample_suite), "--where-b", "capture"]) == 2
    assert "expected TAG=VALUE" in capsys.readouterr().err
