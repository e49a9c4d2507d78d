"""Audit of the scorer against RA-Bench 0.2.0, sentence by sentence.

Each test quotes the spec sentence it checks and computes the expected value by
hand (or with a slow, obvious reference) on a tiny run written as real files
(manifest.jsonl, run.json, outcomes.jsonl) and scored through ``score_runs``.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import numpy as np
import pytest

from rabench.cases.manifest import file_sha256
from rabench.contracts import (
    Authenticity, Capabilities, Case, Check, Fields, Outcome, Reason, ReceiptLabel, RunManifest,
    SuiteHeader, TargetInfo, Verdict,
)
from rabench.score.normalise import field_right, normalise_text, text_similarity
from rabench.score.scorer import score_runs

SELF = "self"
DIY = "diy:x:m"
ALL_CAPS = Capabilities(checks=True, memory=True, proofs=True)


def genuine(**kw) -> ReceiptLabel:
    return ReceiptLabel(authenticity=Authenticity(verdict="genuine"), **kw)


def fake(cls: str = "ai_full", edited: list[str] | None = None, **kw) -> ReceiptLabel:
    return ReceiptLabel(authenticity=Authenticity(verdict="fake", fake_class=cls, edited_fields=edited or []),
                        **kw)


def case(cid: str, label: ReceiptLabel, **kw) -> Case:
    return Case(id=cid, file=f"{cid}.jpg", sha256="0" * 64, media_type="image/jpeg", label=label, **kw)


def ok(cid: str, rep: int = 0, target: str = SELF, **verdict) -> Outcome:
    return Outcome(run_id="audit", case_id=cid, target=target, repetition=rep, status="ok", attempts=1,
                   latency_s=1.0, verdict=Verdict(**verdict))


def failed(cid: str, rep: int = 0, target: str = SELF, status: str = "error") -> Outcome:
    return Outcome(run_id="audit", case_id=cid, target=target, repetition=rep, status=status, attempts=1,
                   latency_s=1.0, error="boom")


def score(tmp: Path, cases: list[Case], outcomes: list[Outcome], reps: int = 1,
          targets: list[TargetInfo] | None = None):
    enc = msgspec.json.Encoder()
    sdir = tmp / "suite"
    sdir.mkdir(parents=True, exist_ok=True)
    with (sdir / "manifest.jsonl").open("wb") as fh:
        fh.write(enc.encode(SuiteHeader(suite="receipt", name="audit")) + b"\n")
        for c in cases:
            fh.write(enc.encode(c) + b"\n")
    rdir = tmp / "runs" / "audit"
    rdir.mkdir(parents=True, exist_ok=True)
    targets = targets or [TargetInfo(id=SELF, kind="self", capabilities=ALL_CAPS)]
    manifest = RunManifest(run_id="audit", suite_dir=str(sdir), suite_name="audit", suite_kind="receipt",
                           manifest_sha256=file_sha256(sdir / "manifest.jsonl"), targets=targets,
                           repetitions=reps, seed=1, rabench_version="test")
    (rdir / "run.json").write_bytes(enc.encode(manifest))
    (rdir / "outcomes.jsonl").write_bytes(b"".join(enc.encode(o) + b"\n" for o in outcomes))
    result = score_runs([str(rdir)])
    return {(r.task, r.metric, r.stratum, r.target): r for r in result.rows}, result


def row(rows, task: str, metric: str, stratum: str = "all", target: str = SELF):
    return rows[(task, metric, stratum, target)]


# --- Extraction ---------------------------------------------------------------------------


def test_merchant_punctuation_is_dropped_not_turned_into_a_space():
    """Spec: 'Merchant name: lowercase, accents stripped, "&" read as "and", punctuation
    dropped, then a match at edit-distance similarity >= 0.9.'

    Dropped means deleted: "Joe's" and "Joes" both read "joes" (similarity 1). Turning the
    apostrophe into a space would give "joe s" vs "joes", 1 - 1/5 = 0.8, a wrong answer.
    """
    assert normalise_text("Joe's Diner") == "joes diner"
    assert normalise_text("7-Eleven") == "7eleven"
    assert normalise_text("Smith&Sons, Ltd.") == "smith and sons ltd"  # "&" is read as the word "and"
    assert normalise_text("  Café   Müller!! ") == "cafe muller"
    assert field_right("merchant", "Joe's", "Joes")
    assert field_right("merchant", "A.B.C. Foods", "ABC Foods")
    # Edit-distance similarity: 1 - distance / longer length, on the normalised strings.
    assert text_similarity("Joe's", "Joe") == pytest.approx(1 - 1 / 4)
