"""The golden run (tests/score/score_golden.py): every headline row against values
worked out by hand below, with ties, missing risks, failed calls, null-labelled
fields, repeated cases, duplicates and hard negatives."""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from rabench.score.scorer import score_runs, write_outputs
import score_golden as golden

# (task, metric, target) -> (value, n); rates are Wilson over cases with fractional successes.
HAND = {
    # --- self, 2 runs per case. g1: run 1 errored -> every field of that run wrong.
    ("extraction", "merchant_accuracy", "self"): (1.5 / 2, 2),  # g1 0.5 ("cafe muller"), g2 1 ("&" = "and")
    ("extraction", "date_accuracy", "self"): (1.5 / 2, 2),
    ("extraction", "subtotal_accuracy", "self"): (0.5, 1),
    ("extraction", "tax_total_accuracy", "self"): (0.5, 1),
    ("extraction", "total_accuracy", "self"): (3.0 / 5, 5),  # g1 .5 (10.004), g2 1, g3 1, f1 .5 (98), f2 0
    ("extraction", "currency_accuracy", "self"): (1.5 / 2, 2),  # "eur" == EUR
    ("extraction", "receipt_number_accuracy", "self"): (0.5, 1),  # labelled null: null answer right
    ("extraction", "all_fields_right", "self"): (3.0 / 5, 5),
    ("extraction", "line_item_f1", "self"): (2 * 1.0 / (1.5 + 2.0), 2),  # g1 TP 1, extracted 1.5, labelled 2; f2 empty
    ("extraction", "valid_output_rate", "self"): (4.0 / 5, 5),
    ("checks", "totals_add_up_recall", "self"): (1.0, 2),  # g3, f1 don't add up, both flagged
    ("checks", "totals_add_up_precision", "self"): (1.0, 2),
    ("checks", "totals_add_up_false_alarm_rate", "self"): (0.0, 2),  # g1, g2
    ("checks", "totals_add_up_coverage", "self"): (4.0 / 5, 5),  # g1, f2 ran in one of two runs
    ("authenticity", "roc_auc", "self"): (5.375 / 6, 5),
    ("authenticity", "detection_at_ffr_1pct", "self"): (0.5, 5),
    ("authenticity", "detection_at_ffr_5pct", "self"): (0.5, 5),
    ("authenticity", "detection_at_ffr_10pct", "self"): (0.5, 5),
    ("authenticity", "detection_at_risk_0.5", "self"): (0.75, 2),
    ("authenticity", "false_flag_rate_at_risk_0.5", "self"): (0.5 / 3, 3),
    ("authenticity", "detection_at_risk_0.7", "self"): (0.5, 2),  # 0.7 >= 0.7 counts
    ("authenticity", "false_flag_rate_at_risk_0.7", "self"): (0.0, 3),
    ("duplicates", "recall", "self"): (0.5, 2),
    ("duplicates", "exact_recall", "self"): (0.25, 2),
    ("duplicates", "false_match_rate", "self"): (0.5, 1),  # g3 (after g2)
    ("duplicates", "false_match_rate_genuine", "self"): (0.0, 2),
    ("decisions", "decision_consistency", "self"): (3.0 / 5, 5),  # g2 and f2 (timeout) flip
    ("decisions", "total_consistency", "self"): (3.0 / 5, 5),  # g1 (absent once) and f1 (99/98) differ
    ("decisions", "calibration_error", "self"): (1.5 / 7, 7),
    ("decisions", "expected_cost_per_1000_at_risk_0.5", "self"): (3055.0, 5),
    ("decisions", "expected_cost_per_1000_at_risk_0.7", "self"): (500.0, 5),
    ("decisions", "expected_cost_per_1000_approve_everything", "self"): (1000.0, 0),
    ("evidence", "edited_field_named", "self"): (0.5, 1),  # "total" yes; "subtotal" is not total
    ("evidence", "fakes_caught_with_proof", "self"): (0.25, 2),
    ("evidence", "genuine_with_proof", "self"): (0.5 / 3, 3),
    ("operations", "latency_p50_s", "self"): (1.0, 11),
    ("operations", "latency_p95_s", "self"): (6.5, 11),
    ("operations", "latency_p99_s", "self"): (10.9, 11),
    ("operations", "cost_per_check_usd", "self"): (0.01, 10),  # one unknown cost left out
    ("operations", "model_cost_per_check_usd", "self"): (0.002, 11),
    ("operations", "error_rate", "self"): (2 / 14, 14),
    ("operations", "refusal_rate", "self"): (0.0, 14),
    ("operations", "timeout_rate", "self"): (1 / 14, 14),
    ("operations", "invalid_output_rate", "self"): (0.0, 14),
    # --- DIY baseline, one run per case.
    ("extraction", "merchant_accuracy", golden.DIY): (0.5, 2),  # "Cafe Mueller": similarity 11/12 >= 0.9
    ("extraction", "date_accuracy", golden.DIY): (0.0, 2),
    ("extraction", "subtotal_accuracy", golden.DIY): (0.0, 1),
    ("extraction", "tax_total_accuracy", golden.DIY): (1.0, 1),
    ("extraction", "total_accuracy", golden.DIY): (3.0 / 5, 5),  # 5.01 vs 5.00 is within 0.01
    ("extraction", "currency_accuracy", golden.DIY): (0.5, 2),
    ("extraction", "receipt_number_accuracy", golden.DIY): (0.0, 1),  # "N/A" where the label is null
    ("extraction", "all_fields_right", golden.DIY): (2.0 / 5, 5),
    ("extraction", "line_item_f1", golden.DIY): (0.0, 2),
    ("extraction", "valid_output_rate", golden.DIY): (3.0 / 5, 5),
    ("authenticity", "roc_auc", golden.DIY): (0.5, 5),  # missing risks score 0.5, ties half
    ("authenticity", "detection_at_ffr_1pct", golden.DIY): (0.0, 5),  # a genuine receipt tops the ranking
    ("authenticity", "detection_at_ffr_10pct", golden.DIY): (0.0, 5),
    ("authenticity", "detection_at_risk_0.5", golden.DIY): (0.5, 2),
    ("authenticity", "false_flag_rate_at_risk_0.5", golden.DIY): (1 / 3, 3),
    ("authenticity", "detection_at_risk_0.7", golden.DIY): (0.0, 2),
    ("authenticity", "false_flag_rate_at_risk_0.7", golden.DIY): (1 / 3, 3),
    ("decisions", "decision_consistency", golden.DIY): (None, 0),  # no case ran twice
    ("decisions", "calibration_error", golden.DIY): (1.55 / 3, 3),
    ("decisions", "expected_cost_per_1000_at_risk_0.5", golden.DIY): (6110.0, 5),
    ("decisions", "expected_cost_per_1000_at_risk_0.7", golden.DIY): (6610.0, 5),
    ("operations", "latency_p99_s", golden.DIY): (2.0, 5),
    ("operations", "refusal_rate", golden.DIY): (1 / 7, 7),
    ("operations", "invalid_output_rate", golden.DIY): (1 / 7, 7),
}

SWEEP = {  # stratum -> (metric, value) for self
    "assumption=p=0.001": ("expected_cost_per_1000_at_risk_0.5", 1000 * (0.999 * 17 / 6 + 0.001 * 0.25 * 100)),
    "assumption=c_miss=182": ("expected_cost_per_1000_at_risk_0.7", 1000 * 0.01 * 0.5 * 182),
    "assumption=c_review=73": ("expected_cost_per_1000_approve_everything", 1000.0),
    "assumption=p=0.05": ("expected_cost_per_1000_approve_everything", 5000.0),
}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden")
    return score_runs([str(golden.write(root))])


def _rows(result):
    return {(r.task, r.metric, r.stratum, r.target): r for r in result.rows}


@pytest.mark.parametrize("key", sorted(HAND, key=str))
def test_headline_row_matches_hand_computation(result, key):
    task, metric, target = key
    value, n = HAND[key]
    row = _rows(result)[(task, metric, "all", target)]
    assert row.n == n
    if value is None:
        assert row.value is None
    else:
        assert row.value == pytest.approx(value, abs=1e-12)
    if row.interval == "wilson" and row.value is not None:
        lo, hi = proportion_confint(row.value * n, n, alpha=0.05, method="wilson")
        assert (row.lo, row.hi) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))


def test_every_row_of_the_golden_run_is_checked_or_unsupported(result):
    for r in result.rows:
        if r.stratum != "all":
            continue
        if r.supported:
            assert (r.task, r.metric, r.target) in HAND or r.target == golden.DIY, r
        else:
            assert r.value is None and r.note == "not supported" and r.target == golden.DIY


def test_tasks_a_baseline_cannot_do_are_not_supported_never_zero(result):
    rows = _rows(result)
    for task, metric in [
        ("checks", "totals_add_up_recall"),
        ("duplicates", "recall"),
        ("evidence", "fakes_caught_with_proof"),
    ]:
        row = rows[(task, metric, "all", golden.DIY)]
        assert row.supported is False and row.value is None and row.note == "not supported"


def test_cost_sweep_rows(result):
    rows = _rows(result)
    for stratum, (metric, value) in SWEEP.items():
        assert rows[("decisions", metric, stratum, "self")].value == pytest.approx(value)


def test_bootstrap_rows_carry_seed_and_an_interval_around_the_value(result):
    for r in result.rows:
        if r.interval == "bootstrap" and r.value is not None:
            assert r.seed is not None and r.lo is not None and r.hi is not None
            assert r.lo <= r.hi  # a percentile interval need not contain the value itself
    auc = _rows(result)[("authenticity", "roc_auc", "all", "self")]
    assert 0.0 <= auc.lo <= auc.hi <= 1.0
    assert "genuine=3 fakes=2" in auc.note
    det = _rows(result)[("authenticity", "detection_at_ffr_5pct", "all", "self")]
    assert "threshold=0.7" in det.note


def test_small_strata_get_no_rows(result):
    # capture=photo has 1 case, class=ai_full 1 fake: below the 10-case floor.
    assert {r.stratum for r in result.rows} <= {"all"} | set(SWEEP) | {
        "assumption=p=0.05",
        "assumption=c_miss=32",
        "assumption=c_review=8",
    }


def test_findings_on_tiny_samples_are_ties_or_not_supported(result):
    by = {(f.task, f.metric): f for f in result.findings}
    assert by[("checks", "totals_add_up_recall")].result == "not_supported"
    assert by[("checks", "totals_add_up_recall")].reason == "not supported by baseline"
    assert by[("authenticity", "roc_auc")].result == "tie"
    assert "fewer than 10" in by[("authenticity", "roc_auc")].reason
    assert {f.target for f in result.findings} == {"self"}
    assert {f.baseline for f in result.findings} == {golden.DIY}


def test_rescoring_gives_byte_identical_rows_json(tmp_path):
    run = golden.write(tmp_path / "in")
    a = write_outputs(score_runs([str(run)]), tmp_path / "a")[0].read_bytes()
    b = write_outputs(score_runs([str(run)]), tmp_path / "b")[0].read_bytes()
    assert a == b
    assert b"finished_at" not in a and str(tmp_path).encode() not in a
