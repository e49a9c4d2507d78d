"""PDF revisions: what each incremental update changed, and who wrote each revision.

Why compare revisions instead of counting ``%%EOF``: a PDF legitimately grows
extra ``%%EOF``/``startxref`` sections when it is linearised (a first-page
section) or signed (each signature is an incremental update, and long-term
validation adds DSS updates). Counting would call every signed invoice an
edit. So each revision is opened on its own (the file cut at its ``%%EOF``)
and compared with the one before: only an update that changes what a page
shows -- its decoded content streams, page count, fonts/images, or
annotations other than signature widgets -- is a *modification record*
(proof ``pdf_modified``). Updates that touch only metadata or add signatures
are reported as file facts.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import logging
import re

import msgspec

MAX_REVISIONS = 16
MAX_PAGES = 20

_EOF = re.compile(rb"%%EOF[ \t\x00]*(?:\r\n|\r|\n)?")
_LIN = re.compile(rb"/Linearized\s")
_XMP = re.compile(rb"<x:xmpmeta.{0,1048576}?</x:xmpmeta>", re.S)

logging.getLogger("pypdf").setLevel(logging.ERROR)


class RevisionChange(msgspec.Struct, frozen=True):
    revision: int  # 2 = the first update after the original
    start: int  # byte range of the update
    end: int
    kind: str  # "content" | "metadata" | "signature" | "none" | "unreadable"
    detail: str = ""
    removed_text: list[str] = []
    added_text: list[str] = []


class RevisionInfo(msgspec.Struct, frozen=True):
    producer: str = ""
    creator: str = ""
    creation_date: str = ""
    mod_date: str = ""


class PdfFacts(msgspec.Struct):
    revisions: int = 0  # after discounting the linearisation section
    linearized: bool = False
    signed: bool = False
    info: list[RevisionInfo] = []  # one per revision
    changes: list[RevisionChange] = []  # one per update
    xmp: list[bytes] = []
    problems: list[str] = []

    @property
    def modified(self) -> list[RevisionChange]:
        return [c for c in self.changes if c.kind == "content"]


class _PageState(msgspec.Struct, frozen=True):
    content: str  # sha256 of the decoded content streams
    resources: tuple[str, ...]  # font / XObject names with a digest of XObject streams
    annots: tuple[str, ...]  # non-signature annotations: subtype + rect
    text: str


class _RevState(msgspec.Struct, frozen=True):
    pages: tuple[_PageState, ...]
    info: RevisionInfo
    sig_fields: int


def revision_ends(data: bytes) -> tuple[list[int], bool]:
    """Byte offsets where each revision ends (after its ``%%EOF``), and whether the file is linearised."""
    ends = [m.end() for m in _EOF.finditer(data)]
    linearized = bool(_LIN.search(data[:4096]))
    if linearized and len(ends) >= 2:
        ends = ends[1:]  # the first-page section is part of the original revision
    return ends[: MAX_REVISIONS + 1], linearized


def read_pdf(data: bytes) -> PdfFacts:
    """Every revision's producer and what each update changed. Never raises."""
    out = PdfFacts(info=[], changes=[], xmp=[], problems=[])
    if not data[:1024].lstrip().startswith(b"%PDF-") and b"%PDF-" not in data[:1024]:
        out.problems.append("not a PDF (no %PDF- header)")
        return out
    out.xmp = [m.group(0) for m in _XMP.finditer(data)][:4]
    out.signed = b"/ByteRange" in data and b"/Sig" in data
    ends, out.linearized = revision_ends(data)
    if not ends:
        out.problems.append("no %%EOF marker: the file is truncated")
        ends = [len(data)]
    elif data[ends[-1] :].strip(b"\x00\r\n\t ") and len(data) - ends[-1] > 32:
        out.problems.append(f"{len(data) - ends[-1]} bytes after the last %%EOF")
    out.revisions = len(ends)
    states: list[_RevState | None] = []
    for i, end in enumerate(ends):
        try:
            st = _state(data[:end])
        except Exception as e:  # pypdf raises many types on broken files; a broken revision is a fact
            out.problems.append(f"revision {i + 1} could not be parsed: {type(e).__name__}: {str(e)[:120]}")
            st = None
        states.append(st)
        out.info.append(st.info if st else RevisionInfo())
    for i in range(1, len(ends)):
        out.changes.append(_compare(states[i - 1], states[i], i + 1, ends[i - 1], ends[i]))
    return out


def _state(prefix: bytes) -> _RevState:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(prefix), strict=False)
    pages = []
    for page in reader.pages[:MAX_PAGES]:
        contents = page.get_contents()
        raw = contents.get_data() if contents is not None else b""
        res = page.get("/Resources") or {}
        res = res.get_object() if hasattr(res, "get_object") else res
        names: list[str] = []
        for kind in ("/Font", "/XObject"):
            d = res.get(kind) if hasattr(res, "get") else None
            d = d.get_object() if d is not None and hasattr(d, "get_object") else d
            for name in sorted(d.keys()) if hasattr(d, "keys") else []:
                obj = d[name].get_object() if hasattr(d[name], "get_object") else d[name]
                digest = ""
                if kind == "/XObject" and hasattr(obj, "get_data"):
                    digest = hashlib.sha256(obj.get_data()).hexdigest()[:16]
                names.append(f"{kind}{name}:{digest}")
        annots: list[str] = []
        for a in page.get("/Annots") or []:
            a = a.get_object()
            if a.get("/Subtype") == "/Widget" and (a.get("/FT") == "/Sig" or _parent_is_sig(a)):
                continue
            annots.append(f"{a.get('/Subtype')}:{[round(float(x)) for x in a.get('/Rect') or []]}")
        try:
            text = page.extract_text() or ""
        except Exception:
            text = ""
        pages.append(_PageState(hashlib.sha256(raw).hexdigest(), tuple(names), tuple(sorted(annots)), text[:20000]))
    meta = reader.metadata or {}
    info = RevisionInfo(
        producer=str(meta.get("/Producer", "") or "")[:200],
        creator=str(meta.get("/Creator", "") or "")[:200],
        creation_date=str(meta.get("/CreationDate", "") or "")[:40],
        mod_date=str(meta.get("/ModDate", "") or "")[:40],
    )
    fields = reader.get_fields() or {}
    sigs = sum(1 for f in fields.values() if f.get("/FT") == "/Sig")
    return _RevState(tuple(pages), info, sigs)


def _parent_is_sig(annot) -> bool:
    parent = annot.get("/Parent")
    return parent is not None and parent.get_object().get("/FT") == "/Sig"


def _compare(prev: _RevState | None, cur: _RevState | None, rev: int, start: int, end: int) -> RevisionChange:
    if prev is None or cur is None:
        return RevisionChange(
            rev, start, end, "unreadable", "a revision could not be parsed, so the update was not compared"
        )
    diffs: list[str] = []
    removed: list[str] = []
    added: list[str] = []
    if len(prev.pages) != len(cur.pages):
        diffs.append(f"page count {len(prev.pages)} -> {len(cur.pages)}")
    for n, (a, b) in enumerate(zip(prev.pages, cur.pages), start=1):
        if a.content != b.content:
            diffs.append(f"page {n} content stream changed")
        if a.resources != b.resources:
            diffs.append(f"page {n} fonts/images changed")
        if a.annots != b.annots:
            diffs.append(f"page {n} annotations changed")
        if a.text != b.text:
            r, s = _text_diff(a.text, b.text)
            removed += r
            added += s
    if diffs:
        return RevisionChange(rev, start, end, "content", "; ".join(diffs), removed[:6], added[:6])
    if cur.sig_fields > prev.sig_fields:
        return RevisionChange(rev, start, end, "signature", f"adds {cur.sig_fields - prev.sig_fields} signature(s)")
    if cur.info != prev.info:
        return RevisionChange(rev, start, end, "metadata", "document information changed")
    return RevisionChange(rev, start, end, "none", "no change to pages, metadata or signatures")


def _text_diff(a: str, b: str) -> tuple[list[str], list[str]]:
    wa, wb = a.split(), b.split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            removed.append(" ".join(wa[i1:i2])[:80])
        if op in ("replace", "insert"):
            added.append(" ".join(wb[j1:j2])[:80])
    return removed, added
