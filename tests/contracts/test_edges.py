"""Every file rabench reads back is decoded once, typed, at the edge: an unknown key or
another contracts_version is one line and exit 2 (before: read as a dict, the key was
ignored and the version never looked at)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from rabench.cli.main import main
from rabench.cli.schema import CONTRACTS, description, schemas
from rabench.contracts import CONTRACTS_VERSION
from rabench.score.synthetic import make

OTHER = CONTRACTS_VERSION + 1


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("edges")
    run = make(root, n_targets=2, n_cases=60, reps=1, seed=5)
    out = root / "report"
    assert main(["score", str(run), "--out", str(out)]) == 0
    return run, out


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err, err
    return err


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            lambda d: d["header"].update(contracts_version=OTHER),
            f"contracts_version {OTHER} found, this rabench reads version {CONTRACTS_VERSION}",
        ),
        (lambda d: d["header"].update(contracts_version=0), "contracts_version 0 found"),
        (lambda d: d.update(extra=1), "unknown field extra"),
        (lambda d: d["rows"][0].update(vale=0.5), "unknown field vale"),
        (lambda d: d["header"].update(sute_name="x"), "unknown field sute_name"),
    ],
)
def test_report_refuses_a_rows_json_of_another_version_or_with_an_unknown_key(
    scored, tmp_path, capsys, change, expected
):
    report = _copy(scored[1], tmp_path / "r")
    _edit(report / "rows.json", change)
    assert main(["report", str(report)]) == 2
    err = _one_line(capsys)
    assert expected in err and "rows.json" in err, err
    assert not (report / "report.html").exists()


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: d.update(contracts_version=OTHER), f"contracts_version {OTHER} found"),
        (lambda d: d.update(rocc={}), "unknown field rocc"),
        (lambda d: d["worst"][0].update(thumb=None) if d["worst"] else d.update(rocc={}), "unknown field"),
    ],
)
def test_report_refuses_a_bad_details_json(scored, tmp_path, capsys, change, expected):
    report = _copy(scored[1], tmp_path / "r")
    _edit(report / "details.json", change)
    assert main(["report", str(report)]) == 2
    err = _one_line(capsys)
    assert expected in err and "details.json" in err, err


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: d.update(contracts_version=OTHER), f"contracts_version {OTHER} found"),
        (lambda d: d["cases"][0].update(imgg=None), "unknown field imgg"),
        (lambda d: d["cases"][0]["runs"][0][0].append(1), "cases.json"),  # a run of 7 items, not 6
    ],
)
def test_report_refuses_a_bad_cases_json(scored, tmp_path, capsys, change, expected):
    report = _copy(scored[1], tmp_path / "r")
    _edit(report / "cases.json", change)
    assert main(["report", str(report)]) == 2
    err = _one_line(capsys)
    assert expected in err and "cases.json" in err, err


def test_report_refuses_a_track_json_of_another_version_or_with_an_unknown_key(scored, tmp_path, capsys):
    report = _copy(scored[1], tmp_path / "r")
    (report / "real").mkdir()
    shutil.copy(report / "rows.json", report / "real" / "rows.json")
    track = {"source": "src", "format": "folder", "content_key": "k", "seed": 1, "imported": "i", "forged": "f"}
    (report / "real" / "track.json").write_text(json.dumps(track))
    assert main(["report", str(report)]) == 0
    assert "receipts from src (folder, content key k), forged with seed 1" in (report / "report.md").read_text()
    for extra, expected in (
        ({"contracts_version": OTHER}, f"contracts_version {OTHER} found"),
        ({"sede": 2}, "unknown field sede"),
    ):
        (report / "real" / "track.json").write_text(json.dumps({**track, **extra}))
        assert main(["report", str(report)]) == 2
        err = _one_line(capsys)
        assert expected in err and "track.json" in err, err


def test_score_and_resume_refuse_a_run_json_of_another_version(scored, tmp_path, capsys):
    run = _copy(scored[0], tmp_path / "run")
    _edit(run / "run.json", lambda d: d.update(contracts_version=OTHER))
    assert main(["score", str(run), "--out", str(tmp_path / "out")]) == 2
    assert f"contracts_version {OTHER} found" in _one_line(capsys)
    assert main(["run", "--out", str(run), "--resume"]) == 2
    assert f"contracts_version {OTHER} found" in _one_line(capsys)


def test_score_refuses_an_unknown_key_in_run_json_and_outcomes(scored, tmp_path, capsys):
    run = _copy(scored[0], tmp_path / "run")
    _edit(run / "run.json", lambda d: d.update(sede=1))
    assert main(["score", str(run), "--out", str(tmp_path / "o1")]) == 2
    assert "unknown field sede" in _one_line(capsys)
    run = _copy(scored[0], tmp_path / "run2")
    lines = (run / "outcomes.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["latncy_s"] = 1.0
    (run / "outcomes.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    assert main(["score", str(run), "--out", str(tmp_path / "o2")]) == 2
    err = _one_line(capsys)
    assert "outcomes.jsonl:1" in err and "latncy_s" in err, err


def test_a_written_run_json_carries_its_contracts_version(scored):
    assert json.loads((scored[0] / "run.json").read_text())["contracts_version"] == CONTRACTS_VERSION
    details = json.loads((scored[1] / "details.json").read_text())
    assert details["contracts_version"] == CONTRACTS_VERSION


def test_a_suite_header_of_another_version_is_refused(scored, tmp_path, capsys):
    run = json.loads((scored[0] / "run.json").read_text())
    suite = _copy(Path(run["suite_dir"]), tmp_path / "suite")
    lines = (suite / "manifest.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["contracts_version"] = OTHER
    (suite / "manifest.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    run_dir = _copy(scored[0], tmp_path / "run")
    _edit(run_dir / "run.json", lambda d: d.update(suite_dir=str(suite)))
    assert main(["score", str(run_dir), "--out", str(tmp_path / "out")]) == 2
    err = _one_line(capsys)
    assert f"contracts_version {OTHER} found" in err and "manifest.jsonl:1" in err, err
    assert main(["cases", "validate", str(suite)]) == 2  # validate names it too (among its problems)
    assert f"manifest.jsonl:1: contracts_version {OTHER} found" in capsys.readouterr().err


def test_schema_lists_every_contract_with_a_description(capsys):
    assert main(["schema", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()[1:]
    assert [line.split()[0] for line in lines] == list(CONTRACTS)
    assert {"run", "outcome", "rows", "details", "targets_config", "price_table", "case"} <= set(CONTRACTS)
    for struct, _ in CONTRACTS.values():
        assert len(description(struct)) > 20, struct
    defs = schemas()["$defs"]
    assert defs and all(d.get("description") for d in defs.values()), [
        name for name, d in defs.items() if not d.get("description")
    ]
    for name in CONTRACTS:
        assert main(["schema", name]) == 0
        one = json.loads(capsys.readouterr().out)
        top = one["$defs"][one["$ref"].rsplit("/", 1)[1]]
        assert top.get("description"), name


def test_thumbnails_go_through_the_suite_path_resolver(tmp_path):
    """A case file that leaves the suite through a symlink gets no thumbnail (before: the
    report read whatever the joined path pointed at)."""
    from PIL import Image

    from rabench.contracts import Authenticity, Case, ReceiptLabel
    from rabench.score.details import case_path

    secret = tmp_path / "outside.png"
    Image.new("RGB", (20, 20), "red").save(secret)
    suite = tmp_path / "suite"
    suite.mkdir()
    Image.new("RGB", (20, 20), "blue").save(suite / "in.png")
    os.symlink(secret, suite / "link.png")
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"))

    def case(file: str) -> Case:
        return Case(id="c1", file=file, sha256="0" * 64, media_type="image/png", label=label)

    assert case_path(suite, case("in.png")) == (suite / "in.png").resolve()
    assert case_path(suite, case("link.png")) is None
    assert case_path(suite, case("../outside.png")) is None
    assert case_path(None, case("in.png")) is None
