"""Suite kinds as plug-ins: what a suite's folder holds and how each stage treats it.

A suite kind is named once, in its manifest's header (``"suite": "receipt"``); the stages
ask the registry (``rabench.suites.registry``) for that kind's ``Suite`` and call it, so no
module outside a suite's own package compares a suite name.
"""
