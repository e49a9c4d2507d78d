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
    Authenticity,
    Capabilities,
    Case,
    Check,
    Fields,
    Outcome,
    Reason,
    ReceiptLabel,
    RunManifest,
    SuiteHeader,
    TargetInfo,
    Verdict,
)
from rabench.score.normalise import field_right, normalise_text, text_similarity
from rabench.score.scorer import score_runs

SELF = "self"
DIY = "diy:x:m"
ALL_CAPS = Capabilities(checks=True, memory=True, proofs=True)


def genuine(**kw) -> ReceiptLabel:
    return ReceiptLabel(authenticity=Authenticity(verdict="genuine"), **kw)


def fake(cls: str = "ai_full", edited: list[str] | None = None, **kw) -> ReceiptLabel:
    return ReceiptLabel(authenticity=Authenticity(verdict="fake", fake_class=cls, edited_fields=edited or []), **kw)


def case(cid: str, label: ReceiptLabel, **kw) -> Case:
    return Case(id=cid, file=f"{cid}.jpg", sha256="0" * 64, media_type="image/jpeg", label=label, **kw)


def ok(cid: str, rep: int = 0, target: str = SELF, **verdict) -> Outcome:
    return Outcome(
        run_id="audit",
        case_id=cid,
        target=target,
        repetition=rep,
        status="ok",
        attempts=1,
        latency_s=1.0,
        verdict=Verdict(**verdict),
    )


def failed(cid: str, rep: int = 0, target: str = SELF, status: str = "error") -> Outcome:
    return Outcome(
        run_id="audit",
        case_id=cid,
        target=target,
        repetition=rep,
        status=status,
        attempts=1,
        latency_s=1.0,
        error="boom",
    )


def score(
    tmp: Path, cases: list[Case], outcomes: list[Outcome], reps: int = 1, targets: list[TargetInfo] | None = None
):
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
    manifest = RunManifest(
        run_id="audit",
        suite_dir=str(sdir),
        suite_name="audit",
        suite_kind="receipt",
        manifest_sha256=file_sha256(sdir / "manifest.jsonl"),
        targets=targets,
        repetitions=reps,
        seed=1,
        rabench_version="test",
    )
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
    cases = [
        case("g1", genuine(total=1.0)),
        case("g2", genuine(total=2.0)),
        case("f1", fake(total=3.0)),
        case("f2", fake(total=4.0)),
    ]
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
    in_text = Reason(
        text="Subtotal 8.00 + tax 2.00 = 10.00, but the total printed is 12.00.", kind="proof", proof_type="arithmetic"
    )
    via_check = Reason(
        text="Printed amounts don't add up.", kind="proof", proof_type="arithmetic", check="totals_add_up"
    )
    check = Check(
        name="totals_add_up",
        status="failed",
        fields=["total", "subtotal"],
        numbers={"subtotal": 8.0, "tax": 2.0, "total": 12.0},
    )
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
    just_under = Row(task="operations", metric="cost_per_check_usd", stratum="all", target=DIY, value=0.1019, n=50)
    assert compare(ours, just_under)[0] == "tie"
    few = Row(task="operations", metric="cost_per_check_usd", stratum="all", target=DIY, value=1.0, n=9)
    assert compare(ours, few) == ("tie", "fewer than 10 calls on one side")


# --- Choices where the spec leaves room (documented in docs/methodology.md) ---------------


def test_auc_with_repetitions_counts_each_case_once_as_the_mixture_of_its_runs(tmp_path):
    """Spec: "A case run several times counts once, with the share of its runs that
    succeeded." and "ROC AUC uses each target's risk as the score; a result without a risk
    scores 0.5 (no opinion), ties count half."

    For a (fake, genuine) pair of cases the "share of runs that succeeded" is the share of
    their run pairs in which the fake ranks above (ties half); AUC is the mean over case
    pairs. Averaging risks per case first would score a risk no run ever gave.
    """
    from sklearn.metrics import roc_auc_score

    runs = {"g1": [0.2, 0.6], "g2": [0.4], "f1": [0.5, 0.9], "f2": [None]}
    cases = [case("g1", genuine()), case("g2", genuine()), case("f1", fake()), case("f2", fake())]
    outcomes = [
        ok(cid, rep, risk=r) if r is not None else failed(cid, rep)
        for cid, rs in runs.items()
        for rep, r in enumerate(rs)
    ]
    rows, _ = score(tmp_path, cases, outcomes, reps=2)

    def pair(f: str, g: str) -> float:  # slow reference: every run pair of two cases
        scores = lambda c: [0.5 if r is None else r for r in runs[c]]  # noqa: E731
        wins = [1.0 if a > b else 0.5 if a == b else 0.0 for a in scores(f) for b in scores(g)]
        return sum(wins) / len(wins)

    expected = np.mean([pair(f, g) for f in ("f1", "f2") for g in ("g1", "g2")])
    assert expected == pytest.approx((0.75 + 1 + 0.5 + 1) / 4)
    auc = row(rows, "authenticity", "roc_auc")
    assert auc.value == pytest.approx(expected) and auc.n == 4
    # The same as sklearn with each run weighted 1 / (runs of its case).
    y = [c.startswith("f") for c, rs in runs.items() for _ in rs]
    s = [0.5 if r is None else r for rs in runs.values() for r in rs]
    w = [1 / len(rs) for rs in runs.values() for _ in rs]
    assert auc.value == pytest.approx(roc_auc_score(y, s, sample_weight=w))
    # Mean risk per case (g 0.4, 0.4; f 0.7, 0.5) would have given 1.0.
    assert auc.value != pytest.approx(1.0)


def _detection_reference(genuine_risk: list[float | None], fake_risk: list[float | None], alpha: float) -> float:
    """Slow: try every observed risk as threshold T (flag risk >= T; no risk never flagged);
    take the lowest T flagging at most alpha of genuine receipts; share of fakes flagged."""
    flagged = lambda rs, t: sum(1 for r in rs if r is not None and r >= t)  # noqa: E731
    candidates = sorted({r for r in genuine_risk + fake_risk if r is not None})
    valid = [t for t in candidates if flagged(genuine_risk, t) <= alpha * len(genuine_risk)]
    return flagged(fake_risk, min(valid)) / len(fake_risk) if valid else 0.0


@pytest.mark.parametrize(
    "genuine_risk,fake_risk",
    [
        # Ties at 0.9 between a genuine receipt and a fake: at 5% the threshold must lie above.
        ([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], [0.95, 0.9, 0.85, 0.5, None]),
        # Every genuine receipt at 0: the lowest valid threshold is 0.3, and the fake with no
        # risk (0.5 for AUC) is still never flagged.
        ([0.0] * 10, [0.3, None]),
        # A genuine receipt on top: nothing can be flagged at 1% and 5%.
        ([0.99] + [0.1] * 9, [0.8, 0.7]),
    ],
)
def test_detection_at_a_false_flag_rate_follows_the_threshold_rule(tmp_path, genuine_risk, fake_risk):
    """Spec: "Detection at a 1%, 5% and 10% false-flag rate: the share of fakes flagged by
    the lowest threshold that flags at most that share of genuine receipts (ties at the
    threshold are all flagged)." A result without a risk is never flagged (the rule the
    spec gives for the documented thresholds, applied here too: "flagged" means the same)."""
    cases = [case(f"g{i}", genuine()) for i in range(len(genuine_risk))]
    cases += [case(f"f{i}", fake()) for i in range(len(fake_risk))]
    outcomes = [ok(f"g{i}", risk=r) for i, r in enumerate(genuine_risk)]
    outcomes += [ok(f"f{i}", risk=r) for i, r in enumerate(fake_risk)]
    rows, _ = score(tmp_path, cases, outcomes)
    for alpha, tag in ((0.01, "1pct"), (0.05, "5pct"), (0.10, "10pct")):
        got = row(rows, "authenticity", f"detection_at_ffr_{tag}").value
        assert got == pytest.approx(_detection_reference(genuine_risk, fake_risk, alpha)), tag


def test_detection_at_a_false_flag_rate_hand_values(tmp_path):
    genuine_risk = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    fake_risk = [0.95, 0.9, 0.85, 0.5, None]
    cases = [case(f"g{i}", genuine()) for i in range(10)] + [case(f"f{i}", fake()) for i in range(5)]
    outcomes = [ok(f"g{i}", risk=r) for i, r in enumerate(genuine_risk)]
    outcomes += [ok(f"f{i}", risk=r) for i, r in enumerate(fake_risk)]
    rows, _ = score(tmp_path, cases, outcomes)
    # 10%: one genuine receipt may be flagged -> T = 0.85 (0.8 would flag two): 3 of 5 fakes.
    assert row(rows, "authenticity", "detection_at_ffr_10pct").value == pytest.approx(3 / 5)
    # 5%: none may be flagged -> T above 0.9 (the tie at 0.9 is all flagged): only 0.95.
    assert row(rows, "authenticity", "detection_at_ffr_5pct").value == pytest.approx(1 / 5)


def test_edited_field_named_covers_every_fake_whose_label_names_edited_fields(tmp_path):
    """Spec: "Edited field named: over fakes whose label names the edited field (AI-inpainted
    and hand-edited fakes), the share of runs that flag the receipt and whose first 3 reasons
    point at that field."

    Read: the population is "fakes whose label names the edited field"; the parenthesis
    names the classes that have one in the spec author's set. Our suite's pdf_edit fakes
    change a printed field and their labels name it, so they count too. With several edited
    fields, pointing at any one of them counts.
    """
    opinion = lambda text, **kw: Reason(text=text, **kw)  # noqa: E731
    cases = [
        case("a", fake("ai_inpaint", ["total"])),
        case("b", fake("pdf_edit", ["date"])),
        case("c", fake("hand_edit", ["merchant", "total"])),
        case("d", fake("ai_inpaint", ["total"])),
        case("e", fake("pdf_edit", ["total"])),
        case("f", fake("hand_edit", ["date"])),
        case("x", fake("ai_full")),  # no edited field: not in the population
    ]
    filler = [opinion("font looks odd"), opinion("blurry"), opinion("colours off")]
    outcomes = [
        ok("a", risk=0.9, reasons=[opinion("looks pasted", fields=["total"])]),
        ok("b", risk=0.6, reasons=[opinion("the date was altered")]),  # keyword
        ok("c", risk=0.9, reasons=[opinion("x", fields=["merchant"])]),
        ok("d", risk=0.9, reasons=[*filler, opinion("total changed")]),  # 4th reason: too late
        ok("e", risk=0.9, reasons=[opinion("the subtotal is off")]),  # subtotal is not total
        ok("f", risk=0.4, reasons=[opinion("the date was altered")]),  # not flagged
        ok("x", risk=0.9, reasons=[opinion("total")]),
    ]
    rows, _ = score(tmp_path, cases, outcomes)
    named = row(rows, "evidence", "edited_field_named")
    assert (named.value, named.n) == (3 / 6, 6)


def test_stratum_rows_need_10_cases_in_the_row_itself(tmp_path):
    """Spec: "Rows are given for all cases and for every stratum ... with at least 10
    cases." Applied per row: a stratum row is written when the cases it counts number at
    least 10 (12 photos, of which 3 don't add up: coverage yes, recall no)."""
    cases = [case(f"p{i}", genuine(adds_up=i >= 3), tags={"capture": "photo"}) for i in range(12)]
    outcomes = [ok(f"p{i}", risk=0.1, checks=[Check(name="totals_add_up", status="passed")]) for i in range(12)]
    rows, _ = score(tmp_path, cases, outcomes)
    assert row(rows, "checks", "totals_add_up_coverage", "capture=photo").n == 12
    assert ("checks", "totals_add_up_recall", "capture=photo", SELF) not in rows
    assert row(rows, "checks", "totals_add_up_recall").n == 3  # "all" is always written


def test_genuine_with_proof_counts_proof_on_unflagged_genuine_receipts(tmp_path):
    """Spec: "Genuine receipts with proof: the guard against false proof (lower is better)."
    A proof of tampering on a genuine receipt is false proof whether or not the target
    flagged it."""
    proof = Reason(text="AI generator tag in XMP", kind="proof", proof_type="ai_generator_tag")
    cases = [case("g0", genuine()), case("g1", genuine()), case("f0", fake())]
    outcomes = [ok("g0", risk=0.1, reasons=[proof]), ok("g1", risk=0.1), ok("f0", risk=0.1, reasons=[proof])]
    rows, _ = score(tmp_path, cases, outcomes)
    assert row(rows, "evidence", "genuine_with_proof").value == 0.5
    assert row(rows, "evidence", "fakes_caught_with_proof").value == 0.0  # not flagged


def test_field_rule_choices():
    """Currency: "the exact ISO 4217 code" — the code itself (not a symbol, name or other
    code); letter case and surrounding spaces are not part of it. Date: "the exact ISO
    date". A label null: "only a null answer is right" (a blank string is null)."""
    assert field_right("currency", "USD", "usd") and field_right("currency", "USD", " USD ")
    assert not field_right("currency", "USD", "$") and not field_right("currency", "USD", "US$")
    assert not field_right("currency", "USD", "CAD")
    assert field_right("date", "2026-01-05", "2026-01-05")
    assert not field_right("date", "2026-01-05", "2026-1-5")
    assert not field_right("date", "2026-01-05", "2026-01-05T00:00:00")
    assert field_right("receipt_number", None, None) and field_right("receipt_number", None, " ")
    assert not field_right("receipt_number", None, "N/A")


def test_pointing_keywords_are_the_pre_registered_list():
    """Spec: "a pre-registered keyword (total, amount due; subtotal; tax, VAT, GST; date;
    merchant, store, vendor, logo, name; item, line, quantity, price)", matched as whole
    words (optional plural), only for free-text reasons (no @field tag, no check)."""
    from rabench.score.pointing import KEYWORDS, keyword_fields, points_at

    assert [k for k, _ in KEYWORDS] == [
        "total",
        "amount due",
        "subtotal",
        "tax",
        "VAT",
        "GST",
        "date",
        "merchant",
        "store",
        "vendor",
        "logo",
        "name",
        "item",
        "line",
        "quantity",
        "price",
    ]
    assert keyword_fields("Amount  Due differs") == {"total"}
    assert keyword_fields("the SUBTOTAL") == {"subtotal"}
    assert keyword_fields("prices and items") == {"line_items"}
    assert keyword_fields("VAT rate") == {"tax_total"}
    assert keyword_fields("the amount looks odd") == set()  # "amount" alone is not on the list
    assert points_at(Reason(text="the date is fine", fields=["total"]), {}) == {"total"}


def test_a_missing_repetition_is_not_filled_in(tmp_path):
    """Spec: "A case run several times counts once, with the share of its runs that
    succeeded." A case with one of two repetitions recorded counts with the run it has."""
    rows, _ = score(tmp_path, [case("g0", genuine(total=1.0))], [ok("g0", 0, fields=Fields(total=1.0))], reps=2)
    assert row(rows, "extraction", "total_accuracy").value == 1.0


def test_report_details_never_call_a_run_without_a_risk_a_false_flag(tmp_path):
    """Spec: "a result without a risk is never flagged." The report's worst misses must not
    list a failed call on a genuine receipt as a false flag."""
    cases = [case("g0", genuine()), case("g1", genuine()), case("f0", fake()), case("f1", fake())]
    outcomes = [failed("g0"), ok("g1", risk=0.8), failed("f0", status="timeout"), ok("f1", risk=0.3)]
    _, result = score(tmp_path, cases, outcomes)
    worst = {(w.case_id, w.why) for w in result.details.worst}
    assert worst == {("g1", "false flag, risk 0.80"), ("f1", "missed fake, risk 0.30")}


def test_an_at_field_tag_written_in_the_reason_text_points_at_that_field():
    """Spec: "A reason points at a field through an explicit "@field" tag, ...". A tag is
    explicit whether the target parsed it into ``Reason.fields`` or left it in the text;
    "@currency" and "@tax_total" are not keywords, so only the tag can name them."""
    from rabench.score.pointing import points_at

    assert points_at(Reason(text="@currency symbol differs from the locale"), {}) == {"currency"}
    assert points_at(Reason(text="@tax_total retouched"), {}) == {"tax_total"}
    assert points_at(Reason(text="@receipt_number and @date reprinted"), {}) == {"receipt_number", "date"}
    # A tagged reason is not free text: its other words are not read as keywords.
    assert points_at(Reason(text="@date the total is fine"), {}) == {"date"}
    assert points_at(Reason(text="email me@totally.example"), {}) == set()


# --- One population per stratum name; precision's n is its interval's n (issue 15) ----------


def _wilson_reference(successes: float, n: int) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint

    return proportion_confint(successes, n, alpha=0.05, method="wilson")


def test_a_stratum_name_is_one_population_in_every_decisions_row(tmp_path):
    """``class=ai_full`` is the label group (that class's fakes against every genuine
    receipt) for consistency, calibration and expected cost alike, even when the fakes also
    carry a ``class=ai_full`` tag; a plain tag (``capture=photo``) is its tagged cases."""
    rng = np.random.default_rng(3)
    cases, outcomes = [], []
    runs: dict[str, list[float]] = {}
    for i in range(14):
        tags = {"capture": "photo"} if i < 10 else {}
        cases.append(case(f"g{i}", genuine(), tags=tags))
        runs[f"g{i}"] = [float(rng.choice([0.1, 0.45, 0.55, 0.9])) for _ in range(2)]
    for i in range(11):
        tags = {"class": "ai_full", **({"capture": "photo"} if i < 3 else {})}
        cases.append(case(f"a{i}", fake(), tags=tags))
        runs[f"a{i}"] = [float(rng.choice([0.2, 0.5, 0.65, 0.95])) for _ in range(2)]
    for i in range(10):  # another class, in neither stratum below
        cases.append(case(f"h{i}", fake("hand_edit")))
        runs[f"h{i}"] = [0.3, 0.3]
    for cid, risks in runs.items():
        outcomes += [ok(cid, rep=r, risk=risk) for r, risk in enumerate(risks)]
    rows, _ = score(tmp_path, cases, outcomes, reps=2)

    def reference(members: list[str]) -> dict[str, tuple[float, int]]:
        same = [float((runs[c][0] >= 0.5) == (runs[c][1] >= 0.5)) for c in members]
        risk = [r for c in members for r in runs[c]]
        fake_ = [not c.startswith("g") for c in members for _ in runs[c]]
        return {
            "decision_consistency": (sum(same) / len(same), len(same)),
            "calibration_error": (_ece_reference(risk, fake_), len(risk)),
        }

    label_group = [f"g{i}" for i in range(14)] + [f"a{i}" for i in range(11)]
    photo = [f"g{i}" for i in range(10)] + [f"a{i}" for i in range(3)]
    for stratum, members in (("class=ai_full", label_group), ("capture=photo", photo)):
        for metric, (value, n) in reference(members).items():
            got = row(rows, "decisions", metric, stratum)
            assert (got.value, got.n) == (pytest.approx(value), n), (stratum, metric)
        cost = row(rows, "decisions", "expected_cost_per_1000_at_risk_0.5", stratum)
        assert cost.n == len(members)
        ffr = row(rows, "authenticity", "false_flag_rate_at_risk_0.5", stratum)
        assert ffr.n == sum(c.startswith("g") for c in members)  # the authenticity rows' genuine side


def test_precision_counts_each_flagged_document_once_and_its_interval_uses_that_n(tmp_path):
    """Spec: "precision over documents it flagged" and "A case run several times counts
    once". Each labelled document flagged in at least one run counts once, right when its
    amounts don't add up; the Wilson interval is over that same integer n."""
    fails = [Check(name="totals_add_up", status="failed")]
    passes = [Check(name="totals_add_up", status="passed")]
    plan = {  # id: (adds_up, flagged in each of 3 runs)
        "p1": (False, [True, False, False]),  # flagged once: a flagged document, rightly
        "p2": (False, [True, True, True]),
        "p3": (False, [False, False, False]),  # never flagged: not in precision
        "n1": (True, [True, True, True]),  # a false alarm in every run
        "n2": (True, [False, True, True]),
        "n3": (True, [False, False, False]),
        "u1": (None, [True, True, True]),  # unlabelled: not in precision
    }
    cases = [case(cid, genuine(**({} if adds is None else {"adds_up": adds}))) for cid, (adds, _) in plan.items()]
    outcomes = [
        ok(cid, rep=r, checks=fails if f else passes) for cid, (_, flags) in plan.items() for r, f in enumerate(flags)
    ]
    rows, _ = score(tmp_path, cases, outcomes, reps=3)
    precision = row(rows, "checks", "totals_add_up_precision")
    flagged_docs = [cid for cid, (adds, flags) in plan.items() if adds is not None and any(flags)]
    right = sum(plan[cid][0] is False for cid in flagged_docs)
    assert precision.n == len(flagged_docs) == 4
    assert precision.value == pytest.approx(right / 4) == 0.5
    lo, hi = _wilson_reference(right, len(flagged_docs))
    assert (precision.lo, precision.hi) == (pytest.approx(lo), pytest.approx(hi))
    recall = row(rows, "checks", "totals_add_up_recall")  # still run-weighted: shares of runs
    assert (recall.value, recall.n) == (pytest.approx((1 / 3 + 1 + 0) / 3), 3)
