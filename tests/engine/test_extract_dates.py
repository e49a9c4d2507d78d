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
