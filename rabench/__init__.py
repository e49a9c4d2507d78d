"""rabench: the runner for RA-Bench (see docs/architecture.md)."""

__version__ = "0.1.0"
