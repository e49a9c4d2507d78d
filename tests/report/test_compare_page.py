"""`rabench compare`: moved rows first, then the cases whose decision changed (console and --html)."""

import re
import shutil

import msgspec

from rabench.cli.main import main
from rabench.contracts import Outcome
from rabench.score.compare import compare
from rabench.score.synthetic import make


def _runs(tmp_path):
    run_a = make(tmp_path / "a", n_targets=2, n_cases=200, reps=1, seed=5)
    run_b = tmp_path / "b"
    shutil.copytree(run_a, run_b)
    manifest = msgspec.json.decode((run_b / "run.json").read_bytes())
    manifest["run_id"] = "b"
    (run_b / "run.json").write_bytes(msgspec.json.encode(manifest))
    # Run B: `self` loses its risk on every fake whose id ends in 0-4 (those it flagged are now missed).
    path = run_b / "outcomes.jsonl"
    out = []
    for oc in msgspec.json.Decoder(Outcome).decode_lines(path.read_bytes()):
        if oc.target == "self" and oc.verdict is not None and oc.case_id[-1] in "01234":
            oc = msgspec.structs.replace(oc, verdict=msgspec.structs.replace(oc.verdict, risk=None))
        out.append(msgspec.json.encode(oc))
    path.write_bytes(b"\n".join(out) + b"\n")
    return run_a, run_b


def test_changed_cases_are_the_ones_whose_decision_flipped(tmp_path, capsys):
    run_a, run_b = _runs(tmp_path)
    a = {
        o.case_id: o
        for o in msgspec.json.Decoder(Outcome).decode_lines((run_a / "outcomes.jsonl").read_bytes())
        if o.target == "self"
    }
    want = {
        cid
        for cid, o in a.items()
        if cid[-1] in "01234" and o.status == "ok" and o.verdict.risk is not None and o.verdict.risk >= 0.5
    }
    c = compare(str(run_a), str(run_b))
    assert {x.case_id for x in c.changed} == want and all(x.target == "self" for x in c.changed)
    assert all(x.before == "flagged" and x.after == "approved" for x in c.changed)
    assert all((x.now == "now wrong") == x.fake for x in c.changed)
    # console: moved rows first, then the changed cases, now wrong first
    page = tmp_path / "cmp.html"
    assert main(["compare", str(run_a), str(run_b), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert out.index("moved beyond their intervals") < out.index("cases whose decision changed")
    assert f"self: {len(want)} changed" in out
    listed = re.findall(r"^  (now wrong|now right)\s+(\S+)", out, flags=re.M)
    assert [k for k, _ in listed] == sorted((k for k, _ in listed), key=lambda k: k != "now wrong")
    # the page: self-contained, moved rows before the cases, every changed case listed
    text = page.read_text()
    assert "<script" not in text and text.index("id='moved'") < text.index("id='changed'")
    assert all(f"<td>{cid}</td>" in text for cid in want)
    assert "diy:prov:model-1</code>: 0 changed" in text
