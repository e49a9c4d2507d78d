"""A synthetic run of a few hundred cases: every metric present for every target,
strata rows where the spec asks for them, and byte-identical re-scoring."""

from __future__ import annotations

import pytest

from rabench.score import synthetic
from rabench.score.metrics import AP_TASKS, METRICS
from rabench.score.rows import MIN_STRATUM
from rabench.score.scorer import score_runs, write_outputs


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("syn")
    run = synthetic.make(root, n_targets=3, n_cases=400, reps=2, seed=5)
    return run, score_runs([str(run)])


def test_every_metric_has_a_headline_row_for_every_target(scored):
    _, result = scored
    have = {(r.task, r.metric, r.target) for r in result.rows if r.stratum == "all"}
    targets = {t.id for t in result.doc.header.targets}
    assert have == {(m.task, m.name, t) for m in METRICS for t in targets if m.task not in AP_TASKS}


def test_strata_rows_follow_the_spec(scored):
    _, result = scored
    auth = {r.stratum for r in result.rows if r.task == "authenticity" and r.target == "self"}
    assert {"class=ai_full", "arithmetic=inconsistent", "provenance=intact", "capture=photo"} <= auth
    for r in result.rows:
        if r.stratum != "all" and not r.stratum.startswith("assumption=") and r.interval == "wilson":
            assert r.n >= MIN_STRATUM
    dup = {r.stratum for r in result.rows if r.task == "duplicates" and r.target == "self"}
    assert any(s.startswith("transform=") for s in dup)


def test_rescoring_the_same_run_is_byte_identical(scored, tmp_path):
    run, result = scored
    a = write_outputs(result, tmp_path / "a")[0].read_bytes()
    b = write_outputs(score_runs([str(run)]), tmp_path / "b")[0].read_bytes()
    assert a == b
