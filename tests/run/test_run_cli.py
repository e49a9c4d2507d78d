"""`rabench run` from the command line: outcomes and run.json, per-case errors, one-line refusals."""

import hashlib
import json

import msgspec
import pytest

from rabench.cli.main import main
from rabench.contracts import RunManifest
from rabench.run.outcomes import read_outcomes
from runsuite import make_suite


def _argv(suite, out, tmp_path, *extra):
    return [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
        *extra,
    ]


def test_run_writes_run_json_and_one_outcome_per_unit(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 6, name="ra-bench-test")
    out = tmp_path / "runs" / "first"
    assert (
        main(
            _argv(
                suite, out, tmp_path, "--target", "null", "--target", "null:slow=0.001", "--repeat", "3", "--seed", "7"
            )
        )
        == 0
    )
    stdout = capsys.readouterr().out
    assert "null: 18 ok" in stdout and "36 outcomes written" in stdout
    m = msgspec.json.decode((out / "run.json").read_bytes(), type=RunManifest)
    assert (m.run_id, m.suite_name, m.suite_kind, m.repetitions, m.seed) == ("first", "ra-bench-test", "receipt", 3, 7)
    assert [t.id for t in m.targets] == ["null", "null:slow=0.001"]
    assert m.timeout_s == 180 and m.started_at <= m.finished_at
    assert m.manifest_sha256 == hashlib.sha256((suite / "manifest.jsonl").read_bytes()).hexdigest()
    outcomes = read_outcomes(out / "outcomes.jsonl")
    assert len(outcomes) == 36 and {o.run_id for o in outcomes} == {"first"}
    assert all(o.latency_s is not None and o.attempts == 1 for o in outcomes)


def test_a_corrupt_image_is_an_error_outcome_for_that_case_only(tmp_path):
    suite = make_suite(tmp_path / "s", 3)
    bad = b"\xff\xd8\xff\xe0 this is not really a jpeg"
    lines = (suite / "manifest.jsonl").read_text().splitlines()
    case = json.loads(lines[2])
    case["sha256"] = hashlib.sha256(bad).hexdigest()
    (suite / case["file"]).write_bytes(bad)
    lines[2] = json.dumps(case)
    (suite / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "r"
    assert main(_argv(suite, out, tmp_path, "--target", "null", "--repeat", "2")) == 0
    by = {(o.case_id, o.repetition): o for o in read_outcomes(out / "outcomes.jsonl")}
    assert len(by) == 6
    for rep in (0, 1):
        o = by[("c00001", rep)]
        assert o.status == "error" and o.attempts == 0 and "cannot prepare f1.jpg" in o.error
        assert by[("c00000", rep)].status == "ok" and by[("c00002", rep)].status == "ok"


def _c(cid, **extra):
    c = {
        "id": cid,
        "file": "a.jpg",
        "sha256": "0" * 64,
        "media_type": "image/jpeg",
        "label": {"suite": "receipt", "authenticity": {"verdict": "genuine"}},
    }
    c.update(extra)
    return c


@pytest.mark.parametrize(
    "cases,expected",
    [
        ([], "has no cases"),
        ([_c("a"), _c("a")], "duplicate id"),
        ([_c("a", after=["zz"])], "depends on unknown case zz"),
        ([_c("a", after=["b"]), _c("b", after=["a"])], "dependency cycle"),
        ([_c("a", file="missing.jpg")], "file missing.jpg not found"),
        ([_c("a", media_type="image/gif")], "manifest.jsonl:2"),
        (["{not json"], "manifest.jsonl:2"),
    ],
)
def test_bad_suites_are_refused_with_one_line(tmp_path, capsys, cases, expected):
    root = tmp_path / "bad"
    root.mkdir()
    header = {"type": "suite_header", "suite": "receipt", "name": "t"}
    lines = [json.dumps(header)] + [c if isinstance(c, str) else json.dumps(c) for c in cases]
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    (root / "a.jpg").write_bytes(b"x")
    assert main(_argv(root, tmp_path / "r", tmp_path, "--target", "null")) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r" / "outcomes.jsonl").exists()


@pytest.mark.parametrize(
    "argv_extra,expected",
    [
        (["--target", "nosuch"], "unknown target"),
        (["--target", "null", "--rpm", "null"], "expected PROVIDER=N"),
        (["--target", "null", "--config", "/nonexistent.toml"], "no such config file"),
        (["--target", "null:slow=abc"], "must be a number"),
        ([], "no target"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path, capsys, argv_extra, expected):
    suite = make_suite(tmp_path / "s", 2)
    assert main(_argv(suite, tmp_path / "r", tmp_path, *argv_extra)) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1, err


def test_missing_suite_folder_is_one_line(tmp_path, capsys):
    assert main(_argv(tmp_path / "nope", tmp_path / "r", tmp_path, "--target", "null")) == 2
    assert "no such suite folder" in capsys.readouterr().err


def test_plain_progress_lines_report_every_target(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 20)
    argv = [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(tmp_path / "r"),
        "--cache",
        str(tmp_path / "c"),
        "--target",
        "null:slow=0.01",
        "--target",
        "null",
        "--progress",
        "plain",
        "--log-every",
        "0.05",
        "--concurrency",
        "null=2",
    ]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "null:slow=0.01: 20/20 done" in err and "null: 20/20 done" in err
    assert "calls/s" in err and "ETA" in err
