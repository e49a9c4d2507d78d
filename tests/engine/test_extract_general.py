"""General receipt rules found reading real scans: digits OCR reads as letters inside amounts,
a totals label whose amount is printed on the next line, a second subtotal under the rounding
row, a date glued to its label's colon or run into a till's transaction code."""

from __future__ import annotations

import pytest

from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.extract.amounts import find_amounts
from rabench.engine.extract.dates import parse_dates, pick_date


def _read(text: str):
    return extract_fields(rows_from_text(text))


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("TOTAL  RM2.5O", 2.50),
        ("ITEM  l2.50", 12.50),
        ("TOTAL  1S.50", 15.50),
        ("TOTAL  1B.50", 18.50),
        ("Summe  I2,5O", 12.50),
        ("Total  EUR9,95", 9.95),
        ("Total  1,2O0.00", 1200.00),
    ],
)
def test_lookalike_letters_inside_an_amount_are_digits(printed, value):
    assert [a.value for a in find_amounts(printed)] == [value]


@pytest.mark.parametrize("printed", ["SOS.00", "BOB.OO", "12.50S", "Tel 03-1234 l2.50x"])
def test_words_and_tax_codes_are_not_turned_into_digits(printed):
    # a word made of look-alike letters is not money; a till's tax letter after the amount stays a code
    assert [a.value for a in find_amounts(printed)] in ([], [12.50])
    if printed == "12.50S":
        assert find_amounts(printed)[0].value == 12.50


def test_a_leading_s_is_still_the_dollar_sign():
    assert [a.value for a in find_amounts("Vegetable  S1.10")] == [1.10]


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("Pizzeria Roma\nPizza  9,50\nBier  3,80\nGesamt\n13,30\nMwSt 19%  2,12\nDatum: 03.02.2023", 13.30),
        ("KEDAI MAJU\nROTI  12.50\nTOTAL\nRM  12.50\nTUNAI  20.00\nBAKI  7.50", 12.50),
        ("Corner Deli\nSandwich  12.50\nTOTAL:\n$12.50 T\nCASH  20.00", 12.50),
        ("Boulangerie\nBaguette  1,20\nTOTAL TTC\n1,20 €\nEspèces  5,00", 1.20),
    ],
)
def test_a_totals_label_with_its_amount_on_the_next_line(text, total):
    ex = _read(text)
    assert ex.fields.total == total
    # the amount row went with its label: it is not read as one more item
    assert round(sum(i.total for i in ex.line_items), 2) == total


def test_a_label_row_is_not_joined_to_an_item_row():
    # "Subtotal" then an item with a description: not one row
    ex = _read("Shop\nCoffee  3.00\nSUBTOTAL\nTea  2.00\nTOTAL  5.00")
    assert ex.fields.total == 5.00 and ex.fields.subtotal is None
    assert [i.total for i in ex.line_items] == [3.00, 2.00]


def test_a_second_subtotal_under_the_rounding_row_is_the_amount_due():
    ex = _read(
        "WATSONS\nSCISSORS  18.00S\nTWEEZER  17.90\nWIPES  7.90\nPWP LESS 30%  -2.37\n"
        "SUBTOTAL (QTY  4)  RM41.43\nROUNDING  RMO.02\nSUBTOTAL (QTY  4)  RM41.45\nCASH  RM51.50\n"
        "CHANGE CASH  RM10.05"
    )
    assert (ex.fields.subtotal, ex.fields.total) == (41.43, 41.45)
    assert "no row labelled as the total was read" in ex.doubts  # never a proof resting on it


def test_a_date_glued_to_its_labels_colon():
    c = pick_date(parse_dates(["Invoice No  :45691", "Date  :05Jan201712:41pm"], language="en"))
    assert c is not None and c.iso == "2017-01-05" and c.attributed


def test_a_date_run_into_a_transaction_code_is_read_but_proves_nothing():
    c = pick_date(parse_dates(["CASH  RM51.50", "0044001003625032018 13:11:540003"], language="en"))
    assert c is not None and c.iso == "2018-03-25"
    assert not c.attributed and not c.unambiguous
    # only when no other date is printed, and never a code that is no date
    c = pick_date(parse_dates(["Date 24/03/2018", "0044001003625032018 13:11:54"], language="en"))
    assert c is not None and c.iso == "2018-03-24"
    assert pick_date(parse_dates(["Ref 12345678 10:22"], language="en")) is None


@pytest.mark.parametrize(
    ("header", "merchant"),
    [
        # a registration number after the name is not part of it, and does not make the row a number line
        ("99 SPEED MART S/B (519537-X)\nLOT P.T. 2811, JALAN ANGSA\n41150 KLANG", "99 SPEED MART S/B"),
        ("AEON CO.（M)BHD.(126926-H)\n3RD FLR, AEON TAMAN MALURI SC", "AEON CO. (M) BHD."),
        # the legal name, not the brand or branch printed above it
        ("MYDIN\nTRI SHAAS SDN BHD (728515-M)\nMYDIN MART SRI MUDA", "TRI SHAAS SDN BHD"),
        ("IKANO HANDEL SDN BHD\n(1074617K)\nIKEA Cheras", "IKANO HANDEL SDN BHD"),
        ("Backstube\nBackstube Müller GmbH\nHauptstraße 5", "Backstube Müller GmbH"),
        # words OCR ran together
        ("GerbangAlafRestaurantsSdnBhd\n(65351-M)", "Gerbang Alaf Restaurants Sdn Bhd"),
        ("MYHAPPYPHARMACYPLT\n(LLP0007299-LGN)", "MYHAPPYPHARMACY PLT"),
        ("BOOKTA.K(TAMANDAYA)SDNBHD\n789417-W", "BOOKTA.K (TAMANDAYA) SDN BHD"),
    ],
)
def test_the_merchant_is_the_legal_name_without_its_registration_number(header, merchant):
    assert _read(header + "\nPen    2.00\nTOTAL    2.00").fields.merchant == merchant


def test_a_brand_alone_is_still_the_merchant():
    assert _read("Joe's Diner\n12 Main St\nBurger    9.00\nTOTAL    9.00").fields.merchant == "Joe's Diner"
    assert _read("McDonald's\n12 Main St\nBurger    9.00\nTOTAL    9.00").fields.merchant == "McDonald's"


@pytest.mark.parametrize(
    ("row", "iso"),
    [
        ("Aug23'19 12:07PM", "2019-08-23"),  # restaurant tills: month, day, two-digit year
        ("Chk7862  Jan21'1708:56P Gst1", "2017-01-21"),  # the time glued to the year
        ("Jun221807:59PM", "2018-06-22"),  # the apostrophe lost too
        ("0ct011701:44PM", "2017-10-01"),  # a zero for the O
        ("25AUG'17 8:03PM", "2017-08-25"),
        ("JESSICA M SvrCk:112:0503/05/17", "2017-03-05"),  # a time run into the date
    ],
)
def test_short_year_dates_as_us_restaurant_tills_print_them(row, iso):
    c = pick_date(parse_dates(["Arthurs", row, "Burger  13.95"], language="en"))
    assert c is not None and c.iso == iso
    assert not c.unambiguous  # a two-digit year: never the base of a proof on its own


@pytest.mark.parametrize("row", ["Jun 22 18 guests", "Mar 12 14:30", "Table 12 Oct 5 17"])
def test_a_month_and_numbers_without_a_year_mark_are_no_date(row):
    assert pick_date(parse_dates([row], language="en")) is None


@pytest.mark.parametrize(
    ("text", "total", "tax"),
    [
        # Indonesian: PPN is the tax, "Kembali" the change
        (
            "TOKO MAJU\nAQUA 600ML  3.500\nROTI  6.500\nSub Total  10.000\nPPN 10%  1.000\nTotal Belanja  11.000\n"
            "Tunai  20.000\nKembali  9.000",
            11000.0,
            1000.0,
        ),
        # Malaysian SST (2018 on) and "Cukai"
        (
            "KEDAI BUKU\nPen  10.00\nSub Total  10.00\nSST 6%  0.60\nJumlah  10.60\nTunai  20.00\nBaki  9.40",
            10.60,
            0.60,
        ),
        ("RESTORAN\nNasi  10.00\nJumlah Kecil  10.00\nCukai Perkhidmatan 6%  0.60\nJumlah Besar  10.60", 10.60, 0.60),
        # Spanish "Entregado", Italian "Contante", Dutch "Terug": payments, never the total
        ("Bar Pepe\nCaña  2,50\nTapa  3,00\nTotal  5,50\nEntregado  10,00\nCambio  4,50", 5.50, None),
        ("Bar Roma\nCaffè  1,20\nTotale  1,20\nContante  5,00\nResto  3,80", 1.20, None),
        ("Bakker\nBrood  2,50\nTotaal  2,50\nContant  5,00\nTerug  2,50", 2.50, None),
        # "Taxable sales" is the net amount: the total is its sum with the tax ("TL." as the label)
        (
            "CHRIS'S HAMBURGERS\nCHZBURGER  $8.80\nFRIES  $17.05\nTAXABLE SALES  $25.85\nTAX  $2.46\nTL.  $28.31\n"
            "CASH  $40.00\nCG  $11.69",
            28.31,
            2.46,
        ),
    ],
)
def test_totals_vocabulary_of_more_countries(text, total, tax):
    ex = _read(text)
    assert (ex.fields.total, ex.fields.tax_total) == (total, tax)


@pytest.mark.parametrize(
    ("row", "iso"),
    [
        ("25.04.2020/09:38", "2020-04-25"),  # a time after a slash
        ("25.04.2O20 09:38", "2020-04-25"),  # a letter O for a zero
        ("25,04.2020 09:38", "2020-04-25"),  # a comma for a dot
        ("25.04 .2020 09:38", "2020-04-25"),  # a space beside a separator
        ("l2.03.2019 10:00", "2019-03-12"),
    ],
)
def test_a_date_ocr_damaged_a_little_is_mended(row, iso):
    ex = _read(f"Bäckerei\nBrötchen  1,00\nSumme  1,00\n{row}\nVielen Dank")
    assert ex.fields.date == iso


def test_mending_does_not_join_two_things_into_a_date():
    assert pick_date(parse_dates(["12/04-2020"], language="de")) is None
    assert pick_date(parse_dates(["Summe  12.5O"], language="de")) is None


def test_a_totals_amount_that_lost_its_decimal_mark():
    ex = _read("Cafe\nBurger  40.00\nFries  15.00\nSubtotal  $55  00\nTax  $4.40\nTotal  $59.40")
    assert (ex.fields.subtotal, ex.fields.total) == (55.00, 59.40)
    assert any("decimal mark" in d for d in ex.doubts)  # a mended reading: no proof rests on it
    # only on a totals row: "Tel  03  12" or an item's "2  50" stay what they are
    ex = _read("Kedai\nNasi  5.00\nTOTAL  5.00\nTel  03  12")
    assert ex.fields.total == 5.00 and not ex.doubts


def test_july_as_ocr_reads_it():
    c = pick_date(parse_dates(["Chk 1844", "Ju116'1708:15PM"], language="en"))
    assert c is not None and c.iso == "2017-07-16"


def test_a_legal_name_wrapped_over_two_rows():
    ex = _read("RESTORAN SELERA\nTOMYAM SDN BHD\n(1234567-X)\nNasi  5.00\nTOTAL  5.00")
    assert ex.fields.merchant == "RESTORAN SELERA TOMYAM SDN BHD"
    # a brand above a full legal name stays out of it
    assert _read("MYDIN\nTRI SHAAS SDN BHD\nNasi  5.00\nTOTAL  5.00").fields.merchant == "TRI SHAAS SDN BHD"


def test_a_legal_name_glued_by_ocr_is_not_joined_to_a_title_above():
    ex = _read("Sarang Hae Yo\nTRENDYMAX(M)SDN.BHD.\nCompanyReg.No.:(583246-A).\nNasi  5.00\nTOTAL  5.00")
    assert ex.fields.merchant == "TRENDYMAX (M) SDN. BHD."


@pytest.mark.parametrize(
    ("row", "iso", "attributed"),
    [
        ("CHANDAR  SvrCk:  8  1:56p06/02/15", "2015-06-02", True),  # a time with its "p" run into the date
        ("Sep30°1707:36PM", "2017-09-30", True),  # the apostrophe read as a degree sign
        ("Date:6/16/19,10:04 AM", "2019-06-16", True),  # a comma then the time
        ("0rder986206/08/1911:45AM", "2019-06-08", False),  # run into the order number: read, proves nothing
    ],
)
def test_more_dates_as_ocr_glues_them(row, iso, attributed):
    c = pick_date(parse_dates(["Cafe", row, "Soup  5.00"], language="en"))
    assert c is not None and (c.iso, c.attributed) == (iso, attributed)


def test_a_total_without_label_or_subtotal_is_the_items_plus_the_tax():
    ex = _read(
        "KFC\nTicket #2884\nFamily Fill Up  20.00\nLrg Coleslaw\nTax  1.73\nDRIVE THRU  $21.73\n"
        "ETender Credit  $21.73\nChange  $0.00"
    )
    assert ex.fields.total == 21.73
    assert "no row labelled as the total was read" in ex.doubts
    # nothing equal to items + tax: no total is made up
    assert _read("Shop\nSoup  20.00\nTax  1.73\nCASH  $30.00").fields.total is None


@pytest.mark.parametrize(
    ("text", "total", "tax"),
    [
        ("Shop\nSoup  12.50\nTOTAL12.50\nCASH  20.00", 12.50, None),
        ("Laden\nBrot  12,50\nSUMME12,50\nBar  20,00", 12.50, None),
        ("Shop\nSoup  12.50\nTax0.50\nTotal13.00", 13.00, 0.50),
        ("Shop\nSoup  12.50\nTOTALRM12.50", 12.50, None),
        # "Tota1" (a misread Total) run into 6.59: the label takes the 1
        (
            "Taco Time\nTACO  5.99\nSubtotal  5.99\nTax  0.60\nDrive Thru Tota16.59\nCASH  $10.00\nChange  $3.41",
            6.59,
            0.60,
        ),
    ],
)
def test_an_amount_run_into_its_totals_label(text, total, tax):
    ex = _read(text)
    assert (ex.fields.total, ex.fields.tax_total) == (total, tax)


def test_an_item_run_into_its_price_is_not_guessed():
    ex = _read("Shop\nSOUP12.50\nTOTAL  12.50")
    assert ex.fields.total == 12.50 and ex.line_items == []


def test_indonesian_till_words_and_whole_unit_amounts():
    ex = _read("Indomaret\nAQUA  3.500\nTOTAL  3.500\nTUNAI  5.000\nKEMBALI  1.500")
    assert (ex.fields.currency, ex.fields.total) == ("IDR", 3500.0)
    # no currency recognised, amounts in thousands groups and no cents anywhere: whole units
    ex = _read("Warung Makan\nNasi Goreng  25.000\nTotal  25.000\nTunai  50.000")
    assert ex.fields.total == 25000.0
    # a Malay "come again" footer is no Indonesian cue, and cents keep two decimals
    ex = _read("Kedai\nRoti  2.50\nJumlah  2.50\nTunai  5.00\nSila datang kembali")
    assert (ex.fields.currency, ex.fields.total) == ("MYR", 2.50)


@pytest.mark.parametrize(
    ("printed", "value"), [("TOTAL  12 .50", 12.50), ("TOTAL  12 , 50", 12.50), ("TOTAL  12. 50", 12.50)]
)
def test_an_amount_ocr_split_around_its_decimal_mark(printed, value):
    assert [a.value for a in find_amounts(printed)] == [value]
    ex = _read(f"Shop\nSoup  {value:.2f}\n{printed}")
    assert ex.fields.total == value and ex.doubts  # a mended reading: no proof rests on it


def test_a_quantity_column_before_a_cents_only_price_is_not_joined():
    assert [a.value for a in find_amounts("Candy  2  .50")] == [0.50]


@pytest.mark.parametrize(
    "header",
    [
        "Table #520\nBrooklyn,Ny\nJoe's Diner",  # a table line and a "City, ST" line are not the name
        "TO GO\nHarrison, NJ 07029\nJoe's Diner",
        "NAME:CHARES\nQuan Description Cost\nJoe's Diner",
    ],
)
def test_order_lines_and_city_lines_are_not_the_merchant(header):
    # the candidates are equal in height here: without the skips the first would win
    assert _read(header + "\nBurger  9.00\nTOTAL  9.00").fields.merchant == "Joe's Diner"
