"""`rabench cases import --format folder`: your own receipts + labels.csv/jsonl -> a valid suite."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from rabench.cases import open_suite
from rabench.cases.importers import ImportOptions, import_suite
from rabench.cases.importers.base import BadRows
from rabench.cases.importers.media import assign_ids
from rabench.cases.validate import validate_suite
from rabench.cli.main import main
from rabench.errors import UserError

COLS = "file,merchant,date,subtotal,tax_total,total,currency,receipt_number,line_items,adds_up,authenticity,fake_class,edited_fields,provenance,duplicate_of,transform,after,tags"


def image_bytes(fmt: str = "JPEG", shade: int = 200, size=(60, 90)) -> bytes:
    img = Image.new("RGB", size, (shade, shade, shade))
    img.putpixel((3, 3), (shade // 3, 0, 0))
    buf = io.BytesIO()
    img.save(buf, fmt)
    return buf.getvalue()


def csv_line(*cells: str) -> str:
    out = []
    for c in cells:
        out.append('"' + c.replace('"', '""') + '"' if any(ch in c for ch in ',"\n') else c)
    return ",".join(out)


def make_folder(root: Path, files: dict[str, bytes], labels: str, name="labels.csv") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (root / name).write_text(labels, encoding="utf-8")
    return root


def manifest_lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines() if x.strip()]


def cases_by_id(out: Path) -> dict[str, dict]:
    return {c["id"]: c for c in manifest_lines(out)[1:]}


def assert_valid(out: Path) -> None:
    count, problems = validate_suite(out)
    assert problems == []
    assert count == len(manifest_lines(out)) - 1


def no_partial_left(parent: Path) -> bool:
    return not any(p.name.startswith(".") and ".partial-" in p.name for p in parent.iterdir())


def test_full_row_is_imported_field_by_field(tmp_path):
    jpg, png = image_bytes("JPEG"), image_bytes("PNG", 120)
    items = json.dumps(
        [{"description": "Flat white", "total": 3.5, "quantity": 1}, {"description": "Croissant", "total": 2.4}]
    )
    labels = (
        "\n".join(
            [
                COLS,
                csv_line(
                    "0042.jpg",
                    "  Café  Nord ",
                    "2024-03-05",
                    "5.90",
                    "1.18",
                    "7.08",
                    "eur",
                    "A-17",
                    items,
                    "yes",
                    "",
                    "",
                    "",
                    "intact",
                    "",
                    "",
                    "",
                    "capture=scan;country=de",
                ),
                csv_line(
                    "scan/0043 copy.png",
                    "null",
                    "",
                    "",
                    "",
                    "1,234.50",
                    "",
                    "",
                    "[]",
                    "false",
                    "fake",
                    "hand_edit",
                    "total; date",
                    "stripped",
                    "",
                    "",
                    "0042.jpg",
                    "",
                ),
            ]
        )
        + "\n"
    )
    src = make_folder(tmp_path / "src", {"0042.jpg": jpg, "scan/0043 copy.png": png}, labels)
    before = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    out = tmp_path / "suite"

    report = import_suite("folder", src, out, ImportOptions(tags={"source": "mine"}))

    assert report.imported == 2 and report.skipped == []
    lines = manifest_lines(out)
    header = lines[0]
    assert header["type"] == "suite_header" and header["suite"] == "receipt"
    assert header["name"] == "import/folder/src"
    assert header["meta"]["importer"] == "rabench.cases.importers.folder"
    assert header["meta"]["source_format"] == "folder" and header["meta"]["source"] == "src"
    assert header["meta"]["options"]["tags"] == {"source": "mine"}
    assert header["meta"]["options"]["labels"] == "labels.csv"
    cases = cases_by_id(out)
    assert set(cases) == {"0042", "scan-0043-copy"}

    a = cases["0042"]
    assert a["media_type"] == "image/jpeg" and a["file"] == "files/0042.jpg"
    assert a["sha256"] == hashlib.sha256(jpg).hexdigest()
    assert (out / a["file"]).read_bytes() == jpg
    la = a["label"]
    assert la["merchant"] == "Café Nord"  # trimmed, inner whitespace collapsed
    assert la["date"] == "2024-03-05"
    assert (la["subtotal"], la["tax_total"], la["total"]) == (5.9, 1.18, 7.08)
    assert la["currency"] == "EUR" and la["receipt_number"] == "A-17"
    assert la["line_items"] == [
        {"description": "Flat white", "total": 3.5, "quantity": 1.0, "unit_price": None},
        {"description": "Croissant", "total": 2.4, "quantity": None, "unit_price": None},
    ]
    assert la["adds_up"] is True and la["provenance"] == "intact"
    assert la["authenticity"] == {"verdict": "genuine", "fake_class": None, "edited_fields": []}
    assert a["tags"] == {"source": "mine", "capture": "scan", "country": "de"}
    assert a.get("lineage") is None and a.get("after", []) == []

    b = cases["scan-0043-copy"]
    assert b["media_type"] == "image/png" and b["sha256"] == hashlib.sha256(png).hexdigest()
    lb = b["label"]
    assert lb["merchant"] is None  # "null" cell: not shown on the document
    for unset in ("date", "subtotal", "tax_total", "currency", "receipt_number"):
        assert unset not in lb  # empty cell: not covered
    assert lb["total"] == 1234.5 and lb["line_items"] == [] and lb["adds_up"] is False
    assert lb["authenticity"] == {"verdict": "fake", "fake_class": "hand_edit", "edited_fields": ["total", "date"]}
    assert lb["provenance"] == "stripped"
    assert b["after"] == ["0042"]
    # originals are only read
    assert {p: p.read_bytes() for p in src.rglob("*") if p.is_file()} == before
    assert_valid(out)
    assert [c.case.id for c in open_suite(out)] == ["0042", "scan-0043-copy"]


def test_jsonl_labels_null_absent_and_empty(tmp_path):
    rows = [
        {
            "file": "a.jpg",
            "merchant": None,
            "total": 12,
            "date": "",
            "currency": "USD",
            "line_items": [{"description": "x", "total": 12}],
            "tags": {"capture": "photo"},
            "edited_fields": ["total"],
            "authenticity": "fake",
            "fake_class": "ai_inpaint",
        },
        {"file": "b.jpg", "total": "3.10", "receipt_number": 7},
    ]
    src = make_folder(
        tmp_path / "src",
        {"a.jpg": image_bytes(), "b.jpg": image_bytes(shade=90)},
        "\n".join(json.dumps(r) for r in rows) + "\n",
        name="labels.jsonl",
    )
    out = tmp_path / "out"
    import_suite("folder", src, out)
    cases = cases_by_id(out)
    la, lb = cases["a"]["label"], cases["b"]["label"]
    assert la["merchant"] is None and "date" not in la and la["total"] == 12.0
    assert la["line_items"][0]["total"] == 12.0 and cases["a"]["tags"] == {"capture": "photo"}
    assert la["authenticity"]["edited_fields"] == ["total"]
    assert lb["total"] == 3.1 and lb["receipt_number"] == "7" and "merchant" not in lb
    assert lb["authenticity"]["verdict"] == "genuine"
    assert_valid(out)


def test_bad_rows_stop_the_import_and_write_nothing(tmp_path):
    labels = (
        "\n".join(
            [
                "file,total,date",
                "a.jpg,12.30,2024-01-02",
                'b.jpg,"12,3x",2024-01-02',
                "c.jpg,1.00,02/01/2024",
            ]
        )
        + "\n"
    )
    src = make_folder(tmp_path / "src", {f"{n}.jpg": image_bytes(shade=50 + i) for i, n in enumerate("abc")}, labels)
    out = tmp_path / "out"
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, out)
    assert exc.value.problems == [
        'labels.csv:3: receipt b.jpg: total "12,3x" is not an amount',
        'labels.csv:4: receipt c.jpg: date "02/01/2024" is not an ISO date (YYYY-MM-DD)',
    ]
    assert "nothing written" in str(exc.value)
    assert not out.exists() and no_partial_left(tmp_path)

    report = import_suite("folder", src, out, ImportOptions(skip_bad=True))
    assert report.imported == 1 and len(report.skipped) == 2
    assert list(cases_by_id(out)) == ["a"]
    assert manifest_lines(out)[0]["meta"]["skipped_bad_rows"] == 2
    assert_valid(out)


def test_cli_prints_one_line_per_bad_row_and_exits_2(tmp_path, capsys):
    labels = "file,total\na.jpg,1\nb.jpg,nope\n"
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes(), "b.jpg": image_bytes(shade=10)}, labels)
    out = tmp_path / "out"
    assert main(["cases", "import", "--format", "folder", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == 'labels.csv:3: receipt b.jpg: total "nope" is not an amount'
    assert err[1].startswith("rabench: import stopped: 1 bad row(s), nothing written")
    assert not out.exists()
    assert main(["cases", "import", "--format", "folder", str(src), "--out", str(out), "--skip-bad"]) == 0
    cap = capsys.readouterr()
    assert 'labels.csv:3: receipt b.jpg: total "nope" is not an amount' in cap.err
    assert "imported 1 receipts" in cap.out and "skipped 1 bad row(s)" in cap.out
    assert cap.err.strip().splitlines()[-1] == "skipped 1 bad row(s), each listed above with its reason"
    assert main(["cases", "validate", str(out)]) == 0


def test_path_tricks_in_labels_are_bad_rows(tmp_path):
    (tmp_path / "outside.jpg").write_bytes(image_bytes())
    labels = (
        "\n".join(
            [
                "file,total,duplicate_of",
                "a.jpg,1,",
                "../outside.jpg,1,",
                "/etc/hostname,1,",
                "sub/../a.jpg,1,",
                "b.jpg,1,../outside.jpg",
                "sub\\c.jpg,1,",
            ]
        )
        + "\n"
    )
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes(), "b.jpg": image_bytes(shade=3)}, labels)
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == [
        "labels.csv:3: receipt ../outside.jpg: file ../outside.jpg is outside the source folder",
        "labels.csv:4: receipt /etc/hostname: file /etc/hostname is outside the source folder",
        "labels.csv:6: receipt b.jpg: duplicate_of ../outside.jpg is outside the source folder",
        "labels.csv:7: receipt sub\\c.jpg: file sub\\c.jpg uses \\; write paths with /",
        "labels.csv:5: receipt a.jpg: labelled twice (first at labels.csv:2)",
    ]
    assert not (tmp_path / "out").exists()


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "secret.jpg").write_bytes(image_bytes())
    src = make_folder(tmp_path / "src", {}, "file,total\nlink.jpg,1\n")
    os.symlink(tmp_path / "secret.jpg", src / "link.jpg")
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == ["labels.csv:2: receipt link.jpg: file link.jpg is outside the source folder"]


def test_a_symlink_loop_is_a_named_bad_row_that_skip_bad_can_skip(tmp_path):
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes()}, "file,total\na.jpg,1\nloop.jpg,2\n")
    os.symlink(src / "loop.jpg", src / "loop.jpg")  # points at itself
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert len(exc.value.problems) == 1
    assert exc.value.problems[0].startswith("labels.csv:3: receipt loop.jpg: file loop.jpg runs through a symlink loop")
    import_suite("folder", src, tmp_path / "out2", ImportOptions(skip_bad=True))
    lines = (tmp_path / "out2" / "manifest.jsonl").read_text().splitlines()
    assert len(lines) == 2 and '"a.jpg"' not in lines[0]


def test_media_type_comes_from_magic_bytes(tmp_path):
    labels = "file,total\nphoto.jpg,1\nnot-an-image.png,1\nnoext,2\ndoc.pdf,3\n"
    files = {
        "photo.jpg": image_bytes("PNG"),  # a PNG named .jpg
        "not-an-image.png": b"hello, this is text",
        "noext": image_bytes("JPEG"),  # no extension: the bytes decide
        "doc.pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
    }
    src = make_folder(tmp_path / "src", files, labels)
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == [
        "labels.csv:2: receipt photo.jpg: file is PNG by its content but named .jpg",
        "labels.csv:3: receipt not-an-image.png: not a JPEG, PNG, WebP, TIFF or PDF file (by its first bytes)",
    ]
    import_suite("folder", src, tmp_path / "out", ImportOptions(skip_bad=True))
    cases = cases_by_id(tmp_path / "out")
    assert {k: (v["media_type"], v["file"]) for k, v in cases.items()} == {
        "noext": ("image/jpeg", "files/noext.jpg"),
        "doc": ("application/pdf", "files/doc.pdf"),
    }


def test_files_without_a_row_are_bad_rows(tmp_path):
    src = make_folder(
        tmp_path / "src",
        {
            "a.jpg": image_bytes(),
            "extra/b.png": image_bytes("PNG"),
            "notes.txt": b"not a receipt",
            ".hidden.jpg": image_bytes(),
        },
        "file,total\na.jpg,1\n",
    )
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == [
        "labels.csv: receipt extra/b.png: has no row in labels.csv (every receipt file in the folder needs one)"
    ]


def test_duplicate_of_and_after_become_lineage_and_ids(tmp_path):
    labels = (
        "\n".join(
            [
                "file,total,duplicate_of,transform,after",
                "orig.jpg,5,,,",
                "copy.jpg,5,orig.jpg,crop,",
                "recopy.jpg,5,./orig.jpg,,",
                "lookalike.jpg,6,,,orig.jpg",
                "orphan.jpg,7,gone.jpg,,",
                "selfish.jpg,7,selfish.jpg,,",
                "plain.jpg,7,,reshoot,",
            ]
        )
        + "\n"
    )
    names = ["orig", "copy", "recopy", "lookalike", "orphan", "selfish", "plain"]
    src = make_folder(tmp_path / "src", {f"{n}.jpg": image_bytes(shade=20 * i) for i, n in enumerate(names)}, labels)
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == [
        "labels.csv:8: receipt plain.jpg: transform given without duplicate_of",
        "labels.csv:6: receipt orphan.jpg: duplicate_of gone.jpg is not a receipt in this import",
        "labels.csv:7: receipt selfish.jpg: duplicate_of names the receipt itself",
    ]
    out = tmp_path / "out"
    import_suite("folder", src, out, ImportOptions(skip_bad=True))
    cases = cases_by_id(out)
    assert cases["copy"]["lineage"] == {"of": "orig", "transform": "crop"}
    assert cases["recopy"]["lineage"] == {"of": "orig", "transform": "reencode"}  # default transform
    assert cases["lookalike"]["after"] == ["orig"] and cases["lookalike"].get("lineage") is None
    ids = [c["id"] for c in manifest_lines(out)[1:]]
    assert ids.index("orig") < min(ids.index("copy"), ids.index("recopy"), ids.index("lookalike"))
    assert_valid(out)


def test_a_row_depending_on_a_bad_row_is_bad_too(tmp_path):
    labels = "file,total,duplicate_of\norig.jpg,x,\ncopy.jpg,5,orig.jpg\n"
    src = make_folder(tmp_path / "src", {"orig.jpg": image_bytes(), "copy.jpg": image_bytes(shade=1)}, labels)
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == [
        'labels.csv:2: receipt orig.jpg: total "x" is not an amount',
        "labels.csv:3: receipt copy.jpg: duplicate_of orig.jpg is a bad row",
    ]


def test_cycles_are_bad_rows(tmp_path):
    labels = "file,total,after\na.jpg,1,b.jpg\nb.jpg,1,a.jpg\nc.jpg,1,\n"
    src = make_folder(tmp_path / "src", {f"{n}.jpg": image_bytes(shade=i) for i, n in enumerate("abc")}, labels)
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    assert exc.value.problems == [
        "labels.csv:2: receipt a.jpg: duplicate_of/after form a cycle",
        "labels.csv:3: receipt b.jpg: duplicate_of/after form a cycle",
    ]


@pytest.mark.parametrize(
    ("column", "cell", "problem"),
    [
        ("line_items", "null", "line_items cannot be null; use [] for a receipt without items"),
        (
            "line_items",
            '[{"description": "x"}]',
            "line_items is not a JSON list of items: Object missing required field total - at $[0]",
        ),
        ("adds_up", "maybe", 'adds_up "maybe" is not true or false'),
        ("authenticity", "real", 'authenticity "real" is not one of genuine, fake'),
        ("fake_class", "ai_full", "fake_class/edited_fields given but authenticity is genuine"),
        ("edited_fields", "total;colour", None),
        ("provenance", "exif", 'provenance "exif" is not one of intact, stripped, none'),
        ("currency", "euro", 'currency "euro" is not an ISO 4217 currency code (three letters, e.g. EUR)'),
        ("date", "2024-02-30", 'date "2024-02-30" is not a valid date'),
        ("tags", "capture", 'tags "capture" is not dimension=value'),
        ("transform", "rotate", None),
    ],
)
def test_each_bad_value_names_column_and_value(tmp_path, column, cell, problem):
    extra = {"edited_fields": ("authenticity", "fake"), "transform": ("duplicate_of", "a.jpg")}
    cols, cells = ["file", column], ["b.jpg", cell]
    if column in extra:
        cols.insert(1, extra[column][0])
        cells.insert(1, extra[column][1])
    labels = ",".join(cols) + "\n" + csv_line("a.jpg", *([""] * (len(cols) - 1))) + "\n" + csv_line(*cells) + "\n"
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes(), "b.jpg": image_bytes(shade=9)}, labels)
    with pytest.raises(BadRows) as exc:
        import_suite("folder", src, tmp_path / "out")
    expected = (
        problem
        or {
            "edited_fields": 'edited_fields "colour" is not one of merchant, date, subtotal, tax_total, total, currency, receipt_number',
            "transform": 'transform "rotate" is not one of reencode, crop, reshoot',
        }[column]
    )
    assert exc.value.problems == [f"labels.csv:3: receipt b.jpg: {expected}"]


def test_unknown_column_is_one_clear_error(tmp_path):
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes()}, "file,totl\na.jpg,1\n")
    with pytest.raises(UserError, match=r"labels.csv:1: unknown column\(s\) totl \(known: file, merchant"):
        import_suite("folder", src, tmp_path / "out")


def test_out_must_be_new_or_empty(tmp_path):
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes()}, "file,total\na.jpg,1\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(UserError, match="already exists and is not an empty folder"):
        import_suite("folder", src, out)
    assert (out / "keep.txt").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    import_suite("folder", src, empty)
    assert_valid(empty)


def test_cli_tags_apply_to_every_case_and_row_tags_win(tmp_path, capsys):
    labels = "file,total,tags\na.jpg,1,source=shoebox\nb.jpg,2,\n"
    src = make_folder(tmp_path / "src", {"a.jpg": image_bytes(), "b.jpg": image_bytes(shade=1)}, labels)
    out = tmp_path / "out"
    code = main(
        [
            "cases",
            "import",
            "--format",
            "folder",
            str(src),
            "--out",
            str(out),
            "--tag",
            "source=team",
            "--tag",
            "capture=photo",
            "--name",
            "mine/2024",
        ]
    )
    assert code == 0
    cases = cases_by_id(out)
    assert cases["a"]["tags"] == {"source": "shoebox", "capture": "photo"}
    assert cases["b"]["tags"] == {"source": "team", "capture": "photo"}
    assert manifest_lines(out)[0]["name"] == "mine/2024"
    assert (
        main(["cases", "import", "--format", "folder", str(src), "--out", str(tmp_path / "o2"), "--tag", "oops"]) == 2
    )
    assert 'rabench: --tag "oops" is not dimension=value' in capsys.readouterr().err


def test_ids_are_stable_unique_and_order_free():
    names = ["A.jpg", "a.png", "Über Café.jpg", "x/receipt 1.jpg", "x-receipt-1.pdf", "a-jpg.tif"]
    ids = assign_ids(names)
    assert len(set(ids.values())) == len(names)
    assert ids == assign_ids(list(reversed(names)))
    assert ids["Über Café.jpg"] == "uber-cafe"
    assert all(i == i.lower() and " " not in i for i in ids.values())


def test_an_error_while_writing_leaves_no_suite_and_no_temp_folder(tmp_path):
    from rabench.cases.importers.writer import StagedSuite
    from rabench.contracts import SuiteHeader

    src = tmp_path / "a.jpg"
    src.write_bytes(image_bytes())
    out = tmp_path / "out"
    with pytest.raises(OSError):
        with StagedSuite(out, SuiteHeader(suite="receipt", name="t")) as suite:
            suite.copy_file(src, "files/a.jpg")
            suite.copy_file(tmp_path / "missing.jpg", "files/b.jpg")  # fails half-way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg"]
