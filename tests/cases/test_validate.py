"""Every loader problem is one clear line naming the file, the line and the case; exit 2."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rabench.cases import open_suite
from rabench.cases.validate import validate_suite
from rabench.cli.main import main
from rabench.errors import UserError

HEADER = {"type": "suite_header", "suite": "receipt", "name": "t"}


def _case(cid, file, data=b"x", **extra):
    c = {
        "id": cid,
        "file": file,
        "sha256": hashlib.sha256(data).hexdigest(),
        "media_type": "image/jpeg",
        "label": {"suite": "receipt", "authenticity": {"verdict": "genuine"}, "total": 1.0},
    }
    c.update(extra)
    return c


def _write(root: Path, cases, files=None, header=HEADER):
    root.mkdir(parents=True, exist_ok=True)
    for name, data in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    lines = [json.dumps(header)] + [c if isinstance(c, str) else json.dumps(c) for c in cases]
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_valid_suite_streams_cases_and_reads_bytes_lazily(tmp_path):
    root = _write(
        tmp_path / "s",
        [_case("a", "f/a.jpg", b"A"), _case("b", "f/b.jpg", b"B", after=["a"])],
        {"f/a.jpg": b"A", "f/b.jpg": b"B"},
    )
    assert validate_suite(root) == (2, [])
    suite = open_suite(root)
    assert suite.header.suite == "receipt"
    loaded = list(suite)
    assert [lc.case.id for lc in loaded] == ["a", "b"]
    assert [lc.line for lc in loaded] == [2, 3]
    assert loaded[1].read_bytes() == b"B"


def test_every_problem_is_reported_once_per_line(tmp_path):
    outside = tmp_path / "outside.jpg"
    outside.write_bytes(b"O")
    root = tmp_path / "s"
    root.mkdir()
    os.symlink(outside, root / "link.jpg")
    cases = [
        _case("ok", "ok.jpg", b"K"),
        _case("missing", "receipts/0042.jpg"),  # 3 missing file
        _case("badhash", "ok.jpg", b"different"),  # 4 sha256 mismatch
        _case("ok", "ok.jpg", b"K"),  # 5 duplicate id
        {**_case("types", "ok.jpg", b"K"), "tags": ["class=x"]},  # 6 wrong type
        {**_case("enum", "ok.jpg", b"K"), "media_type": "image/gif"},  # 7 unknown enum
        _case("dangling", "ok.jpg", b"K", after=["nope"]),  # 8 unknown after
        _case("orphan", "ok.jpg", b"K", lineage={"of": "ghost", "transform": "crop"}),  # 9
        _case("c1", "ok.jpg", b"K", after=["c2"]),  # 10 cycle
        _case("c2", "ok.jpg", b"K", after=["c1"]),  # 11
        _case("escape", "../outside.jpg", b"O"),  # 12 ../
        _case("abs", str(outside), b"O"),  # 13 absolute
        _case("sym", "link.jpg", b"O"),  # 14 symlink out
        "{not json",  # 15
    ]
    _write(root, cases, {"ok.jpg": b"K"})
    count, problems = validate_suite(root)
    assert count == 14
    text = "\n".join(problems)
    expected = [
        "manifest.jsonl:3: case missing: file receipts/0042.jpg not found",
        "manifest.jsonl:4: case badhash: file ok.jpg sha256 mismatch",
        "manifest.jsonl:5: case ok: duplicate id (first on line 2)",
        "manifest.jsonl:8: case dangling: after names unknown case nope",
        "manifest.jsonl:9: case orphan: lineage names unknown case ghost",
        "manifest.jsonl:12: case escape: file ../outside.jpg escapes the suite folder",
        f"manifest.jsonl:13: case abs: file {outside} escapes the suite folder",
        "manifest.jsonl:14: case sym: file link.jpg escapes the suite folder",
    ]
    for line in expected:
        assert line in problems, f"missing: {line}\n{text}"
    assert any(
        p.startswith("manifest.jsonl:6: Expected `object`".replace("`", "")) and "tags" in p for p in problems
    ), text
    assert any(p.startswith("manifest.jsonl:7:") and "media_type" in p for p in problems), text
    assert any(p.startswith("manifest.jsonl:15:") for p in problems), text
    assert any("dependency cycle" in p and "c1" in p and "c2" in p for p in problems), text
    assert len(problems) == len(expected) + 4
    assert all("\n" not in p and "Traceback" not in p for p in problems)


def test_cli_validate_prints_one_line_per_problem_and_exits_2(tmp_path, capsys):
    root = _write(tmp_path / "s", [_case("a", "a.jpg"), _case("b", "b.jpg", after=["zz"])], {"a.jpg": b"x"})
    assert main(["cases", "validate", str(root)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].endswith("manifest.jsonl:3: case b: file b.jpg not found")
    assert err[1].endswith("manifest.jsonl:3: case b: after names unknown case zz")
    assert err[-1] == "rabench: 2 problem(s) found"


def test_cli_validate_ok_exits_0(tmp_path, capsys):
    root = _write(tmp_path / "s", [_case("a", "a.jpg")], {"a.jpg": b"x"})
    assert main(["cases", "validate", str(root)]) == 0
    assert "1 cases, valid" in capsys.readouterr().out


@pytest.mark.parametrize(
    "setup,message",
    [
        (lambda p: None, "no such suite folder"),
        (lambda p: p.mkdir(), "no manifest.jsonl"),
        (lambda p: (p.mkdir(), (p / "manifest.jsonl").write_text("")), "empty manifest"),
        (lambda p: (p.mkdir(), (p / "manifest.jsonl").write_text('{"x": 1}\n')), "bad suite header"),
    ],
)
def test_open_suite_bad_input_is_one_line(tmp_path, setup, message):
    root = tmp_path / "s"
    setup(root)
    with pytest.raises(UserError, match=message) as info:
        open_suite(root)
    assert "\n" not in str(info.value)


def test_streaming_stops_at_first_bad_line_with_location(tmp_path):
    root = _write(tmp_path / "s", [_case("a", "a.jpg"), "[1, 2]"], {"a.jpg": b"x"})
    it = iter(open_suite(root))
    assert next(it).case.id == "a"
    with pytest.raises(UserError, match=r"manifest.jsonl:3: Expected object"):
        next(it)


def test_cli_never_prints_a_traceback(tmp_path):
    root = _write(tmp_path / "s", ["garbage"], {})
    proc = subprocess.run(
        [sys.executable, "-m", "rabench", "cases", "validate", str(root)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "manifest.jsonl:2:" in proc.stderr


# --- Case ids (issue 15): a safe alphabet, checked where a Case is decoded ------------------


@pytest.mark.parametrize(
    "bad",
    [
        "../../../escaped-case",
        "",
        "a/b",
        "a\\b",
        "a\nb",
        "tab\there",
        "bell\x07",
        ".hidden",
        "-dash",
        "caf\u00e9",
        "e\u0301",
        "x" * 129,
        " a",
        "a ",
    ],
)
def test_an_unsafe_case_id_is_a_one_line_problem(tmp_path, bad):
    root = _write(tmp_path / "s", [_case("ok", "a.jpg"), _case(bad, "a.jpg")], {"a.jpg": b"x"})
    count, problems = validate_suite(root)
    assert count == 2 and len(problems) == 1, problems
    assert problems[0].startswith("manifest.jsonl:3: id ") and "is not a valid case id" in problems[0]
    assert "\n" not in problems[0] and "\t" not in problems[0] and "\x07" not in problems[0]
    with pytest.raises(UserError, match=r"manifest.jsonl:3: id .* is not a valid case id: use 1-128 ASCII"):
        list(open_suite(root))


def test_ids_that_name_files_safely_are_accepted(tmp_path):
    ids = ["000", "c00001", "a--reencode-1", "X_1.2-b", "x" * 128, "9"]
    root = _write(tmp_path / "s", [_case(i, "a.jpg") for i in ids], {"a.jpg": b"x"})
    assert validate_suite(root) == (len(ids), [])


def test_references_to_unsafe_ids_are_refused_too(tmp_path):
    root = _write(
        tmp_path / "s",
        [_case("a", "a.jpg", after=["../x"]), _case("b", "a.jpg", lineage={"of": "a\nb", "transform": "crop"})],
        {"a.jpg": b"x"},
    )
    _, problems = validate_suite(root)
    assert [p.split(":")[1] for p in problems] == ["2", "3"], problems
    assert "after '../x' is not a valid case id" in problems[0]
    assert "lineage.of 'a\\nb' is not a valid case id" in problems[1]


def test_ids_equal_ignoring_case_are_duplicates(tmp_path):
    """A1.jpg and a1.jpg are one file on macOS and Windows, and derive names files after ids."""
    root = _write(tmp_path / "s", [_case("Rcpt-1", "a.jpg"), _case("rcpt-1", "a.jpg")], {"a.jpg": b"x"})
    _, problems = validate_suite(root)
    assert problems == [
        "manifest.jsonl:3: case rcpt-1: duplicate id: same as Rcpt-1 on line 2 ignoring case "
        "(one file on macOS and Windows); rename one"
    ]


def test_a_bad_sha256_or_a_control_character_in_a_file_name_is_refused(tmp_path):
    root = _write(
        tmp_path / "s", [{**_case("a", "a.jpg"), "sha256": "../../etc"}, _case("b", "a\nb.jpg")], {"a.jpg": b"x"}
    )
    _, problems = validate_suite(root)
    assert len(problems) == 2 and all("\n" not in p for p in problems), problems
    assert "sha256 '../../etc' is not 64 hexadecimal digits" in problems[0]
    assert "file 'a\\nb.jpg' is empty or holds a control character" in problems[1]


# --- Symlink loops (issue 15): one line, exit 2 -----------------------------------------------


def _looped_suite(root: Path) -> Path:
    root = _write(root, [_case("a", "a.jpg"), _case("b", "loop1")], {"a.jpg": b"x"})
    os.symlink("loop2", root / "loop1")
    os.symlink("loop1", root / "loop2")
    return root


def test_a_symlink_loop_is_one_problem_line_not_a_traceback(tmp_path, capsys):
    root = _looped_suite(tmp_path / "s")
    count, problems = validate_suite(root)
    assert count == 2
    assert problems == [
        "manifest.jsonl:3: case b: file loop1 runs through a symlink loop; replace the link with the file"
    ]
    with pytest.raises(UserError, match="manifest.jsonl:3: case b: file loop1 runs through a symlink loop"):
        list(open_suite(root))
    proc = subprocess.run(
        [sys.executable, "-m", "rabench", "cases", "validate", str(root)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "case b: file loop1 runs through a symlink loop" in proc.stderr
