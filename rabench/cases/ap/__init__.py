"""The accounts-payable suite (issue 17): contracts in ``rabench/contracts/ap.py``, the reader
and validator here, the generator in ``generate.py`` and its parts (docs/ap.md)."""
