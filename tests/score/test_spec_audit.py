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


# --- Units: every case counts -------------------------------------------------------------


def test_a_case_without_any_outcome_counts_as_a_failed_run(tmp_path):
    """Spec: "Every target gets the same cases ... and the same scoring"; "A case run several
    times counts once, with the share of its runs that succeeded"; "A failed call or an
    unreadable answer gets every field wrong."

    A case the target never answered (an unfinished run) must not drop out of its rows —
    otherwise a target that skips hard cases scores on an easier set. It counts as one run
    that did not succeed. Operations rates stay over the calls actually made.
    """
    cases = [case("g1", genuine(total=1.0)), case("g2", genuine(total=2.0)),
             case("f1", fake(total=3.0)), case("f2", fake(total=4.0))]
    outcomes = [ok("g1", fields=Fields(total=1.0), risk=0.2), ok("f1", fields=Fields(total=3.0), risk=0.9)]
    rows, _ = score(tmp_path, cases, outcomes)
    valid = row(rows, "extraction", "valid_output_rate")
    assert (valid.value, valid.n) == (0.5, 4)
    total = row(rows, "extraction", "total_accuracy")
    assert (total.value, total.n) == (0.5, 4)
    # AUC: g2 and f2 have no risk -> 0.5. Pairs (f1,g1)=1 (f1,g2)=1 (f2,g1)=1 (f2,g2)=0.5.
    auc = row(rows, "authenticity", "roc_auc")
    assert auc.value == pytest.approx(3.5 / 4) and auc.n == 4
    det = row(rows, "authenticity", "detection_at_risk_0.5")
    assert (det.value, det.n) == (0.5, 2)
    err = row(rows, "operations", "error_rate")
    assert (err.value, err.n) == (0.0, 2)  # two calls were made, neither failed
    assert "2 cases without an outcome" in valid.note


# --- Evidence -----------------------------------------------------------------------------


def test_an_arithmetic_proof_counts_only_with_the_numbers(tmp_path):
    """Spec: "A finding is proof of tampering when a caller can check it without trusting a
    model ...: ..., printed amounts that don't add up (with the numbers), ..."

    An arithmetic "proof" that gives no numbers can't be checked by the caller: it is not
    proof. The numbers may be in the reason's text or in the check it reports.
    """
    bare = Reason(text="Printed amounts don't add up.", kind="proof", proof_type="arithmetic")
    in_text = Reason(text="Subtotal 8.00 + tax 2.00 = 10.00, but the total printed is 12.00.",
                     kind="proof", proof_type="arithmetic")
    via_check = Reason(text="Printed amounts don't add up.", kind="proof", proof_type="arithmetic",
                       check="totals_add_up")
    check = Check(name="totals_add_up", status="failed", fields=["total", "subtotal"],
                  numbers={"subtotal": 8.0, "tax": 2.0, "total": 12.0})
    cases = [case(f"f{i}", fake()) for i in range(4)] + [case("g0", genuine())]
    outcomes = [
        ok("f0", risk=0.9, reasons=[bare]),
        ok("f1", risk=0.9, reasons=[in_text]),
        ok("f2", risk=0.9, reasons=[via_check], checks=[check]),
        ok("f3", risk=0.9, reasons=[via_check]),  # names a check the verdict doesn't report
        ok("g0", risk=0.1, reasons=[bare]),
    ]
    rows, _ = score(tmp_path, cases, outcomes)
    caught = row(rows, "evidence", "fakes_caught_with_proof")
    assert (caught.value, caught.n) == (2 / 4, 4)
    assert row(rows, "evidence", "genuine_with_proof").value == 0.0


# --- Decisions ----------------------------------------------------------------------------


def _ece_reference(risk: list[float], is_fake: list[bool]) -> float:
    """Slow, obvious ECE: 10 bins [k/10, (k+1)/10), the last closed, by comparison."""
    total = 0.0
    for k in range(10):
        lo, hi = k / 10, (k + 1) / 10
        members = [i for i, r in enumerate(risk) if lo <= r < hi or (k == 9 and r == 1.0)]
        if members:
            mean_risk = sum(risk[i] for i in members) / len(members)
            share_fake = sum(is_fake[i] for i in members) / len(members)
            total += len(members) / len(risk) * abs(mean_risk - share_fake)
    return total


def test_calibration_bins_are_equal_width_by_comparison_not_by_float_product(tmp_path):
    """Spec: "Calibration error: expected calibration error of risk against "is fake" over
    every run with a risk, 10 equal-width bins, weighted by run count."

    0.3 * 3 == 0.8999999999999999 lies in [0.8, 0.9), though int(risk * 10) says 9.
    """
    just_below = 0.3 * 3
    assert just_below < 0.9 and int(just_below * 10) == 9
    risks = [just_below, 0.9, 0.05, 1.0, 0.1]
    fakes = [True, False, False, True, False]
    cases = [case(f"c{i}", fake() if f else genuine()) for i, f in enumerate(fakes)]
    outcomes = [ok(f"c{i}", risk=r) for i, r in enumerate(risks)]
    rows, _ = score(tmp_path, cases, outcomes)
    ece = row(rows, "decisions", "calibration_error")
    assert ece.n == 5
    assert ece.value == pytest.approx(_ece_reference(risks, fakes))
    assert ece.value == pytest.approx((0.1 + 0.9 + 0.05 + 0.0 + 0.1) / 5)


def _cost(ffr: float, det: float, p: float = 0.01, c_miss: float = 100.0, c_review: float = 17.0) -> float:
    return 1000 * ((1 - p) * ffr * c_review + p * (1 - det) * c_miss)


def test_expected_cost_has_rows_for_every_stratum_of_at_least_10_cases(tmp_path):
    """Spec: "Rows are given for all cases and for every stratum (a "dimension=value" tag on
    the case, or a label-derived group) with at least 10 cases." and "Expected cost per 1,000
    receipts at risk >= 0.5 and >= 0.7: 1000 x ((1 - p) x false-flag rate x C_review + p x
    (1 - detection) x C_miss)", with p = 1%, C_miss = $100, C_review = $17.

    The cost of a stratum uses that stratum's authenticity rows: its false-flag rate and
    detection (a fake-class stratum: that class's fakes against every genuine receipt).
    """
    cases, outcomes = [], []
    # capture=photo: 5 genuine (risks .1 .2 .3 .6 .8), 5 ai_full fakes (.4 .55 .75 .9 .95).
    for i, r in enumerate([0.1, 0.2, 0.3, 0.6, 0.8]):
        cases.append(case(f"pg{i}", genuine(), tags={"capture": "photo"}))
        outcomes.append(ok(f"pg{i}", risk=r))
    for i, r in enumerate([0.4, 0.55, 0.75, 0.9, 0.95]):
        cases.append(case(f"pf{i}", fake(), tags={"capture": "photo"}))
        outcomes.append(ok(f"pf{i}", risk=r))
    # capture=scan: 3 cases only -> no stratum rows. Two hand_edit fakes and a genuine receipt.
    for cid, lab, r in [("sg", genuine(), 0.0), ("sf0", fake("hand_edit"), 0.2), ("sf1", fake("hand_edit"), 0.8)]:
        cases.append(case(cid, lab, tags={"capture": "scan"}))
        outcomes.append(ok(cid, risk=r))
    rows, _ = score(tmp_path, cases, outcomes)
    m5, m7 = "expected_cost_per_1000_at_risk_0.5", "expected_cost_per_1000_at_risk_0.7"
    photo5, photo7 = row(rows, "decisions", m5, "capture=photo"), row(rows, "decisions", m7, "capture=photo")
    assert photo5.value == pytest.approx(_cost(ffr=2 / 5, det=4 / 5)) and photo5.n == 10
    assert photo7.value == pytest.approx(_cost(ffr=1 / 5, det=3 / 5))
    assert ("decisions", m5, "capture=scan", SELF) not in rows
    # The whole set: 6 genuine (2 flagged at 0.5), 7 fakes (5 flagged at 0.5, 4 at 0.7).
    assert row(rows, "decisions", m5).value == pytest.approx(_cost(ffr=2 / 6, det=5 / 7))
    assert row(rows, "decisions", m7).value == pytest.approx(_cost(ffr=1 / 6, det=4 / 7))
    # class=ai_full has 5 fakes, fewer than 10 -> no row.
    assert ("decisions", m5, "class=ai_full", SELF) not in rows


# --- Findings -----------------------------------------------------------------------------


def test_latency_and_cost_decided_at_exactly_1_2_times_despite_float_error():
    """Spec: "for latency and cost, which have no interval, only when one value is at least
    1.2 times the other."  0.102 is exactly 1.2 x 0.085, though 0.102 / 0.085 in binary
    floating point is 1.1999999999999997."""
    from rabench.contracts import Row
    from rabench.score.findings import compare

    assert 0.102 / 0.085 < 1.2
    ours = Row(task="operations", metric="cost_per_check_usd", stratum="all", target=SELF, value=0.085, n=50)
    base = Row(task="operations", metric="cost_per_check_usd", stratum="all", target=DIY, value=0.102, n=50)
    assert compare(ours, base)[0] == "win"
    assert compare(base, ours)[0] == "loss"
    just_under = Row(task="operations", metric="cost_per_check_usd", stratum="all", target=DIY,
                     value=0.1019, n=50)
    assert compare(ours, just_under)[0] == "tie"
    few = Row(task="operations", metric="cost_per_check_usd", stratum="all", target=DIY, value=1.0, n=9)
    assert compare(ours, few) == ("tie", "fewer than 10 calls on one side")
