"""The AP generator: deterministic bytes, valid suites, every family with what it needs, benign
twins, printed values where the label says, check digits that hold unless a case is about them."""

from __future__ import annotations

import csv
import io
import json
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from rabench.cases.ap.manifest import open_ap_suite
from rabench.cases.ap.validate import FAMILY_NEEDS
from rabench.cases.ap.vendors import aba_valid, iban_valid
from rabench.cases.validate import validate_suite
from rabench.contracts.ap import FAMILIES

COMMITTED = Path(__file__).resolve().parents[3] / "cases" / "sample-ap"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample AP suite, generated in process with one worker (the committed one used the CLI's two)."""
    from rabench.cases.ap.generate import generate_ap_suite

    out = tmp_path_factory.mktemp("ap") / "sample"
    generate_ap_suite(out, split="sample", size="sample", workers=1)
    return out


@pytest.fixture(scope="module")
def cases(sample):
    return list(open_ap_suite(sample))


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_regenerating_the_sample_gives_the_committed_bytes(sample):
    assert COMMITTED.is_dir(), "cases/sample-ap is committed with the repository"
    ours, theirs = _files(sample), _files(COMMITTED)
    assert sorted(ours) == sorted(theirs)
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert not differ, f"{len(differ)} files differ, e.g. {differ[:3]}"


def test_sample_is_a_valid_ap_suite_under_5_mb(sample):
    count, problems = validate_suite(sample)
    assert problems == [] and count == 40
    assert sum(len(b) for b in _files(COMMITTED).values()) < 5_000_000


def test_every_family_has_risky_cases_and_benign_twins(cases):
    for fam in FAMILIES:
        labels = [lc.case.label for lc in cases if lc.case.label.family == fam]
        assert len(labels) == 8, fam
        assert any(not lab.safe_to_pay for lab in labels), fam
        assert any(lab.benign_twin and lab.safe_to_pay and lab.decision == "PAY" for lab in labels), fam
    fraud_families = {lc.case.label.family for lc in cases if lc.case.label.is_fraud}
    assert {"duplicate_bank_change", "inbox_bec", "campaign"} <= fraud_families


def test_each_family_bundle_has_what_its_task_needs(cases):
    for lc in cases:
        case, lab = lc.case, lc.case.label
        roles = [d.role for d in case.documents]
        assert set(FAMILY_NEEDS[lab.family]) <= set(roles), case.id
        if lab.family == "three_way_match":
            po = json.loads(lc.read("po.json"))
            gr = json.loads(lc.read("goods_receipt.json"))
            assert po["po_number"] == lab.fields["po_number"].value == gr["po_number"]
            if "missing_goods_receipt" in lab.discrepancies:
                assert gr["receipts"] == []
        if lab.family == "inbox_bec":
            msg = BytesParser(policy=policy.default).parsebytes(lc.read("thread.eml"))
            for header in ("From", "To", "Date", "Message-ID", "Subject"):
                assert msg[header], (case.id, header)
            attached = [p.get_content() for p in msg.iter_attachments()]
            assert attached == [lc.read(lab.subject)], case.id  # the invoice as mailed is the invoice in the bundle
        if lab.family == "campaign":
            assert roles.count("invoice") >= 3
            if lab.is_fraud:
                assert len(lab.campaign_links) == roles.count("invoice") * (roles.count("invoice") - 1) // 2
        for link in lab.duplicate_links:
            ledger = {r["entry_id"]: r for r in csv.DictReader(io.StringIO(lc.read("ledger.csv").decode()))}
            assert link.target in ledger
            if link.kind == "duplicate":
                assert ledger[link.target]["invoice_number"] == lab.fields["invoice_number"].value


def test_printed_values_are_inside_their_evidence_boxes(cases):
    """The PDF text layer inside each labelled box is the labelled value (read back with pdfium)."""
    import pypdfium2 as pdfium

    checked = 0
    for lc in cases:
        lab = lc.case.label
        doc = lc.case.document(lab.subject)
        assert doc is not None
        if doc.media_type != "application/pdf":
            continue
        pdf = pdfium.PdfDocument(lc.read(lab.subject))
        page = pdf[0]
        w, h = page.get_size()
        text = page.get_textpage()
        for name in ("invoice_number", "bank_account", "vendor_name", "po_number"):
            gold = lab.fields[name]
            if gold.value is None:
                continue
            assert gold.evidence is not None and gold.evidence.doc == lab.subject
            x0, y0, x1, y1 = gold.evidence.box
            inside = text.get_text_bounded(left=x0 * w, bottom=h - y1 * h, right=x1 * w, top=h - y0 * h)
            assert inside.replace(" ", "") == str(gold.value).replace(" ", ""), (lc.case.id, name, inside)
            checked += 1
        pdf.close()
    assert checked > 40


def test_accounts_pass_their_check_digits_unless_the_case_is_about_it(cases):
    for lc in cases:
        lab = lc.case.label
        number, code = lab.fields["bank_account"].value, lab.fields["bank_code"].value
        assert isinstance(number, str) and isinstance(code, str)
        ok = iban_valid(number) if number[:2].isalpha() else aba_valid(code)
        assert ok == ("iban_checksum_invalid" not in lab.reason_codes), lc.case.id


def test_printed_arithmetic_holds_unless_the_case_is_about_it(cases):
    for lc in cases:
        lab = lc.case.label
        f = {k: v.value for k, v in lab.fields.items()}
        lines = round(sum(x.total for x in lab.line_items), 2)
        tax = f["tax"] or 0.0
        assert isinstance(f["subtotal"], float) and isinstance(f["total"], float) and isinstance(tax, float)
        consistent = abs(lines - f["subtotal"]) < 0.005 and abs(f["subtotal"] + tax - f["total"]) < 0.005
        about_it = bool({"tax_calculation_error", "total_mismatch"} & set(lab.reason_codes))
        if not about_it:
            assert consistent, lc.case.id
        for item in lab.line_items:
            assert abs(item.quantity * item.unit_price - item.total) < 0.005


def test_ids_and_order_say_nothing_about_the_family(cases):
    families = [lc.case.label.family for lc in cases]
    assert [lc.case.id for lc in cases] == [f"c{i:05d}" for i in range(40)]
    assert families[:8] != [families[0]] * 8  # shuffled, not grouped by family


def test_ledger_ids_rise_with_the_posting_date(cases):
    """Issue 31: a planted original must not stand out as the entry with the highest id."""
    for lc in cases:
        for d in lc.case.by_role("ledger"):
            rows = list(csv.DictReader(io.StringIO(lc.read(d.name).decode("utf-8"))))
            keys = [(r["posting_date"], int(r["entry_id"].split("-")[1])) for r in rows]
            assert [k[1] for k in sorted(keys)] == sorted(k[1] for k in keys), lc.case.id
            assert len({k[1] for k in keys}) == len(keys), lc.case.id
