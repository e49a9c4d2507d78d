"""A synthetic suite + run, for the scorer's benchmark and scale tests.

Why: the scorer's speed and determinism have to be measured at the size of a
real evaluation (10 targets x 2,000 cases x 3 repetitions) long before one
exists. Cases carry labels only (no image files: the scorer never opens them);
targets answer with realistic noise: ``self`` gives the same continuous risk in
every repetition, DIY baselines a risk rounded to 0.05 that varies between
repetitions, sometimes fail, refuse or time out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import msgspec
import numpy as np

from rabench.contracts.case import Transform
from rabench.contracts.labels import FakeClass, Provenance, ScalarField
from rabench.contracts.outcome import Status
from rabench.contracts import (
    Authenticity,
    Capabilities,
    Case,
    Check,
    Fields,
    LineItem,
    Lineage,
    Outcome,
    Reason,
    ReceiptLabel,
    RunManifest,
    SuiteHeader,
    TargetInfo,
    Usage,
    Verdict,
)

CLASSES = ("ai_full", "ai_inpaint", "hand_edit", "generator", "pdf_edit", "photo_date")
EDITS: dict[str, list[ScalarField]] = {
    "ai_inpaint": ["total"],
    "hand_edit": ["date"],
    "pdf_edit": ["merchant", "total"],
}
MERCHANTS = (
    "Café Müller",
    "Smith & Sons Hardware",
    "Tesco Express",
    "Pret A Manger",
    "Shell",
    "Boots",
    "Joe's Diner",
    "Lidl",
    "Whole Foods Market",
    "Starbucks",
)
ITEMS = ("coffee", "croissant", "bolts 10mm", "sandwich", "fuel", "shampoo", "apples", "tea")


def make_suite(root: Path, n_cases: int, seed: int = 0) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases: list[Case] = []
    n_base = int(n_cases * 0.9)
    for i in range(n_cases):
        cid = f"c{i:06d}"
        if i >= n_base:  # duplicate transforms of earlier base cases
            of = cases[int(rng.integers(n_base))]
            cases.append(
                msgspec.structs.replace(
                    of,
                    id=cid,
                    file=f"files/{cid}.jpg",
                    sha256=f"{i:064x}",
                    lineage=Lineage(
                        of=of.id, transform=cast(Transform, str(rng.choice(["reencode", "crop", "reshoot"])))
                    ),
                    after=[],
                )
            )
            continue
        fake = rng.random() < 0.5
        cls = cast(FakeClass, str(rng.choice(CLASSES))) if fake else None
        items = [
            LineItem(description=str(rng.choice(ITEMS)), total=round(float(rng.uniform(1, 40)), 2))
            for _ in range(int(rng.integers(1, 6)))
        ]
        subtotal = round(sum(it.total for it in items), 2)
        tax = round(subtotal * 0.2, 2)
        label = ReceiptLabel(
            authenticity=Authenticity(
                verdict="fake" if fake else "genuine", fake_class=cls, edited_fields=EDITS.get(cls or "", [])
            ),
            provenance=cast(Provenance, str(rng.choice(["intact", "stripped", "none"]))),
            merchant=str(rng.choice(MERCHANTS)),
            date=f"2026-{rng.integers(1, 13):02d}-{rng.integers(1, 29):02d}",
            subtotal=subtotal,
            tax_total=tax if rng.random() < 0.9 else None,
            total=round(subtotal + tax, 2),
            currency=str(rng.choice(["GBP", "EUR", "USD"])),
            receipt_number=f"R-{rng.integers(1_000_000):06d}" if rng.random() < 0.8 else None,
            line_items=items,
            adds_up=bool(rng.random() < (0.95 if not fake else 0.6)),
        )
        after = [cases[int(rng.integers(len(cases)))].id] if cases and rng.random() < 0.05 else []
        cases.append(
            Case(
                id=cid,
                file=f"files/{cid}.jpg",
                sha256=f"{i:064x}",
                media_type="image/jpeg",
                label=label,
                tags={
                    "capture": str(rng.choice(["photo", "scan", "pdf"])),
                    "language": str(rng.choice(["en", "de", "fr"])),
                },
                after=after,
            )
        )
    root.mkdir(parents=True, exist_ok=True)
    enc = msgspec.json.Encoder()
    with (root / "manifest.jsonl").open("wb") as fh:
        fh.write(enc.encode(SuiteHeader(suite="receipt", name="synthetic/scorer-bench")) + b"\n")
        for c in cases:
            fh.write(enc.encode(c) + b"\n")
    return cases


def _answer(
    case: Case, skill: float, rng: np.random.Generator, risk: float | None, proofs: bool, checks: bool, memory: bool
) -> Verdict:
    lab = case.label

    def keep(x: Any) -> Any:
        return x if rng.random() < skill else None

    fields = Fields(
        merchant=keep(lab.merchant),
        date=keep(lab.date),
        subtotal=keep(lab.subtotal),
        tax_total=keep(lab.tax_total),
        total=keep(lab.total),
        currency=keep(lab.currency),
        receipt_number=keep(lab.receipt_number),
    )
    items = [it for it in lab.line_items if rng.random() < skill] if isinstance(lab.line_items, list) else None
    reasons = []
    if risk is not None and risk >= 0.5:
        edited = lab.authenticity.edited_fields
        reasons.append(
            Reason(
                text="the total looks edited", kind="opinion", fields=list(edited[:1]) if rng.random() < skill else []
            )
        )
        if proofs and rng.random() < 0.5:
            reasons.append(Reason(text="AI generator tag", kind="proof", proof_type="ai_generator_tag"))
    chk = []
    if checks and isinstance(lab.adds_up, bool):
        ok = lab.adds_up if rng.random() < 0.95 else not lab.adds_up
        chk = [Check(name="totals_add_up", status="passed" if ok else "failed", fields=["total", "subtotal"])]
    seen = None
    if memory:
        seen = bool(rng.random() < (0.9 if case.lineage is not None else 0.03))
    return Verdict(
        fields=fields,
        line_items=items,
        checks=chk,
        risk=risk,
        reasons=reasons,
        seen_before=seen,
        match_kind="exact" if seen and rng.random() < 0.5 else ("perceptual" if seen else None),
    )


def make_run(run_dir: Path, suite_dir: Path, cases: list[Case], n_targets: int, reps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed + 1)
    targets = [TargetInfo(id="self", kind="self", capabilities=Capabilities(checks=True, memory=True, proofs=True))]
    targets += [
        TargetInfo(id=f"diy:prov:model-{k}", kind="diy", provider="prov", model=f"model-{k}")
        for k in range(1, n_targets)
    ]
    enc = msgspec.json.Encoder()
    run_dir.mkdir(parents=True, exist_ok=True)
    base_risk = {c.id: float(rng.beta(2, 5) + (0.35 if c.label.is_fake else 0.0)) for c in cases}
    with (run_dir / "outcomes.jsonl").open("wb") as fh:
        for ti, t in enumerate(targets):
            skill = 0.95 - 0.03 * ti
            caps = t.capabilities
            for c in cases:
                for rep in range(reps):
                    roll = rng.random()
                    status = (
                        "ok"
                        if roll < 0.93 or t.kind == "self"
                        else cast(Status, str(rng.choice(["error", "refusal", "timeout", "invalid_output"])))
                    )
                    verdict = None
                    if status == "ok":
                        r = min(1.0, base_risk[c.id] + (0 if t.kind == "self" else rng.normal(0, 0.1)))
                        risk = (
                            r if t.kind == "self" else (round(max(r, 0.0) * 20) / 20 if rng.random() < 0.95 else None)
                        )
                        verdict = _answer(c, skill, rng, risk, caps.proofs, caps.checks, caps.memory)
                    usage = Usage(
                        model="m",
                        input_tokens=1000,
                        output_tokens=200,
                        cost_usd=0.05 if t.kind == "self" else 0.002 * (ti + 1),
                        model_cost_usd=0.001 * (ti + 1),
                    )
                    fh.write(
                        enc.encode(
                            Outcome(
                                run_id="synthetic",
                                case_id=c.id,
                                target=t.id,
                                repetition=rep,
                                status=status,
                                attempts=1,
                                latency_s=float(rng.lognormal(1.0, 0.5)),
                                verdict=verdict,
                                usage=usage,
                            )
                        )
                        + b"\n"
                    )
    manifest = RunManifest(
        run_id="synthetic",
        suite_dir=str(suite_dir.resolve()),
        suite_name="synthetic/scorer-bench",
        suite_kind="receipt",
        manifest_sha256=_sha(suite_dir / "manifest.jsonl"),
        targets=targets,
        repetitions=reps,
        seed=seed,
        rabench_version="synthetic",
    )
    (run_dir / "run.json").write_bytes(msgspec.json.encode(manifest))


def _sha(path: Path) -> str:
    from rabench.cases.manifest import file_sha256

    return file_sha256(path)


def make(root: Path, n_targets: int = 10, n_cases: int = 2000, reps: int = 3, seed: int = 0) -> Path:
    """Write root/suite and root/run; return the run folder."""
    cases = make_suite(root / "suite", n_cases, seed)
    make_run(root / "run", root / "suite", cases, n_targets, reps, seed)
    return root / "run"


if __name__ == "__main__":  # pragma: no cover
    import sys

    print(json.dumps(str(make(Path(sys.argv[1])))))
