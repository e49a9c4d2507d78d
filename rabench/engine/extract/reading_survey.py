"""Measure the reader and the arithmetic check on a folder of real receipts.

    python -m rabench.engine.extract.reading_survey DIR [--cache DIR] [--holdout-from N] [--list] [--no-reread]

Why: the arithmetic proof must be right on receipts nobody generated, and the
total and date must be read from real layouts. ``DIR`` is either the SROIE
layout (``img/*.jpg`` with ``key/*.json`` giving company, date and total), a
suite's ``files/`` folder (labels from the suite's ``manifest.jsonl``: merchant,
date, total, currency), or a folder of unlabelled images of genuine receipts (every proof claimed there is
false). Each image is prepared as a run prepares it and read as the engine
reads it (OCR lines cached per file in ``--cache``, so the extraction can be
measured again without OCR; the engine's re-read of the totals block at full resolution
(``reread``) crops the prepared image again, uncached, and prints what it changed; ``--no-reread``
leaves it out). Prints, per part (ids below / from
``--holdout-from``): total right (±0.01), date right, merchant right (the
scorer's rule), arithmetic proofs claimed, "could not be reconciled" opinions,
checks passed, and dates passed on for the photo-before-purchase proof.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import sys
from pathlib import Path

import msgspec


def cache_name(data: bytes) -> str:
    """The OCR cache file of an image: named by its bytes' sha256 and the preparation version, so
    suites whose files share a name (every suite keeps them in ``files/``: ``f00001.jpg`` in each
    forged suite) never read each other's lines, and one cache serves every suite."""
    from rabench.prepare.image import PREP_VERSION

    return f"{hashlib.sha256(data).hexdigest()[:32]}.v{PREP_VERSION}.json"


def _ocr_lines(path: Path, cache: Path | None):  # type: ignore[no-untyped-def]
    from PIL import Image

    from rabench.engine import ocr as ocr_mod
    from rabench.prepare.image import prepare_bytes

    data = path.read_bytes()
    hit = cache / cache_name(data) if cache else None
    if hit is not None and hit.is_file():
        return msgspec.json.decode(hit.read_bytes(), type=ocr_mod.OcrResult)
    prepared = prepare_bytes(data, "image/jpeg")
    with Image.open(io.BytesIO(prepared.data)) as im:
        im.load()
        result = ocr_mod.read_image(im.convert("RGB"))
    if hit is not None:
        hit.parent.mkdir(parents=True, exist_ok=True)
        hit.write_bytes(msgspec.json.encode(result))
    return result


def _source_image(path: Path, rotation: int):  # type: ignore[no-untyped-def]
    """The image a run's engine re-reads amounts from (see ``reread.source_image``)."""
    from PIL import Image

    from rabench.engine.extract.reread import source_image
    from rabench.engine.ocr import turn
    from rabench.prepare.image import prepare_bytes

    prepared = prepare_bytes(path.read_bytes(), "image/jpeg")
    with Image.open(io.BytesIO(prepared.data)) as im:
        im.load()
        image = im.convert("RGB")
    return source_image(path, turn(image, rotation), rotation)


def _key_total(text: str) -> float | None:
    m = re.search(r"\d[\d,]*\.?\d*", text.replace(" ", ""))
    return float(m.group(0).replace(",", "")) if m else None


def _key_date(text: str) -> str | None:
    from rabench.engine.extract.dates import parse_dates

    found = parse_dates([text], language="fr")  # the data set prints its dates day-first
    return found[0].iso if found else None


def _manifest_labels(folder: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    """File name -> label, when ``folder`` is a suite's ``files/`` folder (or the suite itself)."""
    manifest = next((m for m in (folder / "manifest.jsonl", folder.parent / "manifest.jsonl") if m.is_file()), None)
    out = {}
    if manifest is None:
        return out
    for line in manifest.read_text().splitlines():
        rec = json.loads(line) if line.strip() else {}
        if rec.get("file") and isinstance(rec.get("label"), dict):
            out[Path(rec["file"]).name] = rec["label"]
    return out


def survey(
    folder: Path,
    cache: Path | None,
    holdout_from: int | None,
    listing: bool,
    misses: str | None = None,
    reread: bool = True,
) -> dict[str, dict[str, list[int]]]:
    import time

    from rabench.engine import ocr as ocr_mod
    from rabench.engine.checks import totals_add_up
    from rabench.engine.extract import extract_fields, rows_from_ocr
    from rabench.engine.extract.reread import reread_amounts
    from rabench.score.normalise import field_right

    if (folder / "manifest.jsonl").is_file() and (folder / "files").is_dir():
        folder = folder / "files"
    keys = folder / "key"
    images = (
        sorted((folder / "img").glob("*.jpg"))
        if keys.is_dir()
        else sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    )
    labels = _manifest_labels(folder)
    parts: dict[str, dict[str, list[int]]] = {}
    for path in images:
        ident = path.stem
        digits = re.sub(r"\D", "", ident)
        part = (
            "all"
            if holdout_from is None or not digits
            else (f"< {holdout_from}" if int(digits) < holdout_from else f">= {holdout_from}")
        )
        read = _ocr_lines(path, cache)
        rows = rows_from_ocr(read.lines)
        ex = extract_fields(rows)
        result = totals_add_up(ex)
        if reread:  # as the engine does: the totals block re-read at full resolution when in doubt
            t = time.perf_counter()
            ex, lines, done = reread_amounts(
                read.lines,
                ex,
                result.check.status == "passed",
                lambda: _source_image(path, read.rotation),
                recognise=ocr_mod.recognise,
                read_region=ocr_mod.read_region,
            )
            seconds = time.perf_counter() - t
            if done.lines:
                rows = rows_from_ocr(lines)
                result = totals_add_up(ex)
                print(
                    f"{ident}: re-read {done.lines} lines in {seconds:.2f} s"
                    + "".join(f"; {c}" for c in done.changed + done.doubts)
                )
        proof = result.signal is not None and result.signal.kind == "proof"
        row = parts.setdefault(part, {})

        def count(name: str, ok: bool) -> None:
            if misses and not ok and name == f"{misses} right":
                shown = label.get(misses) if label is not None else None
                print(f"--- {ident}: {misses} read {getattr(ex.fields, misses)!r}, labelled {shown!r}")
                for r in rows:
                    print(f"    {r.text}")
            row.setdefault(name, [0, 0])
            row[name][0] += int(ok)
            row[name][1] += 1

        key_file = keys / f"{ident}.json"
        label = labels.get(path.name)
        if label is not None:
            if label.get("total") is not None:
                count("total right", field_right("total", label["total"], ex.fields.total))
            if label.get("date") is not None:
                count("date right", field_right("date", label["date"], ex.fields.date))
            if label.get("currency") is not None:
                count("currency right", field_right("currency", label["currency"], ex.fields.currency))
            if label.get("merchant") is not None:
                count("merchant right", field_right("merchant", label["merchant"], ex.fields.merchant))
        elif key_file.is_file():
            key = json.loads(key_file.read_text())
            total, date = _key_total(key.get("total", "")), _key_date(key.get("date", ""))
            if total is not None:
                count("total right", ex.fields.total is not None and abs(ex.fields.total - total) <= 0.011)
            if date is not None:
                count("date right", ex.fields.date == date)
            count("merchant right", field_right("merchant", key.get("company", ""), ex.fields.merchant))
        count("arithmetic proof", proof)
        count("not reconciled", result.signal is not None and not proof)
        count("check passed", result.check.status == "passed")
        count("date passed on", (ex.fields.date if ex.date_unambiguous else ex.date_earliest) is not None)
        if listing and result.signal is not None:
            print(f"{ident}: {result.signal.kind}: {result.signal.text}")
    return parts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m rabench.engine.extract.reading_survey", description=__doc__.split("\n")[0]
    )
    ap.add_argument("folder", type=Path)
    ap.add_argument("--cache", type=Path, default=None, help="OCR lines cache folder")
    ap.add_argument("--holdout-from", type=int, default=None, metavar="N", help="report ids below N and from N apart")
    ap.add_argument("--list", action="store_true", help="print every arithmetic reason")
    ap.add_argument(
        "--no-reread",
        action="store_true",
        help="leave out the re-read of the totals at full resolution (the engine before it)",
    )
    ap.add_argument(
        "--misses",
        choices=("total", "date", "currency", "merchant"),
        default=None,
        help="print the rows of every receipt whose FIELD was read wrong (suite labels)",
    )
    args = ap.parse_args(argv)
    if not args.folder.is_dir():
        print(f"error: {args.folder} is not a folder", file=sys.stderr)
        return 2
    for part, row in survey(
        args.folder, args.cache, args.holdout_from, args.list, args.misses, not args.no_reread
    ).items():
        cells = "  ".join(f"{name} {ok}/{n}" for name, (ok, n) in row.items())
        print(f"{args.folder.name} {part}: {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
