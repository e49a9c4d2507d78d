"""The AP leak audit: a planted give-away is caught; the generated quick suite stays under the bar."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import numpy as np

from rabench.cases.ap.audit import THRESHOLD, Record, audit_ap_records
from rabench.cases.ap.relations import THRESHOLD as REL_THRESHOLD
from rabench.cases.ap.relations import RelRecord, fit_family, records


def _records(leak: bool) -> list[Record]:
    recs = []
    for i in range(80):
        unsafe = i % 2 == 0
        words = {"invoice", "attached", "regards", f"w{i % 7}"}
        if leak and unsafe and i % 10 != 0:
            words.add("verify")  # "do not verify by phone", LedgerShield style
        values = {
            "layout": "classic" if i % 3 else "band",
            "total": float(1000 + (i * 37) % 500),
            "has_email": True,
            "header_reply-to": bool(leak and unsafe),
        }
        recs.append(
            Record(
                "inbox_bec",
                unsafe,
                unsafe,
                values,
                {"email_token": frozenset(words), "invoice_token": frozenset({"invoice", "total"})},
            )
        )
    return recs


def test_a_planted_give_away_word_and_header_are_caught():
    bad = audit_ap_records(_records(leak=True)).failures(THRESHOLD)
    found = {r.signal: r.detail for r in bad if r.group == "inbox_bec"}
    assert found.get("email_token") == "verify"
    assert "header_reply-to" in found


def test_no_leak_when_nothing_is_planted():
    res = audit_ap_records(_records(leak=False))
    assert res.failures(THRESHOLD) == []
    assert any(r.signal == "email_token" and r.auc is not None for r in res.rows)


@pytest.mark.slow
def test_quick_test_split_passes_the_audit(tmp_path):
    """The bar of issue 17: no single signal above 0.70 on a fresh quick suite of the test split."""
    out = tmp_path / "q"
    gen = subprocess.run(
        [
            sys.executable,
            "-m",
            "rabench",
            "cases",
            "generate",
            "--suite",
            "ap",
            "--split",
            "test",
            "--size",
            "quick",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert gen.returncode == 0, gen.stderr[-2000:]
    assert "400 ap cases" in gen.stdout
    audit = subprocess.run(
        [sys.executable, "-m", "rabench", "cases", "audit", str(out)], capture_output=True, text=True, timeout=900
    )
    # The single-signal part holds; the relational part (issue 31) is reported per family and does
    # not hold yet on four of five families (docs/ap.md, "Relational audit"), so only its lines are checked.
    assert "LEAK:" not in audit.stderr, audit.stderr[-3000:]
    assert "relational audit" in audit.stdout
    assert len(re.findall(r"^  \w+ +AUC ", audit.stdout, re.M)) == 5, audit.stdout[-1500:]
    # Issue 31's shortcut: headers, approval, goods receipt and master decided family D 80 of 80.
    inbox = [r for r in records(out) if r.family == "inbox_bec"]
    right = sum(_header_rule(r.features) == r.unsafe for r in inbox)
    assert len(inbox) == 80 and right / len(inbox) < 0.75, right


def _header_rule(f: dict[str, bool]) -> bool:
    """Hold/escalate by e-mail headers, the approval record, the goods receipt and the master alone."""
    if f.get("has_email"):
        if not (f.get("sender_domain_in_master") or f.get("sender_is_buyer")):
            return True
        if f.get("reply_to_elsewhere") or not f.get("dmarc_pass") or f.get("mail_phone_not_on_file"):
            return True
    if f.get("has_approval") and not (f.get("callback_to_number_on_file") and f.get("approval_approved")):
        return True
    return bool(f.get("gr_empty"))


def _rel(planted: bool) -> list[RelRecord]:
    rng = np.random.default_rng(7)
    out = []
    for i in range(120):
        unsafe = i % 2 == 0
        f = {f"noise_{k}": bool(rng.random() < 0.5) for k in range(6)}
        f["sender_domain_in_master"] = (not unsafe) if planted else bool(rng.random() < 0.5)
        f["reply_to_elsewhere"] = unsafe if planted and i % 3 else bool(rng.random() < 0.3)
        out.append(RelRecord("inbox_bec", unsafe, f))
    return out


def test_relational_learner_finds_a_two_document_rule_and_not_noise():
    """A relation planted between the mail and the master is found on the held-out half; noise is not."""
    assert fit_family(_rel(planted=True), "inbox_bec").auc > REL_THRESHOLD
    assert fit_family(_rel(planted=False), "inbox_bec").auc < 0.65
