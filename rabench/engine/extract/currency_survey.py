"""Survey the currency, country and tax-rate readings on a set of real receipt images.

Why: the currency rests on many small printed clues (see ``currency.py``), and the
figures in docs/engine.md must be reproducible. This reads every image of an
imported suite (``manifest.jsonl``, whose labels give the currency) or of a
plain folder of images (no labels: the readings are listed), runs the engine's
reading (OCR → rows → fields) and prints: currency right against the labels,
the currencies read, the basis of each decision, and every tax-rate
plausibility reason raised. OCR lines can be cached (``--cache DIR``, keyed by
the file's sha256) so a second pass costs no OCR. PDFs are skipped.

    python -m rabench.engine.extract.currency_survey SUITE_OR_FOLDER [--cache DIR] [--list]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import sys
from pathlib import Path

import msgspec
from PIL import Image, ImageOps

_IMAGES = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff")


def _files(root: Path) -> list[tuple[str, Path, str | None]]:
    """(id, path, labelled currency) for every image to read."""
    manifest = root / "manifest.jsonl"
    if manifest.is_file():
        out = []
        for line in manifest.read_text("utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if "file" in row and Path(row["file"]).suffix.lower() in _IMAGES:
                out.append((str(row["id"]), root / row["file"], (row.get("label") or {}).get("currency")))
        return out
    return [(p.stem, p, None) for p in sorted(root.iterdir()) if p.suffix.lower() in _IMAGES]


def _lines(path: Path, cache: Path | None) -> list:  # list[OcrLine]
    from rabench.engine import ocr

    data = path.read_bytes()
    key = cache / f"{hashlib.sha256(data).hexdigest()}.json" if cache else None
    if key is not None and key.is_file():
        return msgspec.json.decode(key.read_bytes(), type=ocr.OcrResult).lines
    with Image.open(path) as im:
        result = ocr.read_image(ImageOps.exif_transpose(im).convert("RGB"))
    if key is not None:
        key.write_bytes(msgspec.json.encode(result))
    return result.lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, help="an imported suite (manifest.jsonl) or a folder of images")
    ap.add_argument("--cache", type=Path, help="directory for cached OCR lines")
    ap.add_argument("--list", action="store_true", help="print every receipt's reading")
    args = ap.parse_args(argv)
    if not args.root.is_dir():
        print(f"currency_survey: {args.root} is not a directory", file=sys.stderr)
        return 2
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    files = _files(args.root)
    if not files:
        print(f"currency_survey: no images in {args.root}", file=sys.stderr)
        return 2

    from rabench.engine.extract import extract_fields, rows_from_ocr
    from rabench.engine.extract.currency import read_currency
    from rabench.engine.plausibility import tax_rate_signals

    right = labelled = 0
    read: collections.Counter[str] = collections.Counter()
    basis: collections.Counter[str] = collections.Counter()
    reasons: list[str] = []
    for cid, path, label in files:
        ex = extract_fields(rows_from_ocr(_lines(path, args.cache)))
        reading = read_currency(ex.text, ex.language)
        code = ex.fields.currency or "none"
        read[code] += 1
        basis[reading.basis or "none"] += 1
        if label is not None:
            labelled += 1
            right += code == label
        for s in tax_rate_signals(ex):
            reasons.append(f"{cid}: {s.name}: {s.text}")
        if args.list or (label is not None and code != label):
            mark = "" if label is None or code == label else f"  (label {label})"
            print(f"{cid}: {code} by {reading.basis}, countries {','.join(reading.countries) or '-'}{mark}")
    if labelled:
        print(f"currency right: {right}/{labelled} = {right / labelled:.1%}")
    print("currencies read:", ", ".join(f"{c} {n}" for c, n in read.most_common()), f"(n = {len(files)})")
    print("decided by:", ", ".join(f"{b} {n}" for b, n in basis.most_common()))
    print(f"tax-rate plausibility reasons: {len(reasons)}")
    for r in reasons:
        print("  " + r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
