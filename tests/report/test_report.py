"""report.html: renders from a scored run, in a real browser, with no console errors."""

import shutil
from pathlib import Path

import msgspec
import numpy as np
import pytest
from PIL import Image
from sklearn.metrics import roc_curve

from rabench.cli.main import main
from rabench.score.details import reliability_bins, roc_points, thumbnail
from rabench.score.synthetic import make


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("rep")
    run = make(root, n_targets=3, n_cases=240, reps=2, seed=3)
    out = root / "report"
    assert main(["score", str(run), "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    return out


def test_roc_points_match_sklearn_with_weights():
    rng = np.random.default_rng(1)
    scores = np.round(rng.random(300), 1)  # many ties
    fake = rng.random(300) < 0.4
    w = rng.choice([0.5, 1.0], 300)
    fpr, tpr = roc_points(scores, fake, w)
    ref_fpr, ref_tpr, _ = roc_curve(fake, scores, sample_weight=w, drop_intermediate=False)
    assert np.allclose(fpr, ref_fpr, atol=1e-6) and np.allclose(tpr, ref_tpr, atol=1e-6)


def test_reliability_bins_match_a_slow_reference():
    rng = np.random.default_rng(2)
    risk = rng.random(500)
    risk[:5] = 1.0  # the top edge belongs to the last bin
    fake = (rng.random(500) < risk).astype(float)
    got = reliability_bins(risk, fake)
    for b, row in enumerate(got):
        members = [i for i in range(500) if min(int(risk[i] * 10), 9) == b]
        assert row.n == len(members)
        if members:
            assert row.mean_risk == pytest.approx(np.mean(risk[members]), abs=1e-6)
            assert row.share_fake == pytest.approx(np.mean(fake[members]), abs=1e-6)
    assert sum(r.n for r in got) == 500


def test_thumbnail_of_an_image_and_of_garbage(tmp_path):
    img = tmp_path / "r.jpg"
    Image.new("RGB", (600, 1400), "white").save(img)
    uri = thumbnail(img, "image/jpeg")
    assert uri and uri.startswith("data:image/jpeg;base64,")
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8garbage")
    assert thumbnail(bad, "image/jpeg") is None


def test_report_is_deterministic_and_self_contained(scored, tmp_path):
    first = (scored / "report.html").read_bytes()
    copy = tmp_path / "again"
    shutil.copytree(scored, copy)
    assert main(["report", str(copy)]) == 0
    assert (copy / "report.html").read_bytes() == first
    text = first.decode()
    import re

    # The viewer's script and data are inline: no script is loaded from anywhere.
    assert re.findall(r"<script[^>]*\bsrc=", text) == []
    assert text.count("<script") == 2  # the cases data (JSON) and the viewer

    # Nothing to fetch: no src/href pointing anywhere but inline data (SVG namespaces aren't loads).
    refs = re.findall(r"""(?:src|href)=["']([^"'#][^"']*)["']""", text)
    assert all(r.startswith("data:") for r in refs), refs[:5]


def test_report_without_rows_is_one_line_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "no rows.json" in capsys.readouterr().err


def _expected_counts(scored: Path):
    doc = msgspec.json.decode((scored / "rows.json").read_bytes())
    headline = {(r["task"], r["metric"]) for r in doc["rows"] if r["stratum"] == "all"}
    return doc, len(headline)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
def test_report_in_headless_chromium_has_rows_charts_and_no_console_errors(scored):
    from playwright.sync_api import sync_playwright

    doc, n_headline = _expected_counts(scored)
    details = msgspec.json.decode((scored / "details.json").read_bytes())
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((scored / "report.html").resolve().as_uri())
        # Headline tables: one row per (task, metric) in stratum "all", plus a header per table.
        headline_rows = page.evaluate(
            """() => { let n = 0; let h = document.getElementById('headline');
            for (let el = h.nextElementSibling; el && el.tagName !== 'H2'; el = el.nextElementSibling)
              n += el.querySelectorAll('table tr').length - el.querySelectorAll('table').length;
            return n; }"""
        )
        charts = page.locator("svg").count()
        findings_rows = page.locator("td.win, td.loss, td.tie, td.not_supported").count()
        visible_height = page.evaluate("document.body.scrollHeight")
        browser.close()
    assert errors == []
    assert headline_rows == n_headline
    rate_tasks = {
        r["task"]
        for r in doc["rows"]
        if r["stratum"] == "all"
        and r["task"] in {"extraction", "checks", "authenticity", "duplicates", "evidence"}
        and r.get("supported", True)
        and r.get("value") is not None
    }
    expected_charts = (
        len(rate_tasks) + bool(details["roc"]) + bool(details["reliability"]) + bool(details["latency"]) + 1
    )  # + the cost sweep
    assert charts == expected_charts
    assert findings_rows == len(doc["findings"]) > 0  # one cell per finding
    assert visible_height > 2000


def test_worst_misses_show_each_case_once_and_are_real_misses(scored):
    details = msgspec.json.decode((scored / "details.json").read_bytes())
    worst = details["worst"]
    assert worst
    keys = [(m["target"], m["case_id"]) for m in worst]
    assert len(keys) == len(set(keys))
    for m in worst:
        risk = float(m["why"].rsplit(" ", 1)[1])
        if m["why"].startswith("missed fake"):
            assert m["label"].startswith("fake") and risk < 0.5
        else:
            assert m["label"].startswith("genuine") and risk >= 0.5
