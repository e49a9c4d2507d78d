"""Contact sheets of a suite's receipts for docs/cases/*.png (``python -m rabench.cases.synth.contact SUITE OUT``).

Why: the docs show what each class looks like from the committed sample, and a
re-generated sample should re-make the pictures with one command.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

from rabench.cases.manifest import LoadedCase, open_suite
from rabench.cases.transforms import load_image


def _sheet(cases: list[LoadedCase], height: int = 420) -> Image.Image:
    ims = []
    for lc in cases:
        im = load_image(lc.read_bytes(), lc.case.media_type).convert("RGB")
        im.thumbnail((10000, height), Image.LANCZOS)
        ims.append(im)
    sheet = Image.new("RGB", (sum(i.width for i in ims) + 8 * (len(ims) - 1), max(i.height for i in ims)), "white")
    x = 0
    for im in ims:
        sheet.paste(im, (x, 0))
        x += im.width + 8
    return sheet.quantize(colors=64, dither=Image.Dither.NONE)


def contact_sheets(suite: Path, out: Path, per_class: int = 3) -> list[Path]:
    cases = {lc.case.id: lc for lc in open_suite(suite)}
    by_class: dict[str, list[LoadedCase]] = {}
    for lc in cases.values():
        if lc.case.lineage is None and not lc.case.after:
            by_class.setdefault(lc.case.tags["class"], []).append(lc)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for cls, lcs in sorted(by_class.items()):
        p = out / f"{cls}.png"
        _sheet(lcs[:per_class]).save(p, optimize=True)
        written.append(p)
    dup = [(cases[lc.case.lineage.of], lc) for lc in cases.values() if lc.case.lineage][:2]
    neg = [(cases[lc.case.after[0]], lc) for lc in cases.values() if lc.case.after][:1]
    pairs = [x for pair in dup + neg for x in pair]
    if pairs:
        p = out / "duplicates_and_hard_negative.png"
        _sheet(pairs).save(p, optimize=True)
        written.append(p)
    return written


if __name__ == "__main__":  # pragma: no cover
    for path in contact_sheets(Path(sys.argv[1]), Path(sys.argv[2])):
        print(path)
