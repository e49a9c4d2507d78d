"""``rabench schema``: print the JSON Schemas of the contracts."""

from __future__ import annotations

import argparse
import sys

import msgspec

from rabench.contracts import CONTRACTS_VERSION, Case, Outcome, Row, RunManifest, SuiteHeader, Verdict
from rabench.errors import UserError

CONTRACTS = {
    "case": Case,
    "suite_header": SuiteHeader,
    "verdict": Verdict,
    "outcome": Outcome,
    "run": RunManifest,
    "row": Row,
}


def schemas() -> dict:
    """All contract schemas, as one JSON Schema document with shared ``$defs``."""
    types = list(CONTRACTS.values())
    refs, defs = msgspec.json.schema_components(types)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"rabench contracts v{CONTRACTS_VERSION}",
        "contracts_version": CONTRACTS_VERSION,
        "contracts": dict(zip(CONTRACTS, refs)),
        "$defs": defs,
    }


def _run(args: argparse.Namespace) -> int:
    doc = schemas()
    if args.name:
        if args.name not in CONTRACTS:
            raise UserError(f"unknown contract {args.name!r}; choose from {', '.join(CONTRACTS)}")
        doc = msgspec.json.schema(CONTRACTS[args.name])
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(doc), indent=2).decode() + "\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schema",
        help="Print the JSON Schemas of the contracts (Case, Verdict, Outcome, Row, ...).",
        description="Print the JSON Schema of every contract between pipeline stages, "
        f"version {CONTRACTS_VERSION}. Give a NAME to print one: {', '.join(CONTRACTS)}.",
    )
    p.add_argument("name", nargs="?", help="one contract to print")
    p.set_defaults(func=_run)
