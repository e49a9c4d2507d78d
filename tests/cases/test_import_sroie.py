"""`rabench cases import --format sroie`: SROIE task-3 key files -> labels, every quirk named."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from rabench.cases.importers import ImportOptions, import_suite
from rabench.cases.importers.base import BadRows
from rabench.cases.importers.values import ValueProblem, parse_day_first_date, parse_plain_amount
from rabench.cases.validate import validate_suite
from rabench.cli.main import main


def jpeg(shade: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 70), (shade, shade, 255 - shade)).save(buf, "JPEG")
    return buf.getvalue()


def cases_of(out: Path) -> tuple[dict, dict[str, dict]]:
    lines = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    return lines[0], {c["id"]: c for c in lines[1:]}


def kaggle_layout(root: Path, keys: dict[str, bytes], images: list[str] | None = None, key_dir="entities") -> Path:
    (root / "img").mkdir(parents=True)
    (root / key_dir).mkdir()
    (root / "box").mkdir()
    for i, stem in enumerate(images if images is not None else list(keys)):
        (root / "img" / f"{stem}.jpg").write_bytes(jpeg(10 * i))
        (root / "box" / f"{stem}.txt").write_text("72,25,326,25,326,64,72,64,TAN WOON YANN\n")
    for stem, raw in keys.items():
        (root / key_dir / f"{stem}.txt").write_bytes(raw)
    return root


def key(**fields) -> bytes:
    return json.dumps(fields, indent=4).encode()


def test_key_files_map_to_labels_field_by_field(tmp_path):
    keys = {
        "X51005200931": key(company="  BOOK TA .K (TAMAN DAYA) SDN BHD ", date="25/12/2018",
                            address="NO.53 55,57 & 59, JALAN SAGU 18,", total="9.00"),
        "X51005230605": key(company="GARDENIA BAKERIES (KL) SDN BHD", date="25-12-18", total="RM 1,234.50"),
        # latin-1 byte (0xA9) and trailing whitespace/newlines after the object
        "X51005337877": '{\n "company": "CAF\xc9 \xa9 SDN BHD",\n "date": "25 DEC 2018",\n "total": "RM9"\n}\n\n   '.encode("latin-1"),
        "X51006008197": key(company="SYARIKAT PERNIAGAAN", date="", total="  "),
    }
    src = kaggle_layout(tmp_path / "SROIE2019" / "train", keys)
    out = tmp_path / "suite"
    report = import_suite("sroie", src, out)
    assert report.imported == 4 and report.skipped == []
    header, cases = cases_of(out)
    assert header["meta"]["source_format"] == "sroie" and header["meta"]["source"] == "train"
    assert header["meta"]["options"]["currency"] == "MYR"
    assert header["meta"]["options"]["currency_source"] == "assumed from the data set's scope"
    assert header["meta"]["options"]["keys"] == "entities" and header["meta"]["options"]["images"] == "img"

    a = cases["x51005200931"]
    assert a["file"] == "files/x51005200931.jpg" and a["media_type"] == "image/jpeg"
    assert a["sha256"] == hashlib.sha256((src / "img" / "X51005200931.jpg").read_bytes()).hexdigest()
    assert a["label"] == {
        "suite": "receipt",
        "authenticity": {"verdict": "genuine", "fake_class": None, "edited_fields": []},
        "provenance": "none",
        "merchant": "BOOK TA .K (TAMAN DAYA) SDN BHD",
        "date": "2018-12-25",
        "total": 9.0,
        "currency": "MYR",
    }  # address dropped; subtotal, tax, receipt number, line items, adds_up not covered
    assert cases["x51005230605"]["label"]["date"] == "2018-12-25"
    assert cases["x51005230605"]["label"]["total"] == 1234.5
    c = cases["x51005337877"]["label"]
    assert c["merchant"] == "CAFÉ © SDN BHD" and c["date"] == "2018-12-25" and c["total"] == 9.0
    d = cases["x51006008197"]["label"]
    assert "date" not in d and "total" not in d and d["merchant"] == "SYARIKAT PERNIAGAAN"
    assert all(case.get("tags", {}) == {} for case in cases.values())
    assert validate_suite(out)[1] == []


def test_keys_beside_images_and_key_folder_and_img_as_src(tmp_path):
    beside = tmp_path / "task2train"
    beside.mkdir()
    (beside / "X1.jpg").write_bytes(jpeg(1))
    (beside / "X1.txt").write_bytes(key(company="A", date="01/02/2019", total="1.00"))
    import_suite("sroie", beside, tmp_path / "o1")
    assert cases_of(tmp_path / "o1")[1]["x1"]["label"]["date"] == "2019-02-01"  # day first

    gh = kaggle_layout(tmp_path / "gh" / "data", {"X2": key(company="B", total="2.00")}, key_dir="key")
    import_suite("sroie", gh / "img", tmp_path / "o2")  # SRC = the img/ folder: keys found next to it
    assert cases_of(tmp_path / "o2")[1]["x2"]["label"]["total"] == 2.0


def test_bad_keys_are_bad_rows(tmp_path):
    keys = {
        "GOOD": key(company="OK", date="01/01/2018", total="3.00"),
        "BADDATE": key(company="X", date="12/25/2018", total="3.00"),
        "BADTOTAL": key(company="X", date="01/01/2018", total="3,00"),
        "NOTJSON": b"company: X\n",
        "NOIMAGE": key(company="X"),
    }
    src = kaggle_layout(tmp_path / "src", keys, images=["GOOD", "BADDATE", "BADTOTAL", "NOTJSON", "NOKEY"])
    out = tmp_path / "out"
    with pytest.raises(BadRows) as exc:
        import_suite("sroie", src, out)
    assert exc.value.problems == [
        "entities/NOIMAGE.txt: key file has no image NOIMAGE.jpg in img",
        'entities/BADDATE.txt: receipt BADDATE.jpg: date "12/25/2018" is not a valid day-first date',
        'entities/BADTOTAL.txt: receipt BADTOTAL.jpg: total "3,00" is not an amount',
        "img/NOKEY.jpg: receipt NOKEY.jpg: no key file NOKEY.txt in entities",
        "entities/NOTJSON.txt: receipt NOTJSON.jpg: key file is not JSON (Expecting value at line 1)",
    ]
    assert not out.exists()
    report = import_suite("sroie", src, out, ImportOptions(skip_bad=True))
    assert report.imported == 1 and len(report.skipped) == 5
    assert list(cases_of(out)[1]) == ["good"]


def test_task1_box_files_get_a_pointed_message(tmp_path):
    src = tmp_path / "task1"
    src.mkdir()
    (src / "X9.jpg").write_bytes(jpeg(5))
    (src / "X9.txt").write_text("72,25,326,25,326,64,72,64,TAN WOON YANN\n")
    with pytest.raises(BadRows) as exc:
        import_suite("sroie", src, tmp_path / "out")
    (line,) = exc.value.problems
    assert line.startswith("X9.txt: receipt X9.jpg: key file is a task-1 box file")


def test_currency_override_and_no_currency(tmp_path, capsys):
    src = kaggle_layout(tmp_path / "src", {"X1": key(company="A", total="1.00")})
    import_suite("sroie", src, tmp_path / "sgd", ImportOptions(currency="sgd"))
    header, cases = cases_of(tmp_path / "sgd")
    assert cases["x1"]["label"]["currency"] == "SGD"
    assert header["meta"]["options"]["currency_source"] == "--currency"
    assert main(["cases", "import", "--format", "sroie", str(src), "--out", str(tmp_path / "none"), "--no-currency"]) == 0
    assert "currency" not in cases_of(tmp_path / "none")[1]["x1"]["label"]
    assert main(["cases", "import", "--format", "sroie", str(src), "--out", str(tmp_path / "bad"), "--currency", "RM"]) == 2
    assert "--currency" in capsys.readouterr().err and not (tmp_path / "bad").exists()


@pytest.mark.parametrize(
    ("printed", "iso"),
    [
        ("25/12/2018", "2018-12-25"), ("25-12-18", "2018-12-25"), ("25.12.2018", "2018-12-25"),
        ("5/1/2018", "2018-01-05"), ("25 DEC 2018", "2018-12-25"), ("25-Dec-18", "2018-12-25"),
        ("25DEC2018", "2018-12-25"), ("Dec 25, 2018", "2018-12-25"), ("2018-12-25", "2018-12-25"),
        ("01 MAC 2018", "2018-03-01"), ("3 OGOS 2017", "2017-08-03"), (" 25/12/2018 ", "2018-12-25"),
    ],
)
def test_day_first_dates(printed, iso):
    assert parse_day_first_date(printed) == iso


@pytest.mark.parametrize("printed", ["12/25/2018", "31/02/2018", "25/12", "25 XYZ 2018", "25/12-2018", "tomorrow"])
def test_dates_that_fit_no_rule_are_rejected(printed):
    with pytest.raises(ValueProblem):
        parse_day_first_date(printed)


@pytest.mark.parametrize(("printed", "value"), [("RM 9.00", 9.0), ("9.00", 9.0), ("RM9", 9.0), ("MYR 1,000.10", 1000.1), ("(2.50)", -2.5)])
def test_sroie_totals(printed, value):
    assert parse_plain_amount(printed, prefixes=("RM", "MYR")) == value
