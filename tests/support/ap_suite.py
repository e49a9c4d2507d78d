"""Small AP suites and runs built through the contracts, written as real files (manifest.jsonl,
run.json, outcomes.jsonl) so tests score them through the public entry point."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path

import msgspec

from rabench.cases.manifest import file_sha256
from rabench.contracts import Outcome, RunManifest, SuiteHeader, TargetInfo
from rabench.contracts.ap import (
    DIFFICULTIES,
    FAMILIES,
    FRAUD_CLASSES,
    APCase,
    APDocument,
    APLabel,
    EvidenceBox,
    GoldField,
    Link,
)
from rabench.contracts.ap_verdict import APField, APVerdict

OUTCOME_DECISION = {
    "safe": ("PAY", ["PAY"], True),
    "discrepancy": ("HOLD", ["HOLD", "NEEDS_REVIEW"], False),
    "duplicate_billing": ("HOLD", ["HOLD", "NEEDS_REVIEW", "ESCALATE_FRAUD"], False),
    "bank_fraud": ("ESCALATE_FRAUD", ["ESCALATE_FRAUD"], False),
    "impersonation": ("ESCALATE_FRAUD", ["ESCALATE_FRAUD"], False),
    "campaign_fraud": ("ESCALATE_FRAUD", ["ESCALATE_FRAUD"], False),
}
OUTCOMES = tuple(OUTCOME_DECISION)


def label_for(outcome: str, rng: random.Random, family: str | None = None) -> APLabel:
    decision, acceptable, safe = OUTCOME_DECISION[outcome]
    total = round(rng.uniform(100, 9000), 2)
    fields = {
        "vendor_name": GoldField(
            f"Vendor {rng.randrange(50)} GmbH", EvidenceBox("invoice.pdf", 1, (0.05, 0.05, 0.4, 0.1))
        ),
        "invoice_number": GoldField(
            f"INV-{rng.randrange(10**5):05d}", EvidenceBox("invoice.pdf", 1, (0.6, 0.1, 0.9, 0.14))
        ),
        "total": GoldField(total, EvidenceBox("invoice.pdf", 1, (0.6, 0.8, 0.9, 0.85))),
        "currency": GoldField("EUR"),
    }
    codes = {
        "bank_fraud": ["bank_account_changed", "bank_change_unverified"],
        "impersonation": ["sender_domain_mismatch", "urgency_pressure"],
        "campaign_fraud": ["threshold_splitting"],
        "duplicate_billing": ["duplicate_invoice"],
        "discrepancy": ["po_price_mismatch"],
        "safe": [],
    }[outcome]
    return APLabel(
        family=family or rng.choice(FAMILIES),
        difficulty=rng.choice(DIFFICULTIES),
        outcome=outcome,  # type: ignore[arg-type]
        decision=decision,
        acceptable=acceptable,
        safe_to_pay=safe,
        fields=fields,  # type: ignore[arg-type]
        reason_codes=codes,  # type: ignore[arg-type]
        discrepancies=["price_mismatch"] if outcome == "discrepancy" else [],
        duplicate_links=[Link("duplicate", "invoice.pdf", "LED-000001")] if outcome == "duplicate_billing" else [],
        campaign_links=[Link("campaign", "invoice.pdf", "invoice-2.pdf")] if outcome == "campaign_fraud" else [],
    )


def write_suite(root: Path, n: int = 60, seed: int = 1) -> list[APCase]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    cases = []
    for i in range(n):
        cid = f"ap{i:04d}"
        data = f"%PDF-1.4 case {cid}\n".encode()
        folder = root / "files" / cid
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "invoice.pdf").write_bytes(data)
        doc = APDocument(
            name="invoice.pdf",
            file=f"files/{cid}/invoice.pdf",
            sha256=hashlib.sha256(data).hexdigest(),
            media_type="application/pdf",
            role="invoice",
        )
        cases.append(APCase(id=cid, documents=[doc], label=label_for(OUTCOMES[i % len(OUTCOMES)], rng)))
    header = SuiteHeader(suite="ap", name="ap-test", meta={"generator": "tests"})
    lines = [msgspec.json.encode(header)] + [msgspec.json.encode(c) for c in cases]
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return cases


def perfect(case: APCase) -> APVerdict:
    """What an analyst who knew the answer would say (tests only: it reads the label)."""
    lab = case.label
    return APVerdict(
        decision=lab.decision,
        fields={k: APField(value=g.value, evidence=g.evidence) for k, g in lab.fields.items()},
        reason_codes=list(lab.reason_codes),
        discrepancies=list(lab.discrepancies),
        duplicate_links=list(lab.duplicate_links),
        campaign_links=list(lab.campaign_links),
        probabilities={lab.outcome: 1.0},
    )


def always_pay(case: APCase) -> APVerdict:
    return APVerdict(decision="PAY", probabilities={"safe": 1.0})


Answer = Callable[[APCase], APVerdict | None]


def write_run(
    root: Path, suite: Path, cases: list[APCase], targets: dict[str, Answer], reps: int = 1, run_id: str = "aprun"
) -> Path:
    """A run folder where each target answers by its function (None = a failed call)."""
    root.mkdir(parents=True, exist_ok=True)
    infos = [
        TargetInfo(id=t, kind="self" if t == "self" else ("diy" if t.startswith("diy:") else "other")) for t in targets
    ]
    manifest = RunManifest(
        run_id=run_id,
        suite_dir=str(suite),
        suite_name="ap-test",
        suite_kind="ap",
        manifest_sha256=file_sha256(suite / "manifest.jsonl"),
        targets=infos,
        repetitions=reps,
        seed=0,
        rabench_version="test",
    )
    (root / "run.json").write_bytes(msgspec.json.encode(manifest))
    lines = []
    for tid, answer in targets.items():
        for case in cases:
            for rep in range(reps):
                v = answer(case)
                oc = (
                    Outcome(
                        run_id=run_id,
                        case_id=case.id,
                        target=tid,
                        repetition=rep,
                        status="ok",
                        attempts=1,
                        latency_s=0.5,
                        verdict=v,
                    )
                    if v is not None
                    else Outcome(
                        run_id=run_id,
                        case_id=case.id,
                        target=tid,
                        repetition=rep,
                        status="error",
                        attempts=1,
                        error="boom",
                    )
                )
                lines.append(msgspec.json.encode(oc))
    (root / "outcomes.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root


__all__ = ["FRAUD_CLASSES", "always_pay", "perfect", "write_run", "write_suite"]
