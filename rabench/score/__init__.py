"""The scorer: runs/ID/{run.json,outcomes.jsonl} + the suite's labels -> rows.json, report.md.

Pipeline inside: ``load`` (refuse mismatches) -> ``reduce`` (per-run facts,
per-case shares) -> ``tasks/*`` (rows per RA-Bench 0.2.0 task, with ``rows``
applying Wilson / bootstrap intervals from ``kernels``) -> ``findings`` ->
``output`` (rows.json); markdown rendering lives in ``rabench.report.markdown``. Definitions: docs/methodology.md.
"""
