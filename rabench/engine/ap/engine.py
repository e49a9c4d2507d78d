"""The ``self`` target on an AP bundle: read every document, run the controls, answer one
APVerdict (docs/methodology-ap.md). Pure over the files it is given; the label is never read.

Image invoices are read by the receipt OCR in the target's worker pool (``read``); PDFs by
their text layer. Everything after reading is cheap and deterministic.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rabench.contracts.ap import OUTCOME_CLASSES
from rabench.contracts.ap_verdict import APField, APVerdict
from rabench.contracts.ap import EvidenceBox
from rabench.engine.ap import controls, documents
from rabench.engine.ap.reading import Found, Line, pdf_lines, read_fields
from rabench.targets.ap_request import APInput, APRequest

Reader = Callable[[APInput], Awaitable[list[Line]]]
INVOICE_ROLES = ("invoice", "credit_note")


async def default_reader(doc: APInput) -> list[Line]:
    import anyio

    from rabench.engine.ap.reading import image_lines

    if doc.media_type == "application/pdf":
        lines = await anyio.to_thread.run_sync(pdf_lines, str(doc.path))
        if lines:
            return lines
    if doc.prepared is not None:  # an image, or a scanned PDF without text: OCR the prepared page
        return await anyio.to_thread.run_sync(image_lines, str(doc.prepared))
    return []


async def read_concurrently(read: Reader, docs: list[APInput]) -> dict[str, list[Line]]:
    """Every page read at once: a campaign bundle's images are OCRed on all of the pool's
    workers instead of one after another (four scans in a row outlasted a 180 s timeout)."""
    import anyio

    out: dict[str, list[Line]] = {}

    async def one(doc: APInput) -> None:
        out[doc.name] = await read(doc)

    async with anyio.create_task_group() as tg:
        for doc in docs:
            tg.start_soon(one, doc)
    return out


def _evidence(doc: str, found: Found) -> EvidenceBox | None:
    if found.box is None:
        return None
    x0, y0, x1, y1 = (min(1.0, max(0.0, v)) for v in found.box)
    if not (x0 < x1 and y0 < y1):
        return None
    return EvidenceBox(doc, 1, (x0, y0, x1, y1))


async def analyse_bundle(request: APRequest, read: Reader = default_reader) -> APVerdict:
    docs = request.documents
    master = [v for d in docs if d.role == "vendor_master" for v in documents.vendors(d)]
    entries = [e for d in docs if d.role == "ledger" for e in documents.ledger(d)]
    approvals = [a for d in docs if d.role == "approval" for a in documents.approvals(d)]
    mails = [m for d in docs if d.role == "email" for m in documents.mails(d)]
    pos = [documents.order_lines(d) for d in docs if d.role == "purchase_order"]
    grns = [documents.order_lines(d) for d in docs if d.role == "goods_receipt"]
    limits = {k: v for d in docs if d.role == "policy" for k, v in documents.policy_thresholds(d).items()}
    names = [v.name for v in master]
    invoices = [d for d in docs if d.role == "invoice"] or [d for d in docs if d.role in INVOICE_ROLES]
    texts = await read_concurrently(read, [*invoices, *(d for d in docs if d.role == "credit_note")])
    credit_texts = [" ".join(ln.text for ln in texts[d.name]) for d in docs if d.role == "credit_note"]
    f = controls.Findings()
    read_all = []
    for doc in invoices:
        lines = texts[doc.name]
        flds = read_fields(lines, names)
        vendor = controls.match_vendor(flds, lines, master)
        read_all.append((doc, lines, flds, vendor))
    if not read_all:
        return APVerdict(decision="NEEDS_REVIEW", notes=["no invoice in the bundle"])
    subject, lines, fields, vendor = read_all[0]
    accounts = []
    for doc, _lines, flds, vend in read_all:
        acct = controls.bank(f, flds, vend, approvals)
        accounts.append((doc.name, flds, acct, vend.name if vend else str(flds.get("vendor_name", Found("")).value)))
    controls.duplicates(f, subject.name, fields, entries, credit_texts)
    if len(read_all) == 1:
        controls.three_way(f, fields, lines, pos[0] if pos else None, grns[0] if grns else None)
    controls.arithmetic(f, fields)
    controls.inbox(f, mails, vendor, master, set())
    currency = str(fields["currency"].value) if "currency" in fields else ""
    threshold = limits.get(currency) or (min(limits.values()) if limits else None)
    controls.campaign(f, accounts, threshold, master)
    decision, centre = controls.decide(f)
    probs = controls.FORECASTS[centre]
    assert set(probs) == set(OUTCOME_CLASSES)
    return APVerdict(
        decision=decision,  # type: ignore[arg-type]
        fields={k: APField(value=v.value, evidence=_evidence(subject.name, v)) for k, v in fields.items()},  # type: ignore[misc]
        reason_codes=sorted(f.codes),  # type: ignore[arg-type]
        discrepancies=sorted(f.discrepancies),  # type: ignore[arg-type]
        duplicate_links=f.duplicate_links,
        campaign_links=f.campaign_links,
        probabilities=dict(probs),  # type: ignore[arg-type]
        notes=f.notes,
    )


def pool_reader(pool: object) -> Reader:
    """Read PDFs' text layers in a thread and OCR images in the target's worker pool (the
    receipt engine's OCR processes), so AP reading shares the receipt engine's workers."""
    import anyio

    from rabench.engine.ap.reading import image_lines

    async def read(doc: APInput) -> list[Line]:
        if doc.media_type == "application/pdf":
            lines = await anyio.to_thread.run_sync(pdf_lines, str(doc.path))
            if lines:
                return lines
        if doc.prepared is None:
            return []
        got: list[Line] = await pool.submit(image_lines, str(doc.prepared))  # type: ignore[attr-defined]
        return got

    return read
