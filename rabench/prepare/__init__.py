"""Prepare stage: the one image every target gets (``image``), cached on disk (``cache``)."""

from rabench.prepare.image import MAX_BYTES, MAX_SIDE, PREP_VERSION, PreparationError, prepare_bytes

__all__ = ["MAX_BYTES", "MAX_SIDE", "PREP_VERSION", "PreparationError", "prepare_bytes"]
