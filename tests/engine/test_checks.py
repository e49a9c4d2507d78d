"""totals_add_up: passes when the printed amounts add up, fails with the numbers when not."""

from __future__ import annotations

import pytest

from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_text


def _check(text: str):
    return totals_add_up(extract_fields(rows_from_text(text)))


HEAD = "Corner Deli\nReceipt No. 1234-56\nDate 03/04/2024\n"


def test_exclusive_tax_adds_up():
    r = _check(
        HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    8.40\nSales Tax 8.25%    0.69\nTOTAL    9.09"
    )
    assert r.check.status == "passed" and r.signal is None
    assert r.check.numbers["line_items_sum"] == pytest.approx(8.40)


def test_inclusive_tax_is_not_added():
    r = _check("Bäckerei\nDatum 03.04.2024\nBrezel    0,95\nKaffee    3,20\nSUMME    4,15 €\nenth. MwSt. 7%    0,27")
    assert r.check.status == "passed"


def test_tip_service_and_discount():
    r = _check(
        HEAD + "Burger    15.50\nIPA    6.80\nSUBTOTAL    22.30\nDiscount    -2.00\nTax 8.875%    1.80\n"
        "Service charge    2.23\nTip    4.00\nTOTAL    28.33"
    )
    assert r.check.status == "passed"


def test_edited_total_fails_with_the_numbers_as_a_proof():
    r = _check(
        HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    8.40\nSales Tax 8.25%    0.69\nTOTAL    19.09"
    )
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
    r = _check(
        HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    9.40\nSales Tax 8.25%    0.69\nTOTAL    9.09"
    )
    assert r.check.status == "failed" and r.signal is not None and r.signal.kind == "proof"
    assert "line items add up to 8.40" in r.check.detail and "9.40" in r.check.detail


def test_items_short_of_an_agreeing_subtotal_and_total_are_not_proof():
    # subtotal + tax = total; only the items fall short: an item row may have gone unread
    r = _check(
        HEAD + "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    9.40\nSales Tax 8.25%    0.69\nTOTAL    10.09"
    )
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


# --------------------------------------------------------------------------- false proofs seen on real receipts
# Each test is a small receipt showing one way a misreading became an arithmetic "proof" on real
# genuine receipts (issue 14). The reading must either understand the receipt (passed) or report
# an opinion ("could not be reconciled", with the numbers) that does not floor the risk.

from rabench.engine.checks import UNRECONCILED  # noqa: E402
from rabench.engine.extract import rows_from_ocr  # noqa: E402
from rabench.engine.ocr import OcrLine  # noqa: E402

DE_HEAD = "BIOMARKT LINDNER\nHauptstr. 5, 10115 Berlin\nDatum 25.04.2020 09:38\n"


def _opinion(r) -> None:
    assert r.check.status == "not_run", r.check
    s = r.signal
    assert s is not None and s.kind == "opinion" and s.proof_type is None and s.name == UNRECONCILED
    assert s.text.startswith("Amounts could not be reconciled")


def _ocr_rows(rows: list[tuple[str, str]], *, skip: int | None = None, confidence: dict[int, float] | None = None):
    """OCR lines as RapidOCR gives them for a till roll: label left, amount right, one row every 30 px.
    ``skip``: a row the reader did not see (it leaves a gap); ``confidence``: per-row amount confidence."""
    lines = []
    for n, (label, amount) in enumerate(rows):
        if n == skip:
            continue
        y = 40 + 30 * n
        if label:
            lines.append(OcrLine(label, (20, y, 20 + 11 * len(label), y + 20), 0.99))
        if amount:
            conf = (confidence or {}).get(n, 0.99)
            lines.append(OcrLine(amount, (400 - 11 * len(amount), y, 400, y + 20), conf))
    return rows_from_ocr(lines)


def test_seven_identical_rows_with_one_unread_are_not_proof():
    rows = [("BIOMARKT LINDNER", ""), ("Datum 25.04.2020 09:38", "")]
    rows += [("GUT BIO JOGHURT", "0,35")] * 7 + [("SUMME EUR", "2,45"), ("Bar", "5,00"), ("Rückgeld", "2,55")]
    complete = totals_add_up(extract_fields(_ocr_rows(rows)))
    assert complete.check.status == "passed"
    assert complete.check.numbers["line_items_sum"] == pytest.approx(2.45)
    missed = totals_add_up(extract_fields(_ocr_rows(rows, skip=5)))  # one joghurt row never read
    _opinion(missed)
    assert "2.10" in missed.signal.text and "2.45" in missed.signal.text  # the numbers are reported


def test_a_missing_repeated_row_without_a_gap_is_still_not_proof():
    # a text layer has no pixels to show a gap: the difference is one item's amount, so not proof
    r = _check(DE_HEAD + "GUT BIO JOGHURT    0,35\n" * 6 + "SUMME EUR    2,45")
    _opinion(r)
    assert "0.35" in r.signal.text


def test_unit_price_info_line_is_not_an_item():
    r = _check(
        DE_HEAD + "Olivenöl 2 Stk    19,90\nEinzelpreis EUR 9,95\nBrot    3,20\nSUMME EUR    23,10\n"
        "enth. MwSt. 7%    1,51"
    )
    assert r.check.status == "passed"
    ex = extract_fields(
        rows_from_text(DE_HEAD + "Olivenöl 2 Stk    19,90\nEinzelpreis EUR 9,95\nBrot    3,20\nSUMME EUR    23,10")
    )
    assert [(i.total, i.unit_price) for i in ex.line_items] == [(19.90, 9.95), (3.20, None)]
    assert ex.line_items[0].quantity == 2


def test_an_unknown_info_line_counted_as_an_item_is_not_proof():
    # "Grundpreis" is a word the reader doesn't know: read as an item, the sum is off by its amount
    r = _check(DE_HEAD + "Olivenöl    19,90\nGrundpreis 1 l = 9,95    9,95\nSUMME EUR    19,90")
    _opinion(r)


def test_quantity_line_above_its_item_is_attached_by_the_arithmetic():
    r = _check(HEAD + "3 x 3.48\nDish Soap    10.44\nBananas    0.54\nSUBTOTAL    10.98\nTOTAL    10.98")
    assert r.check.status == "passed"


def test_items_against_a_subtotal_read_with_doubtful_confidence_are_not_proof():
    rows = [
        ("Corner Deli", ""),
        ("Date 03/04/2024 12:31", ""),
        ("Turkey Sandwich", "6.90"),
        ("Chips", "1.50"),
        ("SUBTOTAL", "9.40"),
        ("Sales Tax 8.25%", "0.69"),
        ("TOTAL", "9.09"),
    ]
    # items 8.40 + tax 0.69 = 9.09: the subtotal is the odd one out; read surely it is proof ...
    sure = totals_add_up(extract_fields(_ocr_rows(rows)))
    assert sure.signal is not None and sure.signal.kind == "proof" and sure.check.status == "failed"
    # ... read at 0.91 (an 8 taken for a 9 looks like this) it is an opinion with the numbers
    unsure = totals_add_up(extract_fields(_ocr_rows(rows, confidence={4: 0.91})))
    _opinion(unsure)
    assert "9.40" in unsure.signal.text and "8.40" in unsure.signal.text


def test_a_failed_sum_names_terms_that_add_up_to_the_sum_it_shows():
    # seen on real receipts: "subtotal 41.30 + tax 2.73 + rounding -0.01 = 44.03" (the rounding
    # and the discount were named but left out of the sum shown)
    r = _check(
        HEAD + "Turkey Sandwich    38.30\nChips    5.00\nSUBTOTAL    43.30\nDiscount    -2.00\n"
        "Sales Tax    2.73\nROUNDING    -0.01\nTOTAL    40.00"
    )
    assert r.check.status == "failed"
    assert r.check.numbers["expected_total"] == pytest.approx(44.02)
    assert r.check.numbers["difference"] == pytest.approx(-4.02)
    assert "rounding -0.01" in r.signal.text and "discounts 2.00" in r.signal.text
    assert "= 44.02, but the total printed is 40.00 (off by 4.02)" in r.signal.text, r.signal.text


def test_sroie_tax_inclusive_total_gst_summary_and_rounding_add_up():
    r = _check(
        "TEO HENG STATIONERY & BOOKS\nGST No.: 000689913856\nReceipt No.: CS1801/26821  Date: 17/01/2018\n"
        "ITEM  QTY  U/P  AMOUNT\n9555017370017  1  26.00    26.00\nLION FILE 220*307 LAMINATING FILM\n"
        "Total Qty.:  1    26.00\nSUB-TOTAL (EX)    26.00\nTOTAL TAX    1.56\nROUNDING    -0.01\nTOTAL    27.55\n"
        "CASH    27.55\nCHANGE    0.00\nGST SUMMARY\nTAX CODE  %  AMOUNT (RM)  TAX (RM)\nSR  6.00  26.00  1.56\n"
        "TOTAL:  26.00  1.56"
    )
    assert r.check.status == "passed", r.check
    assert r.check.numbers["total"] == 27.55 and r.check.numbers["rounding"] == -0.01


def test_sroie_total_sales_inclusive_of_gst_is_the_total():
    text = (
        "SYARIKAT PERNIAGAAN GIN KEE\nDoc No. CS00011926  Date: 02/12/2017\nCashier: USER  Time: 08:44:00\n"
        "3122  1  29.68  29.68  SR\n(W33)105MM/4'CUTTING DISC\nTotal Qty:  1    29.68\n"
        "Total Sales (Excluding GST):    28.00\nDiscount:    0.00\nTotal GST:    1.68\nRounding:    0.00\n"
        "Total Sales (Inclusive of GST):    29.68\nCASH:    50.00\nChange:    20.32\nGST SUMMARY\n"
        "Tax Code  %  Amt (RM)  Tax (RM)\nSR  6  28.00  1.68\nTotal:  28.00  1.68"
    )
    ex = extract_fields(rows_from_text(text))
    assert (ex.fields.total, ex.fields.subtotal, ex.fields.tax_total) == (29.68, 28.00, 1.68)
    assert totals_add_up(ex).check.status == "passed"


def test_rounded_total_after_rounding_adjustment():
    ex = extract_fields(
        rows_from_text(
            "MR D.I.Y. (M) SDN BHD\n18-11-18 13:58\nKILAT AUTO ECO WASH    3.11\nWD40 277ML    11.23\n"
            "Item(s): 2  Qty(s): 2\nTotal    RM14.34\nROUNDING ADJUSTMENT    RM0.01\nTOTAL ROUNDED    RM14.35\n"
            "CASH    RM20.00\nCHANGE    RM5.65"
        )
    )
    assert ex.fields.total == 14.35 and ex.rounding == [0.01]
    assert totals_add_up(ex).check.status == "passed"


def test_total_read_from_a_tax_row_or_the_change_is_not_proof():
    # the tax row "GST @6% included in total" and the Cash/Change rows are not the total
    ex = extract_fields(
        rows_from_text(
            "FARMASI SENTOSA SDN BHD\nDATE 29/11/2016 11:38\nUBAT BATUK 120ML    9.18\nPLASTER 10S    2.75\n"
            "BILL TOTAL    11.93\nROUNDING    0.02\nNET TOTAL    11.95\nGST @6% INCLUDED IN TOTAL    0.68\n"
            "CASH    50.00\nCHANGE    38.05"
        )
    )
    assert ex.fields.total == 11.95 and ex.fields.tax_total == 0.68 and ex.tax_inclusive
    assert totals_add_up(ex).check.status == "passed"


def test_a_row_in_the_totals_the_reader_cannot_place_blocks_a_proof():
    # "Verpackung" (packaging) in the totals block is a word the reader doesn't know: not proof
    r = _check(DE_HEAD + "Mineralwasser    0,79\nZWISCHENSUMME    0,79\nVerpackung    0,25\nSUMME EUR    1,04")
    _opinion(r)
    assert "Verpackung" in r.signal.text


def test_deposit_in_the_totals_is_understood():
    r = _check(DE_HEAD + "Mineralwasser    0,79\nZWISCHENSUMME    0,79\nPfand    0,25\nSUMME EUR    1,04")
    assert r.check.status == "passed" and r.check.numbers["deposits"] == 0.25


def test_another_total_row_that_adds_up_blocks_a_proof():
    r = _check(HEAD + "Burger    15.50\nSUBTOTAL    15.50\nTax    1.24\nTotal Due    16.74\nTOTAL    61.74")
    _opinion(r)
    assert "16.74" in r.signal.text


def test_a_clean_edited_total_is_still_proof_with_the_numbers():
    # what a fraudster does: the total raised, nothing else touched; a complete, confident reading
    rows = [
        ("Corner Deli", ""),
        ("Date 03/04/2024 12:31", ""),
        ("Turkey Sandwich", "6.90"),
        ("Chips", "1.50"),
        ("SUBTOTAL", "8.40"),
        ("Sales Tax 8.25%", "0.69"),
        ("TOTAL", "19.09"),
    ]
    r = totals_add_up(extract_fields(_ocr_rows(rows)))
    assert r.check.status == "failed" and r.signal is not None and r.signal.kind == "proof"
    assert r.signal.proof_type == "arithmetic"
    for number in ("8.40", "0.69", "9.09", "19.09", "10.00"):
        assert number in r.signal.text
