"""The `self` target: a forensic receipt-audit engine (see docs/engine.md)."""
