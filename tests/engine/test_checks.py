"""totals_add_up: passes when the printed amounts add up, fails with the numbers when not."""

from __future__ import annotations

import pytest

from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_text


def _check(text: str):
    return totals_add_up(extract_fields(rows_from_text(text)))


HEAD = "Corner Deli\nReceipt No. 1234-56\nDate 03/04/2024\n"


def test_exclusive_tax_adds_up():
    r = _check(HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    8.40\nSales Tax 8.25%    0.69\nTOTAL    9.09")
    assert r.check.status == "passed" and r.signal is None
    assert r.check.numbers["line_items_sum"] == pytest.approx(8.40)


def test_inclusive_tax_is_not_added():
    r = _check("Bäckerei\nDatum 03.04.2024\nBrezel    0,95\nKaffee    3,20\nSUMME    4,15 €\nenth. MwSt. 7%    0,27")
    assert r.check.status == "passed"


def test_tip_service_and_discount():
    r = _check(HEAD + "Burger    15.50\nIPA    6.80\nSUBTOTAL    22.30\nDiscount    -2.00\nTax 8.875%    1.80\n"
               "Service charge    2.23\nTip    4.00\nTOTAL    28.33")
    assert r.check.status == "passed"


def test_edited_total_fails_with_the_numbers_as_a_proof():
    r = _check(HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    8.40\nSales Tax 8.25%    0.69\nTOTAL    19.09")
    assert r.check.status == "failed"
    assert r.check.numbers["expected_total"] == pytest.approx(9.09)
    assert r.check.numbers["difference"] == pytest.approx(10.00)
    s = r.signal
    assert s is not None and s.kind == "proof" and s.proof_type == "arithmetic" and s.check == "totals_add_up"
    assert set(s.fields) == {"total", "subtotal"}
    for number in ("8.40", "0.69", "9.09", "19.09", "10.00"):
        assert number in s.text


def test_misprinted_subtotal_is_proof_when_items_and_total_agree():
    # items 8.40 + tax 0.69 = total 9.09: the subtotal 9.40 is the one amount that disagrees
    r = _check(HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    9.40\nSales Tax 8.25%    0.69\nTOTAL    9.09")
    assert r.check.status == "failed" and r.signal is not None and r.signal.kind == "proof"
    assert "line items add up to 8.40" in r.check.detail and "9.40" in r.check.detail


def test_items_short_of_an_agreeing_subtotal_and_total_are_not_proof():
    # subtotal + tax = total; only the items fall short: an item row may have gone unread
    r = _check(HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    9.40\nSales Tax 8.25%    0.69\nTOTAL    10.09")
    assert r.check.status == "not_run"
    s = r.signal
    assert s is not None and s.kind == "opinion" and s.proof_type is None and s.name == "check.amounts_unreconciled"
    assert "could not be reconciled" in s.text and "8.40" in s.text and "9.40" in s.text


def test_one_cent_slip_fails_and_exact_passes():
    assert _check(HEAD + "Tea    2.50\nSUBTOTAL    2.50\nTax 8.25%    0.21\nTOTAL    2.72").check.status == "failed"
    assert _check(HEAD + "Tea    2.50\nSUBTOTAL    2.50\nTax 8.25%    0.21\nTOTAL    2.71").check.status == "passed"


def test_quantity_times_unit_price_is_checked_but_never_proof_alone():
    ok = _check(HEAD + "Croissant    4.80\n  2 x 2.40\nTOTAL    4.80")
    bad = _check(HEAD + "Croissant    5.80\n  2 x 2.40\nTOTAL    5.80")
    assert ok.check.status == "passed"
    # a weight, a per-unit discount or a misread quantity look the same: an opinion with the numbers
    assert bad.check.status == "not_run" and "2 × 2.40 = 4.80" in bad.check.detail
    assert bad.signal is not None and bad.signal.kind == "opinion"


def test_zero_decimal_currency():
    r = _check("Kissa\n2024/05/06\nBlend Coffee    ¥580\nCheesecake    ¥650\nTOTAL    ¥1,230\nincl. Tax 10%    ¥111")
    assert r.check.status == "passed"
    r = _check("Kissa\n2024/05/06\nBlend Coffee    ¥580\nCheesecake    ¥650\nTOTAL    ¥1,830\nincl. Tax 10%    ¥111")
    assert r.check.status == "failed" and "1,230" in r.check.detail


@pytest.mark.parametrize(
    "text",
    ["Corner Deli\nThank you", HEAD + "TOTAL    9.09", HEAD + "Chips    1.50\nCash    5.00"],
)
def test_not_run_without_the_amounts(text):
    r = _check(text)
    assert r.check.status == "not_run" and r.signal is None


def test_low_confidence_amounts_do_not_become_proofs():
    from rabench.engine.extract.layout import Row, Segment

    rows = [
        Row((Segment("Tea", (0, 0, 50, 10)), Segment("2.50", (200, 0, 250, 10))), 0),
        Row((Segment("SUBTOTAL", (0, 20, 80, 30)), Segment("2.50", (200, 20, 250, 30))), 1),
        Row((Segment("TOTAL", (0, 40, 50, 50)), Segment("8.50", (200, 40, 250, 50), confidence=0.55)), 2),
    ]
    r = totals_add_up(extract_fields(rows))
    assert r.check.status == "not_run" and "low confidence" in r.check.detail


def test_proof_strength_grows_with_how_far_off_the_total_is():
    slip = _check(HEAD + "Tea    2.50\nSUBTOTAL    2.50\nTax 8.25%    0.21\nTOTAL    2.72").signal
    doubled = _check(HEAD + "Tea    2.50\nSUBTOTAL    2.50\nTax 8.25%    0.21\nTOTAL    5.42").signal
    assert slip is not None and doubled is not None
    assert slip.value < 0.1 and doubled.value == 1.0
