"""Read a forged suite back: does each edited image still print its *old* total or date?

Why: the forge reads back only the edited line; this reads the whole forged file again with
the engine's OCR, as a target would, and counts forgeries whose old value is still read on
a total row (or as a date) and whose new value is read. A label that disagrees with the
pixels would be a wrong answer key. Usage (slow: one full OCR per forgery)::

    python -m rabench.cases.forge.readback FORGED_SUITE SOURCE_SUITE
"""

from __future__ import annotations

import sys
from collections import Counter

from msgspec import UNSET

from rabench.cases.forge.locate import find_dates, locate
from rabench.cases.forge.ocr_cache import Reader
from rabench.cases.manifest import open_suite
from rabench.cases.transforms import load_image


def readback(forged: str, source: str, out=sys.stdout) -> Counter:
    suite = open_suite(forged)
    sources = suite.header.meta["forged"]["sources"]
    originals = {lc.case.id: lc.case.label for lc in open_suite(source)}
    engine = Reader(None).engine()
    stats: Counter = Counter()
    for lc in suite:
        label, old = lc.case.label, originals[sources[lc.case.id]]
        new_total = (
            isinstance(label.total, float) and isinstance(old.total, float) and abs(label.total - old.total) > 0.004
        )
        new_date = label.date is not UNSET and label.date != old.date
        if not (new_total or new_date):
            continue
        image = load_image(lc.read_bytes(), lc.case.media_type)
        lines = engine.read(image).lines
        if new_total:
            before = locate(lines, total=old.total, date=None, merchant=None, image_height=image.height)  # type: ignore[arg-type]
            after = locate(lines, total=label.total, date=None, merchant=None, image_height=image.height)  # type: ignore[arg-type]
            stats["total: old still read on a total row" if before.total else "total: old not read"] += 1
            stats["total: new read" if after.total else "total: new not read"] += 1
            if before.total:
                print(f"{lc.case.id} ({lc.case.tags.get('forge')}): old total {old.total} still read", file=out)
        if new_date:
            stats["date: old still read" if find_dates(lines, old.date) else "date: old not read"] += 1  # type: ignore[arg-type]
            stats["date: new read" if find_dates(lines, label.date) else "date: new not read"] += 1  # type: ignore[arg-type]
    for key in sorted(stats):
        print(f"{key}: {stats[key]}", file=out)
    return stats


if __name__ == "__main__":  # pragma: no cover - a manual check
    if len(sys.argv) != 3:
        print("usage: python -m rabench.cases.forge.readback FORGED_SUITE SOURCE_SUITE", file=sys.stderr)
        sys.exit(2)
    readback(sys.argv[1], sys.argv[2])
