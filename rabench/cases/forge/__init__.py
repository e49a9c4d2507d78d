"""Labelled forgeries and genuine controls made from any suite's genuine receipts (``rabench cases forge``).

``forge_suite(src, out, seed=N)`` -> ``ForgeSummary``. Modules, in pipeline order:
``ocr_cache`` (word boxes), ``locate`` (where the labelled values are printed),
``cells`` (where each character sits), ``paint`` (copy-paste and drawn glyphs),
``printed`` (new values in the receipt's own format), ``edits`` (the content
edits, each read back by OCR), ``saving`` (how files leave their last tool),
``make`` (one output per kind), ``labels`` (its label and tags), ``plan``
(controls vs forged receipts, quotas), ``suite`` (the whole pass).
"""

from rabench.cases.forge.suite import ForgeSummary, forge_suite

__all__ = ["ForgeSummary", "forge_suite"]
