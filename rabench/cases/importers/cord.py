"""``--format cord``: CORD v2 (Indonesian receipts) parse annotations.

Each receipt's annotation has a ``gt_parse`` object: ``menu`` (one item or a
list; ``nm``, ``cnt``, ``price``, sometimes ``unitprice`` and ``sub``),
``sub_total`` (``subtotal_price``, ``tax_price``, ``service_price``,
``discount_price``, ...) and ``total`` (``total_price``, ``cashprice``,
``changeprice``, ...). Accepted layouts (docs/cases.md):

- a folder with ``json/*.json`` + ``image/*`` matched by file stem (or a folder of
  split folders each laid out so: ``train/json``, ``train/image``, ...);
- a JSONL file (or a folder holding ``metadata.jsonl``) whose lines have
  ``file_name`` (the image, relative to the JSONL's folder) and ``ground_truth``
  (the annotation as a JSON string, as in the published files, or an object).

Amounts are Indonesian-printed (``25,000`` = ``25.000`` = 25000, IDR has no
minor unit). Currency IDR is an assumption from the data set's scope. CORD v2
does not label merchant, date or receipt number: left out. A structure that
cannot be read without guessing (an item without a price, a total given twice)
leaves that field out with a warning; a value that is not an amount is a bad row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec

from rabench.cases.importers.base import BadRow, Draft, ImportOptions, SourceRead, checked_label
from rabench.cases.importers.sroie import currency_option
from rabench.cases.importers.values import ValueProblem, parse_idr_amount, squash
from rabench.cases.manifest import SymlinkLoop, resolve_in_suite
from rabench.contracts import Authenticity, LineItem, ReceiptLabel
from rabench.errors import UserError

DEFAULT_CURRENCY = "IDR"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".tif", ".tiff")
_QTY = re.compile(r"(?:[xX]\s*)?(\d+(?:[.,]\d+)?)\s*(?:[xX]|pcs?|PCS?|qty|QTY)?\.?")


def gt_parse_of(obj: Any) -> dict[str, Any]:
    """The ``gt_parse`` object from an annotation, wherever the layout put it."""
    if isinstance(obj, dict) and "ground_truth" in obj and "gt_parse" not in obj:
        obj = obj["ground_truth"]
        if isinstance(obj, str):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as exc:
                raise ValueProblem(f"ground_truth is not JSON ({exc.msg})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("gt_parse"), dict):
        hint = (
            " (a CORD v1 annotation with valid_line only? use the v2 release)"
            if isinstance(obj, dict) and "valid_line" in obj
            else ""
        )
        raise ValueProblem(f"annotation has no gt_parse object{hint}")
    return obj["gt_parse"]


def _one(group: Any, key: str, where: str, warnings: list[str], field: str) -> str | None:
    """A single printed string for ``key`` in ``group``; None (and a warning if ambiguous) otherwise."""
    if not isinstance(group, dict):
        if group is not None:
            warnings.append(
                f"{where}: {field} left out: the group holding {key} is a {type(group).__name__}, not one object"
            )
        return None
    v = group.get(key)
    if v is None:
        return None
    if isinstance(v, list):
        warnings.append(f"{where}: {field} left out: {key} is annotated {len(v)} times")
        return None
    text = str(v).strip()
    return text or None


def _amount(field: str, text: str, **kw: Any) -> float:
    try:
        return parse_idr_amount(text, **kw)
    except ValueProblem as exc:
        raise ValueProblem(f"{field} {exc}") from None


def parse_quantity(text: str) -> float | None:
    """``2``, ``2 x``, ``x2``, ``2X``, ``1.00``, ``3 pcs`` -> 2.0 ...; None if it is none of these."""
    m = _QTY.fullmatch(text.strip())
    return float(m[1].replace(",", ".")) if m else None


def _text(v: Any) -> str | None:
    if isinstance(v, list):
        parts = [str(x).strip() for x in v if str(x).strip()]
        return " ".join(parts) or None
    if v is None:
        return None
    return squash(str(v)) or None


def line_items(menu: Any, where: str, warnings: list[str]) -> list[LineItem] | None:
    """Menu -> line items; None (not covered, with a warning) when an item cannot be read."""
    items = [menu] if isinstance(menu, dict) else menu
    if not isinstance(items, list):
        warnings.append(f"{where}: line_items left out: menu is a {type(menu).__name__}")
        return None
    out: list[LineItem] = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            warnings.append(f"{where}: line_items left out: menu item {i} is not an object")
            return None
        desc = _text(item.get("nm"))
        price = item.get("price")
        if desc is None or price is None or isinstance(price, list):
            what = "no name" if desc is None else ("no price" if price is None else "several prices")
            warnings.append(f"{where}: line_items left out: menu item {i} ({desc or '?'}) has {what}")
            return None
        total = _amount(f"menu item {i} price", str(price))
        qty = None
        if (cnt := item.get("cnt")) is not None and not isinstance(cnt, list):
            qty = parse_quantity(str(cnt))
            if qty is None:
                warnings.append(f'{where}: menu item {i} ({desc}): quantity "{cnt}" not read, left empty')
        unit = None
        if (up := item.get("unitprice")) is not None and not isinstance(up, list):
            try:
                unit = parse_idr_amount(str(up), allow_at=True)
            except ValueProblem:
                warnings.append(f'{where}: menu item {i} ({desc}): unit price "{up}" not read, left empty')
        out.append(LineItem(description=desc, total=total, quantity=qty, unit_price=unit))
        subs = item.get("sub")
        for sub in [subs] if isinstance(subs, dict) else (subs or []):
            if not isinstance(sub, dict):
                continue
            sub_desc, sub_price = _text(sub.get("nm")), sub.get("price")
            # Sub-items with a price are printed lines of their own; without one they are modifiers.
            if sub_desc is not None and sub_price is not None and not isinstance(sub_price, list):
                out.append(
                    LineItem(description=sub_desc, total=_amount(f"menu item {i} sub-item price", str(sub_price)))
                )
    return out


def label_from_gt(gt: dict[str, Any], where: str, currency: str | None, warnings: list[str]) -> ReceiptLabel:
    fields: dict[str, Any] = {}
    if "menu" in gt:
        items = line_items(gt["menu"], where, warnings)
        if items is not None:
            fields["line_items"] = items
    for group, key, field in (
        ("sub_total", "subtotal_price", "subtotal"),
        ("sub_total", "tax_price", "tax_total"),
        ("total", "total_price", "total"),
    ):
        if group in gt and (text := _one(gt[group], key, where, warnings, field)) is not None:
            fields[field] = _amount(field, text)
    if currency is not None:
        fields["currency"] = currency
    return checked_label(ReceiptLabel(authenticity=Authenticity(verdict="genuine"), **fields))


def _folder_pairs(src: Path) -> list[tuple[Path, list[tuple[Path, Path | None]], list[Path]]]:
    """Per split root: (root, [(json, image or None)], images without a json)."""
    roots = [src] if (src / "json").is_dir() else [d for d in sorted(src.iterdir()) if (d / "json").is_dir()]
    if not roots:
        raise UserError(f"{src}: no json/ folder (or split folders with json/ and image/), and no metadata.jsonl")
    out = []
    for root in roots:
        img_dir = next((root / d for d in ("image", "images", "img") if (root / d).is_dir()), None)
        images = {}
        if img_dir is not None:
            images = {
                p.stem: p for p in sorted(img_dir.iterdir()) if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
            }
        jsons = sorted((root / "json").glob("*.json"))
        stems = {j.stem for j in jsons}
        pairs = [(j, images.get(j.stem)) for j in jsons]
        out.append((root, pairs, [p for s, p in images.items() if s not in stems]))
    return out


def _decode_json_file(path: Path) -> Any:
    raw = path.read_bytes()
    try:
        return json.loads(raw.decode("utf-8-sig"), strict=False)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueProblem(f"annotation is not JSON ({exc})") from None


def read(src: Path, opts: ImportOptions, out: Path | None = None) -> SourceRead:
    if opts.labels is not None:
        raise UserError("--labels applies to --format folder only")
    currency, cur_meta = currency_option(opts, DEFAULT_CURRENCY)
    drafts: list[Draft] = []
    bad: list[BadRow] = []
    warnings: list[str] = []
    jsonl = src if src.is_file() else (src / "metadata.jsonl" if (src / "metadata.jsonl").is_file() else None)
    if jsonl is not None:
        base = jsonl.parent
        for i, raw in enumerate(jsonl.read_bytes().splitlines(), start=1):
            if not raw.strip():
                continue
            where = f"{jsonl.name}:{i}"
            name = None
            try:
                try:
                    rec = msgspec.json.decode(raw)
                except msgspec.DecodeError as exc:
                    raise ValueProblem(f"not valid JSON ({exc})") from None
                if not isinstance(rec, dict) or not isinstance(rec.get("file_name"), str):
                    raise ValueProblem("line has no file_name naming the image")
                name = rec["file_name"]
                try:
                    path = resolve_in_suite(base, name)
                except SymlinkLoop as exc:
                    raise ValueProblem(str(exc)) from None
                if path is None:
                    raise ValueProblem(f"file_name {name} is outside {base}")
                if not path.is_file():
                    raise ValueProblem(f"image {name} not found beside {jsonl.name}")
                label = label_from_gt(gt_parse_of(rec), f"{where}: receipt {name}", currency, warnings)
            except ValueProblem as exc:
                bad.append(BadRow(where, name, str(exc)))
                continue
            drafts.append(Draft(name=path.relative_to(base.resolve()).as_posix(), path=path, where=where, label=label))
        layout = "jsonl"
    elif src.is_dir():
        for root, pairs, orphans in _folder_pairs(src):
            prefix = "" if root == src else root.relative_to(src).as_posix() + "/"
            for img in orphans:
                bad.append(
                    BadRow(
                        img.relative_to(src).as_posix(),
                        f"{prefix}{img.name}",
                        f"has no annotation json/{img.stem}.json",
                    )
                )
            for jpath, img in pairs:
                where = jpath.relative_to(src).as_posix()
                if img is None:
                    bad.append(
                        BadRow(
                            where,
                            None,
                            f"no image {jpath.stem}.* in {root.relative_to(src).as_posix() if root != src else '.'}/image",
                        )
                    )
                    continue
                name = f"{prefix}{img.name}"  # ids from the image name (and split), not the image/ folder
                try:
                    label = label_from_gt(
                        gt_parse_of(_decode_json_file(jpath)), f"{where}: receipt {name}", currency, warnings
                    )
                except ValueProblem as exc:
                    bad.append(BadRow(where, name, str(exc)))
                    continue
                drafts.append(Draft(name=name, path=img, where=where, label=label))
        layout = "json+image"
    else:
        raise UserError(f"{src}: no such file or folder")
    return SourceRead(drafts, bad, warnings, options={**cur_meta, "layout": layout})
