"""The AP leak audit: a planted give-away is caught; the generated quick suite stays under the bar."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rabench.cases.ap.audit import THRESHOLD, Record, audit_ap_records


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
    assert audit.returncode == 0, audit.stdout[-3000:] + audit.stderr[-3000:]
    assert "no signal above 0.7" in audit.stdout
