"""``--format sroie``: ICDAR 2019 SROIE task 3 (key information extraction).

SROIE ships scanned Malaysian receipts (``*.jpg``) and, per image, a key file
``<name>.txt`` holding a JSON object with ``company``, ``date``, ``address`` and
``total`` as printed. Copies of the data set in circulation differ in layout and
bytes, so this module accepts the known variants (documented in docs/cases.md):

- keys beside the images (the official ``task2train`` folder), or in an
  ``entities/`` or ``key/`` folder next to ``img/`` (Kaggle and GitHub copies);
- trailing whitespace, a UTF-8 byte-order mark, non-UTF-8 bytes (read as Latin-1).

Mapping: company -> merchant (whitespace collapsed), date -> ISO (day-first),
total -> float (``RM`` dropped), currency MYR by assumption (the data set is all
Malaysian; not labelled per file), address dropped (no Label field). Subtotal,
tax, receipt number, line items and ``adds_up`` are not labelled: left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rabench.cases.importers.base import BadRow, Draft, ImportOptions, SourceRead, checked_label
from rabench.cases.importers.values import (
    ValueProblem,
    parse_currency,
    parse_day_first_date,
    parse_plain_amount,
    squash,
)
from rabench.contracts import Authenticity, ReceiptLabel
from rabench.errors import UserError

DEFAULT_CURRENCY = "MYR"
IMAGE_DIRS = ("img", "images", "image")
KEY_DIRS = ("entities", "key", "keys")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
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


def read_key(raw: bytes) -> dict[str, Any]:
    """A key file's JSON object; ValueProblem with a clear reason otherwise."""
    if _BOX_LINE.match(raw):
        raise ValueProblem(
            "is a task-1 box file (x1,y1,...,text), not a task-3 key file; "
            "point SRC at the folder whose entities/ or key/ holds the JSON keys"
        )
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


def read(src: Path, opts: ImportOptions, out: Path | None = None) -> SourceRead:
    if opts.labels is not None:
        raise UserError("--labels applies to --format folder only")
    currency, cur_meta = currency_option(opts, DEFAULT_CURRENCY)
    image_dir, key_dir = find_layout(src)
    images = {p.stem: p for p in sorted(image_dir.iterdir()) if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES}
    keys = {p.stem: p for p in sorted(key_dir.iterdir()) if p.is_file() and p.suffix.lower() in (".txt", ".json")}
    if not images:
        raise UserError(f"{image_dir}: no SROIE images (*.jpg) here or in img/")

    def rel(p: Path) -> str:
        return p.relative_to(src).as_posix() if p.is_relative_to(src) else p.name

    drafts: list[Draft] = []
    bad: list[BadRow] = []
    for stem, key in keys.items():
        if stem not in images:
            bad.append(BadRow(rel(key), None, f"key file has no image {stem}.jpg in {rel(image_dir) or '.'}"))
    for stem, img in images.items():
        name = img.name
        key = keys.get(stem)
        if key is None:
            bad.append(BadRow(rel(img), name, f"no key file {stem}.txt in {rel(key_dir) or '.'}"))
            continue
        where = rel(key)
        try:
            obj = read_key(key.read_bytes())
            fields: dict[str, Any] = {}
            if (company := _value(obj, "company")) is not None:
                fields["merchant"] = squash(company)
            if (printed := _value(obj, "date")) is not None:
                try:
                    fields["date"] = parse_day_first_date(printed)
                except ValueProblem as exc:
                    raise ValueProblem(f"date {exc}") from None
            if (total := _value(obj, "total")) is not None:
                try:
                    fields["total"] = parse_plain_amount(total, prefixes=("RM", "MYR"))
                except ValueProblem as exc:
                    raise ValueProblem(f"total {exc}") from None
            if currency is not None:
                fields["currency"] = currency
        except ValueProblem as exc:
            problem = str(exc)
            bad.append(BadRow(where, name, problem if not problem.startswith("is ") else f"key file {problem}"))
            continue
        label = checked_label(ReceiptLabel(authenticity=Authenticity(verdict="genuine"), **fields))
        drafts.append(Draft(name=name, path=img, where=where, label=label))
    return SourceRead(drafts, bad, options={**cur_meta, "images": rel(image_dir) or ".", "keys": rel(key_dir) or "."})
