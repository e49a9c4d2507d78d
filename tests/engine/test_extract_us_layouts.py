"""General rules found reading real US restaurant photos labelled by hand (issue 14): the amount due
printed as "Sub-Total" under the tax, a card slip's tip and total lines left blank, a date whose second
separator OCR lost, and a web address under a country's domain as a country cue. Each test builds its
own small receipt, and the cases each rule must leave alone."""

from __future__ import annotations

import pytest

from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.extract.vocab import row_kind


def _read(text: str):
    return extract_fields(rows_from_text(text))


def _no_proof(ex) -> bool:
    signal = totals_add_up(ex).signal
    return signal is None or signal.kind != "proof"


def test_the_amount_due_printed_as_sub_total_under_the_tax_is_the_total():
    ex = _read(
        "Noodle Cafe\nDate:06/14/2017 18:38:46\nPopcorn Chicken  $4.39\nBeef Noodles  $6.75\n"
        "Cold Noodle  $6.25\nRice  $7.95\nAmount:$25.34\nTaxRate:(9.00%):$2.28\nSub-Total: $27.62\n"
        "---TIP GUIDE----\n15%=$3.80\n18%=$4.56"
    )
    assert ex.fields.total == 27.62
    assert ex.fields.subtotal == 25.34
    assert ex.fields.tax_total == 2.28


@pytest.mark.parametrize(
    ("text", "total"),
    [
        # the usual order: the total under the tax stays the total
        ("Diner\nRoll  13.90\nRibs  7.65\nAmount :  21.55\nTAX(8.875%) :  1.91\nTOTAL :  23.46", 23.46),
        ("Bar\nCrab Cake  15.00\nSteak  28.00\nSub Total:  43.00\nTax:  4.09\nSub Total:  47.09\nTOTAL:  47.09", 47.09),
        # a lower "subtotal" that is not the total plus the tax changes nothing
        ("Cafe\nTea  10.00\nSoup  15.34\nAmount:  25.34\nTax:  2.28\nSubtotal:  30.00", 25.34),
    ],
)
def test_a_total_under_the_tax_or_a_subtotal_that_does_not_add_up_is_left_alone(text, total):
    assert _read(text).fields.total == total


@pytest.mark.parametrize(
    ("label", "kind"), [("TaxRate:(9.00%):$2.28", "tax"), ("VATrate 20%  2.48", "tax"), ("Taxi  12.00", "other")]
)
def test_a_tax_word_glued_to_rate_is_the_tax(label, kind):
    assert row_kind(label) == kind


@pytest.mark.parametrize(
    "text",
    [
        "Steakhouse\nDate: Jul15'17 04:07PM\nCard Type: Visa\nAcct #: XXXXXXXXXXXX3426\nCheck: 1738\n"
        "Subtotal:  79.17\nTIP\nTOTAL\nSIGNATURE\nTHIS IS THE MERCHANT COPY",
        "Cafe\nDate: Aug06'15 11:01AM\nCheck: 9391\nServer: 5 Karina\nSubtotal:  79.17\nTip_\nTotal\nSignature\n"
        "I agree to pay above total",
    ],
)
def test_a_card_slip_with_blank_tip_and_total_lines_is_due_what_it_prints(text):
    ex = _read(text)
    assert ex.fields.total == 79.17
    assert any("tip line left blank" in d for d in ex.doubts)
    assert _no_proof(ex)


@pytest.mark.parametrize(
    ("text", "total"),
    [
        # the tip and total written in and read: the printed total stays what it was
        ("Grill\nSubtotal:  79.17\nTip:  10.00\nTotal:  89.17", 89.17),
        # no tip line: a bare "Total" under the subtotal is not given the subtotal's amount by this rule
        ("Grill\nSteak  79.17\nSubtotal:  79.17\nTotal\nThank you", None),
    ],
)
def test_a_filled_in_tip_or_a_bare_total_without_a_tip_line_is_left_alone(text, total):
    ex = _read(text)
    if total is None:
        assert not any("tip line left blank" in d for d in ex.doubts)
    else:
        assert ex.fields.total == total


def test_a_date_whose_second_separator_ocr_lost_is_read_with_its_time():
    ex = _read(
        "KOBE STEAK\nRANCHO MIRAGE, CA 92270\nVISA\nAmount:$  158.07\nTip:\nTotal:\n02/2219  20:31:12\nInv #: 00000061"
    )
    assert ex.fields.date == "2019-02-22"
    assert not ex.date_unambiguous  # never the base of a proof


def test_a_month_and_year_before_a_time_is_not_a_lost_separator_date():
    ex = _read("Shop\nTea  4.50\nTotal  4.50\nCard exp 05/2025 10:00")
    assert ex.fields.date is None


@pytest.mark.parametrize(
    ("address", "currency"),
    [
        ("marcopierrewhite.ie/Dawson", "EUR"),
        ("www.cafe-mitte.de", "EUR"),
        ("bookings@thebistro.co.uk", "GBP"),
        ("www.thebistro.com", "USD"),
        ("St.Ca 9", "USD"),
    ],
)
def test_a_web_address_under_a_country_domain_points_at_the_country(address, currency):
    ex = _read(f"Steakhouse & Grill\nDawson Street\n{address}\n1 Fillet  35.95\n1 Cake  8.95\nBalance Due  44.90")
    assert ex.fields.currency == currency
