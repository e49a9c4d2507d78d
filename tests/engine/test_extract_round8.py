"""Round 8 of reading real receipts (issue 14): three totals-block structures the held-back SROIE scans showed,
each as a rule for receipts in general on a small receipt the test writes. A "Total Payable" row under partial
totals that are larger than it (a returns group printed negative), a till that labels the amount due
"Subtotal" under its tax, and a "tax" row that is really the taxed amount."""

from __future__ import annotations

from rabench.engine.checks import totals_add_up
from rabench.engine.extract import extract_fields, rows_from_text


def _read(text: str):
    return extract_fields(rows_from_text(text))


GROUPS = (
    "BAKERY SUPPLY SDN BHD\nGST ID: 000381399040\nTAX INVOICE\nDate: 10/10/2017\n"
    "O.C.WHITE  2.13  3  4  -1  -2.13\n"
    "Total 0% supplies:  -2.13\n"
    "CR-CORN  0.72  20  20  14.40\nSQ-CHOCMLT  0.84  12  12  10.08\n"
    "Total 6% supplies (excl.GST):  24.48\nGST:  1.47\n"
    "Total 6% supplies (Inc. GST):  25.95\n"
    "Total Payable:  {due}\n"
)


def test_a_payable_total_under_larger_partial_totals_is_the_amount_due():
    ex = _read(GROUPS.format(due="23.82"))
    assert ex.fields.total == 23.82  # not the largest total row (25.95), one tax group's gross amount
    # the same words glued by OCR
    assert _read(GROUPS.format(due="23.82").replace("Total Payable", "TotalPayable")).fields.total == 23.82
    # other languages' "to be paid"
    de = "BAECKEREI\nBrot  3,00\nSumme Warengruppe A  5,00\nLeergut  -2,00\nZu zahlen  3,00\n"
    assert _read(de).fields.total == 3.00
    # a payable row above a larger total is not preferred: the grand total stands
    above = "CAFE\nCOFFEE  4.00\nTotal payable  4.00\nTip  1.00\nTotal  5.00\nVISA  5.00\n"
    assert _read(above).fields.total == 5.00
    # "Balance due" may be what is left after a gift card: the largest total stands
    gift = "SHOP\nSHIRT  30.00\nTotal  30.00\nGift card  -10.00\nBalance due  20.00\nVISA  20.00\n"
    assert _read(gift).fields.total == 30.00


SUB_DUE = (
    "OLD ASIA RESTAURANT\nGST NO: 001406865408\n13-02-2016 02:29PM\n"
    "FISH HEAD  RM11.50  SR\nFISH CAKE  RM7.90  SR\n"
    "SERV.CHG.10%  RM1.94\nGST6%  RM1.28\nSUBTOTAL  RM22.62\nCASH  RM{cash}\nYOUR CHANGE  RM{change}\n"
)


def test_a_subtotal_under_the_tax_that_was_paid_is_the_total():
    ex = _read(SUB_DUE.format(cash="50.00", change="27.38"))
    assert ex.fields.total == 22.62
    assert totals_add_up(ex).check.status == "passed"  # 11.50 + 7.90 + 1.94 + 1.28
    # what was paid less the change is not that amount: no total is made up
    assert _read(SUB_DUE.format(cash="50.00", change="25.00")).fields.total != 22.62
    # a subtotal above the tax is the net amount, as before
    above = "SHOP\nITEM A  10.00\nSUBTOTAL  10.00\nGST 6%  0.60\nCASH  10.60\n"
    ex = _read(above)
    assert ex.fields.subtotal == 10.00 and ex.fields.total != 10.00


def test_a_tax_row_larger_than_any_tax_on_the_total_is_not_summed_as_tax():
    text = (
        "RESTAURANT\nRICE  RM13.50\nTEA  RM3.80\nGST TA AMT  RM17.30\nGST6%  RM1.04\nTOTAL  RM18.34\n"
        "CASH  RM20.00\nCHANGE  RM1.66\n"
    )
    ex = _read(text)
    assert ex.fields.total == 18.34 and ex.fields.tax_total == 1.04
    res = totals_add_up(ex)
    assert res.check.status == "passed"
    # on its own it is a doubt about the reading, never a proof
    bad = text.replace("GST6%  RM1.04", "GST6%  RM1.40")
    res = totals_add_up(_read(bad))
    assert res.check.status != "passed"
    assert res.signal is None or res.signal.kind != "proof"


def test_dates_in_other_calendars_and_simplified_chinese_totals():
    # the Buddhist Era (Thailand): 2562 is 2019; a two-digit year stays unread (it could be 2062)
    assert _read("7-ELEVEN\n21/05/2562 14:03\nBREAD  12.00\nTOTAL  12.00").fields.date == "2019-05-21"
    assert _read("7-ELEVEN\n21/05/62 14:03\nBREAD  12.00\nTOTAL  12.00").fields.date is None
    # Japan's era years, its first year written 元
    assert _read("ローソン\n令和元年5月21日 14:03\nパン  ¥120\n合計  ¥120").fields.date == "2019-05-21"
    assert _read("ローソン\n平成30年12月1日 14:03\nパン  ¥120\n合計  ¥120").fields.date == "2018-12-01"
    # simplified Chinese: 合计 is the total, 小计 the subtotal, 现金/找零 the payment and the change
    ex = _read(
        "超市\n日期: 2019-05-21 14:03\n面包  10.00\n牛奶  2.00\n小计  12.00\n合计  12.00\n现金  20.00\n找零  8.00"
    )
    assert (ex.fields.total, ex.fields.subtotal, ex.fields.currency) == (12.00, 12.00, "CNY")
    assert totals_add_up(ex).check.status == "passed"
    # 实收 / 实付 is what the customer handed over, not a larger total
    ex = _read("超市\n2019-05-21\n面包  10.00\n牛奶  2.00\n应付  12.00\n实收  20.00\n找零  8.00")
    assert ex.fields.total == 12.00


def test_addresses_without_postcodes_still_place_the_receipt():
    # Hong Kong prints no postcode: a shop or floor number with a street or building word marks the address
    hk = (
        "PARKNSHOP\nSHOP 12, 1/F, HARBOUR CITY\nKOWLOON, HONG KONG\nWATER  8.50\nTOTAL  8.50\nCASH  10.00\n"
        "CHANGE  1.50\n21/05/2019"
    )
    assert (_read(hk).fields.currency, _read(hk).fields.total) == ("HKD", 8.50)
    assert (
        _read("PARKNSHOP\nG/F 12 NATHAN ROAD, TSIM SHA TSUI, KOWLOON\nWATER  8.50\nTOTAL  8.50").fields.currency
        == "HKD"
    )
    # a place name that is a dish or a brand is still no address
    assert _read("CHINA WOK\n12 MAIN ST\nSPRINGFIELD\nSINGAPORE NOODLES  8.50\nTOTAL  $8.50").fields.currency == "USD"
    # Vietnam: the address, "Tong cong" the total, the cash given and the change
    vn = (
        "CIRCLE K\n12 LE LOI, QUAN 1, TP. HO CHI MINH\nNUOC  15,000\nBANH MI  20,000\nTONG CONG  35,000\n"
        "TIEN KHACH DUA  50,000\nTIEN THUA  15,000\n21/05/2019"
    )
    ex = _read(vn)
    assert (ex.fields.currency, ex.fields.total) == ("VND", 35000)
    assert totals_add_up(ex).check.status == "passed"


def test_month_names_of_indonesia_malaysia_turkey_and_italys_short_september():
    for printed, iso in [
        ("21 Agu 2019", "2019-08-21"),
        ("21 Des 2019", "2019-12-21"),
        ("21 Nop 2019", "2019-11-21"),
        ("14 Disember 2023", "2023-12-14"),
        ("14 Ogos 2023", "2023-08-14"),
        ("14 MAC 2019", "2019-03-14"),
        ("14 Ekim 2023", "2023-10-14"),
        ("14 Şubat 2023", "2023-02-14"),
        ("21 sett 2019", "2019-09-21"),
    ]:
        assert _read(f"SHOP\nTanggal: {printed}\nITEM  3.20\nTOTAL  3.20").fields.date == iso, printed
    # a month word only counts between a day and a year: a store's name is no date
    assert _read("KMART\n123 MART STREET\nITEM  3.20\nTOTAL  3.20\n05/21/2019").fields.date == "2019-05-21"
