"""The plain-prompt answer parser: lenient about where the JSON is, strict about what it holds."""

from __future__ import annotations

import json
import math

import pytest

from rabench.targets.diy.answer import AnswerError, parse_answer, to_amount

GOOD = {
    "merchant": " Corner Shop ",
    "date": "2025-03-14",
    "subtotal": 10,
    "tax_total": "0,80",
    "total": "10.80",
    "currency": "eur",
    "receipt_number": 12345,
    "line_items": [
        {"description": "Tea", "quantity": 2, "unit_price": 2.5, "total": 5},
        {"description": "Cake", "quantity": 1, "unit_price": "5,00", "total": None},
        {"description": "", "total": 1.0},
    ],
    "risk": 0.7,
    "reasons": ["@total digits look pasted", {"text": "odd font", "fields": ["@merchant"]}],
}


@pytest.mark.parametrize(
    "wrap",
    [
        lambda s: s,
        lambda s: "```json\n" + s + "\n```",
        lambda s: "Sure! Here is the JSON:\n```\n" + s + "\n```\nHope it helps {not json}.",
        lambda s: "I read the receipt. " + s + " That's all.",
    ],
    ids=["bare", "fence", "fence-with-prose", "prose"],
)
def test_json_is_found_wherever_the_model_put_it(wrap):
    v = parse_answer(wrap(json.dumps(GOOD)))
    assert v.fields.merchant == "Corner Shop"
    assert v.fields.total == 10.8 and v.fields.tax_total == 0.8 and v.fields.subtotal == 10.0
    assert v.fields.currency == "EUR"
    assert v.fields.receipt_number == "12345"
    assert v.risk == 0.7


def test_line_items_normalised_and_unusable_ones_dropped():
    v = parse_answer(json.dumps(GOOD))
    assert [(i.description, i.total) for i in v.line_items] == [("Tea", 5.0), ("Cake", 5.0)]


def test_reasons_are_opinions_with_field_tags():
    v = parse_answer(json.dumps(GOOD))
    assert [r.kind for r in v.reasons] == ["opinion", "opinion"]
    assert v.reasons[0].fields == ["total"]
    assert v.reasons[1].fields == ["merchant"]


def test_at_most_five_reasons_kept():
    obj = dict(GOOD, reasons=[f"reason {i} @date" for i in range(9)])
    v = parse_answer(json.dumps(obj))
    assert len(v.reasons) == 5 and all(r.fields == ["date"] for r in v.reasons)


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("12,50", 12.5),
        ("1,234.50", 1234.5),
        ("1.234,50", 1234.5),
        ("1,234", 1234.0),
        ("12,505", 12505.0),
        ("$ 12.50", 12.5),
        ("12.50 EUR", 12.5),
        ("€3", 3.0),
        ("-4.20", -4.2),
        ("1 234,5", 1234.5),
        (7, 7.0),
        ("n/a", None),
        ("", None),
        (None, None),
    ],
)
def test_amount_rules(raw, expected):
    assert to_amount(raw) == expected


@pytest.mark.parametrize("raw", ["12,5,0", "twelve", "1.2.3", "12,5050", [1], True, {"v": 1}, float("nan")])
def test_amounts_no_rule_can_read_are_rejected(raw):
    with pytest.raises(AnswerError):
        to_amount(raw)


@pytest.mark.parametrize("risk", [1.2, -0.1, "85%", 85, True])
def test_risk_outside_unit_interval_makes_the_answer_invalid(risk):
    with pytest.raises(AnswerError, match="risk"):
        parse_answer(json.dumps(dict(GOOD, risk=risk)))


def test_missing_risk_means_no_opinion():
    obj = {k: v for k, v in GOOD.items() if k != "risk"}
    assert parse_answer(json.dumps(obj)).risk is None


@pytest.mark.parametrize(
    "key,value",
    [
        ("merchant", ["a"]),
        ("total", {"x": 1}),
        ("line_items", "tea"),
        ("line_items", [1]),
        ("reasons", 3),
        ("date", 20250314),
        ("currency", 978),
    ],
)
def test_wrong_types_make_the_whole_answer_invalid(key, value):
    with pytest.raises(AnswerError, match=key.split("_")[0]):
        parse_answer(json.dumps(dict(GOOD, **{key: value})))


def test_dates_iso_kept_datetime_cut_other_formats_kept_as_written():
    assert parse_answer(json.dumps(dict(GOOD, date="2025-03-14T10:22:00"))).fields.date == "2025-03-14"
    assert parse_answer(json.dumps(dict(GOOD, date="14/03/2025"))).fields.date == "14/03/2025"
    with pytest.raises(AnswerError, match="calendar"):
        parse_answer(json.dumps(dict(GOOD, date="2025-02-30")))


@pytest.mark.parametrize("text", ["", "   ", "I can't read this receipt.", "[1, 2, 3]", "{broken: json"])
def test_text_without_a_json_object_is_unreadable(text):
    with pytest.raises(AnswerError):
        parse_answer(text)


def test_null_fields_are_not_shown():
    v = parse_answer('{"merchant": null, "total": null, "line_items": [], "risk": null}')
    assert v.fields.merchant is None and v.fields.total is None and v.line_items == [] and v.risk is None


# -- the fast path (msgspec into the keys read) gives what the general path gives -------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rabench.targets.diy import answer as _answer  # noqa: E402

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.sampled_from([10**30, -(10**19)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "",
            " n/a ",
            "null",
            "12,50",
            "1.234,50",
            "$3.00",
            "EUR 4",
            "2025-03-14",
            "2025-02-30",
            "14/03/2025",
            "usd",
            "x\u00e9 @total",
            "\ud800",
            "{",
            "}",
        ]
    ),
    st.text(max_size=12),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["text", "reason", "fields", "description", "quantity", "unit_price", "total", "x"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=8,
)
_objects = st.dictionaries(
    st.sampled_from(
        [
            "merchant",
            "date",
            "subtotal",
            "tax_total",
            "total",
            "currency",
            "receipt_number",
            "line_items",
            "risk",
            "reasons",
            "other",
        ]
    ),
    _values,
    max_size=8,
)


def _general(text: str):
    try:
        return _answer.verdict_of_object(_answer.extract_json_object(text))
    except (AnswerError, OverflowError) as exc:
        return type(exc), str(exc)


def _fast(text: str):
    try:
        return parse_answer(text)
    except (AnswerError, OverflowError) as exc:
        return type(exc), str(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    obj=_objects,
    before=st.sampled_from(["", "Here it is: ", "{oops} ", "```json\n", '```\n{"a": 1}\n```\n']),
    after=st.sampled_from(["", " done.", " {also}", "\n```", " }"]),
    dup=st.booleans(),
)
def test_the_fast_path_agrees_with_the_general_path(obj, before, after, dup):
    body = json.dumps(obj, allow_nan=True)
    if dup and obj:  # a key written twice: both paths keep the last value
        first = next(iter(obj))
        body = body[:-1] + (", " if len(obj) else "") + json.dumps(first) + ': "again"}'
    text = before + body + after
    assert _fast(text) == _general(text)


# -- a line item's values and the top-level amounts give what the per-value readers give, value by value --


def _line_items_ref(value):
    """``_line_items`` spelled out: each value through ``_text`` / ``_item_amount``, the rule for
    an item without a total, unusable items dropped."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise AnswerError(f"line_items: expected a list, got {type(value).__name__}")
    items = []
    for n, raw in enumerate(value):
        if not isinstance(raw, dict):
            raise AnswerError(f"line_items[{n}]: expected an object, got {type(raw).__name__}")
        description = _answer._text(raw.get("description"), "description")
        quantity = _answer._item_amount(raw.get("quantity"), n, "quantity")
        unit_price = _answer._item_amount(raw.get("unit_price"), n, "unit_price")
        total = _answer._item_amount(raw.get("total"), n, "total")
        if total is None and quantity is not None and unit_price is not None:
            total = round(quantity * unit_price, 2)
        if not description or total is None:
            continue
        items.append(_answer.LineItem(description=description, total=total, quantity=quantity, unit_price=unit_price))
    return items


def _outcome(fn, *args):
    try:
        return fn(*args)
    except (AnswerError, OverflowError) as exc:
        return type(exc), str(exc)


_descriptions = st.one_of(st.sampled_from(["", " n/a ", "NULL", " Tea ", "TEA 2x", "-", "  "]), _scalars)
_amounts = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.inf, -math.inf, math.nan, 2.5]),
    st.integers(-1000, 1000),
    _scalars,
)
_item = st.fixed_dictionaries(
    {},
    optional={
        "description": _descriptions,
        "quantity": _amounts,
        "unit_price": _amounts,
        "total": _amounts,
        "x": _scalars,
    },
)
_items = st.lists(st.one_of(_item, _scalars), max_size=4)


_ITEM_EDGES = [
    [{"quantity": math.inf}],
    [{"description": "Tea", "unit_price": -math.inf, "quantity": 2.0}],
    [{"description": "Tea", "total": math.nan}],
    [{"description": " n/a ", "total": 1.0}],
    [{"description": "  Tea  ", "quantity": 2.0, "unit_price": 1.25}],
    [{"description": True}],
    [{"description": "Tea", "total": "12,50"}],
    [{"description": "Tea", "total": 3}],
    ["x"],
    "x",
]


@pytest.mark.parametrize("value", _ITEM_EDGES)
def test_line_item_edges_agree_with_the_per_value_readers(value):
    assert _outcome(_answer._line_items, value) == _outcome(_line_items_ref, value)


@settings(max_examples=500, deadline=None)
@given(value=st.one_of(_scalars, _items))
def test_line_items_agree_with_the_per_value_readers(value):
    assert _outcome(_answer._line_items, value) == _outcome(_line_items_ref, value)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 1.5, 2, True, "12,50", " n/a ", None, [1]])
@pytest.mark.parametrize("key", ["subtotal", "tax_total", "total"])
def test_amount_edges_agree_with_to_amount(value, key):
    got = _outcome(lambda: getattr(_answer.verdict_of_object({key: value}).fields, key))
    assert got == _outcome(_answer.to_amount, value, key)


@settings(max_examples=300, deadline=None)
@given(value=_scalars, key=st.sampled_from(["subtotal", "tax_total", "total"]))
def test_amounts_agree_with_to_amount(value, key):
    got = _outcome(lambda: getattr(_answer.verdict_of_object({key: value}).fields, key))
    assert got == _outcome(_answer.to_amount, value, key)
