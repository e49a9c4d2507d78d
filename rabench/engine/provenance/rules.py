"""Turn ``FileFacts`` into Signals: which facts are proof (spec, "Evidence") and which are file facts.

The line is the spec's: a finding is proof only when a caller can check it
without trusting a model *and* it shows the document was generated or changed.
So a generator named by the file, an AI source type, a PDF update that changed
a page, a thumbnail that no longer shows the image, and a capture time before
the printed date are proofs; an editor, an office tool, missing camera data,
stripped metadata, a signature or a metadata-only update are file facts.
Every text names what was read (the tag and its value, dates, counts).
"""

from __future__ import annotations

import datetime as dt
import json

from rabench.contracts.verdict import Fields
from rabench.engine.provenance import photo_date, tools
from rabench.engine.provenance.read import FileFacts
from rabench.engine.provenance.thumbnail import OPINION_SHARE
from rabench.engine.provenance.xmp import AI_SOURCE_TYPES
from rabench.engine.signals import Signal

Box = tuple[int, int, int, int]
_PNG_TOOL_KEYS = {"software", "source", "generator", "creator", "producer", "comment", "creation software"}
_CAMERA_FORMATS = {"jpeg", "tiff", "webp"}


def _q(value: str, n: int = 80) -> str:
    value = " ".join(value.split())
    return f"'{value[:n]}…'" if len(value) > n else f"'{value}'"


def tool_values(f: FileFacts) -> list[tuple[str, str]]:
    """(where, value) for every metadata value that names a tool."""
    out: list[tuple[str, str]] = []
    if f.exif is not None:
        for name in ("Software", "ImageDescription", "Artist", "UserComment"):
            v = f.exif.text(name)
            if v and (name == "Software" or _generator_only(v)):
                out.append((f"EXIF {name}", v))
    for px in f.xmp:
        for prop, v in px.tools:
            out.append((f"XMP {prop}", v))
        for ev in px.history:
            if ev.agent:
                out.append((f"XMP history ({ev.action or 'event'}) softwareAgent", ev.agent))
    if f.blocks is not None:
        for key, v in f.blocks.text.items():
            if key.lower() in _PNG_TOOL_KEYS:
                out.append((f"PNG text '{key}'", v))
        for c in f.blocks.comments:
            out.append(("JPEG comment", c))
    if f.c2pa is not None:
        for g in f.c2pa.generators:
            out.append(("C2PA claim generator", g))
        for a in f.c2pa.agents:
            out.append(("C2PA action softwareAgent", a))
    if f.pdf is not None:
        for i, info in enumerate(f.pdf.info, start=1):
            for key, v in (("Producer", info.producer), ("Creator", info.creator)):
                if v:
                    out.append((f"PDF {key} (revision {i})" if len(f.pdf.info) > 1 else f"PDF {key}", v))
    return out


def _generator_only(value: str) -> bool:
    """Free-text fields (descriptions) count only when they name a generator, not an editor."""
    return any(h.category in ("ai_generators", "receipt_generators") for h in tools.classify(value))


def signals(
    f: FileFacts,
    *,
    printed_date: str | None,
    field_boxes: dict[str, list[Box]] | None = None,
    box_size: tuple[int, int] | None = None,
    extracted: Fields | None = None,
    now: dt.datetime | None = None,
) -> list[Signal]:
    out: list[Signal] = []
    out += _tool_signals(f)
    out += _source_type_signals(f)
    out += _png_ai_markers(f)
    out += _pdf_signals(f, extracted)
    out += _exif_signals(f, printed_date, now)
    out += _thumb_signals(f, field_boxes, box_size)
    out += _c2pa_signals(f)
    out += _presence_signals(f)
    if f.problems:
        shown = "; ".join(dict.fromkeys(f.problems))[:400]
        out.append(
            Signal(
                "file.unreadable_part",
                "file_fact",
                f"Part of the file could not be read: {shown}",
                value=float(len(f.problems)),
            )
        )
    return out


_CAT = {
    "ai_generators": ("provenance.ai_generator_tag", "proof", "ai_generator_tag", "an AI image generator"),
    "receipt_generators": ("provenance.generator_tag", "proof", "generator_tag", "a receipt/invoice generator"),
    "editors": ("provenance.editor", "file_fact", None, "an image/PDF editor"),
    "office": ("provenance.office_tool", "file_fact", None, "an office application"),
}


def _tool_signals(f: FileFacts) -> list[Signal]:
    out: list[Signal] = []
    seen: set[tuple[str, str]] = set()
    for where, value in tool_values(f):
        for hit in tools.classify(value):
            name, kind, proof, what = _CAT[hit.category]
            if (name, hit.tool) in seen:
                continue
            seen.add((name, hit.tool))
            out.append(Signal(name, kind, f"{where} reads {_q(value)}: {what} ({hit.tool})", proof_type=proof))
    if f.exif is not None and not any(s.name.startswith("provenance.") for s in out):
        sw = f.exif.text("Software")
        if sw:
            out.append(
                Signal("exif.software", "file_fact", f"EXIF Software reads {_q(sw)} (not a known editor or generator)")
            )
    return out


def _source_type_signals(f: FileFacts) -> list[Signal]:
    out: list[Signal] = []
    found: list[tuple[str, str]] = [("XMP Iptc4xmpExt:DigitalSourceType", c) for px in f.xmp for c in px.source_types]
    if f.c2pa is not None:
        found += [("C2PA action digitalSourceType", c) for c in f.c2pa.source_types]
    seen: set[str] = set()
    for where, code in found:
        if code in seen:
            continue
        seen.add(code)
        if code in AI_SOURCE_TYPES:
            out.append(
                Signal(
                    "provenance.ai_source_type",
                    "proof",
                    f"{where} is {code} (IPTC: made by a trained AI model)",
                    proof_type="ai_source_type",
                )
            )
        else:
            out.append(Signal("provenance.source_type", "file_fact", f"{where} is {code}"))
    return out


def _png_ai_markers(f: FileFacts) -> list[Signal]:
    """Generation parameters that Stable Diffusion front-ends write into PNG text chunks."""
    if f.blocks is None or not f.blocks.text:
        return []
    t = f.blocks.text
    params = t.get("parameters", "")
    if params and sum(k in params for k in ("Steps:", "Sampler:", "CFG scale:", "Seed:", "Model hash:")) >= 2:
        return [
            Signal(
                "provenance.ai_generator_tag",
                "proof",
                f"PNG text 'parameters' holds image-generation settings {_q(params[-120:], 120)} "
                "(Stable Diffusion web UI)",
                proof_type="ai_generator_tag",
            )
        ]
    for key in ("prompt", "workflow"):
        raw = t.get(key, "")
        if raw.lstrip().startswith("{"):
            try:
                doc = json.loads(raw)
            except ValueError:
                continue
            if _comfy(doc):
                return [
                    Signal(
                        "provenance.ai_generator_tag",
                        "proof",
                        f"PNG text '{key}' holds a ComfyUI generation graph (Stable Diffusion)",
                        proof_type="ai_generator_tag",
                    )
                ]
    return []


def _comfy(doc: object) -> bool:
    if isinstance(doc, dict):
        if "nodes" in doc and "links" in doc:
            return True
        return any(isinstance(v, dict) and "class_type" in v for v in list(doc.values())[:200])
    return False


def _pdf_signals(f: FileFacts, extracted: Fields | None) -> list[Signal]:
    p = f.pdf
    if p is None:
        return []
    out: list[Signal] = []
    producers = [(i.producer, i.creator) for i in p.info]
    changed_tools = len(set(producers)) > 1
    tool_note = ""
    if changed_tools:
        tool_note = "; Producer/Creator " + " -> ".join(
            f"{_q(a or '-', 40)}/{_q(b or '-', 40)}" for a, b in dict.fromkeys(producers)
        )
    for c in p.modified:
        text_note = ""
        if c.removed_text or c.added_text:
            text_note = f"; text {_q(' | '.join(c.removed_text), 60)} became {_q(' | '.join(c.added_text), 60)}"
        out.append(
            Signal(
                "pdf.modified",
                "proof",
                f"PDF has {p.revisions} revisions; the incremental update {c.revision} (bytes {c.start}-{c.end}) "
                f"changed what the page shows: {c.detail}{text_note}{tool_note}",
                fields=_pdf_fields(c.added_text, extracted),
                proof_type="pdf_modified",
            )
        )
    other = [c for c in p.changes if c.kind != "content"]
    if other:
        kinds = ", ".join(f"update {c.revision}: {c.kind} ({c.detail})" for c in other[:5])
        out.append(
            Signal(
                "pdf.other_updates",
                "file_fact",
                f"PDF has {len(other)} incremental update(s) that do not change the pages: {kinds}",
                value=float(len(other)),
            )
        )
    if changed_tools and not p.modified:
        out.append(
            Signal("pdf.producer_changed", "file_fact", f"PDF revisions were written by different tools{tool_note}")
        )
    if p.linearized:
        out.append(
            Signal(
                "pdf.linearized",
                "file_fact",
                "PDF is linearised (fast web view); its first-page section is not a revision",
            )
        )
    if p.signed:
        out.append(Signal("pdf.signed", "file_fact", "PDF carries a digital signature (/ByteRange)"))
    last = p.info[-1] if p.info else None
    if last and last.mod_date and last.creation_date and _pdf_date(last.mod_date) > _pdf_date(last.creation_date):
        out.append(
            Signal(
                "pdf.moddate_after_creation",
                "file_fact",
                f"PDF ModDate {last.mod_date} is later than CreationDate {last.creation_date}",
            )
        )
    return out


def _pdf_date(v: str) -> str:
    """``D:20240510123000+02'00'`` -> ``20240510123000`` (sortable; time zone ignored)."""
    digits = "".join(ch for ch in v.removeprefix("D:")[:14] if ch.isdigit())
    return digits.ljust(14, "0")


def _pdf_fields(added: list[str], extracted: Fields | None) -> tuple[str, ...]:
    if not extracted or not added:
        return ()
    text = " ".join(added).lower()
    out = []
    for name in ("total", "subtotal", "tax_total", "date", "receipt_number", "merchant"):
        v = getattr(extracted, name)
        if v is None:
            continue
        s = f"{v:.2f}" if isinstance(v, float) else str(v).lower()
        if s and (s in text or s.replace(".", ",") in text):
            out.append(name)
    return tuple(out)


def _exif_signals(f: FileFacts, printed_date: str | None, now: dt.datetime | None) -> list[Signal]:
    e = f.exif
    out: list[Signal] = []
    if e is None:
        return out
    make, model = e.text("Make"), e.text("Model")
    if make or model:
        out.append(
            Signal("exif.camera", "file_fact", f"EXIF Make/Model: {_q(' '.join(x for x in (make, model) if x))}")
        )
    elif f.format in _CAMERA_FORMATS:
        out.append(Signal("exif.no_camera", "file_fact", "EXIF present but without camera Make/Model"))
    raw = e.exif.get("DateTimeOriginal")
    if isinstance(raw, str) and raw.strip() and f.capture is None:
        out.append(
            Signal(
                "exif.capture_date_unusable",
                "file_fact",
                f"EXIF DateTimeOriginal {_q(raw)} is malformed or an unset camera clock; not compared",
            )
        )
    finding = photo_date.check(f.capture, printed_date, now=now)
    if finding is not None and finding.proof:
        out.append(
            Signal(
                "exif.photo_before_purchase",
                "proof",
                finding.text,
                fields=("date",),
                proof_type="photo_before_purchase",
                value=1.0,
            )
        )
    elif finding is not None:
        out.append(Signal("exif.capture_date", "file_fact", finding.text))
    elif f.capture is not None:
        out.append(Signal("exif.capture_date", "file_fact", f"EXIF DateTimeOriginal {f.capture.raw}"))
    modified = e.ifd0.get("DateTime")
    if f.capture is not None and isinstance(modified, str):
        m = photo_date.parse_capture(modified)
        if m is not None and (m.when - f.capture.when).total_seconds() > 60:
            out.append(
                Signal(
                    "exif.saved_after_capture",
                    "file_fact",
                    f"EXIF DateTime (last saved) {modified.strip()} is after DateTimeOriginal {f.capture.raw}",
                )
            )
    return out


def _thumb_signals(
    f: FileFacts, field_boxes: dict[str, list[Box]] | None, box_size: tuple[int, int] | None
) -> list[Signal]:
    t = f.thumb
    if t is None:
        if f.exif is not None and f.exif.thumbnail is None and f.exif.ifd1:
            return [
                Signal("exif.thumbnail_unreadable", "file_fact", "EXIF IFD1 names a thumbnail that could not be read")
            ]
        return []
    if not t.checked:
        return [Signal("exif.thumbnail_unchecked", "file_fact", f"EXIF thumbnail not compared: {t.detail}")]
    w, h = t.size
    measured = (
        f"compared at {w}x{h} px ({t.fit} fit): correlation {t.correlation:.3f} after alignment; "
        f"most differing window {t.window:.2f} of its print vs {t.spread:.2f} for this pair's 95th percentile "
        f"window; score {t.score if t.mismatch else t.local:.2f} where 1 = differs"
    )
    out: list[Signal] = []
    if t.cropped:
        out.append(
            Signal(
                "exif.thumbnail_cropped",
                "file_fact",
                f"The image lacks {t.uncovered:.0%} of one side of what its EXIF thumbnail shows: cropped after the thumbnail was written",
            )
        )
    region = ""
    if t.boxes:
        x0 = min(b[0] for b in t.boxes)
        y0 = min(b[1] for b in t.boxes)
        x1 = max(b[2] for b in t.boxes)
        y1 = max(b[3] for b in t.boxes)
        region = f" in the region x {x0:.0%}-{x1:.0%}, y {y0:.0%}-{y1:.0%} of the image"
    if t.mismatch:
        what = f"what it shows differs from the image{region}" if t.kind == "local" else "it shows a different picture"
        # a different picture points at no field; a local difference at the fields it covers
        fields = _thumb_fields(t.boxes, field_boxes, box_size) if t.kind == "local" else ()
        return out + [
            Signal(
                "exif.thumbnail_mismatch",
                "proof",
                f"The EXIF thumbnail does not show this image: {what}; {measured}",
                fields=fields,
                proof_type="thumbnail_mismatch",
                value=min(t.score, 10.0),
            )
        ]
    if t.local >= OPINION_SHARE:
        # above every genuine pair of the calibration, below the proof bar: worth a look, not proof
        return out + [
            Signal(
                "exif.thumbnail_differs",
                "opinion",
                f"The EXIF thumbnail differs from the image in one area, short of proof ({measured})",
                value=t.local,
            )
        ]
    return out + [
        Signal("exif.thumbnail_match", "file_fact", f"The EXIF thumbnail matches the image ({measured})", value=t.score)
    ]


def _thumb_fields(boxes, field_boxes, box_size) -> tuple[str, ...]:
    if not boxes or not field_boxes or not box_size:
        return ()
    w, h = box_size
    out = []
    for name, fbs in field_boxes.items():
        for x0, y0, x1, y1 in fbs:
            fx0, fy0, fx1, fy1 = x0 / w, y0 / h, x1 / w, y1 / h
            if any(bx0 < fx1 and fx0 < bx1 and by0 < fy1 and fy0 < by1 for bx0, by0, bx1, by1 in boxes):
                out.append(name)
                break
    return tuple(out)


def _c2pa_signals(f: FileFacts) -> list[Signal]:
    c = f.c2pa
    if c is None or not c.present:
        return []
    if c.problems and not c.generators:
        return [
            Signal(
                "c2pa.unreadable", "file_fact", f"A C2PA manifest is embedded but could not be read ({c.problems[0]})"
            )
        ]
    gens = ", ".join(c.generators) or "unnamed"
    acts = ", ".join(dict.fromkeys(c.actions)) or "none"
    state = c.validation_state or "unknown"
    out = [
        Signal(
            "c2pa.manifest",
            "file_fact",
            f"C2PA manifest: claim generator {_q(gens)}, actions {acts}, signed by {_q(c.signer or 'unknown')}, "
            f"validation {state} (offline, trust list not checked)",
        )
    ]
    if c.failures:
        out.append(
            Signal(
                "c2pa.validation_failed",
                "file_fact",
                f"C2PA manifest validation failed: {', '.join(c.failures[:4])} (the file changed after signing, or a bad signature)",
            )
        )
    return out


def _presence_signals(f: FileFacts) -> list[Signal]:
    if f.format not in ("jpeg", "png", "webp", "tiff"):
        return []
    b = f.blocks
    has_exif = f.exif is not None
    has_other = bool(f.xmp) or (b is not None and (b.text or b.comments or b.c2pa))
    out: list[Signal] = []
    if f.format in _CAMERA_FORMATS and not has_exif:
        out.append(Signal("exif.absent", "file_fact", f"No EXIF block in this {f.format.upper()}: no camera data"))
    if not has_exif and not has_other:
        out.append(
            Signal(
                "meta.none",
                "file_fact",
                "No metadata at all (no EXIF, XMP, text chunks or C2PA): stripped or never written",
            )
        )
    return out
