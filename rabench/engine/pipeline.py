"""Everything the engine does to one file that needs a CPU, as one picklable call.

Why one call: the target's event loop must stay free, and a pool worker that
already holds the OCR models should do all the per-file work (decode, OCR or
PDF text layer, extraction, checks, plausibility, provenance, visual forensics,
the duplicate fingerprint) in one trip; only the duplicate-network lookup and
the risk score, which need shared state, happen back in the target. The
function takes paths and returns plain structs, so the pool can be local
processes today and a Dask/Ray cluster later.

Hostile files end here as ``UnreadableFile`` with one clear sentence: empty,
truncated, not what the media type says, a decompression bomb.
"""

from __future__ import annotations

import datetime as dt
import inspect
import time
import warnings
from pathlib import Path
from typing import Any

import msgspec
from PIL import Image

from rabench.contracts.verdict import Check
from rabench.engine import ocr as ocr_mod
from rabench.engine.checks import totals_add_up
from rabench.engine.extract.fields import Extraction, extract_fields
from rabench.engine.extract.layout import rows_from_ocr
from rabench.engine.extract.pdf import PdfUnreadable, pdf_text_lines
from rabench.engine.plausibility import MAX_AGE_DAYS, plausibility_signals
from rabench.engine.signals import Signal

MAX_PIXELS = 64_000_000
PDF_RENDER_WIDTH = 1200


class UnreadableFile(Exception):
    """The file can't be analysed; the message is the one line a user sees."""


class AnalysisSettings(msgspec.Struct, frozen=True):
    # ISO date standing in for the submission time of every file (``engine check --today``);
    # None = each request's own ``submitted_at``; neither = time rules don't fire (never the wall clock)
    today: str | None = None
    max_age_days: int = MAX_AGE_DAYS
    file_signals: bool = True  # provenance readers (other module)
    visual_signals: bool = True  # visual forensics (other module)
    fingerprint: bool = True  # duplicate-network fingerprint (other module)


class Analysis(msgspec.Struct):
    extraction: Extraction
    check: Check
    signals: list[Signal]
    fingerprint: Any = None  # rabench.engine.dupes.Fingerprint when that module is present
    source: str = "ocr"  # "ocr" | "pdf_text"
    timings: dict[str, float] = {}
    problems: list[str] = []  # analysers that failed (the check still answers)


_MAGIC = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
)


def sniff_media_type(head: bytes) -> str | None:
    for magic, media in _MAGIC:
        if head.startswith(magic):
            return media
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if b"%PDF-" in head[:1024]:
        return "application/pdf"
    return None


def _open_image(path: Path, what: str) -> Image.Image:
    """Decode fully (so truncation shows now, not later), bounded in pixels."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                im.load()
                return im.convert("RGB") if im.mode not in ("RGB", "L") else im.copy()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise UnreadableFile(f"{what} is too large to decode (over {MAX_PIXELS:,} pixels)") from None
    except (OSError, SyntaxError, ValueError, Image.UnidentifiedImageError) as exc:
        raise UnreadableFile(f"{what} is truncated or corrupt: {exc}") from None


def _verify_original_image(path: Path) -> None:
    """Decode the original cheaply (JPEG at 1/8 scale) to catch truncation and corruption."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                if im.format == "JPEG":
                    im.draft("RGB", (max(1, im.width // 8), max(1, im.height // 8)))
                im.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise UnreadableFile(f"the image is too large to decode (over {MAX_PIXELS:,} pixels)") from None
    except (OSError, SyntaxError, ValueError, Image.UnidentifiedImageError) as exc:
        raise UnreadableFile(f"the image is truncated or corrupt: {exc}") from None


def _render_pdf(path: Path) -> Image.Image:
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(str(path))
        try:
            page = doc[0]
            width = page.get_width()
            bitmap = page.render(scale=PDF_RENDER_WIDTH / max(1.0, width))
            return bitmap.to_pil().convert("RGB")
        finally:
            doc.close()
    except Exception as exc:
        raise UnreadableFile(f"the PDF can't be rendered: {exc or type(exc).__name__}") from None


def _optional(module: str, attr: str) -> Any:
    import importlib

    try:
        return getattr(importlib.import_module(module), attr)
    except (ModuleNotFoundError, AttributeError):
        return None


def analyse(
    original: str,
    media_type: str,
    prepared: str | None,
    settings: AnalysisSettings = AnalysisSettings(),
    submitted_at: str | None = None,
) -> Analysis:
    """Read one receipt file end to end (runs inside a pool worker)."""
    timings: dict[str, float] = {}
    problems: list[str] = []
    t0 = time.perf_counter()
    orig = Path(original)
    try:
        data = orig.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"the file can't be read: {exc.strerror or exc}") from None
    if not data:
        raise UnreadableFile("the file is empty (0 bytes)")
    actual = sniff_media_type(data[:1024])
    if actual is None:
        raise UnreadableFile(f"the file is not a JPEG, PNG, WebP, TIFF or PDF (declared {media_type})")

    image: Image.Image | None = None
    lines: list[ocr_mod.OcrLine] = []
    source = "ocr"
    if actual == "application/pdf":
        try:
            import pypdfium2 as pdfium

            with pdfium.PdfDocument(data) as doc:
                if len(doc) == 0:
                    raise UnreadableFile("the PDF has no pages")
        except UnreadableFile:
            raise
        except Exception as exc:
            raise UnreadableFile(f"the PDF is truncated or corrupt: {exc or type(exc).__name__}") from None
        prep = Path(prepared) if prepared else None
        if prep and prep.is_file() and (sniff_media_type(prep.read_bytes()[:1024]) or "").startswith("image/"):
            image = _open_image(prep, "the prepared image")
        else:
            image = _render_pdf(orig)
        try:
            lines = pdf_text_lines(data, page_width_px=image.width)
        except PdfUnreadable as exc:
            raise UnreadableFile(f"the PDF is truncated or corrupt: {exc}") from None
        if sum(len(ln.text) for ln in lines) >= 20:
            source = "pdf_text"
        else:
            lines = []
    else:
        _verify_original_image(orig)
        prep = Path(prepared) if prepared else None
        image = _open_image(prep if prep and prep.is_file() else orig, "the image")
    timings["decode"] = time.perf_counter() - t0

    if source == "ocr":
        t = time.perf_counter()
        result_ocr = ocr_mod.read_image(image)
        lines = result_ocr.lines
        if result_ocr.rotation:
            image = image.rotate(result_ocr.rotation)  # boxes are in this frame
        timings["ocr"] = time.perf_counter() - t

    t = time.perf_counter()
    extraction = extract_fields(rows_from_ocr(lines))
    result = totals_add_up(extraction)
    if settings.today:
        today: dt.date | None = dt.date.fromisoformat(settings.today)
    elif submitted_at:
        from rabench.contracts.case import submission_date

        today = submission_date(submitted_at)
    else:
        today = None
    signals: list[Signal] = []
    if result.signal is not None:
        signals.append(result.signal)
    signals.extend(plausibility_signals(extraction, today=today, max_age_days=settings.max_age_days))
    timings["extract"] = time.perf_counter() - t

    if settings.file_signals:
        file_signals = _optional("rabench.engine.provenance", "file_signals")
        if file_signals is not None:
            t = time.perf_counter()
            # the proof "photo taken before the purchase" compares with the earliest date the
            # printed text can mean, so an unsettled day/month order can't make a false proof
            printed = extraction.fields.date if extraction.date_unambiguous else extraction.date_earliest
            try:
                extra: dict[str, Any] = {}
                accepted = inspect.signature(file_signals).parameters
                if "field_boxes" in accepted:  # lets a thumbnail mismatch name the fields it covers
                    extra = {"field_boxes": dict(extraction.field_boxes), "box_size": image.size,
                             "extracted": extraction.fields}
                signals.extend(file_signals(orig, media_type, printed_date=printed, **extra))
            except Exception as exc:  # an analyser bug must not lose the whole check
                problems.append(f"provenance: {type(exc).__name__}: {exc}")
            timings["provenance"] = time.perf_counter() - t
    if settings.visual_signals and source == "ocr":
        visual_signals = _optional("rabench.engine.forensics", "visual_signals")
        if visual_signals is not None:
            t = time.perf_counter()
            try:
                # the reader's own line boxes are the receipt's text lines to compare with
                signals.extend(visual_signals(image, dict(extraction.field_boxes), [ln.box for ln in lines]))
            except Exception as exc:
                problems.append(f"forensics: {type(exc).__name__}: {exc}")
            timings["forensics"] = time.perf_counter() - t
    fingerprint = None
    if settings.fingerprint:
        make_fingerprint = _optional("rabench.engine.dupes", "make_fingerprint")
        if make_fingerprint is not None:
            t = time.perf_counter()
            try:
                fingerprint = make_fingerprint(data, image, extraction.fields, extraction.line_items)
            except Exception as exc:
                problems.append(f"fingerprint: {type(exc).__name__}: {exc}")
            timings["fingerprint"] = time.perf_counter() - t
    if actual != media_type:
        signals.append(Signal(
            name="file.type_mismatch",
            kind="file_fact",
            text=f"The file was declared {media_type} but its content is {actual}.",
        ))
    timings["total"] = time.perf_counter() - t0
    return Analysis(
        extraction=extraction,
        check=result.check,
        signals=signals,
        fingerprint=fingerprint,
        source=source,
        timings=timings,
        problems=problems,
    )

