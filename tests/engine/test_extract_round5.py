"""Round 5 of reading real receipts (issue 14): what the dev receipts' OCR lines showed, turned into rules for
receipts in general, each on a small receipt the test writes. A cash register's two-letter codes ("TL", "CG"),
a label whose last "l" OCR read as "1" with its amount glued after the colon ("Tota1:193.35"), and a currency
code printed only as a word ("SEK 13", Seksyen 13 in a Malaysian address) that must not outweigh the
country the receipt shows."""

from __future__ import annotations

from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.extract.amounts import find_amounts
from rabench.engine.extract.currency import detect_currency
from rabench.engine.extract.vocab import row_kind, says_change


def _read(text: str):
    return extract_fields(rows_from_text(text))


def test_a_cash_registers_tl_is_the_total_and_cg_the_change():
    ex = _read(
        "CHRIS'S HAMBURGERS\nREG CASHIER 11-24-2017 12:13PM\nBCHZBSPC  $8.80\nFFRIES-LRG  $3.66\n"
        "TAXABLE SALES  $12.46\nTAX  $1.18\nTL.  $13.64\nCASH  $20.00\nCG  $6.36"
    )
    assert ex.fields.total == 13.64
    assert not any("no row labelled as the total" in d for d in ex.doubts)  # read from its label now
    assert (row_kind("TL."), row_kind("CG"), row_kind("TL")) == ("total", "payment", "total")
    # only the code alone: a word that starts with the letters, or "TL" after the Turkish total word, is not it
    assert row_kind("TL CABLE 2M") == "other"
    assert row_kind("TOPLAM TL") == "total"
    assert row_kind("Baldwin Park, CA") != "payment"  # "CA" (cash on some registers) is left alone
    # "CG" means change only printed alone before its amount: not a word of an item or card row, not CGST
    assert says_change("CG  $6.36") and says_change("CG.") and says_change("CHANGE DUE  4.00")
    assert not says_change("CG BAG  0.20") and not says_change("VISA CG 4411  13.64")
    assert not says_change("CGST 9%  9,419.49")


def test_a_label_ending_in_ocrs_one_keeps_its_glued_amount():
    # "Sub Total:" / "Total:" with the "l" read as "1" and the amount run into the colon
    assert [a.value for a in find_amounts("Tota1:193.35")] == [193.35]
    assert [a.value for a in find_amounts("Sub Tota1:190.00")] == [190.00]
    assert find_amounts("12:30") == [] and find_amounts("Table 1:12:30") == []  # times stay times
    ex = _read("SUSHI BAR\nSALMON ROLL  190.00\nSub Tota1:190.00\nTax  3.35\nTota1:193.35\nVISA  193.35")
    assert (ex.fields.subtotal, ex.fields.total) == (190.00, 193.35)
    assert not any("could not place" in d or "without an amount" in d for d in ex.doubts)
    assert totals_add_up(ex).check.status == "passed"
    # "Sub Total" misread the same way stays a subtotal; a word that merely starts with "sub" does not
    assert (row_kind("Sub Tota1:"), row_kind("SUBT0TAL"), row_kind("Subway Total")) == ("subtotal", "subtotal", "total")


def test_a_currency_code_printed_only_as_a_word_yields_to_the_country():
    my = (
        "KEDAI ABC SDN BHD\nNO 5, JALAN 13/2, SEK 13\n46200 PETALING JAYA, SELANGOR\nGST ID: 000123456789\n"
        "ITEM  10.60\nTOTAL  10.60\nCASH  20.00\nCHANGE  9.40\n12/05/2018"
    )
    ex = _read(my)
    assert (ex.fields.currency, ex.fields.total, ex.fields.date) == ("MYR", 10.60, "2018-05-12")
    assert (
        detect_currency(
            "BROADVIEW MARKETING SDN BHD\nTAMAN SUBANG PERDANA, SEK,U3,\n40150 SHAH ALAM,SELANGOR\n"
            "GST REG NO: 000203587584\nTOTAL :  18.00"
        )
        == "MYR"
    )
    # a code printed beside an amount is the currency, whatever the address says
    assert detect_currency(my.replace("TOTAL  10.60", "TOTAL  USD 10.60")) == "USD"
    # and a code word with no country against it still counts
    assert detect_currency("STORE\nITEM  10.60\nTOTAL  10.60\nSEK 12345") == "SEK"
    # a Swedish receipt printing the code alone over its amounts keeps it
    assert (
        detect_currency("ICA Nara\nOrg.nr 556000-1234\nBelopp SEK\nMJOLK  15,90\nTOTALT  15,90\nMoms 12%  1,70")
        == "SEK"
    )


def test_a_total_whose_amount_ocr_mangled_is_read_only_when_what_was_paid_agrees():
    base = "DELI\nSOUP  3.48\nBREAD  2.98\n{total}\nCASH  20.00\nCHANGE  13.09\n03/12/23 14:22"
    for printed in ("TOTAL  6:91", "TOTAL  6;91", "TOTAL  6..91", "TOTAL  6.9l", "TOTAL  691"):
        ex = _read(base.format(total=printed))
        assert ex.fields.total == 6.91, printed
        assert any("damage undone" in d for d in ex.doubts)  # never clean: no proof rests on it
        assert totals_add_up(ex).signal is None or totals_add_up(ex).signal.kind != "proof"
    # what was paid does not agree (a forger's edit, or another misreading): no total is made up
    assert _read(base.format(total="TOTAL  7:91")).fields.total is None
    # a clean total is read as before, with no such doubt
    clean = _read(base.format(total="TOTAL  6.91"))
    assert clean.fields.total == 6.91 and not any("damage undone" in d for d in clean.doubts)
