"""Issue 32, defect 5: the reference target of the verdict and the findings (``--reference``;
default the `self` target, else the first target named), every other target compared with it,
and the report's verdict and findings compare the same pairs."""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from rabench.cli.main import main
from rabench.contracts import Outcome, RunManifest
from rabench.score.synthetic import make


def _run(tmp_path, order: list[str], kinds: dict[str, str] | None = None):
    """A synthetic run of the targets in ``order`` (ids without "diy:prov:"), named in that order."""
    run = make(tmp_path, n_targets=4, n_cases=200, reps=1, seed=3)
    m = msgspec.json.decode((run / "run.json").read_bytes(), type=RunManifest)
    by = {t.id.removeprefix("diy:prov:"): t for t in m.targets}
    for k, kind in (kinds or {}).items():  # e.g. a null or meta baseline (kinds "null", "other")
        by[k] = msgspec.structs.replace(by[k], kind=kind)
    keep = {by[k].id for k in order}
    path = run / "outcomes.jsonl"
    ocs = msgspec.json.Decoder(Outcome).decode_lines(path.read_bytes())
    path.write_bytes(b"\n".join(msgspec.json.encode(o) for o in ocs if o.target in keep) + b"\n")
    m = msgspec.structs.replace(m, targets=[by[k] for k in order])
    (run / "run.json").write_bytes(msgspec.json.encode(m))
    return run


def _pairs(rep):
    doc = json.loads((rep / "rows.json").read_text())
    return list(dict.fromkeys((f["target"], f["baseline"]) for f in doc["findings"])), doc["header"]


def test_first_target_named_is_the_reference_and_every_other_is_compared(tmp_path, capsys):
    # as `--target diy:openai:gpt-5 --target diy:openai:gpt-4o --target null`: the alphabetically
    # first target used to be the reference, so "gpt-5 vs null" never appeared
    run = _run(tmp_path, ["model-3", "model-1", "model-2"])
    assert main(["score", str(run), "--out", str(tmp_path / "rep")]) == 0
    pairs, header = _pairs(tmp_path / "rep")
    assert pairs == [("diy:prov:model-3", "diy:prov:model-1"), ("diy:prov:model-3", "diy:prov:model-2")]
    assert header["reference"] == "diy:prov:model-3"
    assert "reference: diy:prov:model-3 (vs diy:prov:model-1, diy:prov:model-2)" in capsys.readouterr().out


def test_reference_flag_chooses_it(tmp_path, capsys):
    run = _run(tmp_path, ["model-3", "model-1", "model-2"])
    assert main(["score", str(run), "--out", str(tmp_path / "rep"), "--reference", "diy:prov:model-2"]) == 0
    pairs, _ = _pairs(tmp_path / "rep")
    assert pairs == [("diy:prov:model-2", "diy:prov:model-3"), ("diy:prov:model-2", "diy:prov:model-1")]


def test_unknown_reference_is_one_line(tmp_path, capsys):
    run = _run(tmp_path, ["model-3", "model-1", "model-2"])
    assert main(["score", str(run), "--out", str(tmp_path / "rep"), "--reference", "gpt-6"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--reference gpt-6: not a target of these runs" in err[0]


def test_self_is_the_default_reference_wherever_it_is_named(tmp_path):
    run = _run(tmp_path, ["model-2", "self", "model-1"])
    assert main(["score", str(run), "--out", str(tmp_path / "rep")]) == 0
    pairs, _ = _pairs(tmp_path / "rep")
    assert pairs == [("self", "diy:prov:model-2"), ("self", "diy:prov:model-1")]


@pytest.mark.parametrize("reference", [None, "diy:prov:model-1"])
def test_verdict_and_findings_compare_the_same_pairs(tmp_path, reference):
    """The bench report compared self with meta and null in its verdict, then said
    "Findings: no baseline to compare with"."""
    run = _run(tmp_path, ["self", "model-1", "model-2"], kinds={"model-1": "other", "model-2": "null"})
    rep = tmp_path / "rep"
    assert main(["score", str(run), "--out", str(rep), *(["--reference", reference] if reference else [])]) == 0
    assert main(["report", str(rep)]) == 0
    pairs, _ = _pairs(rep)
    page = (rep / "report.html").read_text()
    verdict = page[page.index("id='verdict'") : page.index("id='headline'")]
    said = re.findall(r"<h3><code>([^<]+)</code> vs <code>([^<]+)</code>", verdict)
    assert said == pairs and len(pairs) == 2
    findings = page[page.index("id='findings'") :]
    assert "No baseline" not in page and "nothing to compare" not in findings
    columns = re.findall(r"<th>([^<]+) vs ([^<]+)</th>", findings)
    assert columns == pairs
    md = (rep / "report.md").read_text()
    assert re.findall(r"### `([^`]+)` vs `([^`]+)`", md) == pairs
