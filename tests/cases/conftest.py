"""Shared fixtures for the case tests: a real OCR engine and a freshly generated quick suite."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ocr():
    """RapidOCR (PP-OCRv4 models ship in the wheel): returns the text lines it reads in an image."""
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()

    def read(data: bytes) -> list[str]:
        result, _ = engine(data)
        return [line[1] for line in (result or [])]

    return read
