"""Amounts are read the way each locale prints them."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from rabench.engine.extract.amounts import find_amounts, parse_number


@pytest.mark.parametrize(
    ("text", "minor", "expected"),
    [
        ("1,234.56", 2, [1234.56]),
        ("1.234,56", 2, [1234.56]),
        ("1 234,56", 2, [1234.56]),
        ("1\u202f234,56", 2, [1234.56]),
        ("1'234.50", 2, [1234.5]),
        ("TOTAL EUR  13,97", 2, [13.97]),
        ("12,50 €", 2, [12.5]),
        ("$12.50", 2, [12.5]),
        ("CHF 8.50", 2, [8.5]),
        ("¥1,234", 0, [1234.0]),
        ("合計 1,234円", 0, [1234.0]),
        ("980", 0, [980.0]),
        ("Discount -3.00", 2, [-3.0]),
        ("Discount 3.00-", 2, [-3.0]),
        ("Coupon (3.00)", 2, [-3.0]),
        ("Croissant 2 x 1,50  3,00", 2, [1.5, 3.0]),
    ],
)
def test_locale_formats(text, minor, expected):
    assert [a.value for a in find_amounts(text, minor_units=minor)] == expected


@pytest.mark.parametrize(
    "text",
    ["Table 12", "Tel 0123 456 789", "Date 14/03/2024 12:31", "Ref A-10293", "Visa ****1234", "TVA 10%"],
)
def test_things_that_are_not_money(text):
    assert find_amounts(text, minor_units=2) == []


def test_integers_are_amounts_only_without_minor_units_or_next_to_a_symbol():
    assert find_amounts("Qty 3", minor_units=2) == []
    assert [a.value for a in find_amounts("Qty 3", minor_units=0)] == [3.0]
    assert [a.value for a in find_amounts("Total $25", minor_units=2)] == [25.0]


def test_inconsistent_grouping_is_rejected():
    assert parse_number("1,23,4.56") is None
    assert parse_number("12.345.67") is None


_styles = [(",", "."), (".", ","), (" ", ","), ("'", ".")]


@given(
    cents=st.integers(min_value=0, max_value=10**9),
    style=st.sampled_from(_styles),
)
def test_round_trip_any_amount_any_style(cents, style):
    thousands, decimal = style
    whole, frac = divmod(cents, 100)
    grouped = f"{whole:,}".replace(",", thousands)
    printed = f"{grouped}{decimal}{frac:02d}"
    found = find_amounts(f"TOTAL  {printed}", minor_units=2)
    assert found and round(found[-1].value * 100) == cents
