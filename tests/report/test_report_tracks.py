"""A report folder with a real track (REPORT_DIR/real/) opens with synthetic | real, in
report.md and report.html, and the page still loads cleanly in a real browser."""

from __future__ import annotations

import shutil

import msgspec
import pytest

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.score.synthetic import make


@pytest.fixture(scope="module")
def two_tracks(tmp_path_factory):
    """A synthetic run, and a 'real' run of other receipts where self's risk is no better than chance."""
    root = tmp_path_factory.mktemp("tracks")
    syn = make(root / "syn", n_targets=2, n_cases=300, reps=1, seed=3)
    real = make(root / "real", n_targets=2, n_cases=240, reps=1, seed=4)
    path = real / "outcomes.jsonl"
    lines = []
    for k, oc in enumerate(msgspec.json.Decoder(Outcome).decode_lines(path.read_bytes())):
        if oc.target == "self" and oc.verdict is not None:
            oc = msgspec.structs.replace(oc, verdict=msgspec.structs.replace(oc.verdict, risk=(k * 0.618) % 1.0))
        lines.append(msgspec.json.encode(oc))
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = root / "report"
    assert main(["score", str(syn), "--out", str(out)]) == 0
    plain_md = (out / "report.md").read_text()
    assert main(["score", str(real), "--out", str(out / "real")]) == 0
    assert main(["report", str(out)]) == 0
    return out, plain_md


def test_report_md_gets_the_side_by_side_section_and_keeps_the_rest(two_tracks):
    out, plain_md = two_tracks
    md = (out / "report.md").read_text()
    assert md.index("## Synthetic vs real receipts") < md.index("# Synthetic track") < md.index("## Authenticity")
    assert md.split("# Synthetic track\n", 1)[1].strip() in plain_md  # the synthetic report, unchanged
    sentences = [x for x in md.splitlines() if "does not carry over" in x]
    assert sentences and sentences[0].startswith("- self: authenticity ROC AUC ")
    assert not any(x.startswith("- diy:") for x in sentences)  # the untouched baseline is not marked
    rows = msgspec.json.decode((out / "rows.json").read_bytes())["rows"]
    headline = {(r["target"], r["task"], r["metric"]) for r in rows if r["stratum"] == "all"}
    table = [
        x
        for x in md.split("## Synthetic vs real receipts", 1)[1].split("# Synthetic track")[0].splitlines()
        if x.startswith(("| self |", "| diy:"))
    ]
    assert len(table) == len(headline)  # every headline row, once
    auc = next(x for x in table if x.startswith("| self | authenticity | roc_auc |"))
    assert auc.endswith("| **worse on real** |")


def test_without_a_real_track_the_report_is_as_before(two_tracks, tmp_path):
    out, plain_md = two_tracks
    alone = tmp_path / "alone"
    shutil.copytree(out, alone, ignore=shutil.ignore_patterns("real"))
    (alone / "report.md").write_text(plain_md)
    assert main(["report", str(alone)]) == 0
    assert (alone / "report.md").read_text() == plain_md
    assert "Synthetic vs real" not in (alone / "report.html").read_text()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
def test_side_by_side_section_in_headless_chromium(two_tracks):
    from playwright.sync_api import sync_playwright

    out, _ = two_tracks
    rows = msgspec.json.decode((out / "rows.json").read_bytes())["rows"]
    n_headline = len({(r["target"], r["task"], r["metric"]) for r in rows if r["stratum"] == "all"})
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu", "--no-first-run"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((out / "report.html").resolve().as_uri())
        first_h2, second_h2 = page.locator("h2").nth(0).inner_text(), page.locator("h2").nth(1).inner_text()
        pair_rows = page.locator("table.tracks tr").count() - page.locator("table.tracks").count()
        worse_cells = page.locator("table.tracks td.worse").count()
        worse_lines = page.locator("ul.tracks li.worse").count()
        charts = page.locator("#tracks svg").count()
        browser.close()
    assert errors == []
    assert (first_h2, second_h2) == ("Verdict", "Synthetic vs real receipts")  # the verdict opens the page
    assert pair_rows == n_headline
    assert worse_cells == worse_lines >= 1
    assert charts == 2  # one per target
