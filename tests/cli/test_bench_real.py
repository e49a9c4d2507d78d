"""`rabench bench --real DIR`: the source's format is read from its layout, the real suites
are cached by content, and the real track ends up beside the synthetic one in the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rabench.cli.bench_real import detect_format, looks_like, source_key
from rabench.cli.main import main
from rabench.errors import UserError

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "cases" / "sample"


def _touch(root: Path, *paths: str) -> Path:
    for p in paths:
        f = root / p
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"x")
    return root


@pytest.mark.parametrize(
    "layout, fmt",
    [
        (("img/001.jpg", "key/001.json", "box/001.csv"), "sroie"),  # the GitHub copy of SROIE
        (("img/001.jpg", "entities/001.txt"), "sroie"),  # the Kaggle layout
        (("entities/001.txt",), "sroie"),
        (("json/r1.json", "image/r1.png"), "cord"),
        (("train/json/r1.json", "train/image/r1.png", "test/json/r2.json"), "cord"),
        (("metadata.jsonl", "r1.png"), "cord"),
        (("labels.csv", "a.jpg"), "folder"),
        (("labels.jsonl", "scans/a.png"), "folder"),
    ],
)
def test_format_is_read_from_the_layout(tmp_path, layout, fmt):
    assert detect_format(_touch(tmp_path, *layout)) == fmt


def test_an_unknown_or_ambiguous_layout_is_one_line_naming_the_formats(tmp_path, capsys):
    plain = _touch(tmp_path / "plain", "a.jpg", "notes.txt")
    assert looks_like(plain) == []
    assert main(["bench", "--target", "null", "--real", str(plain)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "not a receipt folder" in err and all(f in err for f in ("sroie (", "cord (", "folder ("))
    both = _touch(tmp_path / "both", "img/1.jpg", "key/1.json", "labels.csv")
    with pytest.raises(UserError, match=r"several formats \(sroie, folder\).*--real-format"):
        detect_format(both)
    assert detect_format(both, "folder") == "folder"  # an explicit format is taken as given
    assert main(["bench", "--target", "null", "--real", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_the_cache_key_follows_content_not_location(tmp_path):
    a = _touch(tmp_path / "a", "img/1.jpg", "key/1.json")
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    assert source_key(a, "sroie") == source_key(b, "sroie")
    assert source_key(a, "sroie") != source_key(a, "folder")
    (b / "key" / "1.json").write_bytes(b"y")  # a corrected label is a new source
    assert source_key(a, "sroie") != source_key(b, "sroie")
    shutil.copytree(a, tmp_path / "c")
    (tmp_path / "c" / "img" / "1.jpg").rename(tmp_path / "c" / "img" / "2.jpg")
    assert source_key(a, "sroie") != source_key(tmp_path / "c", "sroie")


# Genuine JPEG receipts of the committed sample suite stand in for a user's real scans.
STAND_INS = ("c00002", "c00006", "c00009", "c00013", "c00021", "c00023")


def _real_like_folder(root: Path) -> Path:
    cases = {}
    for line in (SAMPLE / "manifest.jsonl").read_text().splitlines()[1:]:
        case = json.loads(line)
        cases[case["id"]] = case
    root.mkdir(parents=True)
    rows = []
    for cid in STAND_INS:
        case, label = cases[cid], cases[cid]["label"]
        shutil.copyfile(SAMPLE / case["file"], root / f"{cid}.jpg")
        rows.append({"file": f"{cid}.jpg", **{k: label[k] for k in ("merchant", "date", "total", "currency")}})
    (root / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="the committed sample suite is missing")
def test_bench_real_end_to_end_imports_forges_runs_and_reports_side_by_side(tmp_path, monkeypatch, capsys):
    src = _real_like_folder(tmp_path / "my receipts")
    monkeypatch.chdir(tmp_path)
    argv = ["bench", "--suite", str(SAMPLE), "--target", "null", "--repeat", "1", "--real", str(src), "--run-id", "t1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "read as folder" in out and "== real import" in out
    # The import is cached by content, tagged domain=real; the forged suite is what runs.
    [root] = list((tmp_path / "cases").glob("real-my-receipts-*"))
    imported = [json.loads(x) for x in (root / "imported" / "manifest.jsonl").read_text().splitlines()[1:]]
    assert len(imported) == len(STAND_INS) and all(c["tags"]["domain"] == "real" for c in imported)
    forged = [json.loads(x) for x in (root / "forged-seed1" / "manifest.jsonl").read_text().splitlines()[1:]]
    assert any(c["label"]["authenticity"]["verdict"] == "fake" for c in forged)
    run = json.loads((tmp_path / "runs" / "t1-real-self" / "run.json").read_text())
    assert Path(run["suite_dir"]).resolve() == (root / "forged-seed1").resolve()
    # Both tracks scored; the report opens with them side by side.
    real_rows = json.loads((tmp_path / "reports" / "t1" / "real" / "rows.json").read_text())
    assert real_rows["header"]["suite_manifest_sha256"] == run["manifest_sha256"]
    md = (tmp_path / "reports" / "t1" / "report.md").read_text()
    assert "## Synthetic vs real receipts" in md
    assert f"receipts from {src} (folder, content key {root.name.rsplit('-', 1)[1]}), forged with seed 1" in md
    assert "| null | authenticity | roc_auc |" in md
    page = (tmp_path / "reports" / "t1" / "report.html").read_text()
    assert "Synthetic vs real receipts" in page and "table class='tracks'" in page
    assert (tmp_path / "reports" / "t1" / "real" / "report.html").is_file()
    # Running it again reuses both suites and finds nothing left to run.
    assert main(argv) == 0
    again = capsys.readouterr().out
    assert "real import: reusing" in again and "real forge: reusing" in again
    assert again.count("nothing left to run") == 4  # null and the added no-key baseline meta, per track
