"""``--format sroie``: ICDAR 2019 SROIE task 3 (key information extraction).

SROIE ships scanned Malaysian receipts (``*.jpg``) and, per image, a key file
holding a JSON object with ``company``, ``date``, ``address`` and ``total`` as
printed. Copies of the data set in circulation differ in layout and bytes, so
this module accepts the known variants (documented in docs/cases.md):

- keys beside the images (the official ``task2train`` folder, ``<name>.txt``),
  or in an ``entities/`` or ``key/`` folder next to ``img/`` (Kaggle copies with
  ``.txt`` keys, GitHub copies with ``.json`` keys and ``box/*.csv`` boxes);
- trailing whitespace, a UTF-8 byte-order mark, non-UTF-8 bytes (read as Latin-1);
- task-1 box files (``x1,y1,...,x4,y4,text`` lines) told apart from keys by
  their content, whatever their extension.

Mapping: company -> merchant (whitespace collapsed); date -> ISO, read in both
day-first and month-first order because the set mixes them (``12/28/2017``
beside ``25/12/2018``), so a date both orders make real is left out and counted;
total -> float (``RM``, ``MYR`` or ``$`` dropped: some Malaysian tills print
``$`` for ringgit); currency MYR by assumption (the data set is all Malaysian;
not labelled per file); address dropped (no Label field). Subtotal, tax, receipt
number, line items and ``adds_up`` are not labelled: left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rabench.cases.importers.base import BadRow, Draft, ImportOptions, SourceRead, checked_label
from rabench.cases.importers.dates import AmbiguousDate, parse_printed_date
from rabench.cases.importers.media import EXTENSIONS
from rabench.cases.importers.values import ValueProblem, parse_currency, parse_plain_amount, squash
from rabench.contracts import Authenticity, ReceiptLabel
from rabench.errors import UserError

DEFAULT_CURRENCY = "MYR"
IMAGE_DIRS = ("img", "images", "image")
KEY_DIRS = ("entities", "key", "keys")
KEY_SUFFIXES = (".json", ".txt")  # both read when both exist (see _read_keys)
BOX_SUFFIXES = (".csv",)  # task-1 box lines in the GitHub copies: known, not keys
# The data set prints both orders (12/28/2017 beside 25/12/2018): neither settles 06/03/2018.
DATE_ORDERS = ("dmy", "mdy")
AMBIGUOUS = "day/month order ambiguous"
TOTAL_PREFIXES = ("RM", "MYR", "$")
_BOX_LINE = re.compile(rb"^\s*\d+,\d+,\d+,\d+,\d+,\d+,\d+,\d+,")


def find_layout(src: Path) -> tuple[Path, Path]:
    """(image folder, key folder) for SRC, which may be the data set folder or its ``img/``."""
    if not src.is_dir():
        raise UserError(f"{src}: no such folder")
    image_dir = next((src / d for d in IMAGE_DIRS if (src / d).is_dir()), src)
    for base in (image_dir.parent, src):
        for d in KEY_DIRS:
            if (base / d).is_dir():
                return image_dir, base / d
    return image_dir, image_dir


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # never fails; SROIE's stray bytes are Latin-1 symbols


def is_box_file(raw: bytes) -> bool:
    """Task-1 box lines (``x1,y1,...,x4,y4,text``), not a task-3 key file."""
    return bool(_BOX_LINE.match(raw.removeprefix(b"\xef\xbb\xbf")))


BOX_PROBLEM = (
    "is a task-1 box file (x1,y1,...,text), not a task-3 key file; "
    "point SRC at the folder whose entities/ or key/ holds the JSON keys"
)


def read_key(raw: bytes) -> dict[str, Any]:
    """A key file's JSON object; ValueProblem with a clear reason otherwise."""
    if is_box_file(raw):
        raise ValueProblem(BOX_PROBLEM)
    text = _decode(raw).strip()
    try:
        obj = json.loads(text, strict=False)  # strict=False: raw tabs/newlines inside strings
    except json.JSONDecodeError as exc:
        raise ValueProblem(f"is not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(obj, dict):
        raise ValueProblem("is not a JSON object with company/date/address/total")
    return obj


def _value(obj: dict[str, Any], key: str) -> str | None:
    """The key's text, or None when absent or blank (-> not covered)."""
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        v = str(v)
    v = v.strip()
    return v or None


def currency_option(opts: ImportOptions, default: str) -> tuple[str | None, dict[str, Any]]:
    """The currency to label (None = leave it out) and how it was chosen, for the header."""
    if opts.no_currency and opts.currency is not None:
        raise UserError("--currency and --no-currency together: choose one")
    if opts.no_currency:
        return None, {"currency": None, "currency_source": "--no-currency"}
    if opts.currency is not None:
        try:
            code = parse_currency(opts.currency)
        except ValueProblem as exc:
            raise UserError(f"--currency {exc}") from None
        return code, {"currency": code, "currency_source": "--currency"}
    return default, {"currency": default, "currency_source": "assumed from the data set's scope"}


class KeyProblem(Exception):
    def __init__(self, where: str, problem: str):
        super().__init__(problem)
        self.where = where


def _bytes(path: Path, rel: Callable[[Path], str]) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise KeyProblem(rel(path), f"cannot read the key file ({exc.strerror or exc})") from None


def _read_keys(files: list[Path], rel: Callable[[Path], str]) -> tuple[str, dict[str, Any]]:
    """(where, key object) for one receipt's key files (``X.json`` and/or ``X.txt``).

    Box files among them are not keys and are set aside. Two key files are both
    read: the same values in both -> that object; different values -> KeyProblem
    naming the first difference (never a guess at which file is right).
    """
    raws = [(f, _bytes(f, rel)) for f in files]
    keys = [(f, raw) for f, raw in raws if not is_box_file(raw)]
    if not keys:
        raise KeyProblem(rel(files[0]), f"key file {BOX_PROBLEM}")
    objs: list[tuple[Path, dict[str, Any]]] = []
    for f, raw in keys:
        try:
            objs.append((f, read_key(raw)))
        except ValueProblem as exc:
            raise KeyProblem(rel(f), f"key file {exc}") from None
    (first, obj), rest = objs[0], objs[1:]
    for other, obj2 in rest:
        for k in sorted(set(obj) | set(obj2)):
            a, b = _value(obj, k), _value(obj2, k)
            if (squash(a) if a else a) != (squash(b) if b else b):
                raise KeyProblem(
                    f"{rel(first)}, {rel(other)}",
                    f"the two key files disagree on {k} ({json.dumps(a)} vs {json.dumps(b)}); remove the wrong one",
                )
    return rel(first), obj


def _listing(folder: Path, suffixes: tuple[str, ...]) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.suffix.lower() in suffixes:
            out.setdefault(p.stem, []).append(p)
    return out


def _is_box_path(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return is_box_file(fh.read(256))
    except OSError:
        return False  # reported as that receipt's bad row


def _layout_problem(image_dir: Path, key_dir: Path, keys: dict[str, list[Path]]) -> str | None:
    """One line when the key folder holds no key at all (instead of one bad row per image)."""
    if not keys:
        if key_dir == image_dir:
            box = next((image_dir.parent / d for d in ("box", "boxes") if (image_dir.parent / d).is_dir()), None)
            hint = f" ({box.name}/ holds task-1 box lines, not keys)" if box is not None else ""
            return (
                f"{image_dir}: no key files (*.json or *.txt) beside the images, and no "
                f"{' or '.join(d + '/' for d in KEY_DIRS)} folder next to them{hint}"
            )
        csvs = sum(1 for p in key_dir.iterdir() if p.suffix.lower() in BOX_SUFFIXES)
        hint = f"; its {csvs} .csv file(s) are task-1 box lines, not keys" if csvs else ""
        return f"{key_dir}: no key files (*.json or *.txt){hint}"
    if all(_is_box_path(f) for files in keys.values() for f in files):
        return (
            f"{key_dir}: every *.txt/*.json file here is a task-1 box file (x1,y1,...,text), not a "
            "task-3 key file; point SRC at the folder whose entities/ or key/ holds the JSON keys"
        )
    return None


def read(src: Path, opts: ImportOptions, out: Path | None = None) -> SourceRead:
    if opts.labels is not None:
        raise UserError("--labels applies to --format folder only")
    currency, cur_meta = currency_option(opts, DEFAULT_CURRENCY)
    image_dir, key_dir = find_layout(src)
    images = _listing(image_dir, tuple(EXTENSIONS))
    keys = _listing(key_dir, KEY_SUFFIXES)
    if not images:
        raise UserError(f"{image_dir}: no SROIE images (*.jpg) here or in img/")
    if (problem := _layout_problem(image_dir, key_dir, keys)) is not None:
        raise UserError(problem)

    def rel(p: Path) -> str:
        return p.relative_to(src).as_posix() if p.is_relative_to(src) else p.name

    read_out = SourceRead(
        [],
        [],
        options={
            **cur_meta,
            "images": rel(image_dir) or ".",
            "keys": rel(key_dir) or ".",
            "date_orders": list(DATE_ORDERS),
        },
    )
    drafts, bad = read_out.drafts, read_out.bad
    known = {p for ps in images.values() for p in ps} | {p for ps in keys.values() for p in ps}
    for folder in dict.fromkeys((image_dir, key_dir)):
        ignored = [
            p.name
            for p in sorted(folder.iterdir())
            if p.is_file() and p not in known and not p.name.startswith(".") and p.suffix.lower() not in BOX_SUFFIXES
        ]
        if ignored:
            more = f" and {len(ignored) - 3} more" if len(ignored) > 3 else ""
            read_out.warnings.append(
                f"{rel(folder) or '.'}: ignored {len(ignored)} file(s) that are neither receipt images "
                f"nor key files: {', '.join(ignored[:3])}{more}"
            )
    for stem, files in keys.items():
        if stem not in images:
            bad.append(BadRow(rel(files[0]), None, f"key file has no image {stem}.jpg in {rel(image_dir) or '.'}"))
    for stem, imgs in images.items():
        img, name = imgs[0], imgs[0].name
        if len(imgs) > 1:
            bad.append(
                BadRow(
                    rel(img),
                    name,
                    f"{len(imgs)} images share the key {stem}: {', '.join(p.name for p in imgs)}; keep one",
                )
            )
            continue
        if stem not in keys:
            bad.append(BadRow(rel(img), name, f"no key file {stem}.json or {stem}.txt in {rel(key_dir) or '.'}"))
            continue
        try:
            where, obj = _read_keys(keys[stem], rel)
        except KeyProblem as exc:
            bad.append(BadRow(exc.where, name, str(exc)))
            continue
        try:
            fields = _fields(obj, currency, lambda: read_out.leave_out("date", AMBIGUOUS, name))
        except ValueProblem as exc:
            bad.append(BadRow(where, name, str(exc)))
            continue
        label = checked_label(ReceiptLabel(authenticity=Authenticity(verdict="genuine"), **fields))
        drafts.append(Draft(name=name, path=img, where=where, label=label))
    return read_out


def _fields(obj: dict[str, Any], currency: str | None, ambiguous: Any) -> dict[str, Any]:
    """Label fields from a key object; ``ambiguous()`` is called for a date left out as ambiguous."""
    fields: dict[str, Any] = {}
    if (company := _value(obj, "company")) is not None:
        fields["merchant"] = squash(company)
    if (printed := _value(obj, "date")) is not None:
        try:
            fields["date"] = parse_printed_date(printed, orders=DATE_ORDERS)
        except AmbiguousDate:
            ambiguous()  # not covered: guessing the order would put a wrong date in the answer key
        except ValueProblem as exc:
            raise ValueProblem(f"date {exc}") from None
    if (total := _value(obj, "total")) is not None:
        try:
            fields["total"] = parse_plain_amount(total, prefixes=TOTAL_PREFIXES)
        except ValueProblem as exc:
            raise ValueProblem(f"total {exc}") from None
    if currency is not None:
        fields["currency"] = currency
    return fields
