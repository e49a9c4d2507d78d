"""How often ``check.change_mismatch`` fires on a suite's receipts, and why it stays silent.

Usage:
    .venv/bin/python bench/change_survey.py SUITE [SUITE ...] [--cache DIR] [--only KIND] [--cover-optional] [--list]

Every base case goes through the engine's own ``pipeline.analyse`` (the run's preparation,
OCR or PDF text layer, the re-read of the totals block, extraction, checks), with provenance,
visual forensics and the fingerprint left out (the check does not use them). ``--cache`` keeps
each image's OCR result by the hash of its pixels, so a second survey costs extraction only.
The check's answer on each receipt is recorded through ``change_check.assess``: fired, or why
it was silent. On genuine receipts every firing is false (precision); on forgeries (the manifest's
``forge`` tag, e.g. ``total``) firings are detections. ``--cover-required`` measures the variant
that stays silent when the cash tendered is short of the total (``change_check.COVER_REQUIRED``,
the default until round 6); ``--cover-optional`` is the engine's default since.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import msgspec
from PIL import Image

from rabench.cases.manifest import open_suite
from rabench.engine import change_check, pipeline
from rabench.engine import ocr as ocr_mod
from rabench.engine.extract.fields import Extraction
from rabench.engine.extract.layout import Row
from rabench.engine.signals import Signal
from rabench.prepare.image import PreparationError, prepare_bytes

# silent after comparing tendered − change with the total: the check ran
COMPARED = (
    "paid = total",
    "within the cash step",
    "the difference is an amount printed on another row",
    "another total row shows what was paid",
)


def _cached_reader(cache: Path) -> Any:
    read = ocr_mod.read_image

    def cached(image: Image.Image) -> ocr_mod.OcrResult:
        key = hashlib.sha256(image.tobytes() + repr((image.size, image.mode)).encode()).hexdigest()[:32]
        hit = cache / f"{key}.json"
        if hit.is_file():
            return msgspec.json.decode(hit.read_bytes(), type=ocr_mod.OcrResult)
        result = read(image)
        hit.write_bytes(msgspec.json.encode(result))
        return result

    return cached


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("suites", nargs="+", type=Path)
    ap.add_argument("--cache", type=Path, default=None, help="OCR results cache folder")
    cover = ap.add_mutually_exclusive_group()
    cover.add_argument(
        "--cover-optional",
        action="store_true",
        help="also fire when the cash is short of the total (the engine's default)",
    )
    cover.add_argument(
        "--cover-required",
        action="store_true",
        help="stay silent when the cash is short of the total (the default before round 6)",
    )
    ap.add_argument("--list", action="store_true", help="print every firing")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="KIND",
        help="only cases of this kind: genuine, or a fake's forge tag / class (repeatable)",
    )
    args = ap.parse_args(argv)
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
        ocr_mod.read_image = _cached_reader(args.cache)  # pipeline reads through the module attribute
    change_check.COVER_REQUIRED = bool(args.cover_required)
    answers: list[str] = []

    def recording(ex: Extraction, rows: list[Row]) -> Signal | None:
        found = change_check.assess(ex, rows)
        answers.append("FIRED: " + found.text if isinstance(found, Signal) else found)
        return found if isinstance(found, Signal) else None

    pipeline.change_signal = recording  # type: ignore[attr-defined]
    settings = pipeline.AnalysisSettings(file_signals=False, visual_signals=False, fingerprint=False)
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    for root in args.suites:
        for lc in open_suite(root):
            if not lc.case.is_base:
                continue
            label = lc.case.label
            kind = str(lc.case.tags.get("forge") or label.authenticity.fake_class) if label.is_fake else "genuine"
            if args.only and kind not in args.only:
                continue
            group = f"{root.name}: " + (f"fake ({kind})" if label.is_fake else "genuine")
            try:
                prepared = prepare_bytes(lc.path.read_bytes(), lc.case.media_type)
            except PreparationError:
                groups[group]["unreadable"] += 1
                continue
            tmp = Path(f"/tmp/change-survey-{lc.case.sha256[:16]}.img")
            tmp.write_bytes(prepared.data)
            answers.clear()
            try:
                pipeline.analyse(str(lc.path), lc.case.media_type, str(tmp), settings, lc.case.submitted_at)
            except pipeline.UnreadableFile:
                groups[group]["unreadable"] += 1
                continue
            finally:
                tmp.unlink(missing_ok=True)
            answer = answers[-1] if answers else "not asked"
            groups[group]["n"] += 1
            groups[group]["fired" if answer.startswith("FIRED") else answer] += 1
            if answer.startswith("FIRED") or answer in COMPARED:
                groups[group]["compared"] += 1
            if args.list and answer.startswith("FIRED"):
                print(f"{root.name}/{lc.case.id} ({group}): {answer[7:]}")
    if not groups:
        print("no case matched (--only takes genuine, or a fake's forge tag or class)")
    for group, c in sorted(groups.items()):
        print(f"{group}: fired {c['fired']}/{c['n']}, compared tendered − change with the total on {c['compared']}")
        for why, k in c.most_common():
            if why not in ("n", "fired", "compared"):
                print(f"    {k:4d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
