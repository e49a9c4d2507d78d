"""Case suites: the on-disk format, the streaming loader and its validation."""

from rabench.cases.manifest import MANIFEST, SuiteReader, open_suite

__all__ = ["MANIFEST", "SuiteReader", "open_suite"]
