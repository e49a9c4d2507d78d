"""One version for the whole set of contracts; bump on any incompatible change.

Every file rabench writes for itself carries it (the suite header of manifest.jsonl,
run.json, rows.json's header, details.json) and every reader checks it before decoding
the rest (``check_version``): a file of another version is refused with one line that
says which version was found and which this rabench reads, never half-read.
"""

from __future__ import annotations

from rabench.errors import UserError

CONTRACTS_VERSION = 1
# The version of a file that does not say: files written before the version was recorded
# everywhere (run.json omitted it while it equalled the default; hand-written suite headers).
UNVERSIONED = 1


def check_version(found: object, where: str, remedy: str) -> None:
    """UserError (exit 2) unless ``found`` is this rabench's ``CONTRACTS_VERSION``."""
    if found != CONTRACTS_VERSION or isinstance(found, bool):
        shown = "none" if found is None else repr(found)
        raise UserError(
            f"{where}: contracts_version {shown} found, this rabench reads version {CONTRACTS_VERSION}; {remedy}"
        )
