"""What an AP target sees of a case: the bundle's documents, never the label or the tags.

Why a subclass of ``CheckRequest``: the runner's one call path (gate, per-attempt timeout,
retries: ``rabench.run.execute``) takes a ``CheckRequest``; an ``APRequest`` is one, whose
``original``/``prepared`` are the first invoice of the bundle (what a receipt-style target
would look at) and whose ``documents`` are the whole bundle, images prepared like receipts.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from rabench.targets.base import CheckRequest


class APInput(msgspec.Struct, frozen=True):
    """One document of the bundle as a target gets it."""

    name: str  # the document's name in the bundle: what evidence boxes and links refer to
    role: str  # invoice, purchase_order, goods_receipt, email, vendor_master, ledger, ...
    media_type: str
    path: Path  # the file as submitted
    prepared: Path | None = None  # upright, <=3072 px image of an invoice / credit note (PDF: page 1)
    prepared_media_type: str | None = None

    def text(self, limit: int = 200_000) -> str:
        """The document as text (JSON, CSV, .eml, policy), cut at ``limit`` characters."""
        return self.path.read_bytes()[:limit].decode("utf-8", errors="replace")


class APRequest(CheckRequest, frozen=True):
    documents: tuple[APInput, ...] = ()

    def by_role(self, *roles: str) -> list[APInput]:
        return [d for d in self.documents if d.role in roles]
