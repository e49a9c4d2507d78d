"""`rabench cases import --format cord`: CORD v2 gt_parse -> line items and totals (IDR)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from rabench.cases.importers import ImportOptions, import_suite
from rabench.cases.importers.base import BadRows
from rabench.cases.importers.cord import parse_quantity
from rabench.cases.importers.values import ValueProblem, parse_idr_amount
from rabench.cases.validate import validate_suite
from rabench.cli.main import main


def png(shade: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (50, 80), (shade, 255 - shade, shade)).save(buf, "PNG")
    return buf.getvalue()


def cases_of(out: Path) -> tuple[dict, dict[str, dict]]:
    lines = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    return lines[0], {c["id"]: c for c in lines[1:]}


GT_LIST = {
    "menu": [
        {
            "nm": "ICED LATTE",
            "cnt": "2 x",
            "unitprice": "@25,000",
            "price": "50,000",
            "sub": {"nm": "+ Extra shot", "price": "5.000"},
        },
        {"nm": "CROISSANT", "cnt": "1", "price": "18.000", "sub": [{"nm": "warm"}]},
    ],
    "sub_total": {
        "subtotal_price": "73,000",
        "tax_price": "7,300",
        "service_price": "3,650",
        "discount_price": "-5,000",
    },
    "total": {"total_price": "78,950", "cashprice": "100,000", "changeprice": "21,050"},
}
GT_SINGLE = {"menu": {"nm": "NASI GORENG", "cnt": "x1", "price": "Rp 35.000"}, "total": {"total_price": "35.000"}}


def hf_folder(root: Path, annotations: dict[str, object], images: list[str] | None = None) -> Path:
    (root / "json").mkdir(parents=True)
    (root / "image").mkdir()
    for i, stem in enumerate(images if images is not None else list(annotations)):
        (root / "image" / f"{stem}.png").write_bytes(png(20 * i))
    for stem, ann in annotations.items():
        text = ann if isinstance(ann, str) else json.dumps(ann)
        (root / "json" / f"{stem}.json").write_text(text)
    return root


def test_json_image_folder_maps_menu_and_totals(tmp_path):
    src = hf_folder(
        tmp_path / "cord",
        {
            "receipt_00000": {"gt_parse": GT_LIST, "meta": {"version": "2.0.0"}},
            "receipt_00001": {"ground_truth": json.dumps({"gt_parse": GT_SINGLE})},
        },
    )
    out = tmp_path / "suite"
    report = import_suite("cord", src, out)
    assert report.imported == 2 and report.warnings == []
    header, cases = cases_of(out)
    assert header["meta"]["options"] == {
        "tags": {},
        "skip_bad": False,
        "currency": "IDR",
        "currency_source": "assumed from the data set's scope",
        "layout": "json+image",
    }
    a = cases["receipt_00000"]
    assert a["media_type"] == "image/png" and a["file"] == "files/receipt_00000.png"
    assert a["sha256"] == hashlib.sha256((src / "image" / "receipt_00000.png").read_bytes()).hexdigest()
    assert a["label"] == {
        "suite": "receipt",
        "authenticity": {"verdict": "genuine", "fake_class": None, "edited_fields": []},
        "provenance": "none",
        "subtotal": 73000.0,
        "tax_total": 7300.0,
        "total": 78950.0,
        "currency": "IDR",
        "line_items": [
            {"description": "ICED LATTE", "total": 50000.0, "quantity": 2.0, "unit_price": 25000.0},
            {"description": "+ Extra shot", "total": 5000.0, "quantity": None, "unit_price": None},
            {"description": "CROISSANT", "total": 18000.0, "quantity": 1.0, "unit_price": None},
        ],
    }  # service, discount, cash and change are not Label fields; merchant/date not in CORD v2
    b = cases["receipt_00001"]["label"]
    assert b["line_items"] == [{"description": "NASI GORENG", "total": 35000.0, "quantity": 1.0, "unit_price": None}]
    assert b["total"] == 35000.0 and "subtotal" not in b and "tax_total" not in b
    assert validate_suite(out)[1] == []


def test_published_jsonl_with_ground_truth_strings(tmp_path):
    split = tmp_path / "cord-v2" / "test"
    split.mkdir(parents=True)
    (split / "receipt_00000.png").write_bytes(png(1))
    (split / "receipt_00001.png").write_bytes(png(2))
    lines = [
        {"file_name": "receipt_00000.png", "ground_truth": json.dumps({"gt_parse": GT_SINGLE})},
        {
            "file_name": "receipt_00001.png",
            "ground_truth": json.dumps({"gt_parse": {"total": {"total_price": "12,5x"}}}),
        },
        {"file_name": "../escape.png", "ground_truth": "{}"},
    ]
    (split / "metadata.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(BadRows) as exc:
        import_suite("cord", split, tmp_path / "out")
    assert exc.value.problems == [
        'metadata.jsonl:2: receipt receipt_00001.png: total "12,5x" is not an amount',
        "metadata.jsonl:3: receipt ../escape.png: file_name ../escape.png is outside " + str(split),
    ]
    assert not (tmp_path / "out").exists()
    report = import_suite(
        "cord", split / "metadata.jsonl", tmp_path / "out", ImportOptions(skip_bad=True, currency="usd")
    )
    assert report.imported == 1
    header, cases = cases_of(tmp_path / "out")
    assert header["meta"]["options"]["layout"] == "jsonl"
    assert cases["receipt_00000"]["label"]["total"] == 35000.0
    assert cases["receipt_00000"]["label"]["currency"] == "USD"


def test_ambiguous_structure_leaves_the_field_out_with_a_warning(tmp_path, capsys):
    gt = {
        "menu": [{"nm": "TEA", "cnt": "1", "price": "8,000"}, {"nm": "FREE WATER", "cnt": "1"}],
        "sub_total": {"subtotal_price": "8,000", "tax_price": ["400", "400"]},
        "total": {"total_price": "8,800"},
    }
    src = hf_folder(tmp_path / "cord", {"r1": {"gt_parse": gt}})
    out = tmp_path / "out"
    assert main(["cases", "import", "--format", "cord", str(src), "--out", str(out), "--no-currency"]) == 0
    err = capsys.readouterr().err
    assert "warning: json/r1.json: receipt r1.png: line_items left out: menu item 2 (FREE WATER) has no price" in err
    assert "warning: json/r1.json: receipt r1.png: tax_total left out: tax_price is annotated 2 times" in err
    label = cases_of(out)[1]["r1"]["label"]
    assert "line_items" not in label and "tax_total" not in label and "currency" not in label
    assert label["subtotal"] == 8000.0 and label["total"] == 8800.0


def test_missing_pairs_and_v1_annotations_are_bad_rows(tmp_path):
    src = hf_folder(
        tmp_path / "cord",
        {
            "a": {"gt_parse": GT_SINGLE},
            "v1": {"valid_line": [], "meta": {}},
            "noimg": {"gt_parse": GT_SINGLE},
            "broken": "{not json",
        },
        images=["a", "v1", "lonely", "broken"],
    )
    with pytest.raises(BadRows) as exc:
        import_suite("cord", src, tmp_path / "out")
    assert exc.value.problems[0] == "image/lonely.png: receipt lonely.png: has no annotation json/lonely.json"
    assert exc.value.problems[1].startswith("json/broken.json: receipt broken.png: annotation is not JSON")
    assert exc.value.problems[2:] == [
        "json/noimg.json: no image noimg.* in ./image",
        "json/v1.json: receipt v1.png: annotation has no gt_parse object (a CORD v1 annotation with valid_line only? use the v2 release)",
    ]


def test_split_folders_are_imported_with_split_in_the_id(tmp_path):
    hf_folder(tmp_path / "cord" / "train", {"receipt_00000": {"gt_parse": GT_SINGLE}})
    hf_folder(tmp_path / "cord" / "test", {"receipt_00000": {"gt_parse": GT_LIST}})
    import_suite("cord", tmp_path / "cord", tmp_path / "out")
    cases = cases_of(tmp_path / "out")[1]
    assert set(cases) == {"train-receipt_00000", "test-receipt_00000"}
    assert cases["test-receipt_00000"]["label"]["total"] == 78950.0


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("25,000", 25000.0),
        ("25.000", 25000.0),
        ("1,591,600", 1591600.0),
        ("1.591.600", 1591600.0),
        ("25000", 25000.0),
        ("Rp 25.000", 25000.0),
        ("Rp. 12,500", 12500.0),
        ("IDR 7.000", 7000.0),
        ("-5,000", -5000.0),
        ("(5.000)", -5000.0),
        ("25.000,00", 25000.0),
        ("25,000.00", 25000.0),
        ("9.5", 9.5),
    ],
)
def test_idr_amounts(printed, value):
    assert parse_idr_amount(printed) == value


@pytest.mark.parametrize("printed", ["1,500,50", "1234,000", "25,00,0", "abc", "12.5x", "1.500.00,000"])
def test_ambiguous_idr_amounts_are_rejected(printed):
    with pytest.raises(ValueProblem):
        parse_idr_amount(printed)


@pytest.mark.parametrize(
    ("cnt", "qty"),
    [("2", 2.0), ("2 x", 2.0), ("x2", 2.0), ("2X", 2.0), ("1.00", 1.0), ("3 pcs", 3.0), ("0,5", 0.5), ("two", None)],
)
def test_quantities(cnt, qty):
    assert parse_quantity(cnt) == qty
