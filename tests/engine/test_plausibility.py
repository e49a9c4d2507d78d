"""Plausibility reasons: odd but not proof, each pointing at its field."""

from __future__ import annotations

import datetime as dt

import msgspec

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
    sigs = _signals(
        "Greenleaf Foods\nDate 02/05/2025\nTea    10.00\nSUBTOTAL    10.00\nVAT 20%    3.00\nTOTAL    £13.00"
    )
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
    for street in (
        "12 Main St",
        "1123 Main Street",
        "Hauptstraße 5",
        "Bahnhofstrasse 3",
        "rue de la Paix 4",
        "8 Station Road",
    ):
        text = f"Greenleaf Foods\n{street}\nLeeds LS1 4AB\nDate 02/05/2025\nTea    2.50\nTOTAL    £2.50"
        assert _signals(text) == [], street


def test_time_rules_need_a_submission_time_never_the_wall_clock():
    # a 2016 receipt: old against any recent clock, but with no submission time nothing is measured
    ex = extract_fields(rows_from_text("Kedai Runcit\nDate 06/12/2016\nTea    2.50\nTOTAL    RM2.50"))
    assert plausibility_signals(ex, today=None) == []
    # submitted a week after the purchase: neither old nor in the future
    assert plausibility_signals(ex, today=dt.date(2016, 12, 13)) == []
    assert [s.name for s in plausibility_signals(ex, today=dt.date(2018, 12, 13))] == ["plausibility.receipt_age"]


# --- tax rates per country (rabench/data/tax-rates.json) -----------------------------------------

MALAYSIAN_GST = (
    "KEDAI MAKAN SRI MELATI SDN BHD\n(123456-K)\nNO 5, JALAN SS2/10\n47300 PETALING JAYA, SELANGOR\n"
    "GST ID: 000123456789\nDate 12/03/2017\nNasi Lemak    $10.00\nSUBTOTAL    $10.00\n"
    "GST @6%    $0.60\nTOTAL    $10.60"
)


def _tax(text: str):
    return [s for s in _signals(text) if s.name.startswith("plausibility.tax")]


def test_a_malaysian_6_percent_gst_receipt_raises_no_tax_plausibility():
    ex = extract_fields(rows_from_text(MALAYSIAN_GST))
    assert (ex.fields.currency, ex.fields.tax_total, ex.tax_rates) == ("MYR", 0.60, [6.0])
    assert plausibility_signals(ex, today=dt.date(2017, 3, 20)) == []


def test_malaysian_gst_is_judged_against_malaysia_and_its_dates():
    # 6 % was Malaysia's GST until May 2018; a 9 % "GST" is no Malaysian rate at any time
    nine = MALAYSIAN_GST.replace("GST @6%    $0.60\nTOTAL    $10.60", "GST @9%    $0.90\nTOTAL    $10.90")
    sigs = _tax(nine)
    assert [s.name for s in sigs] == ["plausibility.tax_rate_printed"]
    assert "Malaysia (MY)" in sigs[0].text and "MYR" in sigs[0].text and "AU" not in sigs[0].text


def test_rates_follow_the_date_of_the_receipt():
    sg = "Kopi Corner Pte Ltd\nSingapore 018956\nDate {}\nKopi    $10.00\nSUBTOTAL    $10.00\nGST 7%    $0.70\nTOTAL    $10.70"
    assert _tax(sg.format("2022-06-01")) == []  # 7 % until the end of 2022
    late = _tax(sg.format("2025-03-01"))  # 9 % since 2024
    assert [s.name for s in late] == ["plausibility.tax_rate_printed"] and "Singapore (SG)" in late[0].text
    de = "Bäckerei Schmidt\n10115 Berlin\nDatum {}\nBrot    10,00\nNetto    10,00\nMwSt 16%    1,60\nSUMME EUR    11,60"
    assert _tax(de.format("15.10.2020")) == []  # the second half of 2020: 16 % / 5 %
    assert [s.name for s in _tax(de.format("15.03.2025"))] == ["plausibility.tax_rate_printed"]


def test_no_country_no_rate_judgement():
    # English amounts and nothing that says where: 13 % is a rate somewhere (Ontario's HST),
    # so without a country the printed rate is not judged at all
    text = "Corner Shop\nDate 05/02/2025\nMilk    10.00\nSUBTOTAL    10.00\nTax 13%    1.30\nTOTAL    11.30"
    ex = extract_fields(rows_from_text(text))
    assert ex.tax_rates == [13.0]
    assert _signals(text) == []


def test_a_tax_below_its_printed_rate_is_not_odd():
    # US sales tax on the taxable items only: the tax is below 8.25 % of the whole subtotal
    text = (
        "Deli\nAustin, TX 78701\nDate 05/02/2025\nBread    4.00\nSoap    6.00\nSUBTOTAL    10.00\n"
        "Sales Tax 8.25%    0.50\nTOTAL    10.50"
    )
    assert _signals(text) == []


def test_tax_equal_to_the_subtotal_on_a_tax_inclusive_receipt_does_not_crash():
    # issue 14 item 6: a misreading where the tax equals the subtotal made a ZeroDivisionError
    for tax_row in ("incl. VAT    5.00", "VAT 20% incl.    5.00"):
        text = (
            f"The Corner Cafe\nLeeds LS1 4AB\nDate 02/05/2025\nTea    5.00\nSUBTOTAL    5.00\nTOTAL    5.00\n{tax_row}"
        )
        ex = extract_fields(rows_from_text(text))
        # since round 8 the reader no longer sums a "tax" as large as the total (a doubt instead) ...
        assert ex.fields.tax_total is None and any("larger than any tax" in d for d in ex.doubts)
        assert [s.name for s in plausibility_signals(ex, today=TODAY)] == []
        # ... so the misreading is built by hand: the rule must still not divide by zero on it
        ex = msgspec.structs.replace(ex, tax_inclusive=True, fields=msgspec.structs.replace(ex.fields, tax_total=5.0))
        assert ex.fields.tax_total == ex.fields.subtotal == 5.0
        assert [s.name for s in plausibility_signals(ex, today=TODAY)] == []  # a misreading, not a rate


def test_the_shipped_tax_table_loads_with_sources_for_every_country():
    from rabench.engine import taxrates

    table = taxrates.load()
    assert {"MY", "SG", "AU", "NZ", "CA", "US", "GB", "DE", "FR", "JP", "IN"} <= set(table.countries)
    assert all(c.sources for c in table.countries.values())
    sg = taxrates.rule(["SG"], [dt.date(2025, 3, 1)], table)
    assert sg is not None and sg.allows(9) and sg.allows(0) and not sg.allows(7)
    assert taxrates.rule(["SG"], None, table).allows(7)  # no date: any period
    assert taxrates.rule(["HK"], None, table) is None  # no VAT: nothing is judged
    assert taxrates.rule([], None, table) is None


def _write_table(tmp_path, country: dict) -> object:
    import json

    p = tmp_path / "tax-rates.json"
    p.write_text(json.dumps({"about": "test", "version": 1, "countries": {"MY": country}}), "utf-8")
    return p


GOOD = {
    "name": "Malaysia",
    "currency": "MYR",
    "tax": "GST",
    "sources": ["a law"],
    "periods": [
        {"from": None, "until": "2018-05-31", "standard": [6]},
        {"from": "2018-06-01", "until": None, "standard": [0]},
    ],
}


def test_a_broken_tax_table_fails_loudly(tmp_path):
    import pytest

    from rabench.engine import taxrates

    assert set(taxrates.load(_write_table(tmp_path, GOOD)).countries) == {"MY"}
    broken = [
        ({**GOOD, "rates": [6]}, "unknown field"),  # a misspelt key
        ({**GOOD, "currency": "XXX"}, "currency XXX"),
        ({**GOOD, "sources": []}, "no sources"),
        ({**GOOD, "periods": [GOOD["periods"][0], {**GOOD["periods"][1], "from": "2018-05-01"}]}, "starts before"),
        ({**GOOD, "periods": [{**GOOD["periods"][0], "until": "31.05.2018"}]}, "until"),
        ({**GOOD, "periods": [{**GOOD["periods"][0], "standard": [60]}]}, "outside 0-50"),
    ]
    for country, message in broken:
        with pytest.raises(taxrates.TaxTableError, match=message):
            taxrates.load(_write_table(tmp_path, country))


def test_a_tax_far_above_any_rate_is_a_misreading_not_a_reason():
    # a net total misread as the tax (94 % of the subtotal) says nothing about the receipt;
    # a tax somewhat above the country's rates does
    base = (
        "KEDAI MAKAN SRI MELATI SDN BHD\n47300 PETALING JAYA, SELANGOR\nDate 12/03/2017\n"
        "Nasi Lemak    $130.00\nSUBTOTAL    $130.00\nGST    {}\nTOTAL    $150.00"
    )
    assert _tax(base.format("$122.64")) == []
    sigs = _tax(base.format("$13.00"))  # 10 %: no Malaysian GST rate
    assert [s.name for s in sigs] == ["plausibility.tax_rate"] and "Malaysia (MY)" in sigs[0].text
