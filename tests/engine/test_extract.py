"""Field extraction from printed rows: text layers, and rendered receipts through real OCR."""

from __future__ import annotations

import asyncio

from fpdf import FPDF

from rabench.engine.extract import extract_fields, rows_from_ocr, rows_from_text
from rabench.engine.extract.pdf import pdf_text_lines
from rabench.engine.ocr import ocr

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _read(text: str):
    return extract_fields(rows_from_text(text))


def test_french_receipt_all_fields():
    ex = _read(
        "Café du Marché\n12 rue de la Paix 75002 Paris\nTicket n° 004512\nDate : 14/03/2024 12:31\n"
        "Croissant 2 x 1,50    3,00\nCafé crème    4,20\nJus d'orange    5,50\n"
        "SOUS-TOTAL    12,70\nTVA 10%    1,27\nTOTAL EUR    13,97\nCarte    13,97\nMerci de votre visite !"
    )
    f = ex.fields
    assert (f.merchant, f.date, f.subtotal, f.tax_total, f.total, f.currency, f.receipt_number) == (
        "Café du Marché",
        "2024-03-14",
        12.70,
        1.27,
        13.97,
        "EUR",
        "004512",
    )
    assert [(i.description, i.total, i.quantity, i.unit_price) for i in ex.line_items] == [
        ("Croissant", 3.0, 2.0, 1.5),
        ("Café crème", 4.2, None, None),
        ("Jus d'orange", 5.5, None, None),
    ]
    assert ex.language == "fr" and ex.tax_rates == [10.0]


def test_german_receipt_with_vat_included():
    ex = _read(
        "Bäckerei Lindner\nHauptstraße 5, 10115 Berlin\nBeleg-Nr. 2024-0815\nDatum 03.04.2024 08:12\n"
        "Laugenbrezel    0,95\nKaffee groß    3,20\nSUMME EUR    4,15\nenth. MwSt. 7%    0,27\nBar    5,00\nRückgeld    0,85"
    )
    f = ex.fields
    assert (f.total, f.tax_total, f.currency, f.date, f.receipt_number) == (
        4.15,
        0.27,
        "EUR",
        "2024-04-03",
        "2024-0815",
    )
    assert ex.tax_inclusive
    assert f.subtotal is None  # not printed
    assert [i.total for i in ex.line_items] == [0.95, 3.20]


def test_us_receipt_month_first_and_sales_tax():
    ex = _read(
        "Corner Deli & Grocery\n120 Main St, Austin TX 78701\nReceipt No. R-88121\n03/04/2024 7:45 PM\n"
        "Turkey Sandwich    6.90\nChips    1.50\nSUBTOTAL    8.40\nSales Tax 8.25%    0.69\nTOTAL    9.09\nCash    10.00\nChange    0.91"
    )
    f = ex.fields
    assert (f.merchant, f.date, f.currency, f.subtotal, f.tax_total, f.total, f.receipt_number) == (
        "Corner Deli & Grocery",
        "2024-03-04",
        "USD",
        8.40,
        0.69,
        9.09,
        "R-88121",
    )


def test_japanese_yen_has_no_minor_units():
    ex = _read(
        "Kissa Komorebi\nShibuya 2-21-1 Tokyo\n2024/05/06 10:11\nBlend Coffee  ¥580\nCheesecake  ¥650\nTOTAL  ¥1,230\nTax 10% incl.  ¥111"
    )
    f = ex.fields
    assert (f.currency, f.total, f.tax_total, f.date) == ("JPY", 1230.0, 111.0, "2024-05-06")
    assert ex.minor_units == 0 and [i.total for i in ex.line_items] == [580.0, 650.0]


def test_swiss_apostrophe_thousands():
    ex = _read(
        "Hotel Alpenblick\nDatum 02.02.2024\nZimmer 3 Nächte    1'260.00\nMWST 3.8%    47.88\nTotal CHF    1'307.88"
    )
    assert (ex.fields.total, ex.fields.currency, ex.fields.tax_total) == (1307.88, "CHF", 47.88)


def test_tip_and_discount_rows_are_kept_apart():
    ex = _read(
        "The Copper Kettle\n01/15/2024\nBurger Deluxe    15.50\nIPA Pint    6.80\nDiscount    -2.00\n"
        "SUBTOTAL    20.30\nTax 8.875%    1.80\nTip    4.00\nTOTAL    26.10"
    )
    assert ex.tips == [4.0] and ex.discounts == [2.0]
    assert [i.description for i in ex.line_items] == ["Burger Deluxe", "IPA Pint"]
    assert ex.fields.total == 26.10


def test_nothing_printed_means_null_fields():
    ex = _read("Thank you!\nPlease come again")
    f = ex.fields
    assert (f.total, f.subtotal, f.tax_total, f.date, f.receipt_number) == (None, None, None, None, None)


def test_native_pdf_text_layer(tmp_path):
    pdf = FPDF(format=(220, 360), unit="pt")
    pdf.add_page()
    pdf.add_font("dv", "", DEJAVU)
    pdf.set_font("dv", size=10)
    rows = [
        ("Northwind Online Store", ""),
        ("Order confirmation", ""),
        ("Order #: WEB-4471", ""),
        ("Date: 2024-05-17", ""),
        ("USB-C Cable 2m", "12.99"),
        ("Lens Cloth 2 x 4.50", "9.00"),
        ("Subtotal", "21.99"),
        ("Sales Tax 8.25%", "1.81"),
        ("Total", "$23.80"),
    ]
    for n, (label, amount) in enumerate(rows):
        pdf.text(10, 20 + 16 * n, label)
        if amount:
            pdf.text(160, 20 + 16 * n, amount)
    path = tmp_path / "order.pdf"
    pdf.output(str(path))
    lines = pdf_text_lines(path, page_width_px=880)
    assert all(ln.confidence == 1.0 for ln in lines)
    ex = extract_fields(rows_from_ocr(lines))
    f = ex.fields
    assert (f.merchant, f.date, f.subtotal, f.tax_total, f.total, f.currency, f.receipt_number) == (
        "Northwind Online Store",
        "2024-05-17",
        21.99,
        1.81,
        23.80,
        "USD",
        "WEB-4471",
    )
    assert [i.total for i in ex.line_items] == [12.99, 9.00]
    # boxes are in the rendered page's pixels: the total's amount sits right of centre
    assert ex.field_boxes["total"][0][0] > 880 / 2


def test_rendered_receipt_through_ocr(ocr_pool, render):
    img = render(
        [
            ("Receipt No. 55102", ""),
            ("Date: 25/12/2024", ""),
            ("", ""),
            ("Flat White", "£3.60"),
            ("Blueberry Muffin", "£2.90"),
            ("", ""),
            ("SUBTOTAL", "£6.50"),
            ("VAT 20% incl.", "£1.08"),
            ("TOTAL", "£6.50"),
            ("Card", "£6.50"),
        ],
        title="GREENLEAF FOODS",
    )
    result = asyncio.run(ocr(ocr_pool, img))
    ex = extract_fields(rows_from_ocr(result.lines))
    f = ex.fields
    assert f.merchant and f.merchant.replace(" ", "").upper() == "GREENLEAFFOODS"
    assert (f.date, f.total, f.subtotal, f.tax_total, f.currency) == ("2024-12-25", 6.50, 6.50, 1.08, "GBP")
    assert f.receipt_number == "55102"
    assert [i.total for i in ex.line_items] == [3.60, 2.90]
    # every field points at pixels inside the image
    for boxes in ex.field_boxes.values():
        for x0, y0, x1, y1 in boxes:
            assert 0 <= x0 < x1 <= img.width and 0 <= y0 < y1 <= img.height
