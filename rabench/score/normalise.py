"""Field comparison rules of RA-Bench 0.2.0, "Extraction" — one place, so every task agrees.

Why a module of its own: the same merchant normalisation is used for line-item
descriptions, and the same amount tolerance for line-item totals and for the
"total consistency" decision metric. Every rule here is documented in
docs/methodology.md ("Extraction").
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

# Amounts "within 0.01" are compared inclusively; the tiny slack absorbs binary
# float error (10.01 - 10.00 == 0.009999999999999787, 0.3 - 0.29 == 0.010000000000000009).
AMOUNT_TOLERANCE = 0.01
FLOAT_SLACK = 1e-9
MERCHANT_SIMILARITY = 0.9
ITEM_SIMILARITY = 0.8

# Punctuation (and symbols): anything that is neither a letter, a digit nor whitespace.
_PUNCTUATION = re.compile(r"[^\w\s]|_", re.UNICODE)


@lru_cache(maxsize=65536)
def normalise_text(text: str) -> str:
    """Lowercase, accents stripped (NFKD, combining marks dropped), "&" read as the
    word "and", punctuation dropped, whitespace collapsed to single spaces, trimmed.

    Punctuation is *dropped* (deleted), as the spec says: "Joe's" and "Joes" both
    read "joes". "&" becomes " and " (a word of its own) so "Smith&Co." and
    "Smith & Co" both read "smith and co".
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    lowered = stripped.lower().replace("&", " and ")
    return " ".join(_PUNCTUATION.sub("", lowered).split())


def text_similarity(a: str, b: str) -> float:
    """rapidfuzz ``Levenshtein.normalized_similarity`` of the normalised strings:
    1 - edit distance / length of the longer string (two empty strings: 1.0)."""
    na, nb = normalise_text(a), normalise_text(b)
    if na == nb:
        return 1.0
    return Levenshtein.normalized_similarity(na, nb)


def _blank(value: object) -> bool:
    """An answer that says nothing: None, or a string with no characters but spaces."""
    return value is None or (isinstance(value, str) and not value.strip())


def amounts_match(label: float, answer: float) -> bool:
    if not (math.isfinite(label) and math.isfinite(answer)):
        return False
    return abs(label - answer) <= AMOUNT_TOLERANCE + FLOAT_SLACK


def _alnum_lower(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum()).lower()


def field_right(field: str, label: object, answer: object) -> bool:
    """Is ``answer`` right for a covered field labelled ``label``?

    Label ``None`` (the document doesn't show it): only a blank answer is right.
    A blank answer to a labelled value is wrong.
    """
    if label is None:
        return _blank(answer)
    if _blank(answer):
        return False
    if field == "merchant":
        return text_similarity(str(label), str(answer)) >= MERCHANT_SIMILARITY
    if field == "date":
        return str(answer).strip() == str(label).strip()
    if field in ("subtotal", "tax_total", "total"):
        if isinstance(answer, bool) or not isinstance(answer, (int, float)):
            return False
        return amounts_match(float(label), float(answer))  # type: ignore[arg-type]
    if field == "currency":
        return str(answer).strip().upper() == str(label).strip().upper()
    if field == "receipt_number":
        return _alnum_lower(str(answer)) == _alnum_lower(str(label))
    raise ValueError(f"unknown field {field!r}")


def match_line_items(labelled: list[tuple[str, float]], extracted: list[tuple[str, float]]) -> int:
    """Size of the maximum one-to-one pairing of labelled and extracted items.

    Two items may pair when their descriptions are at least 0.8 alike
    (``text_similarity``) and their totals match within 0.01. Among all
    pairings the largest is taken (maximum bipartite matching by augmenting
    paths, Kuhn's algorithm), so the result doesn't depend on item order.
    """
    if not labelled or not extracted:
        return 0
    edges: list[list[int]] = []
    for desc, total in labelled:
        row = [
            j
            for j, (d2, t2) in enumerate(extracted)
            if amounts_match(total, t2) and text_similarity(desc, d2) >= ITEM_SIMILARITY
        ]
        edges.append(row)
    owner = [-1] * len(extracted)

    def augment(i: int, seen: list[bool]) -> bool:
        for j in edges[i]:
            if seen[j]:
                continue
            seen[j] = True
            if owner[j] == -1 or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    matched = 0
    for i in range(len(labelled)):
        if edges[i] and augment(i, [False] * len(extracted)):
            matched += 1
    return matched
