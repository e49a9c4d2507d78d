"""The self target end to end: verdicts, reason order, duplicate memory per repetition, hostile files."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from PIL import Image

from rabench.contracts import Verdict
from rabench.contracts.targets_config import parse_targets_config as C
from rabench.engine.signals import Signal
from rabench.engine.target import SelfTarget, cost_per_check, make_self_target, order_signals
from rabench.targets.base import CheckRequest, Target, TargetFailure
from rabench.targets.registry import make_target

ROWS = [
    ("Receipt No. 4471-20", ""),
    ("Date: 25/12/2024", ""),
    ("", ""),
    ("Flat White", "3.60"),
    ("Blueberry Muffin", "2.90"),
    ("", ""),
    ("SUBTOTAL", "6.50"),
    ("Sales Tax 8%", "0.52"),
    ("TOTAL", "7.02"),
    ("Card", "7.02"),
]


def _request(path: Path, media_type: str = "image/png", case_id: str | None = None) -> CheckRequest:
    return CheckRequest(
        case_id=case_id or path.stem,
        original=path,
        media_type=media_type,
        prepared=path,
        prepared_media_type=media_type,
    )


@pytest.fixture
def target(ocr_pool):
    t = SelfTarget("self", C({"self": {"today": "2025-01-10"}}), pool=ocr_pool)
    asyncio.run(t.open())
    yield t
    asyncio.run(t.close())


def _check(target: SelfTarget, req: CheckRequest) -> Verdict:
    return asyncio.run(target.check(req))


def test_registry_builds_a_self_target_with_every_capability():
    t = make_target("self", C({}))
    assert isinstance(t, Target) and isinstance(t, SelfTarget)
    caps = t.info.capabilities
    assert t.info.id == "self" and t.info.kind == "self" and caps.checks and caps.memory and caps.proofs
    assert make_self_target("self", C({})).info.settings["risk_model"]["split"] == t.model.split


def test_genuine_receipt_verdict(target, receipt_file):
    v = _check(target, _request(receipt_file(ROWS, title="BEAN THERE COFFEE")))
    f = v.fields
    assert (f.date, f.subtotal, f.tax_total, f.total, f.receipt_number) == ("2024-12-25", 6.50, 0.52, 7.02, "4471-20")
    assert [i.total for i in v.line_items or []] == [3.60, 2.90]
    assert [(c.name, c.status) for c in v.checks] == [("totals_add_up", "passed")]
    assert v.risk is not None and 0.0 <= v.risk <= 1.0
    assert not any(r.kind == "proof" for r in v.reasons)
    assert v.seen_before is False and v.usage is not None


def test_altered_total_is_proved_with_numbers_and_scores_high(target, receipt_file):
    rows = [r if r[0] != "TOTAL" else ("TOTAL", "17.02") for r in ROWS]
    v = _check(target, _request(receipt_file(rows, title="BEAN THERE COFFEE")))
    assert v.checks[0].status == "failed"
    first = v.reasons[0]
    assert first.kind == "proof" and first.proof_type == "arithmetic" and "17.02" in first.text
    assert "total" in first.fields
    assert v.risk is not None and v.risk >= 0.7
    genuine = _check(target, _request(receipt_file(ROWS, title="BEAN THERE COFFEE", name="genuine")))
    assert genuine.risk is not None and genuine.risk < v.risk


def test_duplicate_network_remembers_within_a_repetition_and_forgets_on_reset(target, receipt_file, tmp_path):
    pytest.importorskip("rabench.engine.dupes")
    path = receipt_file(ROWS, title="BEAN THERE COFFEE")
    copy = tmp_path / "copy.png"
    copy.write_bytes(path.read_bytes())
    asyncio.run(target.reset(0))
    first = _check(target, _request(path, case_id="a"))
    again = _check(target, _request(copy, case_id="b"))
    assert first.seen_before is False
    assert again.seen_before is True and again.match_of == "a" and again.match_kind == "exact"
    assert again.reasons[0].proof_type == "duplicate_match" and again.risk >= 0.7
    asyncio.run(target.reset(1))
    assert _check(target, _request(copy, case_id="b")).seen_before is False


def test_native_pdf_uses_its_text_layer(target, tmp_path):
    from fpdf import FPDF

    pdf = FPDF(format=(220, 300), unit="pt")
    pdf.add_page()
    pdf.set_font("helvetica", size=10)
    for n, (label, amount) in enumerate(
        [
            ("Northwind Online Store", ""),
            ("Order: ORD-123456-12", ""),
            ("Date: 2024-05-17", ""),
            ("Wireless Mouse", "24.99"),
            ("Subtotal", "24.99"),
            ("Sales Tax 8.25%", "2.06"),
            ("Total", "$27.05"),
        ]
    ):
        pdf.text(10, 20 + 16 * n, label)
        if amount:
            pdf.text(160, 20 + 16 * n, amount)
    path = tmp_path / "order.pdf"
    pdf.output(str(path))
    v = _check(target, _request(path, "application/pdf"))
    assert (v.fields.total, v.fields.receipt_number, v.checks[0].status) == (27.05, "ORD-123456-12", "passed")


def test_reasons_are_ordered_most_specific_first():
    sigs = [
        Signal("op", "opinion", "looks odd", ("total",)),
        Signal("pl", "plausibility", "old", ("date",)),
        Signal("ff", "file_fact", "no camera"),
        Signal("ff2", "file_fact", "editor", ("merchant",)),
        Signal("pr", "proof", "off by 1", ("total", "subtotal"), "arithmetic"),
    ]
    assert [s.name for s in order_signals(sigs)] == ["pr", "ff2", "ff", "pl", "op"]


def test_cost_per_check_falls_back_to_the_config():
    value = cost_per_check(C({"self": {"cost_per_check_usd": 0.25}}))
    assert value is not None and value > 0


def _jpeg_bytes(receipt_file) -> bytes:
    return receipt_file(ROWS, fmt="JPEG", title="BEAN THERE").read_bytes()


@pytest.mark.parametrize(
    ("name", "make", "media_type", "message"),
    [
        ("empty.jpg", lambda b: b"", "image/jpeg", "empty"),
        ("truncated.jpg", lambda b: b[: len(b) // 3], "image/jpeg", "truncated or corrupt"),
        ("text.jpg", lambda b: b"hello, this is not an image\n" * 40, "image/jpeg", "not a JPEG, PNG"),
        ("truncated.pdf", lambda b: b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog", "application/pdf", "PDF"),
    ],
)
def test_hostile_files_are_clear_errors_in_bounded_time(
    target, receipt_file, tmp_path, name, make, media_type, message
):
    path = tmp_path / name
    path.write_bytes(make(_jpeg_bytes(receipt_file)))
    start = time.monotonic()
    with pytest.raises(TargetFailure) as info:
        _check(target, _request(path, media_type))
    assert time.monotonic() - start < 10
    assert info.value.status == "error" and message in str(info.value) and name in str(info.value)


def test_decompression_bomb_is_refused(target, tmp_path):
    path = tmp_path / "bomb.png"
    Image.new("1", (20_000, 20_000)).save(path)  # 400 Mpx, a few KB on disk
    with pytest.raises(TargetFailure) as info:
        _check(target, _request(path))
    assert "too large" in str(info.value)


def test_png_declared_as_jpeg_is_still_read_and_noted(target, receipt_file):
    path = receipt_file(ROWS, title="BEAN THERE COFFEE")
    v = _check(target, _request(path, "image/jpeg"))
    assert v.fields.total == 7.02
    assert any(r.kind == "file_fact" and "image/png" in r.text.lower() or "PNG" in r.text for r in v.reasons)


@pytest.mark.parametrize(
    ("attr", "analyser"),
    [
        ("file_signals", "provenance"),
        ("visual_signals", "visual forensics"),
        ("make_fingerprint", "duplicate fingerprint"),
    ],
)
def test_a_crashing_analyser_is_an_error_outcome_not_a_verdict_without_its_signals(
    target, receipt_file, monkeypatch, attr, analyser
):
    from rabench.engine import pipeline

    def broken(*args, **kwargs):
        raise ValueError("box offset can't be negative")

    monkeypatch.setattr(pipeline, attr, broken)
    path = receipt_file(ROWS, fmt="JPEG", title="BEAN THERE COFFEE")
    with pytest.raises(TargetFailure) as info:
        _check(target, _request(path, "image/jpeg"))
    msg = str(info.value)
    assert info.value.status == "error" and "\n" not in msg
    assert msg.startswith(f"{path.name}: {analyser} analyser crashed: ValueError: box offset can't be negative")
    assert "test_target.py" in msg  # where it failed, for whoever fixes it


def test_a_missing_analyser_fails_loudly_at_start():
    """No optional imports: without an analyser module the engine does not start (no silent gap)."""
    import subprocess
    import sys

    code = "import sys; sys.modules['rabench.engine.forensics'] = None\nimport rabench.engine.target\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode != 0 and last.startswith(("ImportError", "ModuleNotFoundError"))
    assert "rabench.engine.forensics" in last


def test_diagnostics_reach_the_verdict(target, receipt_file):
    path = receipt_file(ROWS, title="BEAN THERE COFFEE")
    plain = SelfTarget("self", C({}), pool=target._pool)
    asyncio.run(plain.open())
    v = _check(
        plain,
        CheckRequest(
            case_id="d",
            original=path,
            media_type="image/png",
            prepared=path.with_name("missing.png"),
            prepared_media_type="image/png",
        ),
    )
    assert any("no submission time" in d for d in v.diagnostics)
    assert any("no prepared image" in d for d in v.diagnostics)
    timed = _check(
        plain,
        CheckRequest(
            case_id="e",
            original=path,
            media_type="image/png",
            prepared=path,
            prepared_media_type="image/png",
            submitted_at="2025-01-02T10:00:00Z",
        ),
    )
    assert timed.diagnostics == []
