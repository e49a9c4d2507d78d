"""The ``meta`` target: a simple baseline that reads only the file's metadata. No key, no model.

Why: a first report (``make bench`` without an API key) should compare ``self``
with something that is honest about what it is. ``meta`` looks at the submitted
file's own records -- EXIF, XMP, PNG text, C2PA, PDF info and revisions, read by
the engine's provenance reader (``rabench.engine.provenance.file_signals``) --
and nothing else: no OCR, no pixels beyond the EXIF thumbnail comparison, no
printed date (so never a photo-before-purchase proof), no memory, no checks.

Rules (fixed, not fitted; docs/running.md, "The meta target"):

* a proof in the metadata (an AI-generator or receipt-generator tag, an AI
  source type, a PDF update that changed a page, a thumbnail that no longer
  shows the image): risk 0.9;
* else an image/PDF editor named in the metadata: risk 0.6;
* else an office tool named, or the metadata was stripped (no metadata at all,
  or a photo format without EXIF): risk 0.3;
* else: risk 0.1.

Its reasons are those signals (proofs first). It extracts no fields, so its
extraction rows are zeros, not "not supported": it was asked and said nothing.
"""

from __future__ import annotations

import anyio.to_thread

from rabench.contracts import Capabilities, Reason, TargetInfo, Verdict
from rabench.errors import UserError
from rabench.targets.base import CheckRequest

RULES_VERSION = "meta-1"
PROOF, EDITOR, WEAK, NOTHING = 0.9, 0.6, 0.3, 0.1
WEAK_SIGNALS = {"provenance.office_tool", "meta.none", "exif.absent"}
MAX_REASONS = 5


def risk_of(signals) -> tuple[float, list[Reason]]:
    """The rule above, and the reasons to show (proofs first, then the rest as read)."""
    names = {s.name for s in signals}
    if any(s.kind == "proof" for s in signals):
        risk = PROOF
    elif "provenance.editor" in names:
        risk = EDITOR
    elif names & WEAK_SIGNALS:
        risk = WEAK
    else:
        risk = NOTHING
    ordered = sorted(signals, key=lambda s: s.kind != "proof")
    return risk, [s.to_reason() for s in ordered[:MAX_REASONS]]


def _read(request: CheckRequest) -> Verdict:
    from rabench.engine.provenance import file_signals

    signals = file_signals(request.original, request.media_type, printed_date=None)
    risk, reasons = risk_of(signals)
    return Verdict(risk=risk, reasons=reasons)


class MetaTarget:
    def __init__(self, target_id: str = "meta"):
        self.info = TargetInfo(
            id=target_id, kind="other", capabilities=Capabilities(proofs=True), settings={"rules": RULES_VERSION}
        )

    async def open(self) -> None:
        return None

    async def reset(self, repetition: int) -> None:
        return None

    async def check(self, request: CheckRequest) -> Verdict:
        return await anyio.to_thread.run_sync(_read, request)

    async def close(self) -> None:
        return None


def make_meta_target(target_id: str, config: object) -> MetaTarget:
    if target_id != "meta":
        raise UserError(f"target {target_id!r}: the meta target takes no options (use 'meta')")
    return MetaTarget(target_id)
