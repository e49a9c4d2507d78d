"""Is this the same purchase as an earlier submission? A pure decision on two fingerprints.

The rule (documented in docs/engine.md ("File forensics")) is built for hard negatives:
receipts from the same shop, template and day, sometimes with the same total.
What tells them apart is what a till makes unique -- the receipt number and the
item amounts -- so:

- **exact**: identical file bytes (sha256), or the identical decoded image (pixel hash: a
  lossless re-encode such as JPEG -> PNG keeps every pixel but not the file bytes).
- **text**: no conflict, merchant alike (rapidfuzz ratio >= 85), and at least
  three of {date, total, receipt number, item amounts} agree, one of which is the
  receipt number or the item amounts.
- **perceptual**: pHash within ``PHASH_MAX`` bits, no conflict, and at least two
  of {date, total, receipt number, item amounts} agree; when neither side has a
  receipt number or two item amounts, the pHash must be within ``PHASH_STRICT``.

A *conflict* vetoes every non-exact match: a different receipt number, total or
date, or item amounts that mostly differ (strong); a different subtotal, tax or
clearly different merchant counts too unless at least three strong parts agree.
Looks alone never match.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

import msgspec
from rapidfuzz import fuzz

from rabench.engine.dupes.fingerprint import Fingerprint, hamming

PHASH_MAX = 12
PHASH_STRICT = 4
MERCHANT_AGREE = 85.0
MERCHANT_CONFLICT = 55.0
ITEMS_AGREE = 0.75
ITEMS_CONFLICT = 0.5

MatchKind = Literal["exact", "perceptual", "text"]


class Match(msgspec.Struct, frozen=True):
    ref: str  # the earlier submission
    kind: MatchKind
    score: float  # 1.0 exact; text: share of compared parts that agree; perceptual: 1 - distance/64
    detail: str = ""  # what agreed, for the reviewer


class Comparison(msgspec.Struct, frozen=True):
    agree: tuple[str, ...]
    conflict_strong: tuple[str, ...]
    conflict_weak: tuple[str, ...]
    merchant: str  # "agree" | "conflict" | "unknown"
    distance: int


def _items(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    if len(a) < 2 or len(b) < 2:
        return "unknown"
    common = sum((Counter(a) & Counter(b)).values())
    share = common / max(len(a), len(b))
    if share >= ITEMS_AGREE and common >= 2:
        return "agree"
    return "conflict" if share < ITEMS_CONFLICT else "unknown"


def compare(new: Fingerprint, old: Fingerprint) -> Comparison:
    agree: list[str] = []
    strong: list[str] = []
    weak: list[str] = []
    for name in ("date", "total", "receipt_number"):
        a, b = getattr(new, name), getattr(old, name)
        if a is None or b is None:
            continue
        ok = abs(a - b) <= 1 if name == "total" else a == b
        (agree if ok else strong).append(name)
    it = _items(new.items, old.items)
    if it == "agree":
        agree.append("items")
    elif it == "conflict":
        strong.append("items")
    for name in ("subtotal", "tax_total"):
        a, b = getattr(new, name), getattr(old, name)
        if a is not None and b is not None and abs(a - b) > 1:
            weak.append(name)
    merchant = "unknown"
    if new.merchant and old.merchant:
        r = fuzz.ratio(new.merchant, old.merchant)
        merchant = "agree" if r >= MERCHANT_AGREE else "conflict" if r < MERCHANT_CONFLICT else "unknown"
        if merchant == "conflict":
            weak.append("merchant")
    return Comparison(tuple(agree), tuple(strong), tuple(weak), merchant, hamming(new.phash, old.phash))


def decide(new: Fingerprint, old: Fingerprint, old_ref: str) -> Match | None:
    """The match of ``new`` against one earlier fingerprint, or None."""
    if new.sha256 == old.sha256:
        return Match(old_ref, "exact", 1.0, f"identical file (sha256 {new.sha256[:12]}…)")
    if new.pixels and new.pixels == old.pixels:
        return Match(old_ref, "exact", 1.0, f"identical image, re-encoded (pixel hash {new.pixels[:12]}…)")
    c = compare(new, old)
    if c.conflict_strong:
        return None
    if c.conflict_weak and len(c.agree) < 3:
        return None
    unique = {"receipt_number", "items"} & set(c.agree)
    parts = ", ".join(c.agree)
    if c.merchant == "agree" and len(c.agree) >= 3 and unique:
        compared = len(c.agree) + len(c.conflict_weak) + 1
        return Match(
            old_ref,
            "text",
            round((len(c.agree) + 1) / compared, 3),
            f"same merchant and {parts}; image distance {c.distance}/64",
        )
    limit = (
        PHASH_MAX
        if (new.receipt_number or len(new.items) >= 2) and (old.receipt_number or len(old.items) >= 2)
        else PHASH_STRICT
    )
    if c.distance <= limit and len(c.agree) >= 2:
        return Match(
            old_ref, "perceptual", round(1 - c.distance / 64, 3), f"image distance {c.distance}/64 and the same {parts}"
        )
    return None


def best(matches: list[Match]) -> Match | None:
    """Exact beats text beats perceptual; then the higher score."""
    rank = {"exact": 2, "text": 1, "perceptual": 0}
    return max(matches, key=lambda m: (rank[m.kind], m.score), default=None)
