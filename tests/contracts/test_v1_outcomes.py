"""Runs written before contracts version 2 still score, to the same rows.

``v1-runs/`` holds two runs made by rabench at contracts version 1 (commit 90f7e51): ``meta``
and ``null`` on the committed ``cases/sample``, ``self`` on ``cases/sample-ap`` (its answers in
version 1's ``ap_verdict`` field). The digests are of the rows.json that rabench wrote for
them; scored now, the file differs in one place only: the header's ``contracts_version``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from rabench.contracts import APVerdict, CONTRACTS_VERSION, Verdict
from rabench.score.load import load_runs
from rabench.score.scorer import score_runs, write_outputs

HERE = Path(__file__).parent / "v1-runs"
REPO = Path(__file__).resolve().parents[2]
V1_ROWS_SHA256 = {
    "receipt": ("sample", "c4373571ed570077e56df713a828929d1be5acd8f262e1a97e7ae7be047fca46"),
    "ap": ("sample-ap", "4d35c22124f2ea9c3cb44ab410945d8120d5de3a58c81363a5fdb4308234ce72"),
}


def _copy(tmp_path: Path, name: str) -> Path:
    run = tmp_path / "runs" / name
    shutil.copytree(HERE / name, run)
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["contracts_version"] == 1
    manifest["suite_dir"] = str(REPO / "cases" / V1_ROWS_SHA256[name][0])  # wherever the tests run from
    (run / "run.json").write_text(json.dumps(manifest))
    return run


@pytest.mark.parametrize("name", sorted(V1_ROWS_SHA256))
def test_a_version_1_run_scores_to_the_rows_it_scored_to_then(tmp_path, name):
    run = _copy(tmp_path, name)
    write_outputs(score_runs([str(run)]), tmp_path / "report")
    data = (tmp_path / "report" / "rows.json").read_bytes()
    assert CONTRACTS_VERSION == 2
    assert f'"contracts_version": {CONTRACTS_VERSION},'.encode() in data
    as_v1 = data.replace(b'"contracts_version": 2,', b'"contracts_version": 1,', 1)
    assert hashlib.sha256(as_v1).hexdigest() == V1_ROWS_SHA256[name][1]


def test_a_version_1_ap_answer_is_read_into_the_one_answer_field(tmp_path):
    from rabench.score.tasks.ap_score import load_ap_runs

    ap, _ = load_ap_runs([str(_copy(tmp_path, "ap"))])
    answers = [oc.verdict for t in ap.targets for oc in t.outcomes]
    assert len(answers) == 40 and all(isinstance(v, APVerdict) for v in answers)
    receipt = load_runs([str(_copy(tmp_path, "receipt"))])
    ok = [oc.verdict for t in receipt.targets for oc in t.outcomes if oc.status == "ok"]
    assert ok and all(isinstance(v, Verdict) for v in ok)
