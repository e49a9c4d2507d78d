"""Real-receipt layouts: totals vs tax and payment rows in several languages, Malaysian GST
tills, OCR glue and misreads, and which printed date a proof may rest on."""

from __future__ import annotations

import pytest

from rabench.engine.extract import extract_fields, rows_from_text


def _read(text: str):
    return extract_fields(rows_from_text(text))


@pytest.mark.parametrize(
    ("text", "total", "tax"),
    [
        ("KEDAI RUNCIT\nRoti    4,00\nKopi    2,00\nJUMLAH    6,00\nTUNAI    10,00\nBAKI    4,00", 6.00, None),
        (
            "REWE Markt GmbH\nBrezel    0,95\nKaffee    3,20\nSUMME EUR    4,15\nGeg. BAR    10,00\nRückgeld    5,85\n"
            "MwSt 7%  3,88  0,27  4,15",
            4.15,
            0.27,
        ),
        (
            "EDEKA\nMilch    1,19\nButter    2,29\nGesamtbetrag    3,48\nzu zahlen    3,48\nenth. MwSt 7%    0,23",
            3.48,
            0.23,
        ),
        (
            "Boulangerie Paul\nBaguette    1,20\nTotal HT    1,14\nTVA 5,5%    0,06\nTotal TTC    1,20\nEspèces    5,00\n"
            "Rendu    3,80",
            1.20,
            0.06,
        ),
        (
            "Bar Pepe\nCaña    2,50\nTapa    3,00\nBase imponible    5,00\nIVA 10%    0,50\nImporte total    5,50\n"
            "Efectivo    10,00\nCambio    4,50",
            5.50,
            0.50,
        ),
        ("Albert Heijn\nKaas    4,99\nBrood    2,49\nTotaal    7,48\nPinnen    7,48\nBTW 9%  6,86  0,62", 7.48, 0.62),
        (
            "Bar Roma\nCaffè    1,20\nCornetto    1,30\nTotale complessivo    2,50\nContanti    5,00\nResto    2,50\n"
            "di cui IVA    0,23",
            2.50,
            0.23,
        ),
    ],
)
def test_total_not_taken_from_tax_or_payment_rows(text, total, tax):
    ex = _read(text)
    assert ex.fields.total == total
    assert ex.fields.tax_total == tax


def test_ocr_glued_and_misread_totals_block():
    ex = _read(
        "SYARIKAT PERNIAGAAN GIN KEE\nDate:02/12/2017\n(W33)105MM CUTTING DISC  1  29.68  29.68  SR\n"
        "TotalQty:  1    29.68\nTotai Saies(ExcludingGST):    28.00\nTotalGST:    1.68\n"
        "Total Sales(lnclusive of GsT):    29.68\nCASH:    50.00\nChange:    20.32"
    )
    assert (ex.fields.subtotal, ex.fields.tax_total, ex.fields.total) == (28.00, 1.68, 29.68)


def test_amounts_as_ocr_reads_them_on_real_tills():
    ex = _read(
        "UNIHAKKA INTERNATIONAL SDN BHD\n10Mar2018 18:24\n1 Meat+3 Vege    $7.10\nVegetable    S1.10\n"
        "Total Amount:$8.20\nGST@6%:$0.46\nNett Total:    S8.20\nCASH    $8.20"
    )
    assert ex.fields.total == 8.20 and ex.fields.date == "2018-03-10"
    assert [i.total for i in ex.line_items] == [7.10, 1.10]
    ex = _read("THAI DELICIOUS\n1 TOM YAM    41.07T\nTOTAL    RM 41. 07")
    assert ex.fields.total == 41.07 and [i.total for i in ex.line_items] == [41.07]


def test_a_total_is_found_by_its_arithmetic_when_its_label_is_unreadable():
    ex = _read(
        "LIGHTROOM GALLERY SDN BHD\nBill Date:20/12/2017\nT5 JOINT 2PIN    2.83\nTRACK LIGHT    66.04\n"
        'Sub Total    RM 68.87\nGST 6%    RM 4.13\nTOT"I,    RM 73.00\nCHANGE:    RM 0.00'
    )
    assert ex.fields.total == 73.00
    assert "no row labelled as the total was read" in ex.doubts  # never a proof resting on it


def test_suggested_gratuities_under_the_total_are_not_charged():
    ex = _read(
        "STK Miami Beach\n08/25/2017 8:03 PM\nSteak    142.00\nSUBTOTAL    142.00\nTax    12.78\n"
        "TOTAL DUE    154.78\n18% gratuity    $25.56\n20% gratuity    $28.40"
    )
    assert ex.fields.total == 154.78 and ex.tips == []


def test_category_subtotals_read_as_items_are_not_proof():
    from rabench.engine.checks import totals_add_up

    r = totals_add_up(
        _read(
            "Arthurs\n10/01/2017 01:44 PM\n1 Burger    13.95\n1 Nachos    12.95\n1 Lager    6.00\n"
            "Food    26.90\nLiquor    6.00\nTax    2.32\nTotal Due    35.22"
        )
    )
    assert r.check.status == "not_run" and r.signal is not None and r.signal.kind == "opinion"


def test_item_code_is_not_the_date_a_proof_may_use():
    ex = _read("HARDWARE CENTRE\nTel 03-1234 5678\nXE11-22-30 CABLE 3M    9.99\nTOTAL    9.99")
    assert ex.fields.date is None
    assert ex.date_earliest is None and not ex.date_unambiguous and not ex.date_attributed


def test_an_unattributed_date_is_read_but_not_passed_on_for_a_proof():
    # a bare date among the items (a voucher's validity, a batch date) may be the only date printed
    ex = _read("HARDWARE CENTRE\nCABLE 3M    9.99\nBatch 25.05.2024\nTOTAL    9.99")
    assert ex.fields.date == "2024-05-25"
    assert ex.date_earliest is None and not ex.date_unambiguous and not ex.date_attributed


def test_a_date_printed_with_its_time_is_passed_on():
    ex = _read("HARDWARE CENTRE\nCABLE 3M    9.99\nTOTAL    9.99\n09:38 25.04.2020")
    assert ex.fields.date == "2020-04-25" and ex.date_attributed
    assert ex.date_unambiguous and ex.date_earliest == "2020-04-25"


def test_legal_name_split_over_two_rows_and_glued_title():
    ex = _read(
        "TAXINVOICE/ADJUSTMENTNOTE\nPOPULAR BOOK\nCO. (M) SDN BHD\nNo 8, Jalan 7/118B\nPen    2.00\nTOTAL    2.00"
    )
    assert ex.fields.merchant == "POPULAR BOOK CO. (M) SDN BHD"
    assert _read("MR.D.I.Y.SDN BHD\nLot 1851, Jalan KPB 6\nPen    2.00\nTOTAL    2.00").fields.merchant == (
        "MR. D.I.Y. SDN BHD"
    )
    # a note written on the scan above the header (a filing number) is not the merchant
    assert _read("A05032\nUNIHAKKA INTERNATIONAL SDN BHD\nPen    2.00\nTOTAL    2.00").fields.merchant == (
        "UNIHAKKA INTERNATIONAL SDN BHD"
    )


GERMAN_TILL = (
    [("Hauptstr. 5, 10115 Berlin", ""), ("", "EUR")]
    + [("GUT BIO JOGHURT", "0,35 B")] * 7
    + [
        ("BANANE", "1,29 B"),
        ("  0,834 kg x 1,55 EUR/kg", ""),
        ("OLIVENOEL 2 STK", "19,90 A"),
        ("  Einzelpreis EUR 9,95", ""),
        ("SUMME", "EUR 23,64"),
        ("Geg. EC-Cash", "EUR 23,64"),
        ("Steuer  %  Netto  Steuer  Brutto", ""),
        ("A= 19,0%  16,72  3,18", "19,90"),
        ("B= 7,0%  3,50  0,24", "3,74"),
        ("Gesamtbetrag  20,22  3,42", "23,64"),
        ("Datum 25.04.2020  Uhrzeit 09:38", ""),
    ]
)


def test_german_till_through_ocr_repeated_rows_weights_unit_prices_and_vat_table(ocr_pool, render):
    import asyncio

    from rabench.engine.checks import totals_add_up
    from rabench.engine.extract import rows_from_ocr
    from rabench.engine.ocr import ocr

    img = render(GERMAN_TILL, title="REWE", width=640, size=22)
    ex = extract_fields(rows_from_ocr(asyncio.run(ocr(ocr_pool, img)).lines))
    assert (ex.fields.merchant, ex.fields.date, ex.fields.total, ex.fields.tax_total) == (
        "REWE",
        "2020-04-25",
        23.64,
        3.42,
    )
    assert ex.date_attributed and ex.tax_inclusive and ex.doubts == []
    assert [i.total for i in ex.line_items] == [0.35] * 7 + [1.29, 19.90]  # all seven joghurts
    assert [(i.quantity, i.unit_price) for i in ex.line_items[-2:]] == [(0.834, 1.55), (2.0, 9.95)]
    assert totals_add_up(ex).check.status == "passed"
    # one joghurt row left unread (blank where it was printed): a gap, so no proof
    gappy = list(GERMAN_TILL)
    gappy[5] = ("", "")
    ex = extract_fields(
        rows_from_ocr(asyncio.run(ocr(ocr_pool, render(gappy, title="REWE", width=640, size=22))).lines)
    )
    r = totals_add_up(ex)
    assert r.check.status == "not_run" and r.signal is not None and r.signal.kind == "opinion"
    assert "a gap between rows" in r.signal.text
