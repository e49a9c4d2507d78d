"""Re-reading the totals block's amounts at full resolution, when the first read is in doubt.

Why: on real scans most wrong totals are one amount misread ("150.00" for a faint 130.00,
"20.98" for 20.80, "600" for 6.00 with its decimal point lost) or a total label read without its
amount, while the receipt prints the same money on other rows. The first read sees the page at
up to 1280 px and crops each line where the detector drew it; a line is re-read from the source
image (the original file when it is larger than the prepared one), cropped with a margin and
upscaled (Lanczos), by the recogniser alone, in four framings. Only what the reading needs and
only when it needs it: the amounts of the totals block's rows, when the printed amounts don't
reconcile (or no total was read).

The rule (``reread_amounts``): an amount is replaced only when it was first read below
``CHANGE_BELOW`` confidence (or not read as money at all) and either (A) every framing reads the
same new value, each at least ``AGREE_CONFIDENCE`` and surer than the first read, or (B) a value
a framing read at least ``RECONCILE_READ`` makes the printed amounts reconcile — the total
equals subtotal + tax ... (``checks.totals_add_up`` passes) or what was paid less the change —
where the first read did not, with one or two digits misread in place or one dropped or added.
In both, the total after the change must be the first read's or the value re-read: a change may
not move the total to another row (a forger's edited total read as a smaller number would
otherwise hand the total to the unedited row above it). Two different reconciling changes are a
guess: none is made. A value no framing read is never used. Whatever changed, the reading gets
a doubt, so the arithmetic check never claims a proof on a re-read; and an amount the first read
used that the framings read otherwise (most of them, surely) gets a doubt too: a re-read can only
take a proof away, never make one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
from PIL import Image, ImageOps
from rapidfuzz.distance import Levenshtein

from rabench.engine.extract.amounts import find_amounts
from rabench.engine.extract.fields import Extraction, extract_fields
from rabench.engine.extract.layout import rows_from_ocr
from rabench.engine.extract.summary import amount_paid
from rabench.engine.extract.vocab import row_kind
from rabench.engine.ocr import OcrLine, turn

CHANGE_BELOW = 0.93  # an amount read at least this surely is never replaced (a proof's odd one needs 0.93)
AGREE_CONFIDENCE = 0.9  # rule A: every framing reads the new value at least this surely
# rule B: the reconciling value read at least this surely by some framing (set on dev: a re-saved
# control of SROIE 249 in B1-forged reads its faint 130.00 at 0.66)
RECONCILE_READ = 0.6
MIN_READ = 0.5  # a framing's read below this confidence is not a candidate
MAX_LINES = 8  # at most this many lines re-read on a receipt
# (horizontal margin, vertical margin) in line heights, and the upscale factor
# (a detector's box can clip the last digit: the wide framings take a digit or two more on each side)
FRAMINGS = ((0.3, 0.25, 2.0), (0.3, 0.25, 3.0), (1.0, 0.4, 2.0), (1.0, 0.4, 3.0))

Recognise = Callable[[list[Image.Image]], list[tuple[str, float]]]
ReadRegion = Callable[[Image.Image], list[OcrLine]]


class Reread(msgspec.Struct, frozen=True):
    """What the re-read did on one receipt (for the survey and reasons)."""

    lines: int = 0  # OCR lines re-read
    changed: list[str] = []  # "150.00 -> 130.00 (reconciles)"
    doubts: list[str] = []


def source_image(original: Path | None, prepared: Image.Image, rotation: int = 0) -> tuple[Image.Image, float]:
    """The largest upright picture of the receipt and its scale to the prepared image's pixels.

    A run hands the engine the prepared image (upright, at most 3072 px) and the original file;
    the original, turned upright by its EXIF orientation, is used when it is larger and shows the
    same picture (the same shape within 1 %), else the prepared image. ``prepared`` is in the
    frame of the line boxes already; ``rotation`` is the turn the first read needed (given to the
    original too)."""
    best, scale = prepared, 1.0
    if original is not None:
        try:
            with Image.open(original) as im:
                w, h = im.size
                orientation = im.getexif().get(0x0112, 1)
                if orientation in (5, 6, 7, 8):
                    w, h = h, w
                if rotation in (90, 270):  # ``prepared`` is in the frame of the turned read
                    w, h = h, w
                if (
                    w > prepared.width * 1.05
                    and abs(w / h - prepared.width / prepared.height) < 0.01 * w / h
                    and w * h <= 80_000_000
                ):
                    im.load()
                    best = ImageOps.exif_transpose(im).convert("RGB")
                    best = turn(best, rotation)
                    scale = best.width / prepared.width
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
            best, scale = prepared, 1.0
    return best, scale


def needs_reread(ex: Extraction, check_passed: bool) -> bool:
    """Re-read only when the amounts don't reconcile or no total was read."""
    return ex.fields.total is None or not check_passed


def _value(text: str, minor: int) -> float | None:
    found = find_amounts(text, minor_units=minor)
    return found[-1].value if found and (found[-1].decimals or minor == 0) else None


def _digits(v: float | None, minor: int) -> str:
    return "" if v is None else f"{abs(v):.{max(minor, 0)}f}".replace(".", "")


def _crop(
    image: Image.Image, box: tuple[int, int, int, int], scale: float, mx: float, my: float, up: float
) -> Image.Image:
    x0, y0, x1, y1 = (v * scale for v in box)
    h = max(1.0, y1 - y0)
    left, top = min(image.width - 1, max(0, int(x0 - mx * h))), min(image.height - 1, max(0, int(y0 - my * h)))
    c = image.crop(
        (
            left,
            top,
            max(left + 1, min(image.width, int(x1 + mx * h + 1))),
            max(top + 1, min(image.height, int(y1 + my * h + 1))),
        )
    )
    # upscale so the text is well above the recogniser's 48 px, not beyond
    factor = max(1.0, min(up, 200.0 / max(1, c.height)))
    if factor > 1.0:
        c = c.resize((max(1, round(c.width * factor)), max(1, round(c.height * factor))), Image.Resampling.LANCZOS)
    return c.convert("RGB")


def _targets(lines: Sequence[OcrLine], ex: Extraction) -> tuple[list[int], list[int]]:
    """(lines holding an amount in the totals block, total/subtotal/tax label lines printed
    without an amount on their row). The block runs from the subtotal/tax/total rows the reading
    used (or, without them, the total labels it saw) to a few rows under them (a rounded total,
    what was paid, the change)."""
    if not lines:
        return [], []
    rows = rows_from_ocr(lines)
    index = {(ln.text, ln.box): i for i, ln in enumerate(lines)}
    kinds = [row_kind(r.text) for r in rows]
    anchors = [b for name in ("total", "subtotal", "tax_total") for b in ex.field_boxes.get(name, [])]
    if not anchors:
        first_amount = next((k for k, r in enumerate(rows) if _value(r.text, ex.minor_units) is not None), len(rows))
        anchors = [
            r.box
            for k, r in enumerate(rows)
            if k > first_amount and kinds[k] in ("total", "subtotal") and r.box is not None
        ]
    if not anchors:
        return [], []
    heights = sorted(ln.box[3] - ln.box[1] for ln in lines)
    h = heights[len(heights) // 2]
    top = min(b[1] for b in anchors) - 0.5 * h
    bottom = max(b[3] for b in anchors) + 3.5 * h
    amount_lines: list[int] = []
    bare: list[int] = []
    for r, row in enumerate(rows):
        if row.box is None or not top <= (row.box[1] + row.box[3]) / 2 <= bottom:
            continue
        found = [index[(s.text, s.box)] for s in row.segments if s.box is not None and (s.text, s.box) in index]
        amount_lines += [k for k in found if re.search(r"\d", lines[k].text)]
        if (
            not any(re.search(r"\d", s.text) for s in row.segments)
            and kinds[r] in ("total", "subtotal", "tax")
            and found
        ):
            bare.append(found[-1])
    return amount_lines[:MAX_LINES], bare[:2]


def _total_in(lines: list[OcrLine], allowed: set[float]) -> bool:
    total = extract_fields(rows_from_ocr(lines)).fields.total
    return total is None or round(total, 6) in allowed


def _claims_proof(ex: Extraction) -> bool:
    from rabench.engine.checks import totals_add_up

    signal = totals_add_up(ex).signal
    return signal is not None and signal.kind == "proof"


def _reconciles(lines: list[OcrLine], allowed: set[float] | None = None) -> bool:
    """Do the amounts read from ``lines`` reconcile? With ``allowed``: and is the total one of
    those values (a re-read may not move the total to another row's amount)."""
    from rabench.engine.checks import totals_add_up

    rows = rows_from_ocr(lines)
    ex = extract_fields(rows)
    if ex.fields.total is None or (allowed is not None and round(ex.fields.total, 6) not in allowed):
        return False
    if totals_add_up(ex).check.status == "passed":
        return True
    return _paid(rows, ex.minor_units) == round(ex.fields.total, 6)


def _paid(rows: list, minor: int) -> float | None:  # type: ignore[type-arg]
    from rabench.engine.extract.fields import _label_of, _row_amount

    amounts = [_row_amount(r, minor) for r in rows]
    kinds = [row_kind(_label_of(r, a)) if a is not None else "none" for r, a in zip(rows, amounts)]
    paid = amount_paid(rows, amounts, kinds, 0)
    return paid[0] if paid is not None else None


def _replace_amount(text: str, minor: int, value: float) -> str:
    """``text`` with its (last) amount's digits replaced by ``value``, in the text's decimal mark."""
    found = find_amounts(text, minor_units=minor)
    span = (found[-1].start, found[-1].end) if found else None
    if span is None:
        m = re.search(r"\d[\d.,]*(?!.*\d)", text)
        span = (m.start(), m.end()) if m else (len(text), len(text))
    part = text[span[0] : span[1]]
    mark = "," if re.search(r",\d{1,2}(?!\d)", part) else "."
    number = f"{abs(value):.{max(minor, 0)}f}".replace(".", mark)
    m = re.search(r"\d(?:[\d.,' ]*\d)?", part)
    part = part[: m.start()] + number + part[m.end() :] if m else (part + " " + number).strip()
    return text[: span[0]] + part + text[span[1] :]


def reread_amounts(
    lines: list[OcrLine],
    ex: Extraction,
    check_passed: bool,
    load_image: Callable[[], tuple[Image.Image, float]],
    *,
    recognise: Recognise,
    read_region: ReadRegion,
) -> tuple[Extraction, list[OcrLine], Reread]:
    """Re-read the totals block when it needs it (see the module text); returns the extraction
    to use, the lines it was read from and what was done. ``load_image`` gives the source image
    upright in the lines' frame and its scale (source pixels per line-box pixel)."""
    if not needs_reread(ex, check_passed):
        return ex, lines, Reread()
    minor = ex.minor_units
    targets, bare = _targets(lines, ex)
    # only an amount first read below CHANGE_BELOW (or not read as money) may change; a sure one is
    # re-read only to doubt a proof the first read would claim
    proof = _claims_proof(ex)
    targets = [
        i for i in targets if proof or lines[i].confidence < CHANGE_BELOW or _value(lines[i].text, minor) is None
    ]
    if not targets and not bare:
        return ex, lines, Reread()
    image, scale = load_image()
    crops = [_crop(image, lines[i].box, scale, mx, my, up) for i in targets for mx, my, up in FRAMINGS]
    reads = recognise(crops)
    per_line = {i: reads[k * len(FRAMINGS) : (k + 1) * len(FRAMINGS)] for k, i in enumerate(targets)}
    # a label printed without its amount: read the row from the label to the receipt's right edge
    right = max(ln.box[2] for ln in lines)
    added: dict[int, list[OcrLine]] = {}
    for i in bare:
        x0, y0, x1, y1 = lines[i].box
        h = y1 - y0
        band = (x1 + h // 2, y0, max(x1 + h, right), y1)
        if band[2] - band[0] < 2 * h:
            continue  # the label ends at the receipt's edge: nothing printed beside it
        found = []
        crop = _crop(image, band, scale, 0.0, 0.4, 2.0)
        f = crop.width / max(1.0, (band[2] - band[0]) * scale)
        for ln in read_region(crop):
            if _value(ln.text, minor) is not None:
                bx = (band[0] + int(ln.box[0] / f / scale), y0, band[0] + int(ln.box[2] / f / scale), y1)
                found.append(OcrLine(ln.text, bx, ln.confidence, lines[i].slope))
        added[i] = found[-1:]  # the right-most amount on the row

    changed: list[str] = []
    doubts: list[str] = []
    base_reconciles = _reconciles(lines)
    proposals: list[tuple[int | None, OcrLine, str]] = []  # (line replaced or None for added, new line, why)
    for i, rs in per_line.items():
        first = lines[i]
        v0 = _value(first.text, minor)
        cands = [(v, t, c) for t, c in rs if c >= MIN_READ for v in [_value(t, minor)] if v is not None]
        if v0 is not None and cands:
            other = [c for v, _, c in cands if v != v0 and c >= 0.8]
            if len(other) > len(cands) / 2:
                doubts.append(
                    f'"{first.text}" re-read at full resolution reads otherwise '
                    f"({', '.join(sorted({t for v, t, _ in cands if v != v0}))})"
                )
        if first.confidence >= CHANGE_BELOW and v0 is not None:
            continue
        d0 = _digits(v0, minor)
        values = {v for v, _, _ in cands}
        for v in sorted(values):
            d = _digits(v, minor)
            # a digit or two misread in place, or one digit dropped or added ("035.00" for 635.00)
            if v == v0 or (v0 is not None and Levenshtein.distance(d0, d) > (2 if len(d) == len(d0) else 1)):
                continue
            best = max((c for w, _, c in cands if w == v), default=0.0)
            new = OcrLine(_replace_amount(first.text, minor, v), first.box, best, first.slope)
            agree = (
                len(cands) == len(FRAMINGS)
                and values == {v}
                and all(c >= max(AGREE_CONFIDENCE, first.confidence + 0.05) for _, _, c in cands)
            )
            proposals.append((i, new, "every framing agrees" if agree else ""))
    for found in added.values():
        proposals += [(None, ln, "") for ln in found]

    accepted: list[tuple[int | None, OcrLine, str]] = []
    for at, new, why in proposals:
        trial = [new if k == at else ln for k, ln in enumerate(lines)] if at is not None else [*lines, new]
        # the total after the change is the first read's or the value re-read (never another row's)
        allowed = {round(x, 6) for x in (ex.fields.total, _value(new.text, minor)) if x is not None}
        if why:
            if _total_in(trial, allowed):
                accepted.append((at, new, why))
            continue
        if not base_reconciles and new.confidence >= RECONCILE_READ and _reconciles(trial, allowed):
            accepted.append((at, new, "the amounts then reconcile"))
    # one change per line; two different reconciling changes are a guess: none is made
    by_line: dict[int | None, list[tuple[OcrLine, str]]] = {}
    for at, new, why in accepted:
        by_line.setdefault(at, []).append((new, why))
    recon = [k for k, v in by_line.items() if any(w == "the amounts then reconcile" for _, w in v)]
    if len(recon) > 1 or any(len(v) > 1 for v in by_line.values()):
        doubts.append("re-reading the totals at full resolution gave more than one reading that reconciles")
        by_line = {k: v for k, v in by_line.items() if k not in recon and len(v) == 1}
    new_lines = list(lines)
    for at, ((new, why),) in ((k, v) for k, v in by_line.items() if len(v) == 1):
        if at is None:
            new_lines.append(new)
            changed.append(f'"{new.text}" read beside a label printed without its amount ({why})')
        else:
            changed.append(f'"{lines[at].text}" re-read as "{new.text}" ({why})')
            new_lines[at] = new
    report = Reread(lines=len(targets) + len(bare), changed=changed, doubts=doubts)
    out = ex
    if changed:
        out = extract_fields(rows_from_ocr(new_lines))
        doubts = [*doubts, *(f"amount re-read at full resolution: {c}" for c in changed)]
    if doubts:
        out = msgspec.structs.replace(out, doubts=[*out.doubts, *doubts])
    return out, (new_lines if changed else lines), report
