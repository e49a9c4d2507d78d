"""`rabench compare`: only rows that moved beyond their intervals are listed, in the right direction."""

import msgspec

from rabench.cli.main import main
from rabench.contracts import Outcome, Verdict
from rabench.score.compare import compare_runs
from rabench.score.synthetic import make


def _degrade(run_dir, target: str):
    """A copy of a run where `target` answers every case with no risk (AUC -> 0.5)."""
    path = run_dir / "outcomes.jsonl"
    out = []
    for oc in msgspec.json.Decoder(Outcome).decode_lines(path.read_bytes()):
        if oc.target == target and oc.verdict is not None:
            oc = msgspec.structs.replace(oc, verdict=msgspec.structs.replace(oc.verdict, risk=None))
        out.append(msgspec.json.encode(oc))
    path.write_bytes(b"\n".join(out) + b"\n")


def test_same_run_twice_moves_nothing(tmp_path):
    run = make(tmp_path / "a", n_targets=2, n_cases=200, reps=1, seed=5)
    moved, compared = compare_runs(str(run), str(run))
    assert compared > 40 and moved == []


def test_a_target_that_lost_its_risk_got_worse_on_auc(tmp_path, capsys):
    import shutil

    run_a = make(tmp_path / "a", n_targets=2, n_cases=300, reps=1, seed=5)
    run_b = tmp_path / "b"
    shutil.copytree(run_a, run_b)
    manifest = msgspec.json.decode((run_b / "run.json").read_bytes())
    manifest["run_id"] = "b"
    (run_b / "run.json").write_bytes(msgspec.json.encode(manifest))
    _degrade(run_b, "self")
    moved, _ = compare_runs(str(run_a), str(run_b))
    auc = [m for m in moved if m.metric == "roc_auc"]
    assert [(m.target, m.direction) for m in auc] == [("self", "worse")]
    assert auc[0].after.value == 0.5
    assert all(m.target == "self" for m in moved)  # the untouched target did not move
    assert main(["compare", str(run_a), str(run_b), "--fail-on-worse"]) == 1
    assert "worse  self  authenticity/roc_auc" in capsys.readouterr().out
