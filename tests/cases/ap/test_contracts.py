"""The AP contracts: strict decoding, one-line errors, and suite-kind routing between commands."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import msgspec
import pytest

from rabench.contracts.ap import APCase, APLabel, EvidenceBox, GoldField, Link


def _label(**kw):
    base = dict(
        family="three_way_match",
        difficulty="medium",
        outcome="discrepancy",
        decision="HOLD",
        acceptable=["HOLD", "NEEDS_REVIEW"],
        safe_to_pay=False,
    )
    return APLabel(**(base | kw))


def _write_suite(root, *, label=None, extra_case=None):
    files = root / "files" / "c00000"
    files.mkdir(parents=True)
    inv = b"%PDF-1.4 not really\n"
    ledger = b"entry_id,vendor_id,invoice_number,amount\nLED-000001,V1,INV-1,10.00\n"
    policy = b"policy text\n"
    po = b'{"po_number": "PO-1"}'
    vm = b"[]"
    docs = []
    for name, data, media, role in [
        ("invoice.pdf", inv, "application/pdf", "invoice"),
        ("po.json", po, "application/json", "purchase_order"),
        ("vendor_master.json", vm, "application/json", "vendor_master"),
        ("ledger.csv", ledger, "text/csv", "ledger"),
        ("policy.txt", policy, "text/plain", "policy"),
    ]:
        (files / name).write_bytes(data)
        docs.append(
            {
                "name": name,
                "file": f"files/c00000/{name}",
                "sha256": hashlib.sha256(data).hexdigest(),
                "media_type": media,
                "role": role,
            }
        )
    lab = label or _label(
        fields={"total": GoldField(10.0, EvidenceBox("invoice.pdf", 1, (0.6, 0.7, 0.9, 0.75)))},
        discrepancies=["price_mismatch"],
        reason_codes=["po_price_mismatch"],
        duplicate_links=[Link("near_duplicate", "invoice.pdf", "LED-000001")],
    )
    case = {"id": "c00000", "documents": docs, "label": msgspec.to_builtins(lab), "tags": {"family": "three_way_match"}}
    lines = [
        json.dumps({"type": "suite_header", "suite": "ap", "name": "t", "contracts_version": 1}),
        json.dumps(case),
    ] + ([json.dumps(extra_case)] if extra_case else [])
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    return case


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "rabench", *args], capture_output=True, text=True)


def test_a_valid_ap_suite_validates(tmp_path):
    _write_suite(tmp_path)
    proc = _cli("cases", "validate", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "1 cases, valid" in proc.stdout


def test_ap_problems_are_one_line_each_and_exit_2(tmp_path):
    case = _write_suite(tmp_path)
    bad = json.loads(json.dumps(case))
    bad["id"] = "c00001"
    bad["label"]["duplicate_links"] = [{"kind": "duplicate", "source": "invoice.pdf", "target": "LED-999999"}]
    bad["documents"] = [d for d in bad["documents"] if d["role"] != "purchase_order"]
    lines = (tmp_path / "manifest.jsonl").read_text().splitlines() + [json.dumps(bad)]
    unknown = json.loads(json.dumps(case))
    unknown["id"] = "c00002"
    unknown["label"]["colour"] = "red"
    lines.append(json.dumps(unknown))
    (tmp_path / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "files" / "c00000" / "policy.txt").write_bytes(b"changed")
    proc = _cli("cases", "validate", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    err = proc.stderr
    assert "case c00000: file files/c00000/policy.txt sha256 mismatch" in err
    assert "case c00001: family three_way_match needs a purchase_order document" in err
    assert "LED-999999: neither a document nor a ledger entry of the case" in err
    assert "manifest.jsonl:4: Object contains unknown field colour" in err


@pytest.mark.parametrize(
    "change, message",
    [
        ({"decision": "PAY"}, "decision PAY is not among acceptable"),
        ({"safe_to_pay": True}, "safe_to_pay must be true exactly when PAY is acceptable"),
        ({"reason_codes": ["made_up"]}, "Invalid enum value 'made_up'"),
        (
            {
                "fields": {
                    "total": {"value": 1.0, "evidence": {"doc": "invoice.pdf", "page": 1, "box": [0.5, 0.1, 0.4, 0.2]}}
                }
            },
            "is not 0 <= x0 < x1 <= 1",
        ),
    ],
)
def test_label_rules_are_enforced_where_decoded(change, message):
    raw = msgspec.to_builtins(_label()) | change
    with pytest.raises(msgspec.ValidationError, match=message.replace("(", r"\(")):
        msgspec.json.decode(json.dumps(raw), type=APLabel)


def test_ap_suite_header_version_is_checked_first(tmp_path):
    _write_suite(tmp_path)
    lines = (tmp_path / "manifest.jsonl").read_text().splitlines()
    lines[0] = json.dumps({"type": "suite_header", "suite": "ap", "name": "t", "contracts_version": 9, "x": 1})
    (tmp_path / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    proc = _cli("cases", "validate", str(tmp_path))
    assert proc.returncode == 2 and "contracts_version 9 found" in proc.stderr


def test_receipt_only_commands_refuse_an_ap_suite_in_one_line(tmp_path):
    _write_suite(tmp_path)
    for args in (
        ["cases", "derive", str(tmp_path), "--out", str(tmp_path / "d")],
        ["cases", "shift", str(tmp_path), str(tmp_path)],
    ):
        proc = _cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "an ap suite; this command reads receipt suites only" in lines[0], proc.stderr


def test_unknown_suite_kind_is_refused():
    from rabench.contracts.case import SuiteHeader

    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'invoice'"):
        msgspec.json.decode(b'{"type":"suite_header","suite":"invoice","name":"x"}', type=SuiteHeader)


def test_case_document_names_are_unique_and_safe():
    doc = {
        "name": "invoice.pdf",
        "file": "files/x/invoice.pdf",
        "sha256": "0" * 64,
        "media_type": "application/pdf",
        "role": "invoice",
    }
    raw = {"id": "c1", "documents": [doc, doc], "label": msgspec.to_builtins(_label())}
    with pytest.raises(msgspec.ValidationError, match="appears twice"):
        msgspec.json.decode(json.dumps(raw), type=APCase)
    raw["documents"] = [doc | {"name": "../x"}]
    with pytest.raises(msgspec.ValidationError, match="is not 1-64 ASCII"):
        msgspec.json.decode(json.dumps(raw), type=APCase)


def test_vocabulary_tuples_are_the_literal_values():
    """The tuples code iterates over and the Literal types msgspec checks never drift apart."""
    from typing import get_args

    from rabench.contracts import ap

    pairs = [
        (ap.DECISIONS, ap.Decision),
        (ap.FAMILIES, ap.Family),
        (ap.DIFFICULTIES, ap.Difficulty),
        (ap.OUTCOME_CLASSES, ap.OutcomeClass),
        (ap.REASON_CODES, ap.ReasonCode),
        (ap.DISCREPANCY_KINDS, ap.DiscrepancyKind),
        (ap.LINK_KINDS, ap.LinkKind),
        (ap.DOC_ROLES, ap.DocRole),
        (ap.FIELD_NAMES, ap.FieldName),
    ]
    for values, literal in pairs:
        assert values == get_args(literal)
    assert set(ap.FAMILY_LETTER) == set(ap.FAMILIES) and sorted(ap.FAMILY_LETTER.values()) == list("ABCDE")
    assert ap.FRAUD_CLASSES < set(ap.OUTCOME_CLASSES) and ap.AMOUNT_FIELDS < set(ap.FIELD_NAMES)
