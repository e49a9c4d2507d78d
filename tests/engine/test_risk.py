"""The risk model: fitted logistic regression (checked against scikit-learn), proof floor, stored as data."""

from __future__ import annotations

import numpy as np
import pytest

from rabench.engine import risk as risk_mod
from rabench.engine.signals import Signal

PROOF = Signal("check.totals_add_up", "proof", "off by 1.00", ("total", "subtotal"), "arithmetic")
EDITOR = Signal("file.editor", "file_fact", "saved by an editor")
AGE = Signal("plausibility.receipt_age", "plausibility", "old", ("date",), value=0.4)


def test_newton_fit_matches_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 3))
    y = (x @ np.array([1.5, -2.0, 0.5]) + 0.3 + rng.logistic(size=400) > 0).astype(float)
    coef, intercept = risk_mod.fit_logistic(x, y, l2=1.0)
    ref = LogisticRegression(C=1.0, tol=1e-10, max_iter=10_000).fit(x, y)
    np.testing.assert_allclose(coef, ref.coef_[0], atol=1e-4)
    assert intercept == pytest.approx(ref.intercept_[0], abs=1e-4)


def test_fitted_model_ranks_signals_it_learned():
    genuine = [[]] * 30 + [[EDITOR]] * 10
    fakes = [[EDITOR]] * 25 + [[PROOF]] * 15
    model = risk_mod.fit(genuine + fakes, [0] * 40 + [1] * 40, min_count=1, split="dev", seed=3)
    assert "file.editor" in model.features and model.split == "dev" and model.seed == 3
    assert risk_mod.risk(model, []) < risk_mod.risk(model, [EDITOR]) < risk_mod.risk(model, [PROOF])


def test_a_proof_drives_risk_to_at_least_0_7_even_when_the_model_disagrees():
    model = risk_mod.RiskModel(features=["kind:proof"], coef=[-5.0], intercept=-5.0)
    assert risk_mod.probability(model, [PROOF]) < 0.01
    assert risk_mod.risk(model, [PROOF]) >= 0.7
    assert risk_mod.risk(model, [AGE]) < 0.01


def test_plausibility_alone_never_carries_a_receipt_to_the_flag_line():
    # a model that weighs plausibility heavily (as a fit on synthetic fakes can)
    model = risk_mod.RiskModel(
        features=["kind:plausibility", "kind:file_fact", "plausibility.receipt_age"],
        coef=[3.0, 1.5, 2.0],
        intercept=-1.0,
    )
    assert risk_mod.probability(model, [AGE]) > 0.5
    held = risk_mod.risk(model, [AGE])
    assert risk_mod.HOLD_FROM <= held < 0.5  # raised, but not flagged
    # other evidence that is over the line by itself is not held back
    assert risk_mod.risk(model, [EDITOR, AGE]) == pytest.approx(risk_mod.probability(model, [EDITOR, AGE]), abs=1e-6)
    # a proof still floors the risk at 0.7
    assert risk_mod.risk(model, [PROOF, AGE]) >= 0.7


def test_risk_is_in_unit_interval_and_ignores_unknown_signals():
    model = risk_mod.RiskModel(features=["kind:opinion", "x"], coef=[40.0, 40.0], intercept=0.0)
    many = [Signal(f"forensics.{i}", "opinion", "odd") for i in range(10)]
    assert 0.0 <= risk_mod.risk(model, many) <= 1.0
    assert risk_mod.risk(model, [Signal("never.seen", "file_fact", "x")]) == pytest.approx(0.5)


def test_model_round_trips_as_json(tmp_path):
    model = risk_mod.fit([[EDITOR], []] * 5, [1, 0] * 5, min_count=1, split="dev", seed=1, suite="s")
    path = risk_mod.save_model(model, tmp_path / "m.json")
    assert risk_mod.load_model(path) == model


def test_shipped_model_records_its_provenance():
    model = risk_mod.load_model()
    # fitted on a dev mix (synthetic dev + real dev receipts + forgeries), never a test split
    assert model.n_cases > 0 and 0 < model.n_fakes < model.n_cases
    assert "test" not in model.split.split("+") and "dev" in model.split.split("+")
    assert model.command.startswith("rabench engine fit --suite") and "quick/dev" in model.suite


UNRECONCILED = Signal("check.amounts_unreconciled", "opinion", "amounts could not be reconciled", ("total",), value=1.0)
LOOKS_OFF = Signal("visual.local_inconsistency", "opinion", "the total's line looks different", ("total",), value=6.0)
MEASURE = Signal("visual.noise_z", "opinion", "largest field |z| of the noise level", value=6.0, reason=False)


def test_opinions_alone_never_carry_a_receipt_to_the_flag_line_and_keep_their_order():
    """Issue 14: genuine real receipts (an editor's re-save + amounts the reader could not
    reconcile; a photo whose lines differ in sharpness) were flagged on opinions. Opinion
    reasons raise the risk but, like plausibility, never flag by themselves."""
    model = risk_mod.RiskModel(
        features=["kind:opinion", "kind:file_fact", "check.amounts_unreconciled", "visual.noise_z"],
        coef=[1.5, 0.8, 1.0, 0.4],
        intercept=-1.5,
    )
    one = risk_mod.risk(model, [EDITOR, UNRECONCILED])
    two = risk_mod.risk(model, [EDITOR, UNRECONCILED, LOOKS_OFF])
    assert risk_mod.probability(model, [EDITOR, UNRECONCILED]) > 0.5
    assert risk_mod.HOLD_FROM <= one < two < 0.5  # held, and more opinions still rank higher
    # a measurement is model evidence, not a soft reason: enough of it flags
    strong = risk_mod.risk(model, [EDITOR, MEASURE, UNRECONCILED])
    assert risk_mod.probability(model, [EDITOR, MEASURE]) >= 0.5 and strong >= 0.5
    # and no opinion lowers a risk below what the rest of the evidence gives
    assert one >= risk_mod.probability(model, [EDITOR])


def _measure(v: float) -> Signal:
    return Signal("visual.copy_move", "opinion", "largest copy-move score", reason=False, value=v)


def test_a_knee_is_the_genuine_95th_percentile_and_the_excess_is_what_passes_it():
    genuine = [[_measure(v)] for v in np.linspace(0.0, 3.0, 40)]
    fakes = [[_measure(v)] for v in np.linspace(0.0, 9.0, 40)]
    knees = risk_mod.knees_of(genuine + fakes, [0] * 40 + [1] * 40)
    assert knees == {"visual.copy_move": pytest.approx(float(np.quantile(np.linspace(0.0, 3.0, 40), 0.95)), abs=1e-3)}
    names = ["kind:opinion", "visual.copy_move", "visual.copy_move@excess"]
    row = risk_mod.featurize([_measure(5.0)], names, knees)
    assert row.tolist() == pytest.approx([0.0, 5.0, 5.0 - knees["visual.copy_move"]])
    assert risk_mod.featurize([_measure(1.0)], names, knees).tolist() == [0.0, 1.0, 0.0]
    # a reason of the same name is not a measurement: no excess
    reason = Signal("visual.copy_move", "opinion", "x", value=5.0)
    assert risk_mod.featurize([reason], names, knees)[2] == 0.0


def test_the_fit_weighs_a_measurement_steeply_past_where_genuine_receipts_end():
    """Fakes mostly look ordinary and a third are far past every genuine receipt: with the excess
    the fit separates the far ones more sharply than a straight line in the value can."""
    rng = np.random.default_rng(5)
    gen = rng.uniform(0.0, 3.0, 60)
    fake = np.concatenate([rng.uniform(0.0, 3.0, 40), rng.uniform(5.0, 9.0, 20)])
    sets = [[_measure(float(v))] for v in np.concatenate([gen, fake])]
    labels = [0] * 60 + [1] * 60
    with_knee = risk_mod.fit(sets, labels, min_count=1)
    plain = risk_mod.fit(sets, labels, min_count=1, with_knees=False)
    assert "visual.copy_move@excess" in with_knee.features and with_knee.knees
    assert plain.knees == {} and "visual.copy_move@excess" not in plain.features
    assert with_knee.coef[with_knee.features.index("visual.copy_move@excess")] > 0
    p = risk_mod.probability
    assert p(with_knee, [_measure(7.0)]) > p(plain, [_measure(7.0)])
    assert p(with_knee, [_measure(1.5)]) < p(plain, [_measure(1.5)])


def test_a_model_without_knees_reads_as_before(tmp_path):
    old = b'{"features": ["kind:opinion", "visual.copy_move"], "coef": [0.5, 0.4], "intercept": -2.0}'
    path = tmp_path / "m.json"
    path.write_bytes(old)
    model = risk_mod.load_model(path)
    assert model.knees == {}
    z = 0.4 * 6.0 - 2.0
    assert risk_mod.probability(model, [_measure(6.0)]) == pytest.approx(1 / (1 + np.exp(-z)))
    again = risk_mod.load_model(risk_mod.save_model(msgspec_replace(model, knees={"visual.copy_move": 2.0}), path))
    assert again.knees == {"visual.copy_move": 2.0}


def msgspec_replace(model, **kw):
    import msgspec

    return msgspec.structs.replace(model, **kw)


def _z(v: float) -> Signal:
    return Signal("visual.noise_z", "opinion", "largest field |z| of the noise level", value=v, reason=False)


def test_the_fit_leaves_out_the_measurements_that_do_not_carry_to_real_receipts():
    """Round 5 (issue 14): the per-field noise/sharpness/ink z-scores separate synthetic pastes but
    not hand edits of real receipts; the fit gives them no feature even where they separate the
    fitting set, so no model weighs them and a genuine photo's focus gradient moves nothing."""
    assert {"visual.noise_z", "visual.sharpness_z", "visual.ink_z"} <= risk_mod.NOT_FITTED
    sets = [[_z(1.0), _measure(1.0)] for _ in range(30)] + [[_z(8.0), _measure(1.0 + 5.0 * (i % 2))] for i in range(30)]
    labels = [0] * 30 + [1] * 30
    model = risk_mod.fit(sets, labels)
    assert not any(f.startswith("visual.noise_z") for f in model.features)
    assert "visual.noise_z" not in model.knees and "visual.copy_move" in model.features
    assert risk_mod.probability(model, [_z(10.0), _measure(1.0)]) == risk_mod.probability(model, [_measure(1.0)])
