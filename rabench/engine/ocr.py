"""OCR with RapidOCR, run off the event loop behind a small pool interface.

Why a pool interface: OCR is what a check spends its time on (hundreds of ms of
ONNX inference per receipt), so it must never run on the runner's event loop,
and it must scale with the cores. ``WorkerPool`` is the seam: today a local
process pool (one worker per core, one ONNX intra-op thread per worker so
workers don't fight over cores) or a thread pool for tests; later a Dask or
Ray client whose ``submit`` has the same shape. Whatever runs in the pool is a
plain picklable function of plain arguments.

The ONNX models ship inside the ``rapidocr-onnxruntime`` wheel; nothing is
downloaded at run time. Images are downscaled before OCR (``OcrSettings``):
receipts are legible at ~1280 px on the long side and detection cost grows
with the pixel count. A receipt often fills only part of the picture (a till
slip in a third of a 300 dpi full-page scan): ``receipt_box`` finds the region
its print occupies and only that region is read, so its text is read at up to
``max_side`` rather than shrunk with the empty page around it. The angle
classifier is not run on every line because the prepared image is usually upright
(EXIF orientation applied); a receipt scanned or photographed sideways or upside
down in its pixels is read turned as well: sideways when most line boxes stand on
end, upside down when a pass finds almost nothing legible or the angle classifier
calls most of the widest lines turned. The more legible read is kept.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import msgspec
import numpy as np
from PIL import Image, ImageFilter

T = TypeVar("T")


class OcrLine(msgspec.Struct, frozen=True):
    """One detected text line: its text, axis-aligned box (x0, y0, x1, y1) in the
    coordinates of the image handed to OCR, and the recogniser's confidence."""

    text: str
    box: tuple[int, int, int, int]
    confidence: float
    slope: float = 0.0  # dy/dx of the text baseline (photos are rarely level)

    @property
    def height(self) -> int:
        return self.box[3] - self.box[1]

    @property
    def y_center(self) -> float:
        return (self.box[1] + self.box[3]) / 2


class OcrResult(msgspec.Struct, frozen=True):
    """Lines in reading order. ``rotation`` is 0, or 90, 180 or 270 when the print was sideways
    or upside down: boxes are then in the frame of ``turn(image, rotation)`` (turned that many
    degrees counter-clockwise, as ``Image.rotate(rotation, expand=True)``)."""

    lines: list[OcrLine]
    rotation: int = 0


class OcrSettings(msgspec.Struct, frozen=True):
    max_side: int = 1280  # downscale so the long side is at most this before OCR
    det_limit_side: int = 1280  # detector input: long side at most this (no upscaling)
    min_text_score: float = 0.5
    use_cls: bool = False  # angle classifier; prepared images are upright
    threads: int = 1  # ONNX intra-op threads per engine
    crop: bool = True  # read only the region the receipt's print occupies (receipt_box)


# --------------------------------------------------------------------------- engine


class OcrEngine:
    """One RapidOCR instance (not thread-safe: keep one per thread/process)."""

    def __init__(self, settings: OcrSettings = OcrSettings()):
        from rapidocr_onnxruntime import RapidOCR  # heavy import, only where OCR runs

        self.settings = settings
        self._ocr = RapidOCR(
            intra_op_num_threads=settings.threads,
            inter_op_num_threads=1,
            det_limit_type="max",
            det_limit_side_len=settings.det_limit_side,
            text_score=settings.min_text_score,
        )

    def read(self, image: Image.Image) -> OcrResult:
        """OCR ``image``; boxes are returned in ``image``'s own pixel coordinates
        (or, for a turned read, in the frame of ``turn(image, result.rotation)``)."""
        rgb = image.convert("RGB") if image.mode != "RGB" else image
        # cropping pays only when the picture would be shrunk for reading
        crop = self.settings.crop and max(rgb.size) > self.settings.max_side
        region = receipt_box(rgb) if crop else None
        if region is None:
            return self._read_whole(rgb)
        x0, y0, x1, y1 = region
        result = self._read_whole(rgb.crop(region))
        # back to the whole image's frame (for a turned read: the frame of the whole image turned)
        w, h = rgb.size
        dx, dy = {0: (x0, y0), 90: (y0, w - x1), 180: (w - x1, h - y1), 270: (h - y1, x0)}[result.rotation]
        return OcrResult([_shifted(ln, dx, dy) for ln in result.lines], result.rotation)

    def _read_whole(self, rgb: Image.Image) -> OcrResult:
        scale = 1.0
        long_side = max(rgb.size)
        if long_side > self.settings.max_side:
            scale = long_side / self.settings.max_side
            rgb = rgb.resize(
                (max(1, round(rgb.width / scale)), max(1, round(rgb.height / scale))),
                Image.Resampling.LANCZOS,
            )
        bgr = np.ascontiguousarray(np.asarray(rgb)[:, :, ::-1])
        raw = self._raw(bgr, self.settings.use_cls)
        lines = self._lines(raw, scale)
        if self.settings.use_cls:
            return OcrResult(lines)
        # A receipt scanned or photographed sideways or upside down: read it turned as well and
        # keep whichever read is more legible. Sideways print shows as tall line boxes; upside-down
        # print as a poor read or as lines the angle classifier (shipped with RapidOCR) calls turned.
        turns: list[int] = []
        if _looks_sideways(raw):
            turns = [90, 270]
        elif _looks_illegible(lines):  # a poor read: any turn (the detector misses much sideways print)
            turns = [180, 90, 270]
        elif self._turned_share(bgr, raw) > TURNED_SHARE:
            turns = [180]
        best, best_turn = lines, 0
        for turn in turns:
            turned = self._lines(self._raw(np.ascontiguousarray(np.rot90(bgr, turn // 90)), False), scale)
            if _legibility(turned) > _legibility(best):
                best, best_turn = turned, turn
        return OcrResult(best, best_turn)

    def _turned_share(self, bgr: np.ndarray, raw: list[Any]) -> float:
        """The share of the widest line boxes (up to 40, at least 3) the angle classifier
        calls upside down with confidence; 0 when there are fewer than 3."""
        wide = sorted(
            (np.asarray(points, dtype=np.float32) for points, _, _ in raw),
            key=lambda p: -float(p[:, 0].max() - p[:, 0].min()),
        )[:40]
        if len(wide) < 3:
            return 0.0
        _, votes, _ = self._ocr.text_cls(self._ocr.get_crop_img_list(bgr, wide))
        return sum(1 for label, score in votes if "180" in str(label) and float(score) >= 0.9) / len(wide)

    def recognise(self, crops: list[Image.Image]) -> list[tuple[str, float]]:
        """Recognition only: each crop is taken to hold one line of text (no detection). The
        re-read of an amount at full resolution (``extract.reread``) uses it: a few ms a crop."""
        if not crops:
            return []
        out = []
        for c in crops:  # one at a time: a batch pads every crop to the widest, which changes the reads
            ((text, conf),) = self._ocr.text_rec([np.ascontiguousarray(np.asarray(c.convert("RGB"))[:, :, ::-1])])[0]
            out.append((str(text).strip(), round(float(conf), 4)))
        return out

    def read_region(self, image: Image.Image) -> list[OcrLine]:
        """Detection and recognition of a small region as it is (no downscale to ``max_side`` beyond
        the detector's own limit, no crop, no turned read); boxes in the region's pixels."""
        rgb = image.convert("RGB") if image.mode != "RGB" else image
        return self._run(np.ascontiguousarray(np.asarray(rgb)[:, :, ::-1]), False, 1.0)

    def _run(self, bgr: np.ndarray, use_cls: bool, scale: float) -> list[OcrLine]:
        return self._lines(self._raw(bgr, use_cls), scale)

    def _raw(self, bgr: np.ndarray, use_cls: bool) -> list[Any]:
        result, _ = self._ocr(bgr, use_cls=use_cls)
        return list(result or [])

    @staticmethod
    def _lines(raw: list[Any], scale: float) -> list[OcrLine]:
        out: list[OcrLine] = []
        for points, text, conf in raw:
            xs = [p[0] * scale for p in points]
            ys = [p[1] * scale for p in points]
            text = str(text).strip()
            if not text:
                continue
            box = (int(min(xs)), int(min(ys)), int(round(max(xs))), int(round(max(ys))))
            dx = (xs[1] - xs[0] + xs[2] - xs[3]) / 2
            dy = (ys[1] - ys[0] + ys[2] - ys[3]) / 2
            slope = dy / dx if dx > 1 else 0.0
            out.append(OcrLine(text=text, box=box, confidence=round(float(conf), 4), slope=round(slope, 5)))
        return out


def _shifted(ln: OcrLine, dx: int, dy: int) -> OcrLine:
    x0, y0, x1, y1 = ln.box
    return OcrLine(ln.text, (x0 + dx, y0 + dy, x1 + dx, y1 + dy), ln.confidence, ln.slope)


# --------------------------------------------------------------------------- the receipt on the page

CROP_WORK_SIDE = 1000  # the ink map is computed at this size (long side)
CROP_MAX_AREA = 0.8  # crop only when the print occupies less of the picture than this


def receipt_box(image: Image.Image) -> tuple[int, int, int, int] | None:
    """The region (x0, y0, x1, y1) the receipt's print occupies, with a margin; ``None`` when
    it fills most of the picture (nothing to gain) or there is no print.

    Ink is what is clearly darker than the paper around it (a coarse max-filtered
    background, so uneven light and a dark table are not ink); letters and lines are
    joined into blobs, and the region is every blob that holds a visible share of the
    ink, so scanner dust and specks on an empty page do not widen it. A textured
    background makes ink everywhere and the whole picture is read, as before.
    """
    import cv2  # comes with RapidOCR; loaded already wherever OCR runs

    g = image.convert("L")
    w0, h0 = g.size
    s = min(1.0, CROP_WORK_SIDE / max(w0, h0))
    if s < 1.0:
        g = g.resize((max(1, round(w0 * s)), max(1, round(h0 * s))), Image.Resampling.BOX)
    a = np.asarray(g, dtype=np.float32)
    h, w = a.shape
    if h < 32 or w < 32:
        return None
    cell = 16
    coarse = g.resize((max(1, w // cell), max(1, h // cell)), Image.Resampling.BOX)
    bg = coarse.filter(ImageFilter.MaxFilter(3)).resize((w, h), Image.Resampling.BILINEAR)
    bg_a = np.maximum(np.asarray(bg, dtype=np.float32), 1.0)
    ink = (a / bg_a < 0.7) & (bg_a > 60)
    ink[:, ink.mean(axis=0) > 0.5] = False  # borders, shadows: not print
    ink[ink.mean(axis=1) > 0.5, :] = False
    total = int(ink.sum())
    if total < 50:
        return None
    grown = cv2.dilate(ink.astype(np.uint8), np.ones((5, 9), dtype=np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    mass = np.bincount(labels[ink], minlength=n)  # ink pixels per blob (label 0 is the background)
    keep = [k for k in range(1, n) if mass[k] >= max(10.0, 0.002 * total)]
    if not keep:
        return None
    x0 = min(int(stats[k, cv2.CC_STAT_LEFT]) for k in keep)
    y0 = min(int(stats[k, cv2.CC_STAT_TOP]) for k in keep)
    x1 = max(int(stats[k, cv2.CC_STAT_LEFT] + stats[k, cv2.CC_STAT_WIDTH]) for k in keep)
    y1 = max(int(stats[k, cv2.CC_STAT_TOP] + stats[k, cv2.CC_STAT_HEIGHT]) for k in keep)
    margin = max(4, round(0.03 * max(y1 - y0, x1 - x0)))
    x0, y0 = max(0, x0 - margin), max(0, y0 - margin)
    x1, y1 = min(w, x1 + margin), min(h, y1 + margin)
    if (x1 - x0) * (y1 - y0) > CROP_MAX_AREA * w * h:
        return None
    box = (int(x0 / s), int(y0 / s), min(w0, int(np.ceil(x1 / s))), min(h0, int(np.ceil(y1 / s))))
    return box


TURNED_SHARE = 0.5  # read turned round when more than this share of the line boxes look upside down


def turn(image: Image.Image, rotation: int) -> Image.Image:
    """``image`` turned ``rotation`` degrees counter-clockwise (0, 90, 180, 270): the frame of
    a turned read's boxes."""
    return image.rotate(rotation, expand=True) if rotation else image


def unturn_box(box: tuple[int, int, int, int], rotation: int, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """A box in the frame of ``turn(image, rotation)`` back in ``image``'s frame; ``size`` is
    the turned image's (width, height)."""
    x0, y0, x1, y1 = box
    w, h = size
    if rotation == 90:  # turned (u, v) came from (w_orig - v, u), w_orig = h
        return (h - y1, x0, h - y0, x1)
    if rotation == 180:
        return (w - x1, h - y1, w - x0, h - y0)
    if rotation == 270:  # turned (u, v) came from (v, h_orig - u), h_orig = w
        return (y0, w - x1, y1, w - x0)
    return box


def _legibility(lines: list[OcrLine]) -> float:
    # text read in lines that lie flat: RapidOCR turns a box standing on end before reading it,
    # so print read sideways can come out as words, but in lines no row of a receipt is made of
    return sum(len(ln.text) * ln.confidence for ln in lines if _flat(ln))


def _looks_sideways(raw: list[Any]) -> bool:
    # Line boxes of print read sideways stand on end; upright receipts have a few tall boxes at
    # most (a column of digits, a logo), never most of them.
    sizes = [(float(np.ptp([p[0] for p in points])), float(np.ptp([p[1] for p in points]))) for points, _, _ in raw]
    sizes = [(w, h) for w, h in sizes if max(w, h) >= 12]  # not specks and single marks
    return len(sizes) >= 3 and sum(h > 1.5 * w for w, h in sizes) > 0.6 * len(sizes)


def _flat(ln: OcrLine) -> bool:
    return ln.box[3] - ln.box[1] <= 1.5 * (ln.box[2] - ln.box[0])


def _looks_illegible(lines: list[OcrLine]) -> bool:
    # upright receipts read at a mean confidence of 0.86 or more (sroie-dev, us-photos-dev and the
    # synthetic dev split, 495 reads); text read upside down comes out as digits and marks at 0.6-0.7,
    # and a small picture read sideways as single characters: an upright receipt has words
    if len(lines) < 3 or float(np.mean([ln.confidence for ln in lines])) < 0.75:
        return True
    return sum(1 for ln in lines if len(ln.text) >= 4 and _flat(ln)) < 3


_local = threading.local()
_settings_for_process = OcrSettings()


def _engine() -> OcrEngine:
    engine = getattr(_local, "engine", None)
    if engine is None:
        engine = _local.engine = OcrEngine(_settings_for_process)
    return engine


def read_image(image: Image.Image) -> OcrResult:
    """OCR with this thread's engine (loaded on first use). Runs inside a pool worker."""
    return _engine().read(image)


def recognise(crops: list[Image.Image]) -> list[tuple[str, float]]:
    """Recognition only, with this thread's engine (see ``OcrEngine.recognise``)."""
    return _engine().recognise(crops)


def read_region(image: Image.Image) -> list[OcrLine]:
    """Detection and recognition of a small region, with this thread's engine."""
    return _engine().read_region(image)


def read_file(path: str) -> OcrResult:
    """OCR an image file (decoded in the worker, so only a path crosses processes)."""
    with Image.open(path) as im:
        im.load()
        return read_image(im)


# --------------------------------------------------------------------------- pools


class WorkerPool(Protocol):
    """Where CPU-bound engine work runs. ``submit`` awaits ``fn(*args)`` run elsewhere."""

    workers: int

    async def submit(self, fn: Callable[..., T], *args: Any) -> T: ...

    def close(self) -> None: ...


def _init_worker(settings: OcrSettings, preload: bool) -> None:
    global _settings_for_process
    _settings_for_process = settings
    # Ctrl-C in a terminal reaches the whole process group: the parent decides (it cancels the run
    # and kills workers still busy); a worker dying of it would break the pool mid-run.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # One thread per worker for every numeric library the worker may touch.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if preload:
        _engine()


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class ProcessWorkerPool:
    """A local process pool sized to the cores; each worker holds one OCR engine.

    Uses the ``spawn`` start method: forking a parent that already loaded
    onnxruntime or an event loop is unsafe.
    """

    def __init__(
        self,
        workers: int | None = None,
        settings: OcrSettings = OcrSettings(),
        *,
        preload: bool = True,
    ):
        self.workers = workers or default_workers()
        self._executor = cf.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(settings, preload),
        )
        self._running: set[cf.Future[Any]] = set()

    async def submit(self, fn: Callable[..., T], *args: Any) -> T:
        fut = self._executor.submit(fn, *args)
        self._running.add(fut)
        fut.add_done_callback(self._running.discard)
        return await asyncio.wrap_future(fut)

    def warm_up(self) -> None:
        """Block until every worker has started and loaded its engine."""
        futures = [self._executor.submit(os.getpid) for _ in range(self.workers * 2)]
        for fut in futures:
            fut.result()

    def close(self) -> None:
        """Stop the workers. Work still running (the run was interrupted: its callers are gone)
        is killed, not waited for, so Ctrl-C ends a run at once, not after the OCR of a file."""
        if any(not f.done() for f in list(self._running)):
            for proc in list((getattr(self._executor, "_processes", None) or {}).values()):
                try:
                    proc.kill()
                except (OSError, AttributeError):
                    pass
        self._executor.shutdown(wait=True, cancel_futures=True)


class ThreadWorkerPool:
    """In-process threads (one OCR engine per thread). For tests and single-process use:
    ONNX releases the GIL during inference, so threads still overlap OCR."""

    def __init__(self, workers: int | None = None, settings: OcrSettings = OcrSettings()):
        global _settings_for_process
        _settings_for_process = settings
        self.workers = workers or default_workers()
        self._executor = cf.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ocr")

    async def submit(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


async def ocr(pool: WorkerPool, image: Image.Image) -> OcrResult:
    """OCR one image in ``pool``."""
    return await pool.submit(read_image, image)
