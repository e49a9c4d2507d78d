"""``--format folder``: your own receipts plus a CSV or JSONL of labels keyed by file name.

The labels file is the whole truth about the folder: every receipt file in it
needs a row (a file without one is a bad row, since an unlabelled receipt in a
benchmark is a silent gap), every row's file must exist inside the folder, and
every value must read cleanly. Empty = not covered (not scored); ``null`` = the
document does not show the field. See docs/cases.md, "Importing your own receipts".
"""

from __future__ import annotations

import csv
import os
import typing
from pathlib import Path
from typing import Any

import msgspec

from rabench.cases.importers.base import BadRow, Draft, ImportOptions, SourceRead, checked_label
from rabench.cases.importers.media import sniff_file
from rabench.cases.importers.values import (
    ValueProblem,
    parse_currency,
    parse_iso_date,
    parse_plain_amount,
    squash,
)
from rabench.cases.manifest import SymlinkLoop, resolve_in_suite
from rabench.contracts import Authenticity, LineItem, ReceiptLabel
from rabench.contracts.case import Transform
from rabench.contracts.labels import SCALAR_FIELDS, FakeClass, Provenance
from rabench.errors import UserError

COLUMNS: tuple[str, ...] = (
    "file",
    "merchant",
    "date",
    "subtotal",
    "tax_total",
    "total",
    "currency",
    "receipt_number",
    "line_items",
    "adds_up",
    "authenticity",
    "fake_class",
    "edited_fields",
    "provenance",
    "duplicate_of",
    "transform",
    "after",
    "tags",
)
LABEL_FILES = ("labels.csv", "labels.jsonl")
FAKE_CLASSES = typing.get_args(FakeClass)
PROVENANCES = typing.get_args(Provenance)
TRANSFORMS = typing.get_args(Transform)
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


class _Null:
    """The explicit 'not shown' marker (CSV ``null``/``NULL``, JSON null)."""


NULL = _Null()
_line_items = msgspec.json.Decoder(list[LineItem])


class RowProblem(Exception):
    pass


def _text(col: str, value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise RowProblem(f"{col} must be text, not {type(value).__name__}")


def _amount(col: str, value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        raise RowProblem(f"{col} must be a number, not {type(value).__name__}")
    try:
        return parse_plain_amount(value)
    except ValueProblem as exc:
        raise RowProblem(f"{col} {exc}") from None


def _list(col: str, value: Any, seps: str) -> list[str]:
    if isinstance(value, list):
        return [_text(col, v) for v in value if _text(col, v)]
    text = _text(col, value)
    for sep in seps[1:]:
        text = text.replace(sep, seps[0])
    return [p.strip() for p in text.split(seps[0]) if p.strip()]


def _choice(col: str, value: Any, choices: tuple[str, ...]) -> str:
    text = _text(col, value).lower()
    if text not in choices:
        raise RowProblem(f'{col} "{value}" is not one of {", ".join(choices)}')
    return text


def _tags(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        pairs = [(str(k), _text("tags", v)) for k, v in value.items()]
    else:
        pairs = []
        for part in _list("tags", value, ";"):
            if "=" not in part:
                raise RowProblem(f'tags "{part}" is not dimension=value')
            k, v = part.split("=", 1)
            pairs.append((k, v))
    return parse_tag_pairs(pairs, RowProblem)


def parse_tag_pairs(pairs: list[tuple[str, str]], error: type[Exception]) -> dict[str, str]:
    """Validated ``dimension=value`` tags: both sides non-empty, dimension without spaces or ``=``."""
    out: dict[str, str] = {}
    for k, v in pairs:
        k, v = k.strip(), v.strip()
        if not k or not v or "=" in k or " " in k or ";" in v:
            raise error(f'tag "{k}={v}" is not dimension=value (no spaces or = in the dimension)')
        if k in out and out[k] != v:
            raise error(f"tag {k} given twice ({out[k]}, {v}); a case has one value per dimension")
        out[k] = v
    return out


def _name_in(root: Path, col: str, raw: str) -> str:
    """A file name from the labels -> its key (POSIX path relative to the folder); refuse escapes."""
    if "\\" in raw:
        raise RowProblem(f"{col} {raw} uses \\; write paths with /")
    try:
        path = resolve_in_suite(root, raw)
    except SymlinkLoop as exc:  # a bad row like any other: named, skippable with --skip-bad
        raise RowProblem(str(exc)) from None
    if path is None:
        raise RowProblem(f"{col} {raw} is outside the source folder")
    return path.relative_to(root.resolve()).as_posix()


def parse_record(rec: dict[str, Any], root: Path, where: str) -> Draft | BadRow:
    """One labels row (CSV cells already mapped: '' dropped, null -> NULL) -> Draft or BadRow."""
    raw_file = rec.get("file")
    name = raw_file if isinstance(raw_file, str) and raw_file.strip() else None
    try:
        if name is None:
            raise RowProblem("file is empty; every row must name its receipt file")
        name = name.strip()
        key = _name_in(root, "file", name)
        name = key
        path = root.resolve() / key
        if not path.is_file():
            raise RowProblem(f"file {key} not found in {root}")
        fields: dict[str, Any] = {}
        for col in ("merchant", "receipt_number"):
            if col in rec:
                fields[col] = None if rec[col] is NULL else squash(_text(col, rec[col]))
        if "date" in rec:
            try:
                fields["date"] = None if rec["date"] is NULL else parse_iso_date(_text("date", rec["date"]))
            except ValueProblem as exc:
                raise RowProblem(f"date {exc}") from None
        for col in ("subtotal", "tax_total", "total"):
            if col in rec:
                fields[col] = None if rec[col] is NULL else _amount(col, rec[col])
        if "currency" in rec:
            try:
                fields["currency"] = (
                    None if rec["currency"] is NULL else parse_currency(_text("currency", rec["currency"]))
                )
            except ValueProblem as exc:
                raise RowProblem(f"currency {exc}") from None
        for col, what in (
            ("line_items", "use [] for a receipt without items"),
            ("adds_up", None),
            ("authenticity", None),
            ("provenance", None),
            ("tags", None),
            ("duplicate_of", None),
            ("transform", None),
            ("after", None),
        ):
            if rec.get(col) is NULL:
                raise RowProblem(f"{col} cannot be null" + (f"; {what}" if what else "; leave it empty"))
        if "line_items" in rec:
            v = rec["line_items"]
            try:
                fields["line_items"] = (
                    _line_items.decode(v) if isinstance(v, str) else msgspec.convert(v, list[LineItem])
                )
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                msg = str(exc).replace("`", "")
                raise RowProblem(f"line_items is not a JSON list of items: {msg}") from None
        if "adds_up" in rec:
            v = rec["adds_up"]
            if isinstance(v, bool):
                fields["adds_up"] = v
            elif _text("adds_up", v).lower() in _TRUE | _FALSE:
                fields["adds_up"] = _text("adds_up", v).lower() in _TRUE
            else:
                raise RowProblem(f'adds_up "{v}" is not true or false')
        verdict = (
            _choice("authenticity", rec["authenticity"], ("genuine", "fake")) if "authenticity" in rec else "genuine"
        )
        fake_class = None
        if "fake_class" in rec and rec["fake_class"] is not NULL:
            fake_class = _choice("fake_class", rec["fake_class"], FAKE_CLASSES)
        edited: list[str] = []
        if "edited_fields" in rec and rec["edited_fields"] is not NULL:
            edited = _list("edited_fields", rec["edited_fields"], ";,")
            for f in edited:
                if f not in SCALAR_FIELDS:
                    raise RowProblem(f'edited_fields "{f}" is not one of {", ".join(SCALAR_FIELDS)}')
        if verdict == "genuine" and (fake_class or edited):
            raise RowProblem("fake_class/edited_fields given but authenticity is genuine")
        if "provenance" in rec:
            fields["provenance"] = _choice("provenance", rec["provenance"], PROVENANCES)
        duplicate_of = (
            _name_in(root, "duplicate_of", _text("duplicate_of", rec["duplicate_of"]))
            if "duplicate_of" in rec
            else None
        )
        transform = "reencode"
        if "transform" in rec:
            if duplicate_of is None:
                raise RowProblem("transform given without duplicate_of")
            transform = _choice("transform", rec["transform"], TRANSFORMS)
        after = tuple(_name_in(root, "after", a) for a in _list("after", rec["after"], ";")) if "after" in rec else ()
        tags = _tags(rec["tags"]) if "tags" in rec else {}
        label = checked_label(
            ReceiptLabel(
                authenticity=Authenticity(verdict=verdict, fake_class=fake_class, edited_fields=edited),  # type: ignore[arg-type]
                **fields,
            )
        )
    except RowProblem as exc:
        return BadRow(where, name, str(exc))
    except msgspec.ValidationError as exc:
        return BadRow(where, name, str(exc).replace("`", ""))
    return Draft(
        name=key,
        path=path,
        where=where,
        label=label,
        tags=tags,
        duplicate_of=duplicate_of,
        transform=transform,
        after=after,
    )


def _csv_records(path: Path) -> list[tuple[str, dict[str, Any]]]:
    try:
        fh = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    out: list[tuple[str, dict[str, Any]]] = []
    with fh:
        reader = csv.reader(fh)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise UserError(f"{path}: empty labels file (line 1 must name the columns)") from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise UserError(f"{path}:1: unreadable CSV header ({exc})") from None
        _check_columns(path, header)
        start = reader.line_num + 1
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                break
            except (csv.Error, UnicodeDecodeError) as exc:
                raise UserError(f"{path}:{start}: unreadable CSV ({exc})") from None
            where = f"{path.name}:{start}"
            start = reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) > len(header):
                out.append((where, {"__bad__": f"{len(cells)} cells but {len(header)} columns"}))
                continue
            rec: dict[str, Any] = {}
            for col, cell in zip(header, cells):
                cell = cell.strip()
                if cell == "":
                    continue
                rec[col] = NULL if cell.lower() == "null" and col != "file" else cell
            out.append((where, rec))
    return out


def _jsonl_records(path: Path) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    for i, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{path.name}:{i}"
        try:
            obj = msgspec.json.decode(raw)
        except msgspec.DecodeError as exc:
            out.append((where, {"__bad__": f"not valid JSON ({exc})"}))
            continue
        if not isinstance(obj, dict):
            out.append((where, {"__bad__": "each line must be a JSON object"}))
            continue
        unknown = sorted(set(obj) - set(COLUMNS))
        if unknown:
            out.append(
                (
                    where,
                    {
                        "file": obj.get("file"),
                        "__bad__": f"unknown key(s) {', '.join(unknown)} (known: {', '.join(COLUMNS)})",
                    },
                )
            )
            continue
        rec = {k: (NULL if v is None else v) for k, v in obj.items() if not (isinstance(v, str) and not v.strip())}
        out.append((where, rec))
    return out


def _check_columns(path: Path, header: list[str]) -> None:
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise UserError(f"{path}:1: unknown column(s) {', '.join(unknown)} (known: {', '.join(COLUMNS)})")
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise UserError(f"{path}:1: column(s) {', '.join(dup)} given twice")
    if "file" not in header:
        raise UserError(f"{path}:1: no file column (it names each row's receipt file)")


def find_labels(src: Path, labels: Path | None) -> tuple[Path, Path]:
    """(receipt folder, labels file): ``--labels``, else SRC/labels.csv or SRC/labels.jsonl."""
    if src.is_file() and src.suffix.lower() in (".csv", ".jsonl"):
        return src.parent, src
    if not src.is_dir():
        raise UserError(f"{src}: no such folder")
    if labels is not None:
        if not labels.is_file():
            raise UserError(f"{labels}: no such labels file")
        return src, labels
    found = [src / n for n in LABEL_FILES if (src / n).is_file()]
    if not found:
        raise UserError(f"{src}: no labels.csv or labels.jsonl (or pass --labels FILE)")
    if len(found) > 1:
        raise UserError(f"{src}: both labels.csv and labels.jsonl; pass --labels FILE to choose")
    return src, found[0]


def _receipt_files(root: Path, skip: set[Path]) -> list[str]:
    """Every non-hidden file under ``root`` whose first bytes make it a receipt (image or PDF)."""
    out: list[str] = []
    root_real = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root_real):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and (Path(dirpath) / d) not in skip)
        for fn in sorted(filenames):
            p = Path(dirpath) / fn
            if fn.startswith(".") or p in skip:
                continue
            try:
                if sniff_file(p) is not None:
                    out.append(p.relative_to(root_real).as_posix())
            except OSError:
                continue
    return out


def read(src: Path, opts: ImportOptions, out: Path | None = None) -> SourceRead:
    if opts.currency is not None or opts.no_currency:
        raise UserError("--currency/--no-currency apply to sroie and cord; put a currency column in the labels file")
    root, labels = find_labels(src, opts.labels)
    records = _jsonl_records(labels) if labels.suffix.lower() == ".jsonl" else _csv_records(labels)
    drafts: list[Draft] = []
    bad: list[BadRow] = []
    for where, rec in records:
        if "__bad__" in rec:
            f = rec.get("file")
            bad.append(BadRow(where, f if isinstance(f, str) else None, rec["__bad__"]))
            continue
        result = parse_record(rec, root, where)
        (bad if isinstance(result, BadRow) else drafts).append(result)  # type: ignore[arg-type]
    labelled = {d.name for d in drafts} | {b.name for b in bad if b.name}
    skip = {labels.resolve()}
    if out is not None:
        skip.add(out.resolve())
    for rel in _receipt_files(root, skip):
        if rel not in labelled:
            bad.append(
                BadRow(labels.name, rel, f"has no row in {labels.name} (every receipt file in the folder needs one)")
            )
    return SourceRead(drafts, bad, options={"labels": labels.name})
