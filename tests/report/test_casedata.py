"""cases.json written case by case (``casedata.write``: runs in flat arrays, cases spooled) is
byte for byte what encoding one CasesFile holding every case gives (``_plain_build`` below, the
way it was built before issue 19's memory work), on a run with failed calls, re-recorded
outcomes, cases without outcomes and thumbnails; and it holds far less per outcome."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import msgspec
import pytest
from PIL import Image

from rabench.contracts.views import CasesFile, CaseView, ReasonView, RunView
from rabench.report import casedata
from rabench.score import synthetic
from rabench.score.load import ScoreInput, load_runs
from rabench.score.strata import tag_masks


def _plain_build(inp: ScoreInput) -> CasesFile:
    """Every case's view in memory at once, then one CasesFile (the reference)."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def s(text: str | None) -> int:
        if not text:
            return -1
        text = text[: casedata.MAX_TEXT]
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    names: dict[str, set[int]] = {n: {int(i) for i in m.nonzero()[0]} for n, m in tag_masks(inp.cases).items()}
    for i, case in enumerate(inp.cases.cases):
        a = case.label.authenticity
        names.setdefault(f"label={a.verdict}", set()).add(i)
        if a.fake_class:
            names.setdefault(f"class={a.fake_class}", set()).add(i)
        names.setdefault(f"provenance={case.label.provenance}", set()).add(i)
        if case.lineage is not None:
            names.setdefault(f"duplicate={case.lineage.transform}", set()).add(i)
    strata = sorted(names)
    member: list[list[int]] = [[k for k, name in enumerate(strata) if i in names[name]] for i in range(inp.cases.n)]
    runs: list[list[list[RunView]]] = [[[] for _ in inp.targets] for _ in inp.cases.cases]
    for ti, t in enumerate(inp.targets):
        missing = t.missing if t.missing is not None else [False] * len(t.outcomes)
        for oc, c, miss in zip(t.outcomes, t.case, missing):
            v = oc.verdict
            if v is None:
                runs[int(c)][ti].append((oc.repetition, "missing" if miss else oc.status, None, -1, [], s(oc.error)))
                continue
            fields = ", ".join(f"{k}={val}" for k, val in msgspec.structs.asdict(v.fields).items() if val is not None)
            reasons: list[ReasonView] = [
                (r.kind, s(r.text), list(r.fields), r.proof_type) for r in v.reasons[: casedata.MAX_REASONS]
            ]
            risk = None if v.risk is None else float(v.risk)
            runs[int(c)][ti].append((oc.repetition, oc.status, risk, s(fields), reasons, -1))
    cases = []
    for i, case in enumerate(inp.cases.cases):
        path, media, which = casedata.image_of(inp, case)
        cases.append(
            CaseView(
                id=case.id,
                base=bool(inp.cases.is_base[i]),
                fake=bool(inp.cases.is_fake[i]),
                label=casedata._label(case),
                strata=member[i],
                lineage=f"{case.lineage.transform} of {case.lineage.of}" if case.lineage else None,
                img=casedata.thumb(path, media),
                img_kind=which,
                runs=runs[i],
            )
        )
    return CasesFile(
        format=casedata.FORMAT,
        suite=inp.suite_name,
        targets=[t.id for t in inp.targets],
        strata=strata,
        flag_at=0.5,
        strings=strings,
        cases=cases,
    )


def _run(root: Path, n_cases: int = 120) -> Path:
    run = synthetic.make(root, n_targets=4, n_cases=n_cases, reps=2, seed=3)
    files = root / "suite" / "files"
    files.mkdir(parents=True, exist_ok=True)
    for i in range(0, n_cases, 7):  # a thumbnail for some cases
        Image.new("RGB", (120, 260), (250, 240 - i, 230)).save(files / f"c{i:06d}.jpg")
    lines = (run / "outcomes.jsonl").read_bytes().splitlines(keepends=True)
    kept = [
        ln
        for k, ln in enumerate(lines)
        if k % 11 != 5  # repetitions without an outcome
        and not (b'"case_id":"c000003"' in ln and b'"target":"self"' in ln)
    ]  # a case without any
    again = [
        ln.replace(b'"status":"ok"', b'"status":"error","error":"re-recorded"', 1).replace(
            b'"verdict":{', b'"old_verdict":{', 1
        )
        for ln in kept[::13]
    ]
    again = [
        msgspec.json.encode({k: v for k, v in msgspec.json.decode(ln).items() if k != "old_verdict"}) + b"\n"
        for ln in again
    ]  # later lines for the same units replace the earlier ones
    (run / "outcomes.jsonl").write_bytes(b"".join(kept + again))
    return run


def test_cases_json_is_byte_identical_to_the_plain_build(tmp_path, monkeypatch):
    monkeypatch.setenv("RABENCH_CACHE", str(tmp_path / "no-cache"))  # thumbnails from the case files
    inp = load_runs([str(_run(tmp_path / "r"))])
    assert any(t.missing is not None and t.missing.any() for t in inp.targets)
    expected = msgspec.json.encode(_plain_build(inp)) + b"\n"
    path = casedata.write(inp, tmp_path)
    assert path.read_bytes() == expected
    doc = msgspec.json.decode(expected, type=CasesFile)
    assert sum(c.img is not None for c in doc.cases) >= 15
    statuses = {run[1] for c in doc.cases for per in c.runs for run in per}
    assert {"ok", "error", "missing"} <= statuses
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".cases")) == []  # no spool left


@pytest.mark.slow
def test_the_viewer_data_holds_under_200_bytes_per_outcome(tmp_path, monkeypatch):
    """tracemalloc peak of writing cases.json, 4,000 -> 40,000 outcomes (the plain build: about
    580 B per outcome; 234 B with the string table held as texts)."""
    monkeypatch.setenv(casedata.NO_THUMBNAILS_ENV, "1")

    def peak(n: int) -> int:
        inp = load_runs([str(synthetic.make(tmp_path / str(n), 10, n, 2))])
        gc.collect()
        tracemalloc.start()
        try:
            casedata.write(inp, tmp_path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(50)
    per_outcome = (peak(2_000) - peak(200)) / 36_000
    print(f"cases.json: {per_outcome:.0f} B per outcome")
    assert per_outcome < 200, f"{per_outcome:.0f} B per outcome"
