"""`rabench cases import --format sroie`: every published layout, every value form the keys use.

Fixtures are built here (tiny JPEGs, key files written the way each copy ships them);
nothing is read from the real data set.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from rabench.cases.importers import ImportOptions, import_suite
from rabench.cases.importers.base import BadRows
from rabench.cases.importers.dates import AmbiguousDate, parse_printed_date
from rabench.cases.importers.values import ValueProblem, parse_plain_amount
from rabench.cases.validate import validate_suite
from rabench.cli.main import main
from rabench.errors import UserError

BOX = "72,25,326,25,326,64,72,64,TAN WOON YANN\n50,82,440,82,440,121,50,121,BOOK TA .K SDN BHD\n"


def jpeg(shade: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 70), (shade % 256, shade % 256, 255 - shade % 256)).save(buf, "JPEG")
    return buf.getvalue()


def cases_of(out: Path) -> tuple[dict, dict[str, dict]]:
    lines = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    return lines[0], {c["id"]: c for c in lines[1:]}


def key(**fields) -> bytes:
    return json.dumps(fields, indent=4).encode()


def split_layout(
    root: Path,
    keys: dict[str, bytes],
    images: list[str] | None = None,
    key_dir: str = "entities",
    suffix: str = ".txt",
    box_suffix: str = ".txt",
) -> Path:
    """``img/`` + ``KEY_DIR/*SUFFIX`` + ``box/`` (Kaggle: entities/ .txt; GitHub: key/ .json, box/ .csv)."""
    (root / "img").mkdir(parents=True)
    (root / key_dir).mkdir()
    (root / "box").mkdir()
    for i, stem in enumerate(images if images is not None else list(keys)):
        (root / "img" / f"{stem}.jpg").write_bytes(jpeg(10 * i))
        (root / "box" / f"{stem}{box_suffix}").write_text(BOX)
    for stem, raw in keys.items():
        (root / key_dir / f"{stem}{suffix}").write_bytes(raw)
    return root


def test_key_files_map_to_labels_field_by_field(tmp_path):
    keys = {
        "X51005200931": key(
            company="  BOOK TA .K (TAMAN DAYA) SDN BHD ",
            date="25/12/2018",
            address="NO.53 55,57 & 59, JALAN SAGU 18,",
            total="9.00",
        ),
        "X51005230605": key(company="GARDENIA BAKERIES (KL) SDN BHD", date="25-12-18", total="RM 1,234.50"),
        # latin-1 byte (0xA9) and trailing whitespace/newlines after the object
        "X51005337877": '{\n "company": "CAF\xc9 \xa9 SDN BHD",\n "date": "25 DEC 2018",\n "total": "RM9"\n}\n\n   '.encode(
            "latin-1"
        ),
        "X51006008197": key(company="SYARIKAT PERNIAGAAN", date="", total="  "),
    }
    src = split_layout(tmp_path / "SROIE2019" / "train", keys)
    out = tmp_path / "suite"
    report = import_suite("sroie", src, out)
    assert report.imported == 4 and report.skipped == [] and report.left_out == []
    header, cases = cases_of(out)
    assert header["meta"]["source_format"] == "sroie" and header["meta"]["source"] == "train"
    assert header["meta"]["options"]["currency"] == "MYR"
    assert header["meta"]["options"]["currency_source"] == "assumed from the data set's scope"
    assert header["meta"]["options"]["keys"] == "entities" and header["meta"]["options"]["images"] == "img"
    assert header["meta"]["options"]["date_orders"] == ["dmy", "mdy"]
    assert "left_out" not in header["meta"]

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


def _task2train(root: Path) -> Path:
    """The official layout: X.jpg and X.txt (the key) side by side."""
    root.mkdir(parents=True)
    (root / "X1.jpg").write_bytes(jpeg(1))
    (root / "X1.txt").write_bytes(key(company="A", date="25/12/2018", total="RM 9.00"))
    return root


@pytest.mark.parametrize(
    ("layout", "src_sub", "keys_meta"),
    [
        ("task2train", "", "."),  # official: keys beside the images
        ("entities-txt", "", "entities"),  # Kaggle SROIE2019/train/{img,box,entities}
        ("key-txt", "", "key"),
        ("key-json", "", "key"),  # GitHub copies: {img,key,box}, keys .json, boxes .csv
        ("key-json", "img", "key"),  # SRC = the img/ folder: keys found next to it
        ("flat-json", "", "."),  # one folder with X.jpg, X.json (key) and X.csv (boxes)
    ],
)
def test_every_layout_imports_the_same_label(tmp_path, layout, src_sub, keys_meta):
    raw = key(company="A", date="25/12/2018", total="RM 9.00")
    if layout == "task2train":
        src = _task2train(tmp_path / "0325updated.task2train(626p)")
    elif layout == "flat-json":
        src = tmp_path / "data"
        src.mkdir()
        (src / "X1.jpg").write_bytes(jpeg(1))
        (src / "X1.json").write_bytes(raw)
        (src / "X1.csv").write_text(BOX)
    else:
        kdir, suffix = layout.split("-")
        src = split_layout(
            tmp_path / "ds",
            {"X1": raw},
            key_dir=kdir,
            suffix=f".{suffix}",
            box_suffix=".csv" if suffix == "json" else ".txt",
        )
    out = tmp_path / "out"
    report = import_suite("sroie", src / src_sub if src_sub else src, out)
    assert report.imported == 1 and report.warnings == []
    header, cases = cases_of(out)
    assert header["meta"]["options"]["keys"] == keys_meta
    label = cases["x1"]["label"]
    assert (label["merchant"], label["date"], label["total"], label["currency"]) == ("A", "2018-12-25", 9.0, "MYR")


def test_txt_and_json_key_for_one_receipt(tmp_path):
    same = key(company="A", date="25/12/2018", total="9.00")
    src = split_layout(
        tmp_path / "ds",
        {
            "SAME": same,
            "DIFF": key(company="B", date="25/12/2018", total="9.00"),
            "BOXTXT": key(company="C", total="3.00"),
        },
        key_dir="key",
        suffix=".json",
    )
    # Same values in both files (whitespace aside): imported from X.json.
    (src / "key" / "SAME.txt").write_bytes(key(company=" A ", date="25/12/2018", total="9.00"))
    # Different values: never a guess at which file is right.
    (src / "key" / "DIFF.txt").write_bytes(key(company="B", date="25/12/2018", total="19.00"))
    # A .txt that is really task-1 box lines is set aside; the .json key is used.
    (src / "key" / "BOXTXT.txt").write_text(BOX)
    with pytest.raises(BadRows) as exc:
        import_suite("sroie", src, tmp_path / "out")
    assert exc.value.problems == [
        'key/DIFF.json, key/DIFF.txt: receipt DIFF.jpg: the two key files disagree on total ("9.00" vs "19.00"); remove the wrong one',
    ]
    report = import_suite("sroie", src, tmp_path / "out", ImportOptions(skip_bad=True))
    assert report.imported == 2
    cases = cases_of(tmp_path / "out")[1]
    assert cases["same"]["label"]["merchant"] == "A" and cases["boxtxt"]["label"]["total"] == 3.0


def test_box_files_are_told_apart_from_key_files(tmp_path):
    # task-1 folder: box lines in X.txt beside the images -> one line, nothing written
    task1 = tmp_path / "task1"
    task1.mkdir()
    (task1 / "X9.jpg").write_bytes(jpeg(5))
    (task1 / "X9.txt").write_text(BOX)
    with pytest.raises(UserError, match=r"every \*\.txt/\*\.json file here is a task-1 box file"):
        import_suite("sroie", task1, tmp_path / "o1")
    # {img, box} without key/: the box folder is named, not read as keys
    nokeys = tmp_path / "nokeys"
    (nokeys / "img").mkdir(parents=True)
    (nokeys / "box").mkdir()
    (nokeys / "img" / "001.jpg").write_bytes(jpeg(1))
    (nokeys / "box" / "001.csv").write_text(BOX)
    with pytest.raises(UserError, match=r"no key files .* \(box/ holds task-1 box lines, not keys\)"):
        import_suite("sroie", nokeys, tmp_path / "o2")
    # a key/ folder holding box CSVs only
    (nokeys / "key").mkdir()
    (nokeys / "key" / "001.csv").write_text(BOX)
    with pytest.raises(
        UserError, match=r"key: no key files \(\*\.json or \*\.txt\); its 1 \.csv file\(s\) are task-1 box lines"
    ):
        import_suite("sroie", nokeys, tmp_path / "o3")
    # one box file among real keys: a bad row for that receipt only
    mixed = split_layout(tmp_path / "mixed", {"A": key(company="A"), "B": BOX.encode()})
    with pytest.raises(BadRows) as exc:
        import_suite("sroie", mixed, tmp_path / "o4")
    (line,) = exc.value.problems
    assert line.startswith("entities/B.txt: receipt B.jpg: key file is a task-1 box file")
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3", "o4"))


def test_bad_keys_are_bad_rows_and_skip_bad_lists_them(tmp_path, capsys):
    keys = {
        "GOOD": key(company="OK", date="13/01/2018", total="3.00"),
        "BADDATE": key(company="X", date="13/13/2018", total="3.00"),
        "BADTOTAL": key(company="X", date="13/01/2018", total="3,00"),
        "NOTJSON": b"company: X\n",
        "NOIMAGE": key(company="X"),
    }
    src = split_layout(tmp_path / "src", keys, images=["GOOD", "BADDATE", "BADTOTAL", "NOTJSON", "NOKEY"])
    (src / "img" / "TWICE.jpg").write_bytes(jpeg(7))
    (src / "img" / "TWICE.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    (src / "entities" / "TWICE.txt").write_bytes(key(company="T"))
    (src / "img" / "notes.md").write_text("scanned in 2019\n")
    out = tmp_path / "out"
    expected = [
        "entities/NOIMAGE.txt: key file has no image NOIMAGE.jpg in img",
        'entities/BADDATE.txt: receipt BADDATE.jpg: date "13/13/2018" is not a valid date',
        'entities/BADTOTAL.txt: receipt BADTOTAL.jpg: total "3,00" is not an amount',
        "img/NOKEY.jpg: receipt NOKEY.jpg: no key file NOKEY.json or NOKEY.txt in entities",
        "entities/NOTJSON.txt: receipt NOTJSON.jpg: key file is not JSON (Expecting value at line 1)",
        "img/TWICE.jpg: receipt TWICE.jpg: 2 images share the key TWICE: TWICE.jpg, TWICE.png; keep one",
    ]
    with pytest.raises(BadRows) as exc:
        import_suite("sroie", src, out)
    assert exc.value.problems == expected
    assert not out.exists()
    assert main(["cases", "import", "--format", "sroie", str(src), "--out", str(out), "--skip-bad"]) == 0
    cap = capsys.readouterr()
    err = cap.err.strip().splitlines()
    assert err[0] == "warning: img: ignored 1 file(s) that are neither receipt images nor key files: notes.md"
    assert err[1:] == [f"skipped: {line}" for line in expected] + [
        "skipped 6 bad row(s), each listed above with its reason"
    ]
    assert f"{out}: imported 1 receipts (sroie); skipped 6 bad row(s)" in cap.out
    assert list(cases_of(out)[1]) == ["good"]


def test_ambiguous_dates_are_left_out_and_counted(tmp_path, capsys):
    keys = {
        "A": key(company="A", date="06/03/2018", total="$6.60"),  # 6 March or June 3: left out
        "B": key(company="B", date="12/28/2017", total="RM9.00"),  # month first (28 is no month)
        "C": key(company="C", date="(06/12/2016)", total="1,007.50"),  # ambiguous, in brackets
        "D": key(company="D", date="25032018", total="RM 9.00"),  # DDMMYYYY (only real reading)
        "E": key(company="E", date="05/05/2018", total="5.00"),  # both readings the same day
        "F": key(company="F", date="01022018", total="5.00"),  # 1 Feb or Jan 2: left out
        "G": key(company="G", date="06/03/2018", total="nope"),  # bad row: not counted
    }
    src = split_layout(tmp_path / "src", keys, key_dir="key", suffix=".json", box_suffix=".csv")
    out = tmp_path / "out"
    assert main(["cases", "import", "--format", "sroie", str(src), "--out", str(out), "--skip-bad"]) == 0
    cap = capsys.readouterr()
    assert cap.out.strip().splitlines()[-1] == (
        "3 dates left unlabelled: day/month order ambiguous (case ids in the header's meta.left_out)"
    )
    header, cases = cases_of(out)
    assert header["meta"]["left_out"] == {"date": {"day/month order ambiguous": ["a", "c", "f"]}}
    dates = {cid: c["label"].get("date") for cid, c in cases.items()}
    assert dates == {"a": None, "b": "2017-12-28", "c": None, "d": "2018-03-25", "e": "2018-05-05", "f": None}
    assert {cid: c["label"]["total"] for cid, c in cases.items()} == {
        "a": 6.6,
        "b": 9.0,
        "c": 1007.5,
        "d": 9.0,
        "e": 5.0,
        "f": 5.0,
    }
    assert all(c["label"]["currency"] == "MYR" for c in cases.values())  # "$" is the till's sign for ringgit
    assert all(c["label"]["merchant"] for c in cases.values())  # the rest of the label stays
    assert main(["cases", "validate", str(out)]) == 0


def test_currency_override_and_no_currency(tmp_path, capsys):
    src = split_layout(tmp_path / "src", {"X1": key(company="A", total="$1.00")})
    import_suite("sroie", src, tmp_path / "sgd", ImportOptions(currency="sgd"))
    header, cases = cases_of(tmp_path / "sgd")
    assert cases["x1"]["label"]["currency"] == "SGD" and cases["x1"]["label"]["total"] == 1.0
    assert header["meta"]["options"]["currency_source"] == "--currency"
    assert (
        main(["cases", "import", "--format", "sroie", str(src), "--out", str(tmp_path / "none"), "--no-currency"]) == 0
    )
    assert "currency" not in cases_of(tmp_path / "none")[1]["x1"]["label"]
    assert (
        main(["cases", "import", "--format", "sroie", str(src), "--out", str(tmp_path / "bad"), "--currency", "RM"])
        == 2
    )
    assert "--currency" in capsys.readouterr().err and not (tmp_path / "bad").exists()


@pytest.mark.parametrize(
    ("printed", "iso"),
    [
        ("12/28/2017", "2017-12-28"),  # month first, forced by 28
        ("25/12/2018", "2018-12-25"),
        ("25-12-2018", "2018-12-25"),
        ("25.12.2018", "2018-12-25"),
        ("25 12 2018", "2018-12-25"),
        ("13/1/2018", "2018-01-13"),
        ("05/05/2018", "2018-05-05"),
        ("15/01/19", "2019-01-15"),
        ("18-11-18", "2018-11-18"),
        ("1/13/19", "2019-01-13"),
        ("20180304", "2018-03-04"),  # YYYYMMDD: DDMMYYYY and MMDDYYYY readings are no dates
        ("25032018", "2018-03-25"),  # DDMMYYYY: YYYYMMDD (month 20) and MMDDYYYY (month 25) are not
        ("12282017", "2017-12-28"),  # MMDDYYYY
        ("20111230", "2011-12-30"),  # DDMMYYYY would be the year 1230
        ("2018-12-25", "2018-12-25"),
        ("2018/02/22", "2018-02-22"),
        ("2018.3.4", "2018-03-04"),
        ("25 DEC 2018", "2018-12-25"),
        ("25-Dec-18", "2018-12-25"),
        ("25DEC2018", "2018-12-25"),
        ("15/APR/2017", "2017-04-15"),
        ("05-AUG-2017", "2017-08-05"),
        ("30 DEC 17", "2017-12-30"),
        ("Dec 25, 2018", "2018-12-25"),
        ("OCT 3, 2016", "2016-10-03"),
        ("2018-Dec-25", "2018-12-25"),
        ("01 MAC 2018", "2018-03-01"),
        ("3 OGOS 2017", "2017-08-03"),
        (" 25/12/2018 ", "2018-12-25"),
        ("(25/12/2018)", "2018-12-25"),
        ("[25.12.2018]", "2018-12-25"),
        ("25/12/2018 10:30", "2018-12-25"),
        ("25/12/2018 10:30:45 PM", "2018-12-25"),
        ("25/12/201810:30", "2018-12-25"),
        ("25/12/18 9:05AM", "2018-12-25"),
        ("2018-12-25T14:03:00", "2018-12-25"),
        ("10:30 25/12/2018", "2018-12-25"),
        ("25 DEC 2018 13:45", "2018-12-25"),
        ("(13/03/2018 11:02)", "2018-03-13"),
    ],
)
def test_printed_dates(printed, iso):
    assert parse_printed_date(printed) == iso


@pytest.mark.parametrize(
    ("printed", "readings"),
    [
        ("06/03/2018", ("2018-03-06", "2018-06-03")),
        ("(06/12/2016)", ("2016-06-12", "2016-12-06")),
        ("01-03-18", ("2018-01-03", "2018-03-01")),
        ("4/02/2017", ("2017-02-04", "2017-04-02")),
        ("01022018", ("2018-01-02", "2018-02-01")),  # DDMMYYYY or MMDDYYYY
        ("06/03/2018 10:30", ("2018-03-06", "2018-06-03")),
    ],
)
def test_ambiguous_dates_are_never_guessed(printed, readings):
    with pytest.raises(AmbiguousDate) as exc:
        parse_printed_date(printed)
    assert exc.value.readings == readings
    assert "ambiguous" in str(exc.value)


def test_a_source_known_to_be_day_first_settles_the_order():
    assert parse_printed_date("06/03/2018", orders=("dmy",)) == "2018-03-06"
    assert parse_printed_date("01022018", orders=("dmy",)) == "2018-02-01"
    with pytest.raises(ValueProblem, match="is not a valid date") as exc:
        parse_printed_date("12/28/2017", orders=("dmy",))
    assert not isinstance(exc.value, AmbiguousDate)


@pytest.mark.parametrize(
    "printed",
    [
        "13/13/2018",
        "31/02/2018",
        "25/12",
        "25 XYZ 2018",
        "25/12-2018",
        "tomorrow",
        "251218",
        "99999999",
        "25/12/1850",
        "2018-13-01",
        "10:30",
    ],
)
def test_dates_that_fit_no_rule_are_rejected(printed):
    with pytest.raises(ValueProblem) as exc:
        parse_printed_date(printed)
    assert not isinstance(exc.value, AmbiguousDate)


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("$6.60", 6.6),
        ("RM 9.00", 9.0),
        ("RM9.00", 9.0),
        ("9.00", 9.0),
        ("RM9", 9.0),
        ("1,007.50", 1007.5),
        ("RM 1,007.50", 1007.5),
        ("MYR 1,000.10", 1000.1),
        ("$ 11.20", 11.2),
        ("(2.50)", -2.5),
        ("RM -3.00", -3.0),
    ],
)
def test_sroie_totals(printed, value):
    assert parse_plain_amount(printed, prefixes=("RM", "MYR", "$")) == value


@pytest.mark.parametrize("printed", ["9,00", "9.00 RM", "USD 9.00", "$", "RM", "1.007,50", "RM 9.00 $"])
def test_totals_that_fit_no_rule_are_rejected(printed):
    with pytest.raises(ValueProblem):
        parse_plain_amount(printed, prefixes=("RM", "MYR", "$"))
