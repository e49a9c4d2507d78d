"""The content edits a forger makes to one receipt, each checked by reading it back.

A ``Receipt`` is one source image with its OCR lines, the label values found
on it (``locate``) and its glyph cells (``cells``/``paint``). Each edit returns
the edited pixels and the label fields it changed, or a reason it could not be
made. An edit counts only if the engine's OCR, run again on the edited line,
reads the new value: a forged label must describe what the image shows.

Edits: ``total`` (every printing of the total), ``date`` (every printing of
the date), ``merchant`` (one word of the name), ``item_break`` (one line amount,
so the items no longer add up), ``item_consistent`` (one line amount and every
amount that depends on it: total, subtotal, change), each either pasted from
the receipt's own glyphs or drawn in a matched font; ``regenerate`` gives an
edit the smooth, grain-free look of a generative fill (``ai_inpaint``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np
from PIL import Image
from scipy import ndimage

from rabench.cases.forge import printed
from rabench.cases.forge.cells import Cells, cut_line
from rabench.cases.forge.locate import Amount, Found, Spot, squash
from rabench.cases.forge.ocr_cache import Reader
from rabench.cases.forge.paint import Edit, GlyphBank, replace_text, word_width
from rabench.engine.ocr import OcrLine

Box = tuple[int, int, int, int]


@dataclass
class Receipt:
    image: Image.Image  # upright RGB
    lines: list[OcrLine]
    found: Found
    reader: Reader
    cells: dict[int, Cells | None] = field(default_factory=dict)
    bank: GlyphBank | None = None

    def __post_init__(self) -> None:
        self.source = np.asarray(self.image, dtype=np.float32)
        self.gray = np.asarray(self.image.convert("L"))
        self.bank = GlyphBank(self.source, more=self._more, printed=self._printed)
        self._tried: set[tuple[str, int]] = set()

    def cut(self, line: int) -> Cells | None:
        """The line's character cells (cut once; also added to the glyph bank)."""
        if line not in self.cells:
            ln = self.lines[line]
            c = cut_line(self.gray, ln.box, ln.text)
            # the cut must index the same characters the locator counted
            self.cells[line] = c if c is not None and c.chars == squash(ln.text) else None
            if self.cells[line] is not None and self.bank is not None:
                self.bank.add(self.cells[line], line)  # type: ignore[arg-type]
        return self.cells[line]

    def _alike(self, line: int) -> list[int]:
        """Lines printed at about the size of ``line`` (OCR box height within 20 %), nearest first."""
        ref = self.lines[line]
        near = [i for i, ln in enumerate(self.lines) if abs(ln.height - ref.height) <= 0.2 * ref.height]
        return sorted(near, key=lambda i: abs(self.lines[i].y_center - ref.y_center))

    def _printed(self, line: int) -> set[str]:
        return {c for i in self._alike(line) for c in squash(self.lines[i].text)}

    def _more(self, char: str, line: int) -> None:
        if (char, line) in self._tried:
            return
        self._tried.add((char, line))
        self.cut(line)
        donors = [i for i in self._alike(line) if char in squash(self.lines[i].text)]
        found = 0
        for i in donors:
            if found >= 2:
                break
            if self.cut(i) is not None:
                found += 1


@dataclass(frozen=True, slots=True)
class Made:
    """An edited image and what it now prints."""

    pixels: np.ndarray  # float32 RGB
    changes: dict[str, object]  # label fields -> new values ("line_item": (old, new) amounts)
    edited: tuple[str, ...]  # label fields the edit changed (scalar fields only)
    boxes: tuple[Box, ...]
    copied: int
    drawn: int


class CannotEdit(Exception):
    """The edit cannot be made confidently on this receipt (the message says why)."""


def _apply(
    r: Receipt, arr: np.ndarray, spots: list[tuple[Spot, str]], rng: np.random.Generator, *, right_aligned: bool
) -> list[Edit]:
    edits = []
    for spot, new in spots:
        cells = r.cut(spot.line)
        if cells is None:
            raise CannotEdit("a printing of the value could not be cut into characters")
        assert r.bank is not None
        e = replace_text(arr, r.bank, cells, spot.line, spot.start, spot.end, new, rng, right_aligned=right_aligned)
        if e is None:
            raise CannotEdit("no room to print the new value")
        edits.append(e)
    return edits


def _verify(r: Receipt, arr: np.ndarray, spots: list[tuple[Spot, str]], edits: list[Edit]) -> None:
    """The engine's OCR recogniser must read every new value on its edited line."""
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    for (spot, new), e in zip(spots, edits):
        x0, y0, x1, y1 = r.lines[spot.line].box
        x0, y0, x1, y1 = min(x0, e.box[0]), min(y0, e.box[1]), max(x1, e.box[2]), max(y1, e.box[3])
        h = y1 - y0
        crop = img.crop(
            (max(0, x0 - h // 2), max(0, y0 - h // 8), min(img.width, x1 + h // 2), min(img.height, y1 + h // 8))
        )
        got = squash(r.reader.read_line(crop))
        if new not in got:
            raise CannotEdit(f"the OCR reads the edited line as {got!r}, not with {new!r}")


def _finish(
    r: Receipt,
    arr: np.ndarray,
    spots: list[tuple[Spot, str]],
    edits: list[Edit],
    changes: dict[str, object],
    edited: tuple[str, ...],
) -> Made:
    _verify(r, arr, spots, edits)
    return Made(
        arr, changes, edited, tuple(e.box for e in edits), sum(e.copied for e in edits), sum(e.drawn for e in edits)
    )


def edit_total(r: Receipt, total: float, rng: np.random.Generator, *, avoid: set[float] = frozenset()) -> Made:  # type: ignore[assignment]
    f = r.found
    if not f.total:
        raise CannotEdit(f.why.get("total", "total not found"))
    cells = [r.cut(a.spot.line) for a in f.total]
    if any(c is None for c in cells):
        raise CannotEdit("a printing of the total could not be cut into characters")
    glyphs = set.intersection(*(r.bank.chars_like(c, a.spot.line) for c, a in zip(cells, f.total) if c is not None))  # type: ignore[union-attr]
    last: CannotEdit | None = None
    for _ in range(6):
        new = printed.new_total(f.total[0].spot.text, total, rng, glyphs=glyphs)
        value = printed.amount_value(new)
        if value in avoid:
            continue
        arr = r.source.copy()
        spots = [(a.spot, printed.format_like(value, a.spot.text)) for a in f.total]  # each in its own style
        try:
            edits = _apply(r, arr, spots, rng, right_aligned=True)
            return _finish(r, arr, spots, edits, {"total": value}, ("total",))
        except CannotEdit as exc:
            last = exc
    raise last or CannotEdit("no new total could be printed")


def edit_date(r: Receipt, date: str, rng: np.random.Generator) -> Made:
    f = r.found
    if not f.date:
        raise CannotEdit(f.why.get("date", "date not found"))
    old = dt.date.fromisoformat(date)
    last: CannotEdit | None = None
    for _ in range(4):
        try:
            new_day, _text = printed.new_date(f.date[0], old, rng)
        except ValueError as exc:
            raise CannotEdit(str(exc)) from None
        spots = [(d.spot, printed.print_date(d, new_day)) for d in f.date]
        if any(len(t) != len(sp.text) for sp, t in spots):
            raise CannotEdit("the date is printed in formats that cannot all keep their length")
        arr = r.source.copy()
        try:
            edits = _apply(r, arr, spots, rng, right_aligned=False)
            return _finish(r, arr, spots, edits, {"date": new_day.isoformat()}, ("date",))
        except CannotEdit as exc:
            last = exc
    raise last or CannotEdit("no new date could be printed")


def edit_merchant(r: Receipt, merchant: str, rng: np.random.Generator) -> Made:
    f = r.found
    if f.merchant is None:
        raise CannotEdit(f.why.get("merchant", "merchant not found"))
    spot, word = f.merchant
    cells = r.cut(spot.line)
    if cells is None:
        raise CannotEdit("the merchant's name line could not be cut into characters")
    assert r.bank is not None
    words = printed.new_merchant_words(word, rng, glyphs=set(cells.chars))  # the name line's own letters
    own = r.bank.glyphs_of(spot.line)
    old_width = own[spot.end - 1].x1 - own[spot.start].x0
    fits = []
    for w in words:
        width = word_width(r.bank, w, cells, spot.line)
        if width is not None and 0.85 * old_width <= width <= 1.1 * old_width:
            fits.append(w)
    if not fits:
        raise CannotEdit("no shop word of about the same width can be pasted from the name line's own letters")
    last: CannotEdit | None = None
    for new in fits[:4]:
        arr = r.source.copy()
        spots = [(spot, new)]
        at = merchant.index(word)
        try:
            edits = _apply(r, arr, spots, rng, right_aligned=False)
            return _finish(
                r, arr, spots, edits, {"merchant": merchant[:at] + new + merchant[at + len(word) :]}, ("merchant",)
            )
        except CannotEdit as exc:
            last = exc
    raise last or CannotEdit("no shop word fits in the name line")


def _item_choice(r: Receipt, label_items: list | None, rng: np.random.Generator) -> Amount:
    items = [a for a in r.found.items if a.value > 0 and r.cut(a.spot.line) is not None]
    if label_items is not None:
        # the label lists the items: the changed one must be identifiable in it
        items = [a for a in items if sum(1 for it in label_items if abs(it.total - a.value) < 0.005) == 1]
    if not items:
        raise CannotEdit("no line amount that adds up to the total could be edited")
    return items[int(rng.integers(len(items)))]


def edit_item(
    r: Receipt,
    total: float,
    rng: np.random.Generator,
    *,
    consistent: bool,
    label_items: list | None,
    avoid: set[float] = frozenset(),
) -> Made:  # type: ignore[assignment]
    """Change one line amount; ``consistent`` also changes every amount that depends on it."""
    f = r.found
    if not f.items:
        raise CannotEdit("no line amounts were found that add up to the total")
    if consistent:
        if f.tax_printed:
            raise CannotEdit("tax is printed: changing an item would change it too")
        if f.tender is not None and f.change is None:
            raise CannotEdit("a payment is printed without change: the new total would not match it")
    item = _item_choice(r, label_items, rng)
    last: CannotEdit | None = None
    for _ in range(6):
        step = 0.1 * int(rng.integers(5, 60))  # multiples of 10 cents keep cash rounding valid
        delta = round(step, 2)
        if consistent and f.change is not None:
            if f.tender is None or abs(f.tender.value - total - f.change.value) > 0.005:
                raise CannotEdit("the printed change does not follow from payment minus total")
            delta = round(min(delta, f.change.value), 2)
            if delta <= 0:
                raise CannotEdit("no change left to absorb a larger total")
        new_item = printed.shift_amount(item.spot.text, delta)
        spots: list[tuple[Spot, str]] = [(item.spot, new_item)]
        changes: dict[str, object] = {"line_item": (item.value, printed.amount_value(new_item))}
        edited: tuple[str, ...] = ()
        if consistent:
            new_total = printed.shift_amount(f.total[0].spot.text, delta)
            if printed.amount_value(new_total) in avoid:
                continue
            dependents = list({(a.spot.line, a.spot.start): a for a in f.total + f.subtotal_rows}.values())
            dependents = [a for a in dependents if (a.spot.line, a.spot.start) != (item.spot.line, item.spot.start)]
            spots += [(a.spot, printed.shift_amount(a.spot.text, delta)) for a in dependents]
            if f.change is not None:
                spots.append((f.change.spot, printed.shift_amount(f.change.spot.text, -delta)))
            changes["total"] = printed.amount_value(new_total)
            changes["subtotal_from"] = total
            edited = ("total",)
        arr = r.source.copy()
        try:
            edits = _apply(r, arr, spots, rng, right_aligned=True)
            return _finish(r, arr, spots, edits, changes, edited)
        except CannotEdit as exc:
            last = exc
    raise last or CannotEdit("no line amount could be printed")


def regenerate(pixels: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``pixels`` inside ``mask`` as a generative fill leaves them: smooth, grain-free, slightly
    tinted, blended in with a feathered edge."""
    soft = ndimage.gaussian_filter(mask.astype(np.float32), 2.0)[:, :, None]
    smooth = ndimage.gaussian_filter(pixels, sigma=(0.9, 0.9, 0))
    tint = np.array(rng.uniform(0.97, 1.03, size=3), dtype=np.float32)
    return pixels * (1 - soft) + np.clip(smooth * tint, 0, 255) * soft


def edit_mask(made: Made) -> np.ndarray:
    """The regions an edit touched, padded as an inpainting brush would be."""
    mask = np.zeros(made.pixels.shape[:2], dtype=bool)
    for x0, y0, x1, y1 in made.boxes:
        pad = max(2, (y1 - y0) // 3)
        mask[max(0, y0 - pad) : y1 + pad, max(0, x0 - 2 * pad) : x1 + 2 * pad] = True
    return mask


def changed_mask(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Where two renderings of one photo differ (the edit, wherever the photo moved it)."""
    diff = np.abs(after.astype(np.float32) - before.astype(np.float32)).sum(axis=2) > 6.0
    return ndimage.binary_dilation(diff, iterations=4)
