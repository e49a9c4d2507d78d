"""Build small real suites inside tests: tiny Pillow images plus a msgspec-encoded manifest."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import msgspec
from PIL import Image

from rabench.contracts import Authenticity, Case, Lineage, ReceiptLabel, SuiteHeader


def tiny_jpeg(seed: int, size: tuple[int, int] = (8, 8)) -> bytes:
    im = Image.new("RGB", size, ((seed * 37) % 256, (seed * 91) % 256, (seed * 13) % 256))
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=80)
    return buf.getvalue()


def make_suite(
    root: Path,
    n: int,
    *,
    deps: dict[int, list[int]] | None = None,
    lineage: dict[int, int] | None = None,
    order: list[int] | None = None,
    distinct_files: int | None = None,
    name: str = "test",
) -> Path:
    """``n`` cases c0000.. with files f<k>.jpg; ``deps`` i -> after ids; ``lineage`` i -> of.

    ``distinct_files`` limits how many different image files there are (cases share them).
    """
    root.mkdir(parents=True, exist_ok=True)
    deps = deps or {}
    lineage = lineage or {}
    files = distinct_files or n
    shas: dict[int, str] = {}
    for k in range(files):
        data = tiny_jpeg(k)
        (root / f"f{k}.jpg").write_bytes(data)
        shas[k] = hashlib.sha256(data).hexdigest()
    enc = msgspec.json.Encoder()
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=1.0)
    with open(root / "manifest.jsonl", "wb") as fh:
        fh.write(enc.encode(SuiteHeader(suite="receipt", name=name)) + b"\n")
        for i in order if order is not None else range(n):
            k = i % files
            case = Case(
                id=f"c{i:05d}",
                file=f"f{k}.jpg",
                sha256=shas[k],
                media_type="image/jpeg",
                label=label,
                after=[f"c{j:05d}" for j in deps.get(i, [])],
                lineage=Lineage(of=f"c{lineage[i]:05d}", transform="reencode") if i in lineage else None,
            )
            fh.write(enc.encode(case) + b"\n")
    return root
