"""Targets: the things a benchmark run checks receipts with (``self``, ``diy:...``, ``null``)."""
