"""`rabench compare`: only rows that moved beyond their intervals are listed, in the right direction."""

import msgspec

from rabench.cli.main import main
from rabench.contracts import Outcome
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


def _domain_suite(root, n_cases: int, seed: int, *, meta: dict | None = None, real_share: float = 0.0):
    """A scorer-bench suite whose header says where it came from, a share of its cases tagged domain=real."""
    from rabench.contracts import SuiteHeader
    from rabench.score.synthetic import make_suite

    cases = make_suite(root / "suite", n_cases, seed)
    k = int(len(cases) * real_share)
    cases = [msgspec.structs.replace(c, tags={**c.tags, "domain": "real"}) if i < k else c for i, c in enumerate(cases)]
    enc = msgspec.json.Encoder()
    lines = [enc.encode(SuiteHeader(suite="receipt", name="t", meta=meta or {}))]
    (root / "suite" / "manifest.jsonl").write_bytes(b"\n".join(lines + [enc.encode(c) for c in cases]) + b"\n")
    return cases


def _degrade_cases(run_dir, target: str, case_ids: set[str]):
    path = run_dir / "outcomes.jsonl"
    out = []
    for oc in msgspec.json.Decoder(Outcome).decode_lines(path.read_bytes()):
        if oc.target == target and oc.case_id in case_ids and oc.verdict is not None:
            oc = msgspec.structs.replace(oc, verdict=msgspec.structs.replace(oc.verdict, risk=None))
        out.append(msgspec.json.encode(oc))
    path.write_bytes(b"\n".join(out) + b"\n")


def test_one_combined_run_compares_its_synthetic_and_real_cases(tmp_path, capsys):
    from rabench.score.compare import compare_domains
    from rabench.score.synthetic import make_run

    cases = _domain_suite(tmp_path, 600, 4, meta={"generator": "rabench-synth test"}, real_share=0.5)
    make_run(tmp_path / "run", tmp_path / "suite", cases, n_targets=2, reps=1, seed=4)
    _degrade_cases(tmp_path / "run", "self", {c.id for c in cases if c.tags.get("domain") == "real"})
    pairs = {(p.target, p.task, p.metric): p for p in compare_domains([str(tmp_path / "run")])}
    auc = pairs[("self", "authenticity", "roc_auc")]
    assert auc.mark == "worse" and auc.real.value == 0.5 and auc.synthetic.value > 0.8
    assert pairs[("diy:prov:model-1", "authenticity", "roc_auc")].mark == "none"  # untouched target
    assert main(["compare", str(tmp_path / "run"), "--domains", "--fail-on-worse"]) == 1
    out = capsys.readouterr().out
    assert "self: authenticity ROC AUC" in out and "does not carry over" in out


def test_two_runs_of_different_suites_compare_by_their_suites_domains(tmp_path, capsys):
    from rabench.score.synthetic import make_run

    syn = _domain_suite(tmp_path / "s", 300, 5, meta={"generator": "rabench-synth test"})
    real = _domain_suite(tmp_path / "r", 300, 6, meta={"importer": "rabench.cases.importers.folder"})
    make_run(tmp_path / "s" / "run", tmp_path / "s" / "suite", syn, n_targets=1, reps=1, seed=5)
    make_run(tmp_path / "r" / "run", tmp_path / "r" / "suite", real, n_targets=1, reps=1, seed=6)
    # Different suites: the ordinary comparison refuses, the domain comparison is what they are for.
    assert main(["compare", str(tmp_path / "s" / "run"), str(tmp_path / "r" / "run")]) == 2
    assert main(["compare", str(tmp_path / "s" / "run"), str(tmp_path / "r" / "run"), "--domains"]) == 0
    out = capsys.readouterr().out
    assert "self: no headline row differs between synthetic and real" in out  # same simulated skill
    assert "authenticity/roc_auc: synthetic 0." in out
    # A run of one domain is compared through its headline rows: the report's own figures.
    from rabench.score.compare import compare_domains
    from rabench.score.scorer import score_runs

    pairs = compare_domains([str(tmp_path / "s" / "run"), str(tmp_path / "r" / "run")])
    auc = next(p for p in pairs if p.metric == "roc_auc" and p.target == "self")
    head = {(r.target, r.metric): r for r in score_runs([str(tmp_path / "r" / "run")]).rows if r.stratum == "all"}
    assert auc.real == head[("self", "roc_auc")]


def test_domains_without_a_real_side_is_one_line(tmp_path, capsys):
    run = make(tmp_path / "a", n_targets=1, n_cases=100, reps=1, seed=5)
    assert main(["compare", str(run), "--domains"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no synthetic or real cases" in err


def test_fail_on_worse_ignores_latency_noise_unless_asked(tmp_path, capsys):
    """Issue 32, defect 7: loopback latency 24 -> 36 ms (1.5x, no interval) must not fail a CI gate."""
    import shutil

    run_a = make(tmp_path / "a", n_targets=2, n_cases=200, reps=1, seed=5)
    path = run_a / "outcomes.jsonl"
    ocs = list(msgspec.json.Decoder(Outcome).decode_lines(path.read_bytes()))
    path.write_bytes(b"\n".join(msgspec.json.encode(msgspec.structs.replace(o, latency_s=0.024)) for o in ocs) + b"\n")
    run_b = tmp_path / "b"
    shutil.copytree(run_a, run_b)
    manifest = msgspec.json.decode((run_b / "run.json").read_bytes())
    manifest["run_id"] = "b"
    (run_b / "run.json").write_bytes(msgspec.json.encode(manifest))
    path = run_b / "outcomes.jsonl"
    path.write_bytes(b"\n".join(msgspec.json.encode(msgspec.structs.replace(o, latency_s=0.036)) for o in ocs) + b"\n")
    moved, _ = compare_runs(str(run_a), str(run_b))
    assert {m.task for m in moved} == {"operations"} and all(m.direction == "worse" for m in moved)
    assert any(m.metric.startswith("latency") for m in moved)
    assert main(["compare", str(run_a), str(run_b), "--fail-on-worse"]) == 0
    assert "worse" in capsys.readouterr().out  # still listed, just not a failed gate
    assert main(["compare", str(run_a), str(run_b), "--fail-on-worse", "--include-latency"]) == 1
