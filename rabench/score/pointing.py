"""Which fields a reason points at (spec, "Evidence": edited field named), and
which reasons are proof.

A reason points at a field through (1) its ``@field`` tags (``Reason.fields``, or
an ``@field`` written in its text),
(2) a deterministic check about it: the check the reason reports
(``Reason.check``) points at that check's own ``fields``, and an arithmetic
check (``totals_add_up`` or proof type ``arithmetic``) at total and subtotal, or
(3) for free-text reasons — no tags and no check — the spec's pre-registered
keywords, matched case-insensitively as whole words (an optional plural "s" or
"es" allowed), so "subtotal" maps only to subtotal and never to total.
"""

from __future__ import annotations

import re
from typing import get_args

from rabench.contracts import Check, Reason
from rabench.contracts.labels import FIELD_TAGS
from rabench.contracts.verdict import ProofType

PROOF_TYPES: frozenset[str] = frozenset(get_args(ProofType))
ARITHMETIC_FIELDS = frozenset({"total", "subtotal"})

# Exactly the spec's list, in its order: keyword -> field.
KEYWORDS: tuple[tuple[str, str], ...] = (
    ("total", "total"),
    ("amount due", "total"),
    ("subtotal", "subtotal"),
    ("tax", "tax_total"),
    ("VAT", "tax_total"),
    ("GST", "tax_total"),
    ("date", "date"),
    ("merchant", "merchant"),
    ("store", "merchant"),
    ("vendor", "merchant"),
    ("logo", "merchant"),
    ("name", "merchant"),
    ("item", "line_items"),
    ("line", "line_items"),
    ("quantity", "line_items"),
    ("price", "line_items"),
)
_KEYWORD_RES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(r"\b" + r"\s+".join(map(re.escape, kw.split())) + r"(?:s|es)?\b", re.IGNORECASE), field)
    for kw, field in KEYWORDS
)


# An explicit "@field" tag left in the reason's text (not after a word character,
# so an e-mail address is not a tag).
_TAG_RE = re.compile(r"(?<![\w@])@(" + "|".join(sorted(FIELD_TAGS, key=len, reverse=True)) + r")\b")


def tag_fields(reason: Reason) -> set[str]:
    """The reason's ``@field`` tags: parsed ones (``Reason.fields``) and any in its text."""
    return {f for f in reason.fields if f in FIELD_TAGS} | set(_TAG_RE.findall(reason.text))


def keyword_fields(text: str) -> set[str]:
    return {field for rx, field in _KEYWORD_RES if rx.search(text)}


def points_at(reason: Reason, checks: dict[str, Check]) -> set[str]:
    """The fields one reason points at."""
    tags = tag_fields(reason)
    fields = set(tags)
    deterministic = False
    if reason.check is not None:
        deterministic = True
        if reason.check == "totals_add_up":
            fields |= ARITHMETIC_FIELDS
        check = checks.get(reason.check)
        if check is not None:
            fields |= {f for f in check.fields if f in FIELD_TAGS}
    if reason.proof_type == "arithmetic":
        deterministic = True
        fields |= ARITHMETIC_FIELDS
    if not tags and not deterministic:
        fields |= keyword_fields(reason.text)
    return fields


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MIN_ARITHMETIC_NUMBERS = 2  # amounts that don't add up: at least two of them


def is_proof(reason: Reason, checks: dict[str, Check] | None = None) -> bool:
    """A reason of kind "proof" with one of the spec's proof types.

    An arithmetic proof counts only "with the numbers" (spec): its text gives at
    least two amounts, or the check it reports (``Reason.check``, found among the
    verdict's ``checks``) carries at least two numbers — otherwise the caller has
    nothing to re-add and must trust the target.
    """
    if reason.kind != "proof" or reason.proof_type not in PROOF_TYPES:
        return False
    if reason.proof_type != "arithmetic":
        return True
    if len(_NUMBER.findall(reason.text)) >= MIN_ARITHMETIC_NUMBERS:
        return True
    check = (checks or {}).get(reason.check) if reason.check is not None else None
    return check is not None and len(check.numbers) >= MIN_ARITHMETIC_NUMBERS
