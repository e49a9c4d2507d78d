"""One version for the whole set of contracts; bump on any incompatible change.

Every file rabench writes for itself carries it (the suite header of manifest.jsonl,
run.json, rows.json's header, details.json) and every reader checks it before decoding
the rest (``check_version``): a file of another version is refused with one line that
says which version was found and which this rabench reads, never half-read.
"""

from __future__ import annotations

from rabench.errors import UserError

CONTRACTS_VERSION = 2
# Versions this rabench still reads. Version 2 changed only the outcome line (one answer
# field, ``Outcome.verdict``, an ``Answer`` tagged by suite; version 1 had ``ap_verdict``
# beside it): every other version-1 file has the same shape and reads as it is, and a
# version-1 outcomes file is read line by line with ``decode_outcome_v1``.
READABLE_VERSIONS = (1, 2)
# What a suite's manifest header says: the suite format did not change in version 2, so
# suites are still written as version 1 (a committed suite and a fresh generation of it stay
# byte-identical, and so does every manifest's sha256 that run.json files record).
SUITE_VERSION = 1
# The version of a file that does not say: files written before the version was recorded
# everywhere (run.json omitted it while it equalled the default; hand-written suite headers).
UNVERSIONED = 1


def check_version(found: object, where: str, remedy: str) -> None:
    """UserError (exit 2) unless ``found`` is a version this rabench reads (``READABLE_VERSIONS``)."""
    if found not in READABLE_VERSIONS or isinstance(found, bool):
        shown = "none" if found is None else repr(found)
        raise UserError(
            f"{where}: contracts_version {shown} found, this rabench reads version {CONTRACTS_VERSION} "
            f"(and version 1); {remedy}"
        )
