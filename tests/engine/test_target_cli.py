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
