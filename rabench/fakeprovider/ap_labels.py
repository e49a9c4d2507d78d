"""An ap suite's labels keyed by the image an AP request carries: the first invoice (or credit
note) image of each bundle, as submitted and as prepared (``rabench.run.ap_run`` sends the
prepared one)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from rabench.contracts.ap import APLabel

IMAGE_TYPES = ("application/pdf", "image/png", "image/jpeg")


def ap_suite_labels(suite: Path) -> dict[str, APLabel]:
    from rabench.cases.ap.manifest import open_ap_suite
    from rabench.prepare import PreparationError, prepare_bytes

    labels: dict[str, APLabel] = {}
    for lc in open_ap_suite(suite):
        doc = next(
            (d for d in lc.case.documents if d.role in ("invoice", "credit_note") and d.media_type in IMAGE_TYPES), None
        )
        if doc is None:
            continue
        data = lc.read(doc.name)
        labels[hashlib.sha256(data).hexdigest()] = lc.case.label
        try:
            prepared = prepare_bytes(data, doc.media_type)
        except PreparationError:
            continue
        labels[hashlib.sha256(prepared.data).hexdigest()] = lc.case.label
    return labels
