"""A small hand-built suite and run whose every row value is worked out by hand
in test_golden.py. Written into a tmp dir as real files (manifest.jsonl,
run.json, outcomes.jsonl) and scored through the public entry point."""

from __future__ import annotations

from pathlib import Path

import msgspec

from rabench.cases.manifest import file_sha256
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

SELF = "self"
DIY = "diy:x:model"
PROOF = Reason(text="AI generator tag in XMP", kind="proof", proof_type="ai_generator_tag")


def _case(cid: str, label: ReceiptLabel, **kw) -> Case:
    return Case(id=cid, file=f"{cid}.jpg", sha256="0" * 64, media_type="image/jpeg", label=label, **kw)


def suite() -> list[Case]:
    g1 = ReceiptLabel(
        authenticity=Authenticity(verdict="genuine"),
        provenance="intact",
        merchant="Café Müller",
        date="2026-01-05",
        subtotal=8.0,
        tax_total=2.0,
        total=10.0,
        currency="EUR",
        receipt_number=None,
        line_items=[LineItem("Coffee", 3.0), LineItem("Cake", 5.0)],
        adds_up=True,
    )
    g2 = ReceiptLabel(
        authenticity=Authenticity(verdict="genuine"),
        provenance="stripped",
        merchant="Smith & Sons",
        date="2026-02-01",
        total=20.0,
        currency="GBP",
        adds_up=True,
    )
    g3 = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=5.0, adds_up=False)
    f1 = ReceiptLabel(
        authenticity=Authenticity(verdict="fake", fake_class="ai_inpaint", edited_fields=["total"]),
        total=99.0,
        adds_up=False,
    )
    f2 = ReceiptLabel(
        authenticity=Authenticity(verdict="fake", fake_class="ai_full"), total=12.0, line_items=[], adds_up=True
    )
    return [
        _case("g1", g1, tags={"capture": "photo"}),
        _case("g2", g2),
        _case("g3", g3, after=["g2"]),  # a hard negative: looks like g2
        _case("f1", f1),
        _case("f2", f2),
        _case("d1", g1, lineage=Lineage(of="g1", transform="reencode")),
        _case("d2", g2, lineage=Lineage(of="g2", transform="crop")),
    ]


def _ok(
    case: str,
    target: str,
    rep: int,
    verdict: Verdict,
    latency: float = 1.0,
    cost: float | None = 0.01,
    model_cost: float | None = 0.002,
) -> Outcome:
    return Outcome(
        run_id="golden",
        case_id=case,
        target=target,
        repetition=rep,
        status="ok",
        attempts=1,
        latency_s=latency,
        verdict=verdict,
        usage=Usage(cost_usd=cost, model_cost_usd=model_cost),
    )


def _fail(case: str, target: str, rep: int, status: str) -> Outcome:
    return Outcome(
        run_id="golden",
        case_id=case,
        target=target,
        repetition=rep,
        status=status,
        attempts=1,
        latency_s=50.0,
        error="boom",
    )


def passed(status: str = "passed") -> list[Check]:
    return [Check(name="totals_add_up", status=status, fields=["total", "subtotal"])]


def outcomes() -> list[Outcome]:
    s = SELF
    out = [
        _ok(
            "g1",
            s,
            0,
            Verdict(
                fields=Fields(
                    merchant="cafe muller",
                    date="2026-01-05",
                    subtotal=8.0,
                    tax_total=2.0,
                    total=10.004,
                    currency="eur",
                    receipt_number=None,
                ),
                line_items=[LineItem("coffee", 3.0), LineItem("Cake.", 5.0), LineItem("tip", 1.0)],
                risk=0.2,
                checks=passed(),
                seen_before=False,
            ),
        ),
        _fail("g1", s, 1, "error"),
        _ok(
            "g2",
            s,
            0,
            Verdict(
                fields=Fields(merchant="Smith and Sons", date="2026-02-01", total=20.0, currency="GBP"),
                risk=0.6,
                checks=passed(),
                reasons=[PROOF],
                seen_before=False,
            ),
        ),
        _ok(
            "g2",
            s,
            1,
            Verdict(
                fields=Fields(merchant="Smith and Sons", date="2026-02-01", total=20.0, currency="GBP"),
                risk=0.4,
                checks=passed(),
                seen_before=False,
            ),
        ),
        _ok(
            "g3",
            s,
            0,
            Verdict(
                fields=Fields(total=5.0), risk=None, checks=passed("failed"), seen_before=True, match_kind="perceptual"
            ),
        ),
        _ok("g3", s, 1, Verdict(fields=Fields(total=5.0), risk=0.3, checks=passed("failed"), seen_before=False)),
        _ok(
            "f1",
            s,
            0,
            Verdict(
                fields=Fields(total=99.0),
                risk=0.9,
                checks=passed("failed"),
                reasons=[Reason(text="The total looks changed")],
                seen_before=False,
            ),
        ),
        _ok(
            "f1",
            s,
            1,
            Verdict(
                fields=Fields(total=98.0),
                risk=0.7,
                checks=passed("failed"),
                reasons=[Reason(text="subtotal mismatch")],
                seen_before=False,
            ),
        ),
        _ok(
            "f2",
            s,
            0,
            Verdict(fields=Fields(), risk=0.6, checks=passed(), reasons=[PROOF], seen_before=False),
            cost=None,
        ),
        _fail("f2", s, 1, "timeout"),
        _ok("d1", s, 0, Verdict(risk=0.2, seen_before=True, match_kind="exact")),
        _ok("d1", s, 1, Verdict(risk=0.2, seen_before=True, match_kind="perceptual"), latency=12.0),
        _ok("d2", s, 0, Verdict(risk=0.4, seen_before=False)),
        _fail("d2", s, 1, "error"),
    ]
    d = DIY
    kw = dict(latency=2.0, cost=0.001, model_cost=0.001)
    out += [
        _ok(
            "g1",
            d,
            0,
            Verdict(
                fields=Fields(
                    merchant="Cafe Mueller",
                    date="05/01/2026",
                    subtotal=None,
                    tax_total=2.0,
                    total=10.0,
                    currency="EUR",
                    receipt_number="N/A",
                ),
                risk=0.1,
            ),
            **kw,
        ),
        _fail("g2", d, 0, "invalid_output"),
        _ok("g3", d, 0, Verdict(fields=Fields(total=5.01), risk=0.95), **kw),
        _ok(
            "f1",
            d,
            0,
            Verdict(fields=Fields(total=99.0), risk=0.5, reasons=[Reason(text="the amount due was edited")]),
            **kw,
        ),
        _fail("f2", d, 0, "refusal"),
        _ok("d1", d, 0, Verdict(risk=0.1), **kw),
        _ok("d2", d, 0, Verdict(risk=0.1), **kw),
    ]
    return out


def write(root: Path, outcome_list: list[Outcome] | None = None) -> Path:
    enc = msgspec.json.Encoder()
    sdir = root / "suite"
    sdir.mkdir(parents=True, exist_ok=True)
    with (sdir / "manifest.jsonl").open("wb") as fh:
        fh.write(enc.encode(SuiteHeader(suite="receipt", name="golden")) + b"\n")
        for c in suite():
            fh.write(enc.encode(c) + b"\n")
    rdir = root / "runs" / "golden"
    rdir.mkdir(parents=True, exist_ok=True)
    manifest = RunManifest(
        run_id="golden",
        suite_dir=str(sdir),
        suite_name="golden",
        suite_kind="receipt",
        manifest_sha256=file_sha256(sdir / "manifest.jsonl"),
        targets=[
            TargetInfo(id=SELF, kind="self", capabilities=Capabilities(checks=True, memory=True, proofs=True)),
            TargetInfo(id=DIY, kind="diy", provider="x", model="model"),
        ],
        repetitions=2,
        seed=1,
        rabench_version="test",
    )
    (rdir / "run.json").write_bytes(enc.encode(manifest))
    with (rdir / "outcomes.jsonl").open("wb") as fh:
        for oc in outcome_list if outcome_list is not None else outcomes():
            fh.write(enc.encode(oc) + b"\n")
    return rdir
