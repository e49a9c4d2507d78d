"""scripts/measurement-survey.py: a recorded measurement's separation by capture, from `engine fit --results`."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from itertools import product
from pathlib import Path

import msgspec

from rabench.engine.fitting import CaseResult
from rabench.engine.signals import Signal

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "measurement-survey.py"
_spec = importlib.util.spec_from_file_location("measurement_survey", SCRIPT)
assert _spec is not None and _spec.loader is not None
survey = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(survey)  # in process: a subprocess per call spent seconds importing sklearn


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = survey.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


# (id, capture, forge, fake, ghost value, thumbnail local score)
CASES = [
    ("f0", "photo", "rephoto", False, 2.0, 0.10),
    ("f1", "photo", "total", True, 1.0, 0.40),
    ("f2", "photo", "total", True, 3.0, 0.20),
    ("f3", None, None, False, 1.5, None),
    ("f4", None, "total", True, 6.0, None),
    ("f5", None, None, False, 5.0, None),
]


def _write(tmp: Path) -> tuple[Path, Path]:
    suite = tmp / "s"
    suite.mkdir()
    lines = [json.dumps({"type": "suite_header", "suite": "receipt", "name": "x", "contracts_version": 1, "meta": {}})]
    results = []
    (suite / "files").mkdir()

    def case(cid: str, fake: bool, tags: dict[str, str]) -> str:
        data = f"receipt {cid}".encode()
        (suite / "files" / f"{cid}.jpg").write_bytes(data)
        verdict = {"verdict": "fake", "fake_class": "hand_edit"} if fake else {"verdict": "genuine"}
        return json.dumps(
            {
                "id": cid,
                "file": f"files/{cid}.jpg",
                "sha256": hashlib.sha256(data).hexdigest(),
                "media_type": "image/jpeg",
                "label": {"authenticity": verdict},
                "tags": tags,
            }
        )

    for cid, capture, forge, fake, ghost, local in CASES:
        tags = {k: v for k, v in (("capture", capture), ("forge", forge), ("saved", "keep")) if v}
        lines.append(case(cid, fake, tags))
        signals = [Signal("visual.jpeg_ghost", "opinion", "ghost", reason=False, value=ghost)]
        if local is not None:
            signals.append(
                Signal("exif.thumbnail_match", "file_fact", f"matches (score {local:.2f} where 1 = differs)")
            )
        results.append(CaseResult(cid, True, fake, signals))
    results.append(CaseResult("f9", False, True, []))  # a derived case: not a base case, left out
    lines.append(case("f9", True, {})[:-1] + ', "lineage": {"of": "f4", "transform": "reencode"}}')
    (suite / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    res = tmp / "results.jsonl"
    res.write_bytes(b"\n".join(msgspec.json.encode(r) for r in results) + b"\n")
    return suite, res


def _auc(gen: list[float], fake: list[float]) -> float:
    """The slow obvious reference: the share of (fake, genuine) pairs ranked right, ties half."""
    return sum((f > g) + 0.5 * (f == g) for f, g in product(fake, gen)) / (len(fake) * len(gen))


def test_auc_by_capture_matches_the_pairwise_reference_and_values_come_from_the_message(tmp_path, capsys):
    suite, res = _write(tmp_path)
    code, out, err = _run(capsys, res, suite, "--signal", "visual.jpeg_ghost", "--knee", "4")
    assert code == 0, err
    lines = out.splitlines()
    flat = next(x for x in lines if x.startswith("flat:"))
    photo = next(x for x in lines if x.startswith("photo:"))
    assert f"AUC {_auc([1.5, 5.0], [6.0]):.3f}" in flat and "over 4.0: genuine 1, fakes 1" in flat
    assert f"AUC {_auc([2.0], [1.0, 3.0]):.3f}" in photo and "genuine 1, fakes 2" in photo
    code, out, err = _run(capsys, res, suite, "--signal", "exif.thumbnail_match", "--number", r"score ([0-9.]+) where")
    assert code == 0, err
    assert "photo: genuine 1, fakes 2; AUC 1.000" in out  # 0.10 under 0.20 and 0.40
    assert "fake total/keep (2): 0.20, 0.40" in out


def test_results_of_other_suites_are_refused(tmp_path, capsys):
    suite, res = _write(tmp_path)
    res.write_bytes(b"\n".join(res.read_bytes().splitlines()[:-2]) + b"\n")
    code, _, err = _run(capsys, res, suite, "--signal", "visual.jpeg_ghost")
    assert code == 2 and "its cases 0-6 are not the cases of" in err
