"""The committed sample ap suite (cases/sample-ap) end to end: the diy target through the fake
provider on every case, ``self`` on the sample's cases whose invoices are PDFs (their text
layer: no OCR, so the test stays fast; image invoices are the engine test's and the bench's
business), each run scored, rows.json with every row of docs/methodology-ap.md."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_ap_e2e import DIY, methodology_metrics

from rabench.cli.main import main
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile, load_suite_labels
from rabench.score import output

SAMPLE = Path(__file__).resolve().parents[2] / "cases" / "sample-ap"


def _pdf_only(dst: Path) -> int:
    """The sample's cases whose every invoice is a PDF, as a suite of their own (same files)."""
    lines = (SAMPLE / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    keep = [
        ln
        for ln in lines[1:]
        if ln.strip()
        and all(
            d["media_type"] == "application/pdf"
            for d in json.loads(ln)["documents"]
            if d["role"] in ("invoice", "credit_note")
        )
    ]
    dst.mkdir(parents=True)
    (dst / "manifest.jsonl").write_text("\n".join([lines[0], *keep]) + "\n", encoding="utf-8")
    for ln in keep:
        cid = json.loads(ln)["id"]
        shutil.copytree(SAMPLE / "files" / cid, dst / "files" / cid)
    return len(keep)


def _rows(run: Path, out: Path) -> dict[tuple[str, str], object]:
    assert main(["score", str(run), "--out", str(out)]) == 0
    doc = output.decode((out / "rows.json").read_bytes())
    return {(r.target, r.metric): r for r in doc.rows if r.stratum == "all"}


def test_self_and_diy_on_the_committed_sample(tmp_path, monkeypatch):
    with BackgroundFakeProvider(
        Profile(seed=2, default=ModelProfile(latency=Latency(ms=1))), labels=load_suite_labels(SAMPLE)
    ) as fake:
        for k, v in {**fake.env(), "OPENAI_COMPATIBLE_API_KEY": "sk-test-0123456789"}.items():
            monkeypatch.setenv(k, v)
        assert (
            main(
                [
                    "run",
                    "--suite",
                    str(SAMPLE),
                    "--out",
                    str(tmp_path / "diy"),
                    "--progress",
                    "none",
                    "--cache",
                    str(tmp_path / "cache"),
                    "--target",
                    DIY,
                ]
            )
            == 0
        )
    n_pdf = _pdf_only(tmp_path / "pdf")
    assert n_pdf >= 10
    assert (
        main(
            [
                "run",
                "--suite",
                str(tmp_path / "pdf"),
                "--out",
                str(tmp_path / "self"),
                "--progress",
                "none",
                "--cache",
                str(tmp_path / "cache"),
                "--target",
                "self",
            ]
        )
        == 0
    )
    diy, own = _rows(tmp_path / "diy", tmp_path / "r-diy"), _rows(tmp_path / "self", tmp_path / "r-self")
    for rows, target, n in ((diy, DIY, 40), (own, "self", n_pdf)):
        assert rows[(target, "valid_output_rate")].value == 1.0 and rows[(target, "valid_output_rate")].n == n
        for name in methodology_metrics():
            assert (target, "total_accuracy" if name == "<field>_accuracy" else name) in rows, name
    assert diy[(DIY, "decision_accuracy")].value == 1.0  # the fake read the labels: a perfect analyst
    assert own[("self", "total_accuracy")].value > 0.5  # the text layer is read, not guessed
