"""Dates: every printed style, and day-first vs month-first decided by evidence."""

from __future__ import annotations

import pytest

from rabench.engine.extract.dates import parse_dates, pick_date


def _iso(rows, **kw):
    c = pick_date(parse_dates(rows, **kw))
    return c.iso if c else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-04 10:00", "2024-03-04"),
        ("2024/03/04", "2024-03-04"),
        ("2024年3月4日", "2024-03-04"),
        ("March 4, 2024", "2024-03-04"),
        ("Mar 04, 2024", "2024-03-04"),
        ("4 Mar 2024", "2024-03-04"),
        ("14 mars 2024", "2024-03-14"),
        ("4. März 2024", "2024-03-04"),
        ("14 ago 2024", "2024-08-14"),
        ("25/12/2024", "2024-12-25"),
        ("12/25/2024", "2024-12-25"),
        ("25.12.24", "2024-12-25"),
    ],
)
def test_printed_styles(text, expected):
    assert _iso([f"Date: {text}"]) == expected


def test_ambiguous_date_follows_another_date_on_the_receipt():
    rows = ["Datum 03/04/2024", "Rückgabe bis 25/04/2024"]
    cands = parse_dates(rows)
    assert cands[0].iso == "2024-04-03"
    assert cands[0].unambiguous  # settled by the other date


def test_ambiguous_date_follows_language_then_currency_country():
    assert _iso(["Date 03/04/2024"], language="fr") == "2024-04-03"
    assert _iso(["Date 03/04/2024"], language="en", country_order="MDY") == "2024-03-04"
    assert _iso(["Date 03/04/2024"], language="en", country_order="DMY") == "2024-04-03"
    only_hint = parse_dates(["Date 03/04/2024"], language="fr")[0]
    assert not only_hint.unambiguous  # a hint is not proof-grade


def test_same_day_and_month_is_unambiguous():
    assert parse_dates(["05/05/2024"])[0].unambiguous


def test_labelled_date_wins_over_an_earlier_one():
    rows = ["Valid until 01/01/2030", "Date: 14/03/2024"]
    assert _iso(rows) == "2024-03-14"


def test_impossible_dates_are_ignored():
    assert _iso(["32/13/2024", "Ref 1234/56/78"]) is None


def test_earliest_reading_bounds_an_unsettled_order():
    c = parse_dates(["Date 03/04/2024"], language="en", country_order="MDY")[0]
    assert not c.unambiguous and c.iso == "2024-03-04" and c.earliest_iso == "2024-03-04"
    c = parse_dates(["Date 03/04/2024"], language="fr")[0]
    assert c.iso == "2024-04-03" and c.earliest_iso == "2024-03-04"
    assert parse_dates(["Date 25/04/2024"])[0].earliest_iso == "2024-04-25"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("09:38 25.04.2020", "2020-04-25"),  # a time before the date
        ("09:3825.04.2020", "2020-04-25"),  # ... glued to it by OCR
        ("25.04.2009:38", "2020-04-25"),  # "25.04.20" + "09:38": a 4-digit year is never followed by ":mm"
        ("10/03/20185:41:06", "2018-03-10"),
        ("01/03/1819:14", "2018-03-01"),
        ("30 Dec 1718:40:57", "2017-12-30"),
        ("05Jan201712:41pm", "2017-01-05"),
        ("15/Apr/2017 04:56:46", "2017-04-15"),
        ("05-Aug-2017 02:11:23PM", "2017-08-05"),
        ("0ct 3,2016 12:16:25 PM", "2016-10-03"),
        ("14:14 May13,2025", "2025-05-13"),  # the minutes of the time are not a day
    ],
)
def test_dates_glued_to_times(text, expected):
    c = pick_date(parse_dates([f"Date {text}"], language="fr"))
    assert c is not None and c.iso == expected and c.attributed


def test_digits_in_an_item_code_are_not_a_date():
    assert parse_dates(["XE11-22-30  KABEL 3M    9.99"]) == []
    assert parse_dates(["XE11-22 - 30  KABEL 3M    9.99"]) == []


def test_expiry_date_is_not_the_purchase_date():
    rows = ["Card Expiry: 30/09/18", "01/03/18 19:14  Slip No. 0010104733"]
    c = pick_date(parse_dates(rows))
    assert c is not None and c.iso == "2018-03-01"
    expiry = parse_dates(rows)[0]
    assert expiry.other_purpose and not expiry.attributed


def test_attribution_label_time_or_header():
    rows = [
        "Datum: 03.04.2024",
        "04.04.2024 12:31",
        "05.04.2024",
        "Flat White  3,60",
        "Rueckgabe bis 06.04.2024",
        "Gutschein 07.04.2024",
    ]
    labelled, timed, header, returns, body = parse_dates(rows, header_rows=3)
    assert labelled.labelled and labelled.attributed
    assert timed.timed and timed.attributed
    assert header.header and header.attributed
    assert returns.other_purpose and not returns.attributed  # "return by": not when the purchase was
    assert not body.attributed  # a bare date among the items: not attributed to the purchase
