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


@pytest.fixture(scope="session")
def quick_suite(tmp_path_factory):
    """A freshly generated `quick` suite of the test split, built once per test session (~20-40 s)."""
    from rabench.cases.synth.suite import generate_suite

    out = tmp_path_factory.mktemp("quick") / "suite"
    generate_suite(out, split="test", size="quick", workers=2)
    return out


@pytest.fixture(scope="session")
def sample_suite(tmp_path_factory):
    """A freshly generated `sample` suite (the committed one's split and seed), one worker."""
    from rabench.cases.synth.suite import generate_suite

    out = tmp_path_factory.mktemp("sample") / "a"
    generate_suite(out, split="sample", size="sample", workers=1)
    return out
