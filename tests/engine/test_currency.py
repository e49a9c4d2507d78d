"""Currency and country from what a receipt prints (the OCR reads no €/£, and `$` is shared)."""

from __future__ import annotations

import pytest

from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.extract.currency import CURRENCIES, read_currency


def _read(text: str):
    ex = extract_fields(rows_from_text(text))
    return ex, read_currency(ex.text, ex.language)


def test_ringgit_from_rm():
    ex, r = _read("Kedai Runcit Ah Seng\nDate 06/12/2016\nTeh Tarik    2.50\nTOTAL    RM 2.50")
    assert ex.fields.currency == "MYR" and r.basis == "printed" and r.countries == ("MY",)
    assert ex.fields.total == 2.50


MALAYSIAN_DOLLAR = (
    "KEDAI MAKAN SRI MELATI SDN BHD\n(123456-K)\nNO 5, JALAN SS2/10\n47300 PETALING JAYA, SELANGOR\n"
    "GST ID: 000123456789\nDate 12/03/2017\nNasi Lemak    $5.00\nSUBTOTAL    $5.00\n"
    "GST @6%    $0.30\nTOTAL    $5.30"
)


def test_dollar_sign_on_a_malaysian_receipt_is_ringgit():
    ex, r = _read(MALAYSIAN_DOLLAR)
    assert ex.fields.currency == "MYR" and r.basis == "country" and r.countries == ("MY",)
    assert (ex.fields.total, ex.fields.tax_total) == (5.30, 0.30)


@pytest.mark.parametrize(
    "cue",
    [
        "KEDAI MAKAN SRI MELATI SDN BHD",  # the company form alone
        "Kedai Makan\nLot 12, Jalan Sultan\n81100 Johor Bahru, Johor",  # the address alone
        "Kedai Makan\nGST ID: 000123456789",  # the GST registration number alone
    ],
)
def test_each_malaysian_cue_turns_dollar_into_ringgit(cue):
    ex, _ = _read(f"{cue}\nNasi Lemak    $5.00\nTOTAL    $5.00")
    assert ex.fields.currency == "MYR"


def test_euro_from_german_words_without_the_euro_glyph():
    text = (
        "Bäckerei Schmidt\nHauptstraße 5\n10115 Berlin\nDatum 03.04.2024\nLaugenbrezel    0,95\n"
        "Kaffee    3,20\nSUMME    4,15\nenth. MwSt. 7%    0,27\nBar    5,00\nRückgeld    0,85"
    )
    ex, r = _read(text)
    assert ex.fields.currency == "EUR" and r.basis == "country" and r.countries[0] == "DE"
    # German labels alone still say euro, but say nothing about the country
    ex, r = _read("Bäckerei\nLaugenbrezel    0,95\nSUMME    0,95\nBar    1,00\nRückgeld    0,05")
    assert ex.fields.currency == "EUR" and r.basis == "language" and r.countries == ()


def test_pound_from_a_uk_postcode():
    ex, r = _read("The Corner Cafe\n12 High Street\nLeeds LS1 4AB\nTea    2.50\nTOTAL    2.50")
    assert ex.fields.currency == "GBP" and r.countries == ("GB",)


def test_us_dollar_from_a_state_and_zip():
    ex, r = _read("Joe's Diner\n500 Elm St\nSpringfield, IL 62701\nBurger    8.50\nTOTAL    8.50")
    assert ex.fields.currency == "USD" and r.basis == "country" and r.countries == ("US",)


def test_plain_english_amounts_are_a_guess_that_names_no_country():
    ex, r = _read("Corner Shop\nMilk    1.20\nTOTAL    1.20")
    assert ex.fields.currency == "USD" and r.basis == "default" and r.countries == ()
    ex, r = _read("Corner Shop\nMilk    $1.20\nTOTAL    $1.20")
    assert ex.fields.currency == "USD" and r.basis == "shared_symbol" and r.countries == ()


def test_singapore_dollar_from_gst_reg_no_and_singapore():
    text = (
        "Kopi Corner Pte Ltd\n10 Bayfront Ave\nSingapore 018956\nGST Reg No: M2-0012345-6\n"
        "Kopi    $1.80\nTOTAL    $1.80"
    )
    ex, r = _read(text)
    assert ex.fields.currency == "SGD" and r.countries == ("SG",)
    ex, _ = _read("Kopi Corner\nSingapore\nGST Reg No: 201912345K\nKopi    $1.80\nTOTAL    $1.80")
    assert ex.fields.currency == "SGD"


def test_canadian_dollar_from_hst():
    ex, r = _read("Maple Coffee\nCoffee    2.00\nSUBTOTAL    2.00\nHST    0.26\nTOTAL    $2.26")
    assert ex.fields.currency == "CAD" and r.countries == ("CA",)


def test_a_printed_code_beats_country_cues_and_then_no_country_is_vouched_for():
    # a Malaysian company billing in US dollars: the code decides the currency, and since the
    # country the cues name does not use it, no country's tax rates may be applied
    ex, r = _read("GLOBAL TRADING SDN BHD\n47300 PETALING JAYA, SELANGOR\nService    USD 100.00\nTOTAL    USD 100.00")
    assert ex.fields.currency == "USD" and r.basis == "printed" and r.countries == ()


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("MYR", "Kedai\nTOTAL    12.00\nRinggit Malaysia dua belas"),
        ("SGD", "Hawker\nTOTAL    S$4.50"),
        ("USD", "Diner\nTOTAL    US$ 12.00"),
        ("CAD", "Depanneur\nSUBTOTAL    10.00\nTPS    0.50\nTVQ    1.00\nTOTAL    11.50"),
        ("AUD", "Cafe\nABN 51 824 753 556\nFlat White    4.50\nTOTAL    $4.50"),
        ("NZD", "Cafe\nFlat White    $5.00\nTOTAL    $5.00\nGST 15% incl.    $0.65"),
        ("GBP", "Pub\nVAT Reg No GB 123 4567 89\nAle    4.50\nTOTAL    4.50"),
        ("EUR", "Cafe\nEspresso    2.50\nTOTAL EUR    2.50"),
        ("CHF", "Cafe\nEspresso    4.50\nTOTAL CHF    4.50\nMWST 8.1%    0.34"),
        ("JPY", "カフェ\n合計    ¥1,230\n消費税    ¥111"),
        ("CNY", "超市\n合计    ￥12.50\n增值税发票"),
        ("HKD", "Cha Chaan Teng\nMilk Tea    HK$28.00\nTOTAL    HK$28.00"),
        ("INR", "Cafe\nGSTIN 27AAPFU0939F1ZV\nCoffee    120.00\nCGST 2.5%    3.00\nSGST 2.5%    3.00\nTOTAL    126.00"),
        ("IDR", "Warung\nNasi Goreng    Rp 25.000\nTOTAL    Rp 25.000"),
        ("THB", "Cafe\nLatte    80.00\nTOTAL    80.00 Baht"),
        ("PHP", "Carinderia\nVATable Sales    100.00\nVAT 12%    12.00\nTOTAL    112.00"),
        ("VND", "Quan Com\nCom tam    45.000đ\nTOTAL    45.000đ"),
        ("KRW", "식당\n합계    ₩12,000"),
        ("TWD", "Tea Shop\nBubble Tea    NT$60\nTOTAL    NT$60"),
        ("SEK", "Kafe\nKaffe    35,00 kr\nTOTAL    35,00 kr\nMoms 12%    3,75"),
        ("NOK", "Kafe\nKaffe    40,00 kr\nSUM    40,00 kr\nMVA 15%    5,22"),
        ("DKK", "Cafe\nCVR 12345678\nKaffe    30,00 kr\nTOTAL    30,00 kr"),
        ("PLN", "Sklep\nChleb    4,50 zł\nRAZEM    4,50 zł"),
        ("CZK", "Kavarna\nKava    55,00 Kč\nCELKEM    55,00 Kč"),
        ("HUF", "Bolt\nKenyer    450 Ft\nOSSZESEN    450 Ft"),
        ("MXN", "Taqueria\nRFC TAQ010101AB1\nTacos    $80.00\nTOTAL    $80.00"),
        ("BRL", "Padaria\nPao    R$ 5,00\nTOTAL    R$ 5,00"),
        ("ZAR", "Braai Shop (Pty) Ltd\nBoerewors    85.00\nTOTAL    85.00\nVAT 15% incl.    11.09"),
        ("AED", "Cafe\nTRN 100234567800003\nLatte    AED 18.00\nTOTAL    AED 18.00"),
        ("TRY", "Kafe\nCay    15,00 TL\nTOPLAM    15,00 TL\nKDV    1,36"),
    ],
)
def test_every_covered_currency_is_read_from_a_small_receipt(code, text):
    ex, _ = _read(text)
    assert code in CURRENCIES
    assert ex.fields.currency == code, (code, text)


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("GBP", "Tea Room\nScone    f3.20\nTOTAL    f12.50"),  # "£12.50" as the recogniser reads it
        ("PHP", "Carinderia\nAdobo    P120.00\nTOTAL    P120.00"),  # "₱120.00"
        ("VND", "Quan Com\nCom tam    45.000 d\nTOTAL    45.000 d"),  # "45.000 ₫"
    ],
)
def test_signs_the_recogniser_lacks_are_read_as_it_prints_them(code, text):
    ex, _ = _read(text)
    assert ex.fields.currency == code


def test_place_names_in_dishes_and_shop_names_are_not_addresses():
    text = (
        "China Wok\nSingapore Noodles    8.50\nCanada Dry    1.50\nTurkey Club    7.00\nSUBTOTAL    17.00\n"
        "TAX    1.40\nTOTAL    $18.40"
    )
    ex, r = _read(text)
    assert ex.fields.currency == "USD" and r.countries == ()
    # the same names on an address line do count
    ex, r = _read("Kopi Corner\n1 Raffles Place\nSingapore 048616\nKopi    $1.80\nTOTAL    $1.80")
    assert ex.fields.currency == "SGD" and r.countries == ("SG",)


def test_guests_count_is_not_gst():
    # Micros bills print "Gst 2" for the party size: no GST country may follow from it
    ex, r = _read(
        "Steak House\nTbl 12/1  Chk 4488  Gst 2\nRibeye    42.00\nSUBTOTAL    42.00\nTAX    3.36\nTOTAL    $45.36"
    )
    assert ex.fields.currency == "USD" and "AU" not in r.scores and "SG" not in r.scores
