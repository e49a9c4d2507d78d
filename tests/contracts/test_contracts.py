"""Contracts round-trip through JSON and their schemas only change with the version."""

import hashlib
import json
from pathlib import Path

import msgspec
import pytest
from msgspec import UNSET

from rabench.cli.schema import schemas
from rabench.contracts import (
    CONTRACTS_VERSION,
    Authenticity,
    Capabilities,
    Case,
    Check,
    Fields,
    Lineage,
    LineItem,
    Outcome,
    Reason,
    ReceiptLabel,
    Row,
    RunManifest,
    SuiteHeader,
    TargetInfo,
    Usage,
    Verdict,
)

SNAPSHOT = Path(__file__).with_name(f"schema-v{CONTRACTS_VERSION}.sha256")


def _label(**kw):
    return ReceiptLabel(authenticity=Authenticity(verdict="genuine"), **kw)


def _roundtrip(obj):
    raw = msgspec.json.encode(obj)
    back = msgspec.json.decode(raw, type=type(obj))
    assert back == obj
    assert msgspec.json.encode(back) == raw
    return raw


def test_case_round_trip_keeps_unset_null_and_values_apart():
    label = ReceiptLabel(
        authenticity=Authenticity(verdict="fake", fake_class="hand_edit", edited_fields=["total"]),
        provenance="stripped",
        merchant="Café Nord",
        date=None,  # not shown on the document
        total=12.5,
        line_items=[LineItem(description="Espresso", total=2.5, quantity=1.0, unit_price=2.5)],
        adds_up=False,
    )
    case = Case(
        id="r-1",
        file="files/r-1.jpg",
        sha256="0" * 64,
        media_type="image/jpeg",
        label=label,
        tags={"class": "hand_edit"},
        lineage=Lineage(of="r-0", transform="crop"),
        after=["r-0"],
    )
    raw = _roundtrip(case)
    doc = json.loads(raw)
    assert doc["label"]["suite"] == "receipt"
    assert doc["label"]["date"] is None
    assert "subtotal" not in doc["label"]  # UNSET = not covered, omitted
    back = msgspec.json.decode(raw, type=Case)
    assert back.label.subtotal is UNSET and back.label.date is None
    assert back.label.covered() == {"merchant": "Café Nord", "date": None, "total": 12.5}
    assert not back.is_base and back.depends_on() == ["r-0", "r-0"]


def test_verdict_and_outcome_round_trip():
    verdict = Verdict(
        fields=Fields(merchant="x", total=3.0),
        checks=[
            Check(
                name="totals_add_up",
                status="failed",
                fields=["total", "subtotal"],
                numbers={"subtotal": 2.0, "tax": 0.5, "total": 3.0},
            )
        ],
        risk=0.9,
        reasons=[
            Reason(
                text="2.00 + 0.50 != 3.00",
                kind="proof",
                fields=["total"],
                proof_type="arithmetic",
                check="totals_add_up",
            )
        ],
        seen_before=False,
        usage=Usage(model="m", input_tokens=10, output_tokens=5, cost_usd=None),
    )
    _roundtrip(verdict)
    for status in ("ok", "error", "refusal", "timeout", "invalid_output"):
        _roundtrip(
            Outcome(
                run_id="r",
                case_id="c",
                target="self",
                repetition=0,
                status=status,
                attempts=2,
                latency_s=0.25,
                verdict=verdict if status == "ok" else None,
            )
        )


def test_manifest_header_row_and_run_round_trip():
    _roundtrip(SuiteHeader(suite="receipt", name="s", meta={"seed": 1}))
    _roundtrip(
        Row(
            task="authenticity",
            metric="roc_auc",
            stratum="all",
            target="self",
            value=0.9,
            n=10,
            lo=0.8,
            hi=0.95,
            interval="bootstrap",
            seed=7,
        )
    )
    _roundtrip(
        RunManifest(
            run_id="r",
            suite_dir="cases/x",
            suite_name="x",
            suite_kind="receipt",
            manifest_sha256="0" * 64,
            repetitions=2,
            seed=0,
            rabench_version="0",
            targets=[TargetInfo(id="self", kind="self", capabilities=Capabilities(True, True, True))],
        )
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"verdict": "maybe"},
        {"verdict": "fake", "fake_class": "photoshop"},
    ],
)
def test_unknown_enum_values_are_rejected(bad):
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(json.dumps(bad), type=Authenticity)


def test_schema_changes_only_with_a_version_bump():
    """If this fails, the contracts changed: bump CONTRACTS_VERSION for an incompatible change,
    or, for an additive one, regenerate the snapshot (see the file's neighbour README line)."""
    doc = json.dumps(schemas(), sort_keys=True).encode()
    digest = hashlib.sha256(doc).hexdigest()
    assert SNAPSHOT.exists(), f"missing {SNAPSHOT.name}: write {digest} into it"
    assert SNAPSHOT.read_text().split()[0] == digest, (
        f"contract schemas changed; bump CONTRACTS_VERSION if incompatible, else update {SNAPSHOT.name} to {digest}"
    )


def test_submitted_at_is_an_iso_time_or_a_one_line_error():
    import msgspec
    import pytest

    from rabench.contracts import Case

    base = {
        "id": "c1",
        "file": "a.jpg",
        "sha256": "0" * 64,
        "media_type": "image/jpeg",
        "label": {"authenticity": {"verdict": "genuine"}},
    }
    for ok in ("2024-05-01", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00+08:00"):
        assert msgspec.json.decode(msgspec.json.encode({**base, "submitted_at": ok}), type=Case).submitted_at == ok
    with pytest.raises(msgspec.ValidationError, match="submitted_at '01/05/2024' is not an ISO 8601"):
        msgspec.json.decode(msgspec.json.encode({**base, "submitted_at": "01/05/2024"}), type=Case)
