"""Plausibility reasons: odd but not proof, each pointing at its field."""

from __future__ import annotations

import datetime as dt

from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.plausibility import plausibility_signals

TODAY = dt.date(2025, 6, 1)


def _signals(text: str, **kw):
    return plausibility_signals(extract_fields(rows_from_text(text)), today=TODAY, **kw)


def test_usual_receipt_raises_nothing():
    text = "Greenleaf Foods\nDate 02/05/2025\nTea    2.50\nSUBTOTAL    2.50\nVAT 20%    0.50\nTOTAL    £3.00"
    assert _signals(text) == []


def test_a_tax_rate_no_one_charges():
    sigs = _signals("Greenleaf Foods\nDate 02/05/2025\nTea    2.50\nSUBTOTAL    2.50\nVAT 13%    0.33\nTOTAL    £2.83")
    assert [s.name for s in sigs] == ["plausibility.tax_rate_printed"]
    s = sigs[0]
    assert s.kind == "plausibility" and s.proof_type is None and s.fields == ("tax_total",)
    assert "13%" in s.text and "GB" in s.text


def test_tax_not_matching_its_printed_rate():
    sigs = _signals("Greenleaf Foods\nDate 02/05/2025\nTea    10.00\nSUBTOTAL    10.00\nVAT 20%    3.00\nTOTAL    £13.00")
    assert [s.name for s in sigs] == ["plausibility.tax_rate_mismatch"]
    assert "30.00%" in sigs[0].text


def test_us_sales_tax_uses_a_range():
    ok = "Deli\nDate 05/02/2025\nTea    10.00\nSUBTOTAL    10.00\nSales Tax 7.25%    0.73\nTOTAL    $10.73"
    assert _signals(ok) == []
    high = "Deli\nDate 05/02/2025\nTea    10.00\nSUBTOTAL    10.00\nSales Tax 19%    1.90\nTOTAL    $11.90"
    assert [s.name for s in _signals(high)] == ["plausibility.tax_rate_printed"]


def test_future_date_and_old_receipt():
    future = _signals("Deli\nDate: 2025-09-01\nTOTAL    $3.00")
    assert [(s.name, s.fields) for s in future] == [("plausibility.date_future", ("date",))]
    old = _signals("Deli\nDate: 2023-01-01\nTOTAL    $3.00")
    assert [s.name for s in old] == ["plausibility.receipt_age"]
    assert "882 days" in old[0].text
    assert _signals("Deli\nDate: 2023-01-01\nTOTAL    $3.00", max_age_days=2000) == []


def test_a_template_placeholder_address_is_plausibility_on_the_merchant():
    for street in ("123 Main Street", "1 Example Road", "MusterstraBe 1", "10 Rue Exemple"):
        text = f"Greenleaf Foods\n{street}\nLeeds LS1 4AB\nDate 02/05/2025\nTea    2.50\nTOTAL    £2.50"
        sigs = _signals(text)
        assert [s.name for s in sigs] == ["plausibility.placeholder_address"], street
        assert sigs[0].kind == "plausibility" and sigs[0].proof_type is None and sigs[0].fields == ("merchant",)
        assert street.lower() in sigs[0].text.lower()


def test_real_street_names_are_not_placeholders():
    for street in ("12 Main St", "1123 Main Street", "Hauptstraße 5", "Bahnhofstrasse 3", "rue de la Paix 4",
                   "8 Station Road"):
        text = f"Greenleaf Foods\n{street}\nLeeds LS1 4AB\nDate 02/05/2025\nTea    2.50\nTOTAL    £2.50"
        assert _signals(text) == [], street


def test_time_rules_need_a_submission_time_never_the_wall_clock():
    # a 2016 receipt: old against any recent clock, but with no submission time nothing is measured
    ex = extract_fields(rows_from_text("Kedai Runcit\nDate 06/12/2016\nTea    2.50\nTOTAL    RM2.50"))
    assert plausibility_signals(ex, today=None) == []
    # submitted a week after the purchase: neither old nor in the future
    assert plausibility_signals(ex, today=dt.date(2016, 12, 13)) == []
    assert [s.name for s in plausibility_signals(ex, today=dt.date(2018, 12, 13))] == ["plausibility.receipt_age"]
