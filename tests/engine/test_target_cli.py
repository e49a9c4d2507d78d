"""`rabench engine check FILE` and `rabench engine fit` (refuses the test split)."""

from __future__ import annotations

import json

import msgspec

from rabench.cli.main import main
from rabench.contracts import SuiteHeader


def test_check_prints_one_verdict_as_json(receipt_file, capsys):
    path = receipt_file(
        [
            ("Receipt No. 1234-56", ""),
            ("Date: 25/12/2024", ""),
            ("Tea", "2.50"),
            ("SUBTOTAL", "2.50"),
            ("Sales Tax 8%", "0.20"),
            ("TOTAL", "$2.70"),
        ],
        title="CORNER DELI",
    )
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
    out, results = tmp_path / "model.json", tmp_path / "results.jsonl"
    suites = [a for root in roots for a in ("--suite", str(root))]
    argv = [
        "engine",
        "fit",
        "--workers",
        "1",
        "--out",
        str(out),
        "--cache",
        str(tmp_path / "cache"),
        "--results",
        str(results),
        *suites,
    ]
    assert main(argv) == 0, capsys.readouterr().err
    model = json.loads(out.read_text())
    assert model["n_cases"] == len(pdfs) and model["n_fakes"] == sum(
        c["label"]["authenticity"]["verdict"] == "fake" for c in pdfs
    )
    assert model["suite"] == "mix/part0 + mix/part1" and model["split"] == "dev"
    assert "seed=100" in model["notes"] and "seed=101" in model["notes"]
    # --reuse refits from the recorded signals without running the engine: the same model
    again = tmp_path / "again.json"
    assert main(["engine", "fit", "--out", str(again), "--reuse", str(results), *suites]) == 0
    refit = json.loads(again.read_text())
    assert {k: refit[k] for k in ("features", "coef", "intercept", "knees", "n_cases")} == {
        k: model[k] for k in ("features", "coef", "intercept", "knees", "n_cases")
    }
    # ...and refuses a results file that is not these suites' cases in this order
    capsys.readouterr()
    swapped = ["--suite", str(roots[1]), "--suite", str(roots[0])]
    assert main(["engine", "fit", "--out", str(again), "--reuse", str(results), *swapped]) == 2
    assert "not the cases of" in capsys.readouterr().err


ROWS = [
    ("Receipt No. 1234-56", ""),
    ("Date: 25/12/2024", ""),
    ("Tea", "2.50"),
    ("Scone", "3.10"),
    ("SUBTOTAL", "5.60"),
    ("Sales Tax 8%", "0.45"),
    ("TOTAL", "$6.05"),
]


def _sideways_photo(render, path) -> bytes:
    """A 3400-px JPEG stored sideways with EXIF orientation 6, as phones write them: a run
    prepares it upright and <= 3072 px before the engine reads it."""
    import io

    import piexif
    from PIL import Image

    img = render(ROWS, title="CORNER DELI", width=1700, size=64)
    img = img.resize((img.width * 2, img.height * 2))
    stored = img.transpose(Image.Transpose.ROTATE_90)  # displayed upright after a 90-degree turn clockwise
    buf = io.BytesIO()
    stored.save(buf, "JPEG", quality=85, exif=piexif.dump({"0th": {piexif.ImageIFD.Orientation: 6}}))
    path.write_bytes(buf.getvalue())
    return buf.getvalue(), img.size


def _one_case_suite(root, name: str, data: bytes):
    import hashlib

    from rabench.contracts import Case
    from rabench.contracts.labels import Authenticity, ReceiptLabel

    root.mkdir()
    (root / name).write_bytes(data)
    enc = msgspec.json.Encoder()
    case = Case(
        id="c1",
        file=name,
        sha256=hashlib.sha256(data).hexdigest(),
        media_type="image/jpeg",
        label=ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=6.05, currency="USD"),
        submitted_at="2025-01-02T09:00:00Z",
    )
    (root / "manifest.jsonl").write_bytes(
        enc.encode(SuiteHeader(suite="receipt", name="one")) + b"\n" + enc.encode(case) + b"\n"
    )
    return root


def test_check_prepares_the_file_as_a_run_does_and_gives_the_runs_verdict(render, tmp_path, capsys):
    from PIL import Image

    from rabench.contracts import Outcome

    photo = tmp_path / "photo.jpg"
    data, upright = _sideways_photo(render, photo)
    cache = tmp_path / "cache"
    assert main(["engine", "check", str(photo), "--cache", str(cache), "--submitted-at", "2025-01-02T09:00:00Z"]) == 0
    checked = json.loads(capsys.readouterr().out)
    # read upright: without the run's preparation the engine would OCR the sideways pixels
    assert checked["fields"]["total"] == 6.05 and checked["fields"]["date"] == "2024-12-25"
    prepared = [p for p in cache.rglob("*") if p.is_file()]
    assert len(prepared) == 1
    with Image.open(prepared[0]) as im:
        assert max(im.size) <= 3072 < max(upright)
        assert abs(im.width / im.height - upright[0] / upright[1]) < 0.01  # upright, as a run prepares it

    suite = _one_case_suite(tmp_path / "suite", "photo.jpg", data)
    config = tmp_path / "targets.toml"
    config.write_text('[self]\nworkers = 1\npool = "thread"\n')
    assert (
        main(
            [
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp_path / "run"),
                "--target",
                "self",
                "--config",
                str(config),
                "--cache",
                str(cache),
                "--progress",
                "none",
            ]
        )
        == 0
    )
    capsys.readouterr()
    (line,) = (tmp_path / "run" / "outcomes.jsonl").read_bytes().splitlines()
    outcome = msgspec.json.decode(line, type=Outcome)
    assert outcome.status == "ok" and outcome.verdict is not None
    ran = json.loads(msgspec.json.encode(outcome.verdict))
    for key in ("fields", "line_items", "checks", "risk", "reasons", "diagnostics"):
        assert checked.get(key) == ran.get(key), key


def test_check_submission_time_drives_the_time_rules(receipt_file, capsys):
    path = receipt_file(ROWS, title="CORNER DELI")
    assert main(["engine", "check", str(path)]) == 0
    without = json.loads(capsys.readouterr().out)
    assert any("no submission time" in d for d in without["diagnostics"])
    assert not any(r["kind"] == "plausibility" and "old" in r["text"] for r in without["reasons"])
    assert main(["engine", "check", str(path), "--submitted-at", "2027-03-01T12:00:00Z"]) == 0
    late = json.loads(capsys.readouterr().out)
    assert not any("no submission time" in d for d in late.get("diagnostics", []))
    assert any(r["kind"] == "plausibility" and "2024-12-25" in r["text"] for r in late["reasons"])


def test_check_rejects_a_malformed_submission_time(receipt_file, capsys):
    path = receipt_file(ROWS, title="CORNER DELI")
    assert main(["engine", "check", str(path), "--submitted-at", "yesterday"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "submitted-at" in err[0]
