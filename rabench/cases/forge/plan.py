"""Which receipts become genuine controls and which are forged, and into what.

Why a partition by source receipt: a target with a duplicate memory (the
engine's duplicate network lives for a whole repetition) would recognise a
forgery as "the receipt submitted earlier" if its own original, or a copy of
it, were in the suite, and that match is proof of tampering that no forger
faces in a real first submission. So each source receipt is either a
**control** (it appears once, unchanged or passed through a harmless tool) or
**forged** (it appears only as forgeries, never as itself); two forgeries of one
receipt always differ in the printed total or date, so no two cases are the
same purchase.

Shares are kept by a quota, not sampled: each receipt takes, among the kinds
that can be made on it, the kind furthest below its share so far, so small
suites still get every kind and a seed gives one answer.
"""

from __future__ import annotations

import numpy as np

FAKE_SHARES: dict[str, float] = {
    "total": 0.20,
    "date": 0.15,
    "merchant": 0.10,
    "item_break": 0.08,
    "item_consistent": 0.06,
    "ai_inpaint": 0.13,
    "ai_full": 0.14,
    "photo_date": 0.14,
}
CONTROL_SHARES: dict[str, float] = {
    "original": 0.2,
    "resaved": 0.18,
    "recompressed": 0.17,
    "rephoto": 0.28,
    "rotated": 0.17,
}
FAKE_CLASS: dict[str, str] = {
    "total": "hand_edit",
    "date": "hand_edit",
    "merchant": "hand_edit",
    "item_break": "hand_edit",
    "item_consistent": "hand_edit",
    "ai_inpaint": "ai_inpaint",
    "ai_full": "ai_full",
    "photo_date": "photo_date",
}
# Kinds that change the printed total or date: two forgeries of one receipt need one of these.
CHANGES_TOTAL_OR_DATE = frozenset({"total", "date", "item_consistent", "ai_inpaint"})
CONTROL_SHARE = 0.42  # of source receipts; the rest are forged
FAKES_PER_RECEIPT = 2

# How forgeries leave the editor (``saving``): a phone photo (taken, then edited) in about the
# share genuine controls are re-photographed, else these flat saves.
PHOTO_SHARE = 0.28
FLAT_DELIVERY = {"same": 0.37, "editor": 0.37, "message": 0.26}
ROTATED_SHARE = 0.18  # of flat saves (same/editor) of forgeries, as for controls
ROTATION_SHARES = {
    "none": 1 - ROTATED_SHARE,
    "exif90": ROTATED_SHARE / 4,
    "exif270": ROTATED_SHARE / 4,
    "turn180": ROTATED_SHARE / 4,
    "skew": ROTATED_SHARE / 4,
}
# Days from the printed date to the submission (most within a week, some after a month).
DELAY_DAYS = {1: 0.22, 2: 0.18, 3: 0.14, 5: 0.13, 8: 0.11, 14: 0.1, 30: 0.07, 45: 0.05}


def allocate(n: int, weights: dict[str, float]) -> dict[str, int]:
    """Integer counts summing to ``n`` as close to ``weights`` as possible (largest remainder)."""
    keys = list(weights)
    w = np.array([weights[k] for k in keys], dtype=float)
    raw = w / w.sum() * n
    counts = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - counts), kind="stable")[: n - int(counts.sum())]:
        counts[i] += 1
    return {k: int(c) for k, c in zip(keys, counts)}


def roles(sources: list[tuple[str, bool, int]], seed: int) -> dict[str, str]:
    """``control`` or ``forged`` per source id, from ``(id, date known, file size)``.

    The control share is the same among receipts with and without a known date (a submission
    date says nothing) and along the range of file sizes (big full-page scans and small crops
    are controls as often as forged): within each date group, receipts are taken in size order
    in blocks of 5, and each block gets its share of controls at seeded random places."""
    rng = np.random.default_rng([seed, 7])
    out: dict[str, str] = {}
    for known in (True, False):
        group = sorted((size, sid) for sid, k, size in sources if k is known)
        ids = [sid for _, sid in group]
        made = 0
        for start in range(0, len(ids), 5):
            block = ids[start : start + 5]
            want = round(CONTROL_SHARE * (start + len(block))) - made
            picks = set(rng.permutation(len(block))[: max(0, want)].tolist())
            for j, sid in enumerate(block):
                out[sid] = "control" if j in picks else "forged"
            made += len(picks)
    return out


class Quota:
    """Counts per kind; ``order`` ranks kinds by how far below their share they are."""

    def __init__(self, shares: dict[str, float]):
        self.shares = shares
        self.counts = {k: 0 for k in shares}

    def order(self, allowed: list[str] | None = None) -> list[str]:
        kinds = [k for k in self.shares if allowed is None or k in allowed]
        return sorted(kinds, key=lambda k: ((self.counts[k] + 1) / self.shares[k], list(self.shares).index(k)))

    def take(self, kind: str) -> None:
        self.counts[kind] += 1


def sibling_allowed(made: list[str], kind: str) -> bool:
    """May ``kind`` join the forgeries already made from the same receipt?"""
    if kind in made:
        return False
    return all(k in CHANGES_TOTAL_OR_DATE for k in made) or kind in CHANGES_TOTAL_OR_DATE
