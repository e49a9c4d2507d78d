"""The duplicate network: has someone submitted this receipt before? (spec, "Duplicates").

``make_fingerprint`` -> ``DuplicateStore.lookup_and_add`` -> ``duplicate_signal``.
Matching rules are in ``match.py`` and docs/engine.md ("File forensics").
"""

from __future__ import annotations

from rabench.engine.dupes.fingerprint import Fingerprint, hamming, make_fingerprint, phash
from rabench.engine.dupes.match import Match, decide
from rabench.engine.dupes.store import DuplicateStore, MemoryStore, SqliteStore
from rabench.engine.signals import Signal

__all__ = [
    "DuplicateStore",
    "Fingerprint",
    "Match",
    "MemoryStore",
    "SqliteStore",
    "decide",
    "duplicate_signal",
    "hamming",
    "make_fingerprint",
    "phash",
]

_KIND_TEXT = {
    "exact": "the identical file",
    "text": "the same purchase (content match)",
    "perceptual": "the same receipt image (perceptual match, content agrees)",
}


def duplicate_signal(match: Match) -> Signal:
    """A proof: this receipt was submitted before, as ``match.ref``."""
    return Signal(
        "dupes.match",
        "proof",
        f"Submitted before as {match.ref}: {_KIND_TEXT[match.kind]} ({match.kind} match, score {match.score:.2f}; {match.detail})",
        proof_type="duplicate_match",
        value=match.score,
    )
