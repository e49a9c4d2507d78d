"""`rabench cases derive`: duplicate transforms of a suite's base cases, with lineage, deterministic."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from rabench.cases.derive import derive_suite
from rabench.cases.importers import import_suite
from rabench.cases.validate import validate_suite
from rabench.cli.main import main
from rabench.errors import UserError


def receipt(fmt: str, text: str) -> bytes:
    img = Image.new("RGB", (180, 260), "white")
    d = ImageDraw.Draw(img)
    for i, line in enumerate([text, "1 x TEA   2.50", "TOTAL     2.50"]):
        d.text((12, 20 + 30 * i), line, fill="black")
    buf = io.BytesIO()
    img.save(buf, fmt)
    return buf.getvalue()


def lines_of(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]


@pytest.fixture
def base_suite(tmp_path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.jpg").write_bytes(receipt("JPEG", "CAFE NORD"))
    (src / "b.png").write_bytes(receipt("PNG", "BAKERY SUD"))
    (src / "a-again.jpg").write_bytes(receipt("JPEG", "CAFE NORD "))
    (src / "labels.csv").write_text(
        "file,merchant,total,currency,tags,duplicate_of,transform,authenticity,fake_class\n"
        "a.jpg,Cafe Nord,2.50,EUR,capture=scan,,,,\n"
        "b.png,null,2.50,,,,,fake,ai_full\n"
        "a-again.jpg,Cafe Nord,2.50,EUR,,a.jpg,reshoot,,\n"
    )
    out = tmp_path / "base"
    import_suite("folder", src, out)
    return out


def test_derive_adds_transforms_of_base_cases_with_lineage(base_suite, tmp_path):
    out = tmp_path / "derived"
    report = derive_suite(base_suite, out, transforms=["reencode", "crop"], seed=7, per_case=2)
    assert (report.copied, report.base, report.derived) == (3, 2, 8)
    assert validate_suite(out) == (11, [])
    lines = lines_of(out)
    header, cases = lines[0], {c["id"]: c for c in lines[1:]}
    assert header["name"] == "import/folder/src+derived"
    assert header["meta"]["derived"]["transforms"] == ["reencode", "crop"]
    assert header["meta"]["derived"]["seed"] == 7 and header["meta"]["derived"]["per_case"] == 2
    assert header["meta"]["importer"] == "rabench.cases.importers.folder"  # source provenance kept
    originals = {c["id"]: c for c in lines_of(base_suite)[1:]}
    for cid, orig in originals.items():  # the suite is copied unchanged
        assert cases[cid] == orig
        assert (out / orig["file"]).read_bytes() == (base_suite / orig["file"]).read_bytes()
    derived = {k: v for k, v in cases.items() if k not in originals}
    assert sorted(derived) == sorted(
        f"{b}--{kind}-{k}" for b in ("a", "b") for kind in ("reencode", "crop") for k in (1, 2)
    )  # a-again already has lineage: not a base case, so not derived from
    ids = [c["id"] for c in lines[1:]]
    for cid, c in derived.items():
        of, kind = cid.split("--")[0], cid.split("--")[1].rsplit("-", 1)[0]
        assert c["lineage"] == {"of": of, "transform": kind}
        assert ids.index(of) < ids.index(cid)  # originals run first
        assert c["label"] == originals[of]["label"]  # same printed fields
        assert c["tags"] == {**originals[of].get("tags", {}), "transform": kind}
        data = (out / c["file"]).read_bytes()
        assert c["sha256"] == hashlib.sha256(data).hexdigest()
        assert data != (base_suite / originals[of]["file"]).read_bytes()
        assert c["file"].startswith("derived/")
    # two copies of the same transform differ (own generator per copy)
    assert cases["a--crop-1"]["sha256"] != cases["a--crop-2"]["sha256"]


def test_derive_is_deterministic_for_a_seed(base_suite, tmp_path):
    derive_suite(base_suite, tmp_path / "one", transforms=["reencode", "crop", "reshoot"], seed=3)
    derive_suite(base_suite, tmp_path / "two", transforms=["reencode", "crop", "reshoot"], seed=3)
    derive_suite(base_suite, tmp_path / "other", transforms=["reencode", "crop", "reshoot"], seed=4)
    one, two, other = ((tmp_path / n / "manifest.jsonl").read_bytes() for n in ("one", "two", "other"))
    assert one == two
    assert one != other
    # a case's copies depend on its id, not on which other transforms were asked for
    derive_suite(base_suite, tmp_path / "crop-only", transforms=["crop"], seed=3)
    by = {c["id"]: c for c in lines_of(tmp_path / "crop-only")[1:]}
    all_ = {c["id"]: c for c in lines_of(tmp_path / "one")[1:]}
    assert by["b--crop-1"]["sha256"] == all_["b--crop-1"]["sha256"]


def test_derive_cli_and_refusals(base_suite, tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["cases", "derive", str(base_suite), "--out", str(out), "--transforms", "reencode", "--seed", "1"]) == 0
    assert "2 duplicate transforms added from 2 base cases" in capsys.readouterr().out
    assert main(["cases", "validate", str(out)]) == 0
    capsys.readouterr()
    # deriving again from the derived suite would clash with the ids it already has
    assert main(["cases", "derive", str(out), "--out", str(tmp_path / "dd"), "--transforms", "reencode"]) == 2
    assert "derived id a--reencode-1 already exists" in capsys.readouterr().err
    assert not (tmp_path / "dd").exists()
    assert main(["cases", "derive", str(base_suite), "--out", str(tmp_path / "x"), "--transforms", "rotate"]) == 2
    assert "unknown transform 'rotate'" in capsys.readouterr().err
    # a corrupt source suite is refused, nothing written
    (base_suite / "files" / "a.jpg").write_bytes(b"\xff\xd8\xffjunk")
    with pytest.raises(UserError):
        derive_suite(base_suite, tmp_path / "y", transforms=["crop"], seed=1)
    assert not (tmp_path / "y").exists()
    assert not any(".partial-" in p.name for p in tmp_path.iterdir())


def test_a_failure_half_way_writes_nothing(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.jpg").write_bytes(receipt("JPEG", "GOOD"))
    (src / "z.jpg").write_bytes(b"\xff\xd8\xff\xe0 truncated, not decodable")  # JPEG magic, no image
    (src / "labels.csv").write_text("file,total\na.jpg,1\nz.jpg,2\n")
    import_suite("folder", src, tmp_path / "base")  # the importer checks magic bytes, not decodability
    with pytest.raises(UserError, match=r"manifest.jsonl:3: case z: cannot crop: not a readable image"):
        derive_suite(tmp_path / "base", tmp_path / "out", transforms=["crop"], seed=0)
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "src"]


# --- Paths never built from raw manifest text (issue 15) -------------------------------------


def _manifest(root: Path, cases: list[dict]) -> None:
    header = {"type": "suite_header", "suite": "receipt", "name": "t"}
    (root / "manifest.jsonl").write_text("\n".join(json.dumps(x) for x in [header, *cases]) + "\n")


def _case(cid: str, file: str, data: bytes, **extra) -> dict:
    return {
        "id": cid,
        "file": file,
        "sha256": hashlib.sha256(data).hexdigest(),
        "media_type": "image/jpeg",
        "label": {"authenticity": {"verdict": "genuine"}},
        **extra,
    }


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_two_cases_sharing_a_file_derive_without_error(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    data = receipt("JPEG", "SHARED")
    (src / "r.jpg").write_bytes(data)
    _manifest(src, [_case("one", "r.jpg", data), _case("two", "r.jpg", data)])
    assert validate_suite(src) == (2, [])
    report = derive_suite(src, tmp_path / "out", transforms=["reencode"], seed=0)
    assert (report.copied, report.derived) == (2, 2)
    assert validate_suite(tmp_path / "out")[1] == []
    assert sorted(_tree(tmp_path / "out")) == sorted(
        ["manifest.jsonl", "r.jpg", "derived", "derived/one--reencode-1.jpg", "derived/two--reencode-1.jpg"]
    )


def test_derive_writes_nothing_outside_out_through_dotdot_and_symlinked_folders(tmp_path):
    """``link/../../a.jpg`` is inside the source suite (the link goes two folders down), but
    written as text under --out it would climb out of it: derive writes the real path."""
    src = tmp_path / "work" / "src"
    (src / "real" / "deep").mkdir(parents=True)
    os.symlink("real/deep", src / "link")
    data = receipt("JPEG", "CLIMB")
    (src / "a.jpg").write_bytes(data)
    _manifest(src, [_case("a", "link/../../a.jpg", data)])
    assert validate_suite(src) == (1, [])
    before = _tree(tmp_path)
    derive_suite(src, tmp_path / "work" / "out", transforms=["crop"], seed=0)
    new = _tree(tmp_path) - before
    assert all(p.startswith("work/out/") or p == "work/out" for p in new), sorted(new)
    assert validate_suite(tmp_path / "work" / "out")[1] == []
    copied = [json.loads(x) for x in (tmp_path / "work" / "out" / "manifest.jsonl").read_text().splitlines()][1]
    assert copied["file"] == "a.jpg"


def test_an_escaping_id_is_refused_before_anything_is_written(tmp_path, capsys):
    src = tmp_path / "a" / "b" / "c" / "src"
    src.mkdir(parents=True)
    data = receipt("JPEG", "ESCAPE")
    (src / "r.jpg").write_bytes(data)
    _manifest(src, [_case("../../../escaped-case", "r.jpg", data)])
    before = _tree(tmp_path)
    assert main(["cases", "derive", str(src), "--out", str(tmp_path / "a" / "b" / "c" / "out")]) == 2
    err = capsys.readouterr().err
    assert "manifest.jsonl:2: id '../../../escaped-case' is not a valid case id" in err
    assert _tree(tmp_path) == before


def test_a_derived_id_over_the_length_limit_is_one_line(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    data = receipt("JPEG", "LONG")
    (src / "r.jpg").write_bytes(data)
    _manifest(src, [_case("x" * 120, "r.jpg", data)])
    with pytest.raises(UserError, match=r"derived id 'x+\.\.\.' \(132 characters\) is not a valid case id.*shorten"):
        derive_suite(src, tmp_path / "out", transforms=["reencode"], seed=0)
    assert not (tmp_path / "out").exists()


def test_an_imported_long_file_name_gets_an_id_derive_can_extend(tmp_path):
    """The importer's ids stay within the id rule (<= 128) with room for derive's suffix."""
    src = tmp_path / "src"
    src.mkdir()
    name = "Receipt " + "x" * 190 + ".jpg"
    (src / name).write_bytes(receipt("JPEG", "LONG NAME"))
    (src / "labels.csv").write_text(f"file,total\n{name},2.50\n")
    import_suite("folder", src, tmp_path / "base")
    (line,) = lines_of(tmp_path / "base")[1:]
    assert len(line["id"]) <= 96 and line["id"].startswith("receipt-xxx")
    report = derive_suite(tmp_path / "base", tmp_path / "out", transforms=["reencode"], seed=0)
    assert report.derived == 1 and validate_suite(tmp_path / "out")[1] == []
