"""What every importer shares: a draft case per source receipt, bad rows, and the final write.

A format module only reads its source and turns each receipt into a ``Draft``
(the file to copy, its label, tags, and references to other receipts *by file
name*) or a ``BadRow``. Everything after that is common and lives here: media
type from magic bytes, stable ids, resolving ``duplicate_of``/``after`` names to
ids, the all-or-nothing rule for bad rows, and the atomic write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from rabench import __version__
from rabench.cases.importers.media import SUITE_EXTENSION, assign_ids, media_problem
from rabench.cases.importers.writer import StagedSuite, check_out_dir
from rabench.contracts import Case, Label, Lineage, ReceiptLabel, SuiteHeader
from rabench.errors import ProblemsFound, UserError

IMPORTER_VERSION = 2  # 2: SROIE dates read both day/month orders (ambiguous ones left out), `$` totals


@dataclass(frozen=True)
class BadRow:
    """One source record that cannot become a case; ``line()`` is what the user reads."""

    where: str  # "labels.csv:17", "entities/X51.txt", "metadata.jsonl:3"
    name: str | None  # the receipt's file name, when known
    problem: str

    def line(self) -> str:
        who = f" receipt {self.name}:" if self.name else ""
        return f"{self.where}:{who} {self.problem}"


@dataclass(frozen=True)
class Draft:
    """A receipt read from the source, not yet checked against the others or copied."""

    name: str  # file name as the source names it (POSIX, relative); the key for ids and references
    path: Path  # the file to copy
    where: str
    label: ReceiptLabel
    tags: dict[str, str] = field(default_factory=dict)
    duplicate_of: str | None = None
    transform: str = "reencode"
    after: tuple[str, ...] = ()


@dataclass
class SourceRead:
    """What a format module returns."""

    drafts: list[Draft]
    bad: list[BadRow]
    warnings: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)  # format options, recorded in the header
    # Fields the source labels but the import deliberately leaves out: field -> reason -> names.
    left_out: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def leave_out(self, field_name: str, reason: str, name: str) -> None:
        self.left_out.setdefault(field_name, {}).setdefault(reason, []).append(name)


@dataclass(frozen=True)
class ImportOptions:
    tags: dict[str, str] = field(default_factory=dict)  # --tag, applied to every case
    skip_bad: bool = False
    name: str | None = None
    currency: str | None = None  # --currency CODE (sroie, cord)
    no_currency: bool = False  # --no-currency (sroie, cord)
    labels: Path | None = None  # --labels FILE (folder)


@dataclass(frozen=True)
class ImportReport:
    out: Path
    imported: int
    skipped: list[str]  # bad-row lines (only with --skip-bad)
    warnings: list[str]
    left_out: list[str] = field(default_factory=list)  # "12 dates left unlabelled: day/month order ambiguous"


class BadRows(ProblemsFound):
    """Bad rows without ``--skip-bad``: every line, then why nothing was written."""

    def __init__(self, lines: list[str]):
        super().__init__(lines)
        self.args = (
            f"import stopped: {len(lines)} bad row(s), nothing written "
            "(fix them, or pass --skip-bad to import the rest)",
        )


_label_type = msgspec.json.Decoder(Label)


def checked_label(label: ReceiptLabel) -> ReceiptLabel:
    """Round-trip through the contract decoder so a label we build is one the loader accepts."""
    return _label_type.decode(msgspec.json.encode(label))


def _resolve_references(drafts: list[Draft], bad: list[BadRow]) -> list[Draft]:
    """Drop drafts whose ``duplicate_of``/``after`` names no good receipt (repeat: removal cascades)."""
    bad_names = {b.name for b in bad if b.name}
    while True:
        good = {d.name for d in drafts}
        keep: list[Draft] = []
        for d in drafts:
            refs = ([("duplicate_of", d.duplicate_of)] if d.duplicate_of else []) + [("after", a) for a in d.after]
            problem = None
            for kind, ref in refs:
                if ref == d.name:
                    problem = f"{kind} names the receipt itself"
                elif ref not in good:
                    problem = (
                        f"{kind} {ref} is a bad row"
                        if ref in bad_names
                        else f"{kind} {ref} is not a receipt in this import"
                    )
                if problem:
                    break
            if problem:
                bad.append(BadRow(d.where, d.name, problem))
                bad_names.add(d.name)
            else:
                keep.append(d)
        if len(keep) == len(drafts):
            return keep
        drafts = keep


def _originals_first(drafts: list[Draft], bad: list[BadRow]) -> list[Draft]:
    """Sorted by name, but every receipt after the ones it names (Kahn's algorithm, no recursion).

    Receipts left over are in (or behind) a ``duplicate_of``/``after`` cycle: bad rows.
    """
    import heapq

    by_name = {d.name: d for d in drafts}
    waiting: dict[str, int] = {}
    dependants: dict[str, list[str]] = {n: [] for n in by_name}
    for d in drafts:
        deps = set(([d.duplicate_of] if d.duplicate_of else []) + list(d.after))
        waiting[d.name] = len(deps)
        for dep in deps:
            dependants[dep].append(d.name)
    ready = [n for n, k in waiting.items() if k == 0]
    heapq.heapify(ready)
    order: list[Draft] = []
    while ready:
        n = heapq.heappop(ready)
        order.append(by_name[n])
        for m in dependants[n]:
            waiting[m] -= 1
            if waiting[m] == 0:
                heapq.heappush(ready, m)
    placed = {d.name for d in order}
    for d in sorted(drafts, key=lambda x: x.name):
        if d.name not in placed:
            bad.append(BadRow(d.where, d.name, "duplicate_of/after form a cycle"))
    return order


def write_import(
    read: SourceRead,
    *,
    fmt: str,
    src: Path,
    out: Path,
    opts: ImportOptions,
) -> ImportReport:
    """Check every draft, then write the suite atomically (or raise with every bad row)."""
    check_out_dir(out)  # fail before any work if --out is taken
    bad = list(read.bad)
    drafts: list[Draft] = []
    media: dict[str, str] = {}
    seen: dict[str, str] = {}
    for d in read.drafts:
        if d.name in seen:
            bad.append(BadRow(d.where, d.name, f"labelled twice (first at {seen[d.name]})"))
            continue
        seen[d.name] = d.where
        mtype, problem = media_problem(d.path, d.name)
        if problem:
            bad.append(BadRow(d.where, d.name, problem))
            continue
        assert mtype is not None
        media[d.name] = mtype
        drafts.append(d)
    ids = assign_ids(sorted(seen))  # from every name read, so --skip-bad does not shift ids
    drafts = _resolve_references(drafts, bad)
    drafts = _originals_first(drafts, bad)
    lines = [b.line() for b in bad]
    if lines and not opts.skip_bad:
        raise BadRows(lines)
    if not drafts:
        raise UserError(f"{src}: no receipts to import" + (f" ({len(lines)} bad row(s) skipped)" if lines else ""))

    imported = {d.name for d in drafts}
    left_out = {
        f: {why: sorted(ids[n] for n in names if n in imported) for why, names in reasons.items()}
        for f, reasons in sorted(read.left_out.items())
    }
    left_out = {f: {why: c for why, c in r.items() if c} for f, r in left_out.items()}
    left_out = {f: r for f, r in left_out.items() if r}
    header = SuiteHeader(
        suite="receipt",
        name=opts.name or f"import/{fmt}/{src.name}",
        meta={
            "importer": f"rabench.cases.importers.{fmt}",
            "importer_version": IMPORTER_VERSION,
            "rabench_version": __version__,
            "source_format": fmt,
            "source": src.name,
            "options": {
                "tags": dict(sorted(opts.tags.items())),
                "skip_bad": opts.skip_bad,
                **read.options,
            },
            "skipped_bad_rows": len(lines),
            **({"left_out": left_out} if left_out else {}),
        },
    )
    with StagedSuite(out, header) as suite:
        for d in drafts:
            cid = ids[d.name]
            rel = f"files/{cid}{SUITE_EXTENSION[media[d.name]]}"
            sha = suite.copy_file(d.path, rel)
            lineage = Lineage(of=ids[d.duplicate_of], transform=d.transform) if d.duplicate_of else None  # type: ignore[arg-type]
            suite.add(
                Case(
                    id=cid,
                    file=rel,
                    sha256=sha,
                    media_type=media[d.name],  # type: ignore[arg-type]
                    label=d.label,
                    tags={**opts.tags, **d.tags},
                    lineage=lineage,
                    after=[ids[a] for a in d.after],
                )
            )
        count = suite.count
    notes = [
        f"{len(c)} {f}{'' if len(c) == 1 else 's'} left unlabelled: {why} (case ids in the header's meta.left_out)"
        for f, reasons in left_out.items()
        for why, c in reasons.items()
    ]
    return ImportReport(
        out=out, imported=count, skipped=lines if opts.skip_bad else [], warnings=read.warnings, left_out=notes
    )
