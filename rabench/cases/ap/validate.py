"""Validate an ``ap`` suite, every problem one line (``manifest.jsonl:17: case c00016: ...``).

Beyond decoding (unknown fields, enum values, boxes inside the page, decision among the
acceptable ones), a case must be usable as the label says: every document file present with
its sha256 and inside the suite; the subject and every evidence box naming a document of
the case (an invoice or credit note for boxes); links naming documents of the bundle or
ledger entries (``LED-...``) that its ledger lists; and the documents its family needs
(``FAMILY_NEEDS``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from rabench.cases.ap.manifest import ap_case_decoder
from rabench.cases.manifest import MANIFEST
from rabench.cases.validate import file_problem, manifest_entries
from rabench.contracts.ap import APCase
from rabench.contracts.case import id_key

# The roles each family's bundle must hold (the task cannot be done without them).
FAMILY_NEEDS: dict[str, tuple[str, ...]] = {
    "extraction": ("invoice", "vendor_master", "policy"),
    "three_way_match": ("invoice", "purchase_order", "vendor_master", "policy"),
    "duplicate_bank_change": ("invoice", "vendor_master", "ledger", "policy"),
    "inbox_bec": ("invoice", "email", "vendor_master", "policy"),
    "campaign": ("invoice", "vendor_master", "ledger", "policy"),
}


def ledger_ids(data: bytes) -> set[str]:
    """The entry ids of a ledger extract (CSV with an ``entry_id`` column)."""
    rows = csv.DictReader(io.StringIO(data.decode("utf-8")))
    return {r["entry_id"] for r in rows if r.get("entry_id")}


def case_problems(case: APCase, files: dict[str, bytes]) -> list[str]:
    """Problems of one decoded case whose document bytes are ``files`` (name -> bytes)."""
    out: list[str] = []
    lab = case.label
    names = {d.name: d for d in case.documents}
    roles = {d.role for d in case.documents}
    for role in FAMILY_NEEDS[lab.family]:
        if role not in roles:
            out.append(f"family {lab.family} needs a {role} document; the case has none")
    if lab.subject not in names or names[lab.subject].role not in ("invoice", "credit_note"):
        out.append(f"label subject {lab.subject} is not an invoice of the case")
    for fname, gold in lab.fields.items():
        ev = gold.evidence
        if ev is None:
            continue
        if ev.doc not in names or names[ev.doc].role not in ("invoice", "credit_note"):
            out.append(f"field {fname}: evidence names {ev.doc}, not an invoice of the case")
    ledger: set[str] = set()
    for d in case.documents:
        if d.role == "ledger" and d.name in files:
            try:
                ledger |= ledger_ids(files[d.name])
            except (UnicodeDecodeError, csv.Error, KeyError):
                out.append(f"ledger {d.name} is not a CSV with an entry_id column")
    for link in lab.duplicate_links + lab.campaign_links:
        for ref in (link.source, link.target):
            if ref not in names and ref not in ledger:
                out.append(f"{link.kind} link names {ref}: neither a document nor a ledger entry of the case")
    return out


def validate_ap_suite(root: Path, *, check_hashes: bool = True) -> tuple[int, list[str]]:
    """(number of cases read, problems) for the ``ap`` suite at ``root`` (header already read)."""
    manifest = root / MANIFEST
    where = MANIFEST
    problems: list[str] = []
    first_key: dict[str, tuple[str, int]] = {}
    count = 0
    root_real = root.resolve()
    for lineno, case in manifest_entries(manifest, ap_case_decoder, problems):
        count += 1
        if case is None:
            continue
        prefix = f"{where}:{lineno}: case {case.id}"
        key = id_key(case.id)
        if key in first_key:
            other, line = first_key[key]
            same = "" if other == case.id else f": same as {other} ignoring case"
            problems.append(f"{prefix}: duplicate id{same} (first on line {line})")
            continue
        first_key[key] = (case.id, lineno)
        files: dict[str, bytes] = {}
        for doc in case.documents:
            path, problem = file_problem(root, root_real, doc.file, doc.sha256, check_hashes)
            if problem is not None:
                problems.append(f"{prefix}: {problem}")
            if path is not None and doc.role == "ledger":
                files[doc.name] = path.read_bytes()
        problems.extend(f"{prefix}: {p}" for p in case_problems(case, files))
    return count, problems
