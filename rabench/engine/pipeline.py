"""Everything the engine does to one file that needs a CPU, as one picklable call.

Why one call: the target's event loop must stay free, and a pool worker that
already holds the OCR models should do all the per-file work (decode, OCR or
PDF text layer, extraction, checks, plausibility, provenance, visual forensics,
the duplicate fingerprint) in one trip; only the duplicate-network lookup and
the risk score, which need shared state, happen back in the target. The
function takes paths and returns plain structs, so the pool can be local
processes today and a Dask/Ray cluster later.

Hostile files end here as ``UnreadableFile`` with one clear sentence: empty,
truncated, not what the media type says, a decompression bomb. The analysers
(provenance, visual forensics, the duplicate fingerprint) are imported directly,
so a missing one fails at start; one that raises is a bug and ends the check as
``AnalyserCrash`` (an ``error`` outcome), never as a verdict silently missing its
signals. Notes on how the check ran (e.g. no submission time, so no time rules)
are ``Analysis.problems`` and reach the Verdict as ``diagnostics``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
import traceback
import warnings
from pathlib import Path
from collections.abc import Iterator

import msgspec
from PIL import Image

from rabench.contracts.verdict import Check
from rabench.engine import ocr as ocr_mod
from rabench.engine.change_check import change_signal
from rabench.engine.checks import totals_add_up
from rabench.engine.dupes import Fingerprint, make_fingerprint
from rabench.engine.extract.fields import Extraction, extract_fields
from rabench.engine.extract.layout import rows_from_ocr
from rabench.engine.extract.pdf import PdfUnreadable, pdf_text_lines
from rabench.engine.extract.reread import reread_amounts, source_image
from rabench.engine.forensics import visual_signals
from rabench.engine.plausibility import MAX_AGE_DAYS, plausibility_signals
from rabench.engine.provenance import file_signals
from rabench.engine.signals import Signal
from rabench.prepare.image import MAX_ASPECT

MAX_PIXELS = 64_000_000
PDF_RENDER_WIDTH = 1200


class UnreadableFile(Exception):
    """The file can't be analysed; the message is the one line a user sees."""


class AnalyserCrash(Exception):
    """An analyser raised: a bug in the engine, reported as an ``error`` outcome (one line)."""


class AnalysisSettings(msgspec.Struct, frozen=True):
    # ISO date standing in for the submission time of every file (``engine check --today``);
    # None = each request's own ``submitted_at``; neither = time rules don't fire (never the wall clock)
    today: str | None = None
    max_age_days: int = MAX_AGE_DAYS
    file_signals: bool = True  # provenance readers (other module)
    visual_signals: bool = True  # visual forensics (other module)
    fingerprint: bool = True  # duplicate-network fingerprint (other module)
    reread: bool = True  # re-read the totals block at full resolution when it does not reconcile (extract.reread)


class Analysis(msgspec.Struct):
    extraction: Extraction
    check: Check
    signals: list[Signal]
    fingerprint: Fingerprint | None = None  # None when settings.fingerprint is off
    source: str = "ocr"  # "ocr" | "pdf_text"
    # wall seconds per stage ("ocr", "reread", ...) and the worker's CPU seconds for it ("cpu.ocr", ...)
    timings: dict[str, float] = {}
    problems: list[str] = []  # notes on how the check ran (Verdict.diagnostics), never a failure


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


def _upright_boxes(
    boxes: dict[str, list[tuple[int, int, int, int]]], rotation: int, size: tuple[int, int]
) -> dict[str, list[tuple[int, int, int, int]]]:
    """Field boxes of a turned read (in the frame of the turned image, of ``size``) in the frame
    of the file as stored upright, which is what its thumbnail shows."""
    if not rotation:
        return boxes
    return {k: [ocr_mod.unturn_box(b, rotation, size) for b in v] for k, v in boxes.items()}


def _verify_original_image(path: Path) -> None:
    """Decode the original cheaply (JPEG at 1/8 scale) to catch truncation and corruption."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                if max(im.size) > MAX_ASPECT * max(1, min(im.size)):  # a 100000 x 1 strip: OCR would take GBs
                    raise UnreadableFile(f"the image is too elongated to read ({im.width}x{im.height} px)")
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


def purchase_date(extraction: Extraction) -> str | None:
    """The printed date to compare a photo's capture time with, or None (then no photo-date proof).

    Only a date the reading attributes to the purchase (``fields.date``); when its day/month
    order is unsettled, the earliest reading, so the order can't make a photo look early."""
    if extraction.fields.date is None:
        return None
    return extraction.fields.date if extraction.date_unambiguous else extraction.date_earliest


def _submission_time(settings: AnalysisSettings, submitted_at: str | None) -> dt.datetime | None:
    """The check's "now" as a naive local time: ``--today`` (end of that day), else ``submitted_at``."""
    if settings.today:
        return dt.datetime.combine(dt.date.fromisoformat(settings.today), dt.time(23, 59, 59))
    if submitted_at:
        text = submitted_at.strip()
        try:
            if len(text) == 10:  # a date alone: the end of that day
                return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(23, 59, 59))
            # the time zone is dropped: the rules using it allow days of slack
            return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            return None
    return None


@contextlib.contextmanager
def _analyser(name: str) -> Iterator[None]:
    """Run one analyser: an exception from it is an engine bug, so the check ends as an error
    naming the analyser and where it failed (never a verdict silently missing its signals)."""
    try:
        yield
    except Exception as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" ({Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
        raise AnalyserCrash(f"{name} analyser crashed: {type(exc).__name__}: {str(exc)[:200]}{where}") from None


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
    t0, c0 = time.perf_counter(), time.process_time()
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
            problems.append("no prepared image: the PDF's first page was rendered by the engine")
            image = _render_pdf(orig)
        try:
            lines = pdf_text_lines(data, page_width_px=image.width)
        except PdfUnreadable as exc:
            raise UnreadableFile(f"the PDF is truncated or corrupt: {exc}") from None
        chars = sum(len(ln.text) for ln in lines)
        if chars >= 20:
            source = "pdf_text"
        else:
            problems.append(f"the PDF's text layer holds {chars} characters: the page was read by OCR")
            lines = []
    else:
        _verify_original_image(orig)
        prep = Path(prepared) if prepared else None
        if not (prep and prep.is_file()):
            problems.append("no prepared image: the original file was read (not what a run reads)")
        image = _open_image(prep if prep and prep.is_file() else orig, "the image")
    timings["decode"] = time.perf_counter() - t0
    timings["cpu.decode"] = time.process_time() - c0

    rotation = 0  # how far the page was turned to be read (boxes are in that frame)
    if source == "ocr":
        t, c = time.perf_counter(), time.process_time()
        result_ocr = ocr_mod.read_image(image)
        rotation = result_ocr.rotation
        lines = result_ocr.lines
        if rotation:
            image = ocr_mod.turn(image, rotation)  # boxes are in this frame
            how = "upside down" if rotation == 180 else "sideways"
            problems.append(f"the page was read turned by {rotation} degrees (it looked {how})")
        timings["ocr"] = time.perf_counter() - t
        timings["cpu.ocr"] = time.process_time() - c

    t, c = time.perf_counter(), time.process_time()
    rows = rows_from_ocr(lines)
    extraction = extract_fields(rows)
    result = totals_add_up(extraction)
    if source == "ocr" and settings.reread and image is not None:
        t_reread, c_reread = time.perf_counter(), time.process_time()
        shown = image
        extraction, reread_lines, _ = reread_amounts(
            lines,
            extraction,
            result.check.status == "passed",
            lambda: source_image(orig, shown, rotation),
            recognise=ocr_mod.recognise,
            read_region=ocr_mod.read_region,
        )
        if reread_lines is not lines:  # some amounts were read again: the rows are made from the new lines
            lines, rows = reread_lines, rows_from_ocr(reread_lines)
        timings["reread"] = time.perf_counter() - t_reread
        timings["cpu.reread"] = time.process_time() - c_reread
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
    change = change_signal(extraction, rows)  # cash tendered − change vs the total (opinion)
    if change is not None:
        signals.append(change)
    signals.extend(plausibility_signals(extraction, today=today, max_age_days=settings.max_age_days))
    timings["extract"] = time.perf_counter() - t - timings.get("reread", 0.0)  # the re-read is timed apart
    timings["cpu.extract"] = time.process_time() - c - timings.get("cpu.reread", 0.0)

    now = _submission_time(settings, submitted_at)
    if today is None:
        problems.append("no submission time: the receipt-age and future-date rules were not applied")
    if settings.file_signals:
        t, c = time.perf_counter(), time.process_time()
        with _analyser("provenance"):
            signals.extend(
                file_signals(
                    orig,
                    media_type,
                    printed_date=purchase_date(extraction),
                    field_boxes=_upright_boxes(dict(extraction.field_boxes), rotation, image.size),
                    box_size=image.size if rotation in (0, 180) else (image.height, image.width),
                    extracted=extraction.fields,
                    now=now,
                )
            )
        timings["provenance"] = time.perf_counter() - t
        timings["cpu.provenance"] = time.process_time() - c
    if settings.visual_signals and source == "ocr":
        t, c = time.perf_counter(), time.process_time()
        with _analyser("visual forensics"):
            # the reader's own line boxes are the receipt's text lines to compare with
            signals.extend(visual_signals(image, dict(extraction.field_boxes), [ln.box for ln in lines]))
        timings["forensics"] = time.perf_counter() - t
        timings["cpu.forensics"] = time.process_time() - c
    fingerprint = None
    if settings.fingerprint:
        t, c = time.perf_counter(), time.process_time()
        with _analyser("duplicate fingerprint"):
            fingerprint = make_fingerprint(data, image, extraction.fields, extraction.line_items)
        timings["fingerprint"] = time.perf_counter() - t
        timings["cpu.fingerprint"] = time.process_time() - c
    if actual != media_type:
        signals.append(
            Signal(
                name="file.type_mismatch",
                kind="file_fact",
                text=f"The file was declared {media_type} but its content is {actual}.",
            )
        )
    timings["total"] = time.perf_counter() - t0
    timings["cpu.total"] = time.process_time() - c0  # this process's CPU seconds: robust to a busy machine
    return Analysis(
        extraction=extraction,
        check=result.check,
        signals=signals,
        fingerprint=fingerprint,
        source=source,
        timings=timings,
        problems=problems,
    )
