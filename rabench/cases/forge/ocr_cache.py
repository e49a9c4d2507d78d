"""Word boxes for a source receipt: the engine's own OCR, cached on disk by file hash.

Why the engine's OCR: a forger edits what is printed where; to edit the total,
the date or the merchant the forge must know where the receipt prints them, and
the engine's RapidOCR (models shipped in the wheel, nothing downloaded) is the
reader this project already trusts. Why a cache: OCR costs about 0.6 s of CPU per
receipt, the rest of the forge a fraction of that, so re-forging a suite (another
seed, a fix while iterating) should not read every receipt again. The cache key
is the file's sha256 plus the reading settings; a stale or unreadable entry is
simply read again.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import numpy as np
from PIL import Image

from rabench.engine.ocr import OcrEngine, OcrLine, OcrResult, OcrSettings

# Receipts are read at a somewhat higher resolution than the engine's checks use:
# the forge needs the boxes of single values, not just legible text.
SETTINGS = OcrSettings(max_side=1600, det_limit_side=1600)
CACHE_VERSION = 1

_decoder = msgspec.json.Decoder(OcrResult)
_encoder = msgspec.json.Encoder()


class Reader:
    """OCR with an optional on-disk cache; the engine is loaded on first use."""

    def __init__(self, cache_dir: Path | None = None):
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._engine: OcrEngine | None = None
        self._rec = None  # a recogniser alone, for reading back single edited lines
        self.hits = 0

    def _key(self, sha256: str) -> Path | None:
        if self.cache_dir is None:
            return None
        s = SETTINGS
        return self.cache_dir / f"{sha256}-v{CACHE_VERSION}-{s.max_side}-{s.det_limit_side}.json"

    def engine(self) -> OcrEngine:
        if self._engine is None:
            self._engine = OcrEngine(SETTINGS)
        return self._engine

    def read_line(self, image: Image.Image) -> str:
        """Recognise one text line (no detection): an edited line, to check it reads as intended."""
        if self._rec is None:
            from rapidocr_onnxruntime import RapidOCR

            self._rec = RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)
        bgr = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])
        result, _ = self._rec(bgr, use_det=False, use_cls=False, use_rec=True)
        return "".join(str(r[0]) for r in result or [])

    def read(self, image: Image.Image, sha256: str) -> list[OcrLine]:
        """The text lines of ``image`` (upright frame; lines of an upside-down read are dropped)."""
        key = self._key(sha256)
        if key is not None and key.is_file():
            try:
                result = _decoder.decode(key.read_bytes())
                self.hits += 1
                return result.lines if result.rotation == 0 else []
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
        result = self.engine().read(image)
        if key is not None:
            key.parent.mkdir(parents=True, exist_ok=True)
            tmp = key.with_suffix(".tmp")
            tmp.write_bytes(_encoder.encode(result))
            tmp.replace(key)
        return result.lines if result.rotation == 0 else []
