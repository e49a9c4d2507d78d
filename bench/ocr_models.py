"""Recogniser variants on real receipts: CPU seconds per receipt and agreement with today's reads.

Usage:
    .venv/bin/python bench/ocr_models.py SUITE [SUITE ...] --variant NAME=REC_MODEL.onnx [--limit 20]
        [--rec-batch 6]

Every receipt of the suites (the first ``--limit`` of each) is read by the engine's own OCR path
(``rabench.engine.ocr.OcrEngine.read``: crop, downscale, turned reads) once with the recogniser shipped in
the rapidocr wheel and once per variant (e.g. an int8 dynamic quantisation of it, made with
``onnxruntime.quantization.quantize_dynamic``), in this one process, one ONNX thread, so the CPU
seconds (``time.process_time``) compare in the same run. Prints CPU-s per receipt per variant, the
share of the baseline's lines a variant reads with the same text, and the share of the baseline's
amount-looking tokens (``12.34``) it reads the same.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from PIL import Image

from rabench.cases.manifest import open_suite
from rabench.engine.ocr import OcrEngine

_AMOUNT = re.compile(r"\d+[.,]\d{2}\b")


def _engine(rec_model: str | None, rec_batch: int) -> OcrEngine:
    from rapidocr_onnxruntime import RapidOCR

    eng = OcrEngine()
    kw: dict = {"rec_batch_num": rec_batch}
    if rec_model:
        kw["rec_model_path"] = rec_model
    s = eng.settings
    eng._ocr = RapidOCR(
        intra_op_num_threads=s.threads,
        inter_op_num_threads=1,
        det_limit_type="max",
        det_limit_side_len=s.det_limit_side,
        text_score=s.min_text_score,
        **kw,
    )
    return eng


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suites", nargs="+", type=Path)
    ap.add_argument("--variant", action="append", default=[], help="NAME=PATH to a recogniser .onnx")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--rec-batch", type=int, default=6)
    args = ap.parse_args()
    files = [lc.path for s in args.suites for lc in list(open_suite(s))[: args.limit]]
    variants = [("shipped", None, 6)] + [(v.split("=", 1)[0], v.split("=", 1)[1], 6) for v in args.variant]
    if args.rec_batch != 6:
        variants.append((f"shipped-batch{args.rec_batch}", None, args.rec_batch))
    images = [Image.open(f).convert("RGB") for f in files]
    reads: dict[str, list[list[str]]] = {}
    cpu: dict[str, float] = {}
    for name, model, batch in variants:
        eng = _engine(model, batch)
        eng.read(images[0])  # warm up
        c = time.process_time()
        reads[name] = [[ln.text for ln in eng.read(im).lines] for im in images]
        cpu[name] = time.process_time() - c
    base = reads["shipped"]
    out = {"receipts": len(images)}
    for name in reads:
        same = total = amt_same = amt_total = 0
        for b, v in zip(base, reads[name], strict=True):
            vs = set(v)
            total += len(b)
            same += sum(t in vs for t in b)
            ba = [m for t in b for m in _AMOUNT.findall(t)]
            va = [m for t in v for m in _AMOUNT.findall(t)]
            amt_total += len(ba)
            amt_same += sum(min(ba.count(a), va.count(a)) for a in set(ba))
        out[name] = {
            "cpu_s_per_receipt": round(cpu[name] / len(images), 3),
            "cpu_ratio_to_shipped": round(cpu[name] / cpu["shipped"], 3),
            "lines_same_text": f"{same}/{total}",
            "amounts_same": f"{amt_same}/{amt_total}",
        }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
