"""The AP scorer (docs/methodology-ap.md) on small suites built through the contracts."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from rabench.contracts.ap import OUTCOME_CLASSES, APCase
from rabench.contracts.ap_verdict import APField, APVerdict
from rabench.score.scorer import score_runs
from rabench.score.tasks import ap_decision
from rabench.score.tasks.ap_facts import iou
from ap_suite import always_pay, perfect, write_run, write_suite

DOC = Path(__file__).resolve().parents[2] / "docs" / "methodology-ap.md"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[APCase]]:
    root = tmp_path_factory.mktemp("apsuite")
    return root, write_suite(root, n=60)


def _rows(tmp: Path, suite: tuple[Path, list[APCase]], targets, reps: int = 1):
    root, cases = suite
    run = write_run(tmp / "run", root, cases, targets, reps=reps)
    doc = score_runs([str(run)]).doc
    return {(r.target, r.task, r.metric, r.stratum): r for r in doc.rows}, doc


def test_always_pay_gets_the_unsafe_release_rate_it_deserves(tmp_path, suite):
    rows, _ = _rows(tmp_path, suite, {"pay": always_pay})
    n_fraud = sum(c.label.is_fraud for c in suite[1])
    unsafe = rows[("pay", "ap_decision", "unsafe_release_rate", "all")]
    assert unsafe.value == 1.0 and unsafe.n == n_fraud and unsafe.interval == "wilson"
    assert unsafe.lo is not None and unsafe.lo < 1.0 and unsafe.hi == pytest.approx(1.0)
    assert rows[("pay", "ap_decision", "false_hold_rate", "all")].value == 0.0
    assert rows[("pay", "ap_decision", "fraud_escalation_recall", "all")].value == 0.0
    # Paying everything costs exactly the pay-everything reference, for every assumption set.
    for name, _ in ap_decision.assumption_sets():
        cost = rows[("pay", "ap_decision", "expected_cost_per_1000", name)]
        ref = rows[("pay", "ap_decision", "expected_cost_per_1000_pay_everything", name)]
        assert cost.value == pytest.approx(ref.value)
        assert cost.lo == pytest.approx(ref.value) and cost.hi == pytest.approx(ref.value)  # no spread: every case pays
    # Per stratum, too: each fraud outcome class (10 cases each here) says 1.
    strat = {k[3]: r for k, r in rows.items() if k[2] == "unsafe_release_rate" and k[3].startswith("outcome=")}
    assert set(strat) == {"outcome=bank_fraud", "outcome=impersonation", "outcome=campaign_fraud"}
    assert all(r.value == 1.0 and r.n == 10 for r in strat.values())


def test_a_failed_call_releases_nothing_and_holds_the_payable(tmp_path, suite):
    rows, _ = _rows(tmp_path, suite, {"down": lambda c: None})
    assert rows[("down", "ap_decision", "unsafe_release_rate", "all")].value == 0.0
    assert rows[("down", "ap_decision", "false_hold_rate", "all")].value == 1.0
    assert rows[("down", "ap_extraction", "valid_output_rate", "all")].value == 0.0
    cost = rows[("down", "ap_decision", "expected_cost_per_1000", "all")]
    ref = rows[("down", "ap_decision", "expected_cost_per_1000_review_everything", "all")]
    assert cost.value == pytest.approx(ref.value)
    # no forecast: the uniform one, Brier 1 - 1/K
    assert rows[("down", "ap_calibration", "brier_score", "all")].value == pytest.approx(5 / 6)
    assert rows[("down", "ap_calibration", "log_loss", "all")].value == pytest.approx(np.log(6))
    assert rows[("down", "ap_calibration", "forecast_coverage", "all")].value == 0.0


def test_a_perfect_answer_scores_perfectly(tmp_path, suite):
    rows, _ = _rows(tmp_path, suite, {"self": perfect})
    get = lambda task, m: rows[("self", task, m, "all")].value  # noqa: E731
    assert get("ap_decision", "decision_accuracy") == 1.0
    assert get("ap_decision", "unsafe_release_rate") == 0.0
    assert get("ap_decision", "expected_cost_per_1000") == 0.0
    for m in ("discrepancy_f1", "reason_code_f1", "duplicate_link_f1", "campaign_link_f1"):
        assert get("ap_findings", m) == 1.0, m
    assert get("ap_evidence", "field_grounded") == 1.0
    assert get("ap_extraction", "all_fields_right") == 1.0
    assert get("ap_calibration", "brier_score") == 0.0
    assert get("ap_calibration", "log_loss") == pytest.approx(0.0)


def test_rows_json_has_every_row_of_the_methodology(tmp_path, suite):
    """Every metric named in a table of docs/methodology-ap.md has a row with n and, unless
    the page says 'none', an interval."""
    rows, doc = _rows(tmp_path, suite, {"self": perfect, "diy:x:m": always_pay}, reps=2)
    text = DOC.read_text(encoding="utf-8")
    named = set()
    for line in text.splitlines():
        m = re.match(r"\| `([a-z0-9_<>{}.,]+)`", line)
        if m:
            named.add(m.group(1))
    assert "unsafe_release_rate" in named and "brier_score" in named
    have = {(k[1], k[2]) for k in rows if k[0] == "self" and k[3] == "all"}
    metrics = {m for _, m in have}
    for name in named:
        if name == "<field>_accuracy":
            assert {"total_accuracy", "vendor_name_accuracy", "invoice_number_accuracy"} <= metrics
            continue
        assert name in metrics, name
    for (_tid, _task, _metric, _stratum), r in rows.items():
        assert r.n >= 0
        if r.value is not None and r.interval != "none":
            assert r.lo is not None and r.hi is not None and r.lo <= r.hi
    # findings between self and the diy target on the headline rows
    f = {(x.task, x.metric): x for x in doc.findings}
    assert f[("ap_decision", "unsafe_release_rate")].result == "win"
    assert f[("ap_decision", "decision_consistency")].result == "tie"


def _set_f1(pairs: list[tuple[set[object], set[object]]]) -> float:
    tp = sum(len(a & b) for a, b in pairs)
    return 2 * tp / sum(len(a) + len(b) for a, b in pairs)


def test_f1_accuracy_and_grounding_match_slow_references(tmp_path, suite):
    rng = random.Random(5)
    answers: dict[str, APVerdict] = {}
    codes = ["bank_account_changed", "duplicate_invoice", "po_price_mismatch", "urgency_pressure"]

    def noisy(case: APCase) -> APVerdict:
        lab = case.label
        tot = lab.fields["total"]
        box = tot.evidence.box if tot.evidence else (0, 0, 1, 1)
        shift = rng.choice([0.0, 0.01, 0.2])
        v = APVerdict(
            decision=rng.choice(["PAY", "HOLD", "NEEDS_REVIEW", "ESCALATE_FRAUD"]),
            fields={
                "total": APField(
                    value=tot.value if rng.random() < 0.7 else 1.0,
                    evidence=type(tot.evidence)(
                        "invoice.pdf", 1, (box[0] + shift, box[1], min(1.0, box[2] + shift), box[3])
                    ),
                )
            },  # type: ignore[misc]
            reason_codes=rng.sample(codes, rng.randrange(3)),  # type: ignore[arg-type]
            # every class > 0, so sklearn's clipping (machine epsilon) and ours (1e-15) agree
            probabilities={k: 0.01 + 0.9 * rng.random() for k in OUTCOME_CLASSES},  # type: ignore[misc]
        )
        answers[case.id] = v
        return v

    rows, _ = _rows(tmp_path, suite, {"n": noisy})
    cases = suite[1]
    ref_f1 = _set_f1([(set(c.label.reason_codes), set(answers[c.id].reason_codes)) for c in cases])
    assert rows[("n", "ap_findings", "reason_code_f1", "all")].value == pytest.approx(ref_f1)
    acc = np.mean([answers[c.id].decision in c.label.acceptable for c in cases])
    assert rows[("n", "ap_decision", "decision_accuracy", "all")].value == pytest.approx(acc)
    ground = []
    for c in cases:
        got = answers[c.id].fields["total"].evidence
        boxed = [f for f in c.label.fields.values() if f.evidence is not None]
        hit = iou(c.label.fields["total"].evidence.box, got.box) >= 0.5  # type: ignore[union-attr]
        ground.append(hit / len(boxed))
    assert rows[("n", "ap_evidence", "field_grounded", "all")].value == pytest.approx(np.mean(ground))
    # sklearn's log loss and the multiclass Brier by hand over the same forecasts
    from sklearn.metrics import log_loss

    probs = []
    for c in cases:
        p = np.array([answers[c.id].probabilities.get(k, 0.0) for k in OUTCOME_CLASSES])  # type: ignore[union-attr]
        probs.append(p / p.sum())
    y = [OUTCOME_CLASSES.index(c.label.outcome) for c in cases]
    P = np.clip(np.array(probs), 1e-15, 1)
    ref_ll = float(np.mean([-np.log(P[i, y[i]]) for i in range(len(y))]))
    assert rows[("n", "ap_calibration", "log_loss", "all")].value == pytest.approx(ref_ll)
    assert ref_ll == pytest.approx(log_loss(y, np.array(probs), labels=list(range(6))), rel=1e-6)
    onehot = np.eye(6)[y]
    assert rows[("n", "ap_calibration", "brier_score", "all")].value == pytest.approx(
        float(((np.array(probs) - onehot) ** 2).sum(axis=1).mean())
    )


def test_iou():
    assert iou((0, 0, 1, 1), (0, 0, 1, 1)) == 1.0
    assert iou((0, 0, 0.5, 1), (0.5, 0, 1, 1)) == 0.0
    assert iou((0, 0, 1, 1), (0, 0, 0.5, 1)) == pytest.approx(0.5)
    assert iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0


def test_rescoring_is_byte_identical(tmp_path, suite):
    from rabench.score import output

    root, cases = suite
    run = write_run(tmp_path / "r", root, cases, {"self": perfect, "pay": always_pay})
    a = output.encode(score_runs([str(run)]).doc)
    b = output.encode(score_runs([str(run)]).doc)
    assert a == b


def test_the_metric_registry_names_every_ap_field():
    from rabench.contracts.ap import FIELD_NAMES
    from rabench.score.metrics import AP_FIELDS

    assert AP_FIELDS == FIELD_NAMES
