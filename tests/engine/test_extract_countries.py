"""Receipts of countries the real dev data does not hold (issue 14: the engine is judged on real receipts
from several countries; the dev scans are Malaysian and the photos American). Each conventions' rule on a
small receipt the test writes (fast), then a receipt per country rendered with DejaVu and read by the
``self`` target through real OCR: total, date, currency and tax right, no proof, no plausibility reason
(a genuine receipt judged by its own country's rates), risk under 0.5."""

from __future__ import annotations

import asyncio

import pytest

from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.extract.amounts import find_amounts
from rabench.engine.extract.dates import parse_dates, pick_date
from rabench.engine.plausibility import tax_rate_signals
from rabench.targets.base import CheckRequest


def _read(text: str):
    return extract_fields(rows_from_text(text))


def test_india_groups_lakhs_and_crores_by_two():
    assert [a.value for a in find_amounts("Total Rs. 1,23,500.00")] == [123500.00]
    assert [a.value for a in find_amounts("1,00,00,000.00")] == [10000000.00]
    assert find_amounts("Tel 12,34,567") == []  # no decimals: not money
    ex = _read(
        "CROMA\nGSTIN 27AACCI1234M1Z2\nLAPTOP  1,04,661.02\nTaxable Value  1,04,661.02\n"
        "CGST 9%  9,419.49\nSGST 9%  9,419.49\nTotal Rs.  1,23,500.00"
    )
    assert (ex.fields.total, ex.fields.subtotal, ex.fields.currency) == (123500.00, 104661.02, "INR")


def test_a_split_tax_adds_its_rates_and_still_sees_a_tax_too_large():
    # CGST 2.5 % + SGST 2.5 % is 5 % of the base: no "more than the 2.5 % printed" reason ...
    ok = _read(
        "SPICE GARDEN PVT LTD\nGSTIN: 29AABCS1234F1Z5\nDate: 14/03/2023\nPaneer  690.00\n"
        "Sub Total  690.00\nCGST @2.5%  17.25\nSGST @2.5%  17.25\nGrand Total  724.50"
    )
    assert ok.fields.tax_total == 34.50 and not tax_rate_signals(ok)
    # ... but halves that come to 10 % are still more than the 5 % printed
    bad = _read(
        "SPICE GARDEN PVT LTD\nGSTIN: 29AABCS1234F1Z5\nDate: 14/03/2023\nPaneer  690.00\n"
        "Sub Total  690.00\nCGST @2.5%  34.50\nSGST @2.5%  34.50\nGrand Total  759.00"
    )
    assert [s.name for s in tax_rate_signals(bad)] == ["plausibility.tax_rate_mismatch"]


def test_a_tax_table_printing_the_tax_before_the_net_gives_the_tax():
    # Lidl prints "MWST + Netto = Brutto": the tax is the smaller column, not the net
    ex = _read(
        "LIDL\nMilch  1,19 A\nKaffee  5,99 A\nzu zahlen  7,18\nKarte  7,18\n"
        "MWST%  MWST  + Netto  = Brutto\nA 7%  0,47  6,71  7,18\nSumme  0,47  6,71  7,18"
    )
    assert (ex.fields.total, ex.fields.tax_total) == (7.18, 0.47)


def test_tax_rows_and_tables_in_other_languages():
    # France: the tax amount run into "TVA" on a row that also prints the net
    fr = _read(
        "CARREFOUR\nPAIN  1,15\nVIN  6,50\nTOTAL TTC  7,65\nCB  7,65\n"
        "TVA 5,50% HT 1,09 TVA0,06\nTVA 20,00% HT 5,42 TVA1,08"
    )
    assert (fr.fields.total, fr.fields.tax_total) == (7.65, 1.14)
    # Spain: "IVA BASE IMPONIBLE CUOTA" is a tax table; its TOTAL row is not the receipt's total
    es = _read(
        "MERCADONA\nLECHE  0,89\nCERVEZA  3,20\nTOTAL (€)  4,09\nTARJETA  4,09\n"
        "IVA  BASE IMPONIBLE (€)  CUOTA (€)\n4%  0,86  0,03\n21%  2,64  0,56\nTOTAL  3,50  0,59"
    )
    assert (es.fields.total, es.fields.tax_total) == (4.09, 0.59)
    # Poland: "SUMA PTU" is the tax total (not added to its parts), the groups' taxable sales are neither
    # items nor doubts
    pl = _read(
        "PARAGON FISKALNY\nChleb  3,49 C\nPiwo  4,29 A\nSPRZEDAZ OPODATKOWANA A  4,29\nPTU A 23,00%  0,80\n"
        "SPRZEDAZ OPODATKOWANA C  3,49\nPTU C 5,00%  0,17\nSUMA PTU  0,97\nSUMA PLN  7,78\nGotowka  10,00"
    )
    assert (pl.fields.total, pl.fields.tax_total, pl.fields.currency) == (7.78, 0.97, "PLN")
    assert [i.total for i in pl.line_items] == [3.49, 4.29] and not pl.doubts
    # Australia: "Total includes GST" under the total is the tax inside it
    au = _read(
        "WOOLWORTHS\nABN 88 000 014 675\nChocolate  4.50\nBread  4.00\nTOTAL  $8.50\nEFTPOS  $8.50\n"
        "Total includes GST  $0.41"
    )
    assert (au.fields.total, au.fields.tax_total, au.tax_inclusive) == (8.50, 0.41, True)
    # ... but a tax group's gross amount over its own tax row is not the tax (a Malaysian tax invoice)
    my = _read(
        "GARDENIA SDN BHD\nWHITE  10.65\nTotal 0% supplies:  10.65\nCHOCLT  12.96\n"
        "Total 6% supplies (excl. GST):  12.96\nGST:  0.78\nTotal 6% supplies (Inc. GST):  13.74\n"
        "TotalPayable:  24.39"
    )
    assert (my.fields.total, my.fields.tax_total) == (24.39, 0.78)


def test_a_vat_number_on_a_tax_row_is_not_an_amount():
    ex = _read("TESCO\nVAT NO: GB 220 4302 31\nMILK  1.45\nBREAD  1.10\nBALANCE DUE  2.55\nVISA  2.55")
    assert ex.fields.total == 2.55 and ex.fields.tax_total is None and not ex.doubts


@pytest.mark.parametrize(
    ("text", "total", "rounding"),
    [
        (
            "POTRAVINY\nChleb  32,90\nPivo  19,90\nMezisoucet  52,80\nZaokrouhleni  0,20\nCelkem k uhrade  53,00\n"
            "Hotove  100,00\nVraceno  47,00",
            53.00,
            0.20,
        ),
        (
            "BAGEREN\nCVR 12345678\nKaffe  45,25\nSubtotal  45,25\nAfrunding  0,25\nI alt  45,50\nKontant  50,00\n"
            "Byttepenge  4,50",
            45.50,
            0.25,
        ),
        (
            "BAECKEREI\nGipfeli  1.80\nKaffee  4.52\nZwischensumme  6.32\nRundungsdifferenz  -0.02\nTotal CHF  6.30\n"
            "Bar  10.00",
            6.30,
            -0.02,
        ),
    ],
)
def test_cash_rounding_in_other_languages_is_a_rounding_line(text, total, rounding):
    ex = _read(text)
    assert (ex.fields.total, ex.rounding) == (total, [rounding])
    assert not ex.doubts


def test_finnish_alv_is_a_tax():
    ex = _read(
        "K-MARKET\nY-tunnus 0109862-8\nMaito  1,19\nKahvi  5,99\nYHTEENSA  7,18\nPankkikortti  7,18\nALV 14%  0,88"
    )
    assert (ex.fields.total, ex.fields.tax_total, ex.fields.currency) == (7.18, 0.88, "EUR")


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("NARVESEN\nKvittering\nAvis  kr 35,00\nTotalt  kr 35,00\nBankkort  kr 35,00\nHerav mva 15%  4,57", "NOK"),
        ("KIOSKEN\nKvittering\nAvis  25,00 kr\nI alt  25,00 kr\nDankort  25,00 kr\nHeraf moms  5,00", "DKK"),
        ("PRESSBYRAN\nKassakvitto\nTidning  45,00 kr\nTotalt  45,00 kr\nKort  45,00", "SEK"),
        ("KIOSK\nPARAGON FISKALNY\nGazeta  4,50\nSUMA  4,50\nGotowka  10,00\nReszta  5,50", "PLN"),
        ("JOLLIBEE\nChickenjoy  P99.00\nSpaghetti  P60.00\nTOTAL  P159.00\nCASH  P200.00", "PHP"),
    ],
)
def test_labels_of_a_country_without_its_address_name_its_currency(text, currency):
    ex = _read(text)
    assert ex.fields.currency == currency
    assert ex.fields.total == round(sum(i.total for i in ex.line_items), 2)  # "P99.00" is an item's price


@pytest.fixture(scope="module")
def target(self_target):
    return self_target


# (name, title, rows, total, tax, date, currency); each adds up and carries its country's real rates
RECEIPTS = [
    (
        "de",
        "REWE Markt GmbH",
        [
            ("Hauptstr. 12", ""),
            ("10115 Berlin", ""),
            ("UID Nr.: DE812706034", ""),
            ("", "EUR"),
            ("BIO JOGHURT", "0,35 B"),
            ("BIO JOGHURT", "0,35 B"),
            ("BROT", "2,49 B"),
            ("BIER 0,5L", "0,89 A"),
            ("PFAND 0,25", "0,25 A"),
            ("-" * 38, ""),
            ("SUMME", "EUR 4,33"),
            ("Geg. Bar", "EUR 10,00"),
            ("Rückgeld", "EUR 5,67"),
            ("", ""),
            ("Steuer %   Netto  Steuer  Brutto", ""),
            ("A= 19,0%   0,96   0,18    1,14", ""),
            ("B=  7,0%   2,98   0,21    3,19", ""),
            ("Gesamtbetrag 3,94  0,39   4,33", ""),
            ("", ""),
            ("25.04.2020 09:38  Bon-Nr.:1234", ""),
        ],
        4.33,
        0.39,
        "2020-04-25",
        "EUR",
    ),
    (
        "fr",
        "CARREFOUR MARKET",
        [
            ("12 RUE DE LA PAIX", ""),
            ("75002 PARIS", ""),
            ("SIRET 123 456 789 00012", ""),
            ("LAIT DEMI ECREME", "1,15 €"),
            ("BAGUETTE", "0,95 €"),
            ("FROMAGE", "4,80 €"),
            ("VIN ROUGE", "6,50 €"),
            ("", ""),
            ("TOTAL TTC", "13,40 €"),
            ("CB", "13,40 €"),
            ("", ""),
            ("TVA  5,50%  HT 6,54  TVA 0,36", ""),
            ("TVA 20,00%  HT 5,42  TVA 1,08", ""),
            ("le 14/03/2023 a 18:42", ""),
        ],
        13.40,
        1.44,
        "2023-03-14",
        "EUR",
    ),
    (
        "gb",
        "TESCO",
        [
            ("Tesco Stores Ltd", ""),
            ("London SW1A 1AA", ""),
            ("VAT NO: GB 220 4302 31", ""),
            ("MILK", "£1.45"),
            ("BREAD", "£1.10"),
            ("WINE", "£7.00"),
            ("", ""),
            ("BALANCE DUE", "£9.55"),
            ("VISA", "£9.55"),
            ("CHANGE DUE", "£0.00"),
            ("", ""),
            ("VAT RATE  NET  VAT", ""),
            ("A 20%   5.83   1.17", ""),
            ("Z 0%    2.55   0.00", ""),
            ("14/03/23 18:42  ST:2034", ""),
        ],
        9.55,
        1.17,
        "2023-03-14",
        "GBP",
    ),
    (
        "ch",
        "RESTAURANT LÖWEN",
        [
            ("Bahnhofstrasse 3, 3011 Bern", ""),
            ("Datum 02.06.2024 12:30", ""),
            ("Menu 1", "24.50"),
            ("Mineral", "4.80"),
            ("Kaffee", "4.62"),
            ("", ""),
            ("Zwischensumme", "33.92"),
            ("Rundung", "-0.02"),
            ("Total CHF", "33.90"),
            ("inkl. MWST 8.1%", "2.54"),
            ("Karte", "33.90"),
        ],
        33.90,
        2.54,
        "2024-06-02",
        "CHF",
    ),
    (
        "pl",
        "JERONIMO MARTINS POLSKA S.A.",
        [
            ("ul. Żniwna 5, 62-025 Kostrzyn", ""),
            ("NIP 779-10-11-327", ""),
            ("2023-03-14  nr wydr. 123", ""),
            ("PARAGON FISKALNY", ""),
            ("Chleb 1 x 3,49", "3,49 C"),
            ("Mleko 2 x 2,99", "5,98 C"),
            ("Piwo 1 x 4,29", "4,29 A"),
            ("", ""),
            ("SPRZEDAZ OPODATKOWANA A", "4,29"),
            ("PTU A 23,00%", "0,80"),
            ("SPRZEDAZ OPODATKOWANA C", "9,47"),
            ("PTU C 5,00%", "0,45"),
            ("SUMA PTU", "1,25"),
            ("SUMA PLN", "13,76"),
            ("Gotowka", "20,00"),
            ("Reszta", "6,24"),
        ],
        13.76,
        1.25,
        "2023-03-14",
        "PLN",
    ),
    (
        "in",
        "CROMA ELECTRONICS",
        [
            ("Andheri West, Mumbai 400053", ""),
            ("GSTIN 27AACCI1234M1Z2", ""),
            ("Date 05-08-2023", ""),
            ("LAPTOP", "1,04,661.02"),
            ("", ""),
            ("Taxable Value", "1,04,661.02"),
            ("CGST 9%", "9,419.49"),
            ("SGST 9%", "9,419.49"),
            ("Total Rs.", "1,23,500.00"),
            ("Card", "1,23,500.00"),
        ],
        123500.00,
        18838.98,
        "2023-08-05",
        "INR",
    ),
    (
        "ca",
        "METRO",
        [
            ("1000 rue Sherbrooke, Montréal QC H3A 3G4", ""),
            ("TPS 123456789RT0001", ""),
            ("TVQ 1234567890TQ0001", ""),
            ("14/03/2023 18:42", ""),
            ("Vin", "20,00"),
            ("Fromage", "10,00"),
            ("", ""),
            ("Sous-total", "30,00"),
            ("TPS 5%", "1,50"),
            ("TVQ 9,975%", "2,99"),
            ("Total", "34,49"),
            ("Débit", "34,49"),
        ],
        34.49,
        4.49,
        "2023-03-14",
        "CAD",
    ),
    (
        "au",
        "WOOLWORTHS",
        [
            ("Woolworths Group Limited", ""),
            ("ABN 88 000 014 675", ""),
            ("George St, Sydney NSW 2000", ""),
            ("Milk", "3.10"),
            ("Chocolate #", "4.50"),
            ("Bread", "4.00"),
            ("", ""),
            ("TOTAL", "$11.60"),
            ("EFTPOS", "$11.60"),
            ("Total includes GST", "$0.41"),
            ("14/03/2023 18:42", ""),
        ],
        11.60,
        0.41,
        "2023-03-14",
        "AUD",
    ),
    (
        "jp",
        "FamilyMart",
        [
            ("Shibuya 1-2-3, Tokyo", ""),
            ("2023/03/14 18:42", ""),
            ("Onigiri", "¥150"),
            ("Green Tea", "¥140"),
            ("Bento", "¥498"),
            ("", ""),
            ("Subtotal", "¥788"),
            ("(8% tax", "¥63)"),
            ("TOTAL", "¥851"),
            ("CASH", "¥1,000"),
            ("CHANGE", "¥149"),
        ],
        851,
        63,
        "2023-03-14",
        "JPY",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("receipt", RECEIPTS, ids=[r[0] for r in RECEIPTS])
def test_a_genuine_receipt_of_another_country_is_read_right_and_not_flagged(receipt, target, render, tmp_path):
    name, title, rows, total, tax, date, currency = receipt
    path = tmp_path / f"{name}.png"
    render(rows, title=title).save(path)
    submitted = f"{date}T20:00:00Z"
    req = CheckRequest(
        case_id=name,
        original=path,
        media_type="image/png",
        prepared=path,
        prepared_media_type="image/png",
        submitted_at=submitted,
    )
    v = asyncio.run(target.check(req))
    reasons = [f"{r.kind}: {r.text}" for r in v.reasons]
    assert (v.fields.total, v.fields.date, v.fields.currency) == (total, date, currency), reasons
    assert v.fields.tax_total == tax, reasons
    assert not [r for r in v.reasons if r.kind in ("proof", "plausibility")], reasons
    assert v.risk < 0.5, reasons


@pytest.mark.parametrize(
    ("printed", "language", "iso"),
    [
        ("14 avr. 2023", "fr", "2023-04-14"),
        ("14. Mär. 2023", "de", "2023-03-14"),
        ("14 mag 2023", "it", "2023-05-14"),
        ("14 de março de 2023", "pt", "2023-03-14"),
        ("14 augusti 2023", "sv", "2023-08-14"),
        ("14. marts 2023", "da", "2023-03-14"),
        ("14 marca 2023", "pl", "2023-03-14"),
        ("14. března 2023", "cs", "2023-03-14"),
        ("25.04.20 09:38", "de", "2020-04-25"),
        ("2023.03.14 18:42", None, "2023-03-14"),
    ],
)
def test_dates_as_other_countries_print_them(printed, language, iso):
    found = pick_date(parse_dates([printed], language=language))
    assert found is not None and found.iso == iso


def test_a_word_with_an_ocr_zero_is_not_the_receipt_number():
    # Italy's "DOCUMENTO COMMERCIALE" heads every receipt; OCR reads its O as a zero
    ex = _read("COOP\nDOCUMENT0 COMMERCIALE\nPASTA  1,29\nTOTALE COMPLESSIVO  1,29\nDOCUMENTO N. 0042-0087")
    assert ex.fields.receipt_number == "0042-0087"


def test_a_total_rounded_to_the_coin_without_a_rounding_row_is_no_proof():
    # Sweden pays cash in whole kronor; a till that does not print "Öresavrundning" is not a forgery
    se = totals_add_up(_read("ICA\nOrg.nr 556000-0000\nMjolk  14,95\nOst  76,00\nTotalt  91,00 kr\nKontant  100,00"))
    assert se.check.status == "not_run" and se.signal is not None and se.signal.kind == "opinion"
    # ... but a krona more than that, or the same five öre in dollars (no such rounding), still is
    assert (
        totals_add_up(_read("ICA\nOrg.nr 556000-0000\nMjolk  14,95\nOst  76,00\nTotalt  92,00 kr")).check.status
        == "failed"
    )
    assert (
        totals_add_up(_read("DELI\nNew York NY 10006\nSandwich  14.95\nSoup  76.00\nTotal  91.00")).check.status
        == "failed"
    )


@pytest.mark.parametrize(
    ("text", "total", "currency"),
    [
        (
            "MIGROS\nCHE-105.833.264 MWST\nBrot  3.20\nKaese  22.40\nTotal CHF  25.60\nTotal EUR  26.10\nKurs 1.0195\n"
            "Bar CHF  30.00",
            25.60,
            "CHF",
        ),
        ("KONZUM\nKruh  1,20 EUR\nMlijeko  0,99 EUR\nUKUPNO  2,19 EUR\nUKUPNO  16,50 HRK\nTecaj 7,53450", 2.19, "EUR"),
    ],
)
def test_a_total_printed_in_two_currencies_is_the_receipts_own(text, total, currency):
    ex = _read(text)
    assert (ex.fields.total, ex.fields.currency) == (total, currency)
    assert totals_add_up(ex).check.status == "passed"


def test_a_euro_receipt_without_a_country_is_judged_by_every_euro_country():
    # Croatia's 25 % is a euro-area rate since 2023: no "not charged" reason; 31 % is charged nowhere
    ok = _read("KONZUM\nKruh  1,20 EUR\nMlijeko  8,80 EUR\nUKUPNO  10,00 EUR\nPDV 25%  2,00\nDatum 14.03.2024")
    assert ok.fields.total == 10.00 and not tax_rate_signals(ok)
    bad = _read("KONZUM\nKruh  1,20 EUR\nUKUPNO  1,20 EUR\nPDV 31%  0,28\nDatum 14.03.2024")
    assert [s.name for s in tax_rate_signals(bad)] == ["plausibility.tax_rate_printed"]


def test_indias_net_amount_under_the_gst_and_round_off_is_the_total():
    # "Net Amount" above the tax is the net; under the GST and the "Round Off" it is what is due (it was
    # read as a subtotal of 725.00 against items of 690.00: a false arithmetic proof)
    ex = _read(
        "SPICE PVT LTD\nGSTIN 29AABCS1234F1Z5\nPaneer  690.00\nGross Amount  690.00\nCGST 2.5%  17.25\n"
        "SGST 2.5%  17.25\nRound Off  0.50\nNet Amount  725.00\nCash  725.00"
    )
    assert (ex.fields.total, ex.rounding) == (725.00, [0.50])
    assert totals_add_up(ex).check.status == "passed"
    above = _read("SHOP LTD\nTea  10.00\nNet Amount  10.00\nVAT 20%  2.00\nTotal  12.00")
    assert (above.fields.subtotal, above.fields.total) == (10.00, 12.00)


@pytest.mark.parametrize(
    ("text", "total", "discount"),
    [
        ("REWE\nBrot  7,50\nKaese  5,00\nSumme  12,50\nGutschein  -5,00\nzu zahlen  7,50\nBar  10,00", 7.50, 5.00),
        ("BIEDRONKA\nNIP 779-10-11-327\nChleb  7,50\nSer  5,00\nRabat  -1,00\nSUMA PLN  11,50", 11.50, 1.00),
        ("ALBERT\nDIC CZ44012373\nChleb  32,90\nPivo  20,00\nSleva  -2,90\nCELKEM  50,00 Kc", 50.00, 2.90),
        ("CONTINENTE\nNIF 502011475\nPao  7,50\nLeite  5,00\nDesconto  -1,00\nTOTAL  11,50", 11.50, 1.00),
    ],
)
def test_vouchers_and_discounts_in_other_languages(text, total, discount):
    ex = _read(text)
    assert (ex.fields.total, ex.discounts) == (total, [discount])
    assert totals_add_up(ex).check.status == "passed"
