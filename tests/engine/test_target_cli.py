"""`rabench engine check FILE` and `rabench engine fit` (refuses the test split)."""

from __future__ import annotations

import json

import msgspec

from rabench.cli.main import main
from rabench.contracts import SuiteHeader


def test_check_prints_one_verdict_as_json(receipt_file, capsys):
    path = receipt_file([("Receipt No. 1234-56", ""), ("Date: 25/12/2024", ""), ("Tea", "2.50"),
                         ("SUBTOTAL", "2.50"), ("Sales Tax 8%", "0.20"), ("TOTAL", "$2.70")], title="CORNER DELI")
    assert main(["engine", "check", str(path), "--today", "2025-01-01"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["fields"]["total"] == 2.70 and verdict["checks"][0]["status"] == "passed"
    assert 0.0 <= verdict["risk"] <= 1.0


def test_check_unreadable_file_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    assert main(["engine", "check", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "empty" in err[0]


def test_fit_refuses_the_test_split(tmp_path, capsys):
    header = SuiteHeader(suite="receipt", name="ra-bench-0.2.0/quick/test", meta={"split": "test"})
    (tmp_path / "manifest.jsonl").write_bytes(msgspec.json.encode(header) + b"\n")
    out = tmp_path / "model.json"
    assert main(["engine", "fit", "--suite", str(tmp_path), "--out", str(out)]) == 2
    assert "split=test" in capsys.readouterr().err
    assert not out.exists()


def test_fit_refuses_a_mix_with_a_test_split_before_running_anything(tmp_path, capsys):
    dev, test = tmp_path / "dev", tmp_path / "test"
    for folder, split in ((dev, "dev"), (test, "test")):
        folder.mkdir()
        header = SuiteHeader(suite="receipt", name=f"ra-bench-0.2.0/quick/{split}", meta={"split": split})
        (folder / "manifest.jsonl").write_bytes(msgspec.json.encode(header) + b"\n")
    out = tmp_path / "model.json"
    assert main(["engine", "fit", "--suite", str(dev), "--suite", str(test), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "split=test" in err and str(test) in err and "analysed" not in err
    assert not out.exists()


def test_fit_pools_the_base_cases_of_several_suites(tmp_path, capsys):
    """A mix (e.g. synthetic dev + real dev + forgeries) is fitted as one: every suite is run,
    the model records each suite it came from. Native PDFs of the sample suite keep it fast."""
    import json
    import shutil
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "cases" / "sample"
    lines = (sample / "manifest.jsonl").read_text().splitlines()
    header, cases = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    pdfs = [c for c in cases if c["media_type"] == "application/pdf" and c.get("lineage") is None]
    halves = (pdfs[::2], pdfs[1::2])
    roots = []
    for i, part in enumerate(halves):
        root = tmp_path / f"part{i}"
        (root / "files").mkdir(parents=True)
        meta = {**header["meta"], "split": "dev", "seed": 100 + i}
        head = {**header, "name": f"mix/part{i}", "meta": meta}
        (root / "manifest.jsonl").write_text("\n".join(json.dumps(x) for x in [head, *part]) + "\n")
        for c in part:
            shutil.copy(sample / c["file"], root / c["file"])
        roots.append(root)
    out = tmp_path / "model.json"
    argv = ["engine", "fit", "--workers", "1", "--out", str(out), "--cache", str(tmp_path / "cache")]
    for root in roots:
        argv += ["--suite", str(root)]
    assert main(argv) == 0, capsys.readouterr().err
    model = json.loads(out.read_text())
    assert model["n_cases"] == len(pdfs) and model["n_fakes"] == sum(
        c["label"]["authenticity"]["verdict"] == "fake" for c in pdfs)
    assert model["suite"] == "mix/part0 + mix/part1" and model["split"] == "dev"
    assert "seed=100" in model["notes"] and "seed=101" in model["notes"]
