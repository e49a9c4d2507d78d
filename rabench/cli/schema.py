"""``rabench schema``: list the contracts (every file rabench reads or writes) and print
their JSON Schemas."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from rabench.contracts import CONTRACTS_VERSION, Case, Outcome, Row, RunManifest, SuiteHeader, Verdict
from rabench.contracts.ap import APCase
from rabench.contracts.details import DetailsFile
from rabench.contracts.prices import PriceTable
from rabench.contracts.rows import RowsFile
from rabench.contracts.targets_config import TargetsConfig
from rabench.contracts.views import CasesFile, TrackRecord
from rabench.errors import UserError

# name -> (contract, the file it is); one per file rabench reads or writes, plus the
# parts of files that are useful on their own (a case line, a verdict, a row).
CONTRACTS: dict[str, tuple[type[msgspec.Struct], str]] = {
    "suite_header": (SuiteHeader, "cases/<suite>/manifest.jsonl, line 1"),
    "case": (Case, "cases/<suite>/manifest.jsonl, every other line"),
    "ap_case": (APCase, "cases/<ap suite>/manifest.jsonl, every other line (suite kind ap)"),
    "run": (RunManifest, "runs/<id>/run.json"),
    "outcome": (Outcome, "runs/<id>/outcomes.jsonl, every line"),
    "verdict": (Verdict, "an outcome's verdict: what a target answers"),
    "rows": (RowsFile, "reports/<id>/rows.json"),
    "row": (Row, "one row of rows.json"),
    "details": (DetailsFile, "reports/<id>/details.json"),
    "cases": (CasesFile, "reports/<id>/cases.json"),
    "track": (TrackRecord, "reports/<id>/real/track.json"),
    "targets_config": (TargetsConfig, "bench/targets.toml (TOML)"),
    "price_table": (PriceTable, "rabench/data/prices-<date>.toml (TOML)"),
}


def description(struct: type[msgspec.Struct]) -> str:
    """The contract's docstring as one line."""
    return " ".join((struct.__doc__ or "").split())


def schemas() -> dict[str, Any]:
    """All contract schemas, as one JSON Schema document with shared ``$defs``."""
    types = [struct for struct, _ in CONTRACTS.values()]
    refs, defs = msgspec.json.schema_components(types)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"rabench contracts v{CONTRACTS_VERSION}",
        "contracts_version": CONTRACTS_VERSION,
        "contracts": dict(zip(CONTRACTS, refs)),
        "$defs": defs,
    }


def _run(args: argparse.Namespace) -> int:
    if args.list:
        width = max(map(len, CONTRACTS))
        print(f"rabench contracts, version {CONTRACTS_VERSION} (`rabench schema NAME` prints one's JSON Schema):")
        for name, (struct, where) in CONTRACTS.items():
            print(f"{name:<{width}}  {where}: {description(struct)}")
        return 0
    doc = schemas()
    if args.name:
        if args.name not in CONTRACTS:
            raise UserError(f"unknown contract {args.name!r}; choose from {', '.join(CONTRACTS)}")
        doc = msgspec.json.schema(CONTRACTS[args.name][0])
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(doc), indent=2).decode() + "\n")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "schema",
        help="List the contracts (every file rabench reads or writes) and print their JSON Schemas.",
        description="Print the JSON Schema of every contract: the files rabench reads or writes "
        f"(suite manifest, run.json, outcomes.jsonl, rows.json, details.json, cases.json, "
        f"track.json, targets.toml, the price table), version {CONTRACTS_VERSION}. --list names each with what it is; give a "
        f"NAME to print one: {', '.join(CONTRACTS)}.",
    )
    p.add_argument("name", nargs="?", help="one contract to print")
    p.add_argument("--list", action="store_true", help="one line per contract: name, file, description")
    p.set_defaults(func=_run)
