"""Deterministic synthetic RA-Bench receipt suite (``rabench cases generate``).

Pipeline, one module each: ``catalogue`` (merchants, products, currencies,
languages) -> ``document`` (what a receipt says: lines, totals, dates) ->
``layouts`` (how it is printed, rendered with Pillow / fpdf2) -> ``capture``
(scan, photo, screenshot, PDF) -> ``fakes`` (one function per fake class) ->
``provenance`` (EXIF, XMP, PNG text, PDF info) -> ``duplicates`` (transforms and
hard negatives) -> ``suite`` (plan, parallel build, manifest writer).
"""
