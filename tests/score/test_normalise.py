"""Extraction comparison rules (spec, "Extraction") and evidence pointing."""

from __future__ import annotations

import itertools

import pytest
from rapidfuzz.distance import Levenshtein

from rabench.contracts import Check, Reason
from rabench.score.normalise import field_right, match_line_items, normalise_text
from rabench.score.pointing import is_proof, keyword_fields, points_at


@pytest.mark.parametrize(
    "raw,norm",
    [
        ("Café Müller", "cafe muller"),
        ("Smith&Sons, Ltd.", "smith and sons ltd"),
        ("  TESCO   Express!! ", "tesco express"),
        ("Crème-Brûlée Co", "cremebrulee co"),  # punctuation dropped (spec), not spaced
    ],
)
def test_merchant_normalisation(raw, norm):
    assert normalise_text(raw) == norm


def test_merchant_match_threshold_is_levenshtein_normalized_similarity_0_9():
    assert field_right("merchant", "Cafe Muller", "Cafe Mueller")  # 1 edit in 12: 0.917
    assert not field_right("merchant", "Boots", "Boot")  # 1 edit in 5: 0.8
    assert Levenshtein.normalized_similarity("boots", "boot") == pytest.approx(0.8)
    assert field_right("merchant", "Smith & Sons", "SMITH AND SONS")


@pytest.mark.parametrize(
    "field,label,answer,right",
    [
        ("total", 10.0, 10.01, True),
        ("total", 10.0, 9.99, True),
        ("total", 0.29, 0.30, True),
        ("total", 10.0, 10.011, False),
        ("total", 10.0, None, False),
        ("total", None, None, True),
        ("total", None, 0.0, False),
        ("date", "2026-01-05", "2026-01-05", True),
        ("date", "2026-01-05", "05/01/2026", False),
        ("currency", "EUR", "eur", True),
        ("currency", "EUR", "€", False),
        ("receipt_number", "R-0012/A", "r0012a", True),
        ("receipt_number", "R-0012", "R-0013", False),
        ("receipt_number", None, "", True),
        ("merchant", None, "Shell", False),
        ("merchant", "Shell", "   ", False),
    ],
)
def test_field_rules(field, label, answer, right):
    assert field_right(field, label, answer) is right


def _brute_force_matching(lab, got):
    from rabench.score.normalise import ITEM_SIMILARITY, amounts_match, text_similarity

    ok = [[amounts_match(a[1], b[1]) and text_similarity(a[0], b[0]) >= ITEM_SIMILARITY for b in got] for a in lab]
    best = 0
    if len(lab) <= len(got):
        for perm in itertools.permutations(range(len(got)), len(lab)):
            best = max(best, sum(ok[i][j] for i, j in enumerate(perm)))
    else:
        for perm in itertools.permutations(range(len(lab)), len(got)):
            best = max(best, sum(ok[i][j] for j, i in enumerate(perm)))
    return best


def test_line_item_pairing_is_maximum_one_to_one():
    # Greedy in order would pair "tea" (5.00) with the first "tea" and lose one pair.
    lab = [("tea", 5.0), ("tea", 5.0), ("teas", 5.0)]
    got = [("teas", 5.0), ("tea", 5.0), ("coffee", 5.0)]
    assert match_line_items(lab, got) == _brute_force_matching(lab, got) == 2
    assert match_line_items([("Cake", 5.0)], [("cake.", 5.005), ("cake", 5.0)]) == 1  # one-to-one
    assert match_line_items([("Cake", 5.0)], [("cake", 5.02)]) == 0


def test_line_item_matching_agrees_with_brute_force_on_random_lists():
    import random

    rnd = random.Random(4)
    words = ["tea", "teas", "cake", "cakes", "bun", "coffee"]
    for _ in range(200):
        lab = [(rnd.choice(words), rnd.choice([1.0, 2.0])) for _ in range(rnd.randint(0, 4))]
        got = [(rnd.choice(words), rnd.choice([1.0, 2.0, 2.005])) for _ in range(rnd.randint(0, 4))]
        assert match_line_items(lab, got) == _brute_force_matching(lab, got)


@pytest.mark.parametrize(
    "text,fields",
    [
        ("The total looks edited", {"total"}),
        ("Subtotal was changed", {"subtotal"}),  # not total
        ("the amount due differs", {"total"}),
        ("VAT rate is odd; GST missing", {"tax_total"}),
        ("Store logo is blurry", {"merchant"}),
        ("line items and prices were altered", {"line_items"}),
        ("Totals don't add up", {"total"}),
        ("lighting looks synthetic", set()),
        ("the datestamp", set()),  # whole words only
    ],
)
def test_keywords_match_whole_words(text, fields):
    assert keyword_fields(text) == fields


def test_points_at_uses_tags_checks_then_keywords():
    checks = {"date_plausible": Check(name="date_plausible", status="failed", fields=["date"])}
    # @field tags win over the text.
    assert points_at(Reason(text="the total", fields=["merchant"]), checks) == {"merchant"}
    # An arithmetic check points at total and subtotal, whatever its text says.
    assert points_at(Reason(text="dates", kind="check", check="totals_add_up"), checks) == {"total", "subtotal"}
    assert points_at(Reason(text="x", kind="proof", proof_type="arithmetic"), checks) == {"total", "subtotal"}
    # A check about a field points at that check's fields.
    assert points_at(Reason(text="odd", kind="check", check="date_plausible"), checks) == {"date"}
    assert points_at(Reason(text="merchant name unclear"), checks) == {"merchant"}


def test_only_spec_proof_types_with_kind_proof_count():
    assert is_proof(Reason(text="x", kind="proof", proof_type="pdf_modified"))
    assert not is_proof(Reason(text="x", kind="file_fact", proof_type="pdf_modified"))
    assert not is_proof(Reason(text="x", kind="proof"))
