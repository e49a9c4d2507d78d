"""cases.json: what the report's per-case viewer shows, written by the scorer beside rows.json.

Per case: id, label (verdict, fake class, edited fields, the covered fields),
the strata it belongs to, a small thumbnail of the *prepared* image every target
saw (from the prepared-image cache when it is there, else the case file), and
for every target every repetition: status, risk, the extracted fields and the
reasons (kind, text, the @fields they point at, proof type). The report stage
must not read runs or suites (DESIGN.md), so the scorer writes this; the page
embeds it as JSON and draws it with a small script (``rabench/report/viewer.py``).

Compact on purpose (a 2,000-case x 4-target run must open in under 2 s): runs
are arrays, and every text (reasons, fields, errors) is stored once in a string
table and referenced by index. Written case by case (``write``) so that the scorer's
memory does not grow by a view per outcome (issue 19: the whole ``rabench score`` held
about 650 B per outcome here).
"""

from __future__ import annotations

import hashlib
from array import array
from pathlib import Path
from typing import IO, Any

import msgspec
import numpy as np

from rabench.contracts import Case, Verdict
from rabench.contracts.views import CASES_FORMAT, CaseLabelView, CasesFile, CaseView, ReasonView, RunView
from rabench.score.details import case_path, thumbnail
from rabench.score.load import ScoreInput, TargetRuns
from rabench.score.strata import tag_masks

FORMAT = CASES_FORMAT
THUMB_PX = 150  # width box; height up to 2x (receipts are tall)
MAX_REASONS = 6
MAX_TEXT = 280
NO_THUMBNAILS_ENV = "RABENCH_NO_THUMBNAILS"


def thumb(path: Path | None, media_type: str) -> str | None:
    """A small JPEG data URI of the image (first page of a PDF); None if unreadable (never raises)."""
    return None if path is None else thumbnail(path, media_type, px=THUMB_PX, pdf_scale=0.4, quality=60)


def image_of(inp: ScoreInput, case: Case) -> tuple[Path | None, str, str]:
    """(path, media type, which) of the image to show: the prepared one when cached."""
    try:
        from rabench.prepare.cache import PrepCache

        found = PrepCache().find_on_disk(case.sha256)
    except Exception:  # noqa: BLE001 - no cache is fine: show the case file
        found = None
    if found is not None:
        return found.path, found.media_type, "prepared"
    path = case_path(inp.suite_dir, case)  # through the suite-path resolver, never a raw join
    if path is None:
        return None, case.media_type, "none"
    return path, case.media_type, "original"


def _label(case: Case) -> CaseLabelView:
    lab = case.label
    a = lab.authenticity
    covered = ", ".join(f"{k}={v}" for k, v in lab.covered().items() if k != "line_items")
    return (a.verdict, a.fake_class, list(a.edited_fields), lab.provenance, covered)


class _Strings:
    """Every text (reasons, fields, errors) once, numbered in the order first met.

    The texts go straight to ``spool`` (JSON, comma-separated: the file's ``strings``
    array); only a 16-byte blake2b digest of each is kept to find it again (a text repeats
    for a run's repetitions and targets, but most fields texts are new: holding them took
    about 100 B per outcome). Two different texts share a digest with odds of about
    n^2 / 2^129: never, for any run."""

    def __init__(self, spool: IO[bytes]) -> None:
        self.n = 0
        self._index: dict[bytes, int] = {}
        self._spool = spool
        self._encode = msgspec.json.Encoder().encode

    def __call__(self, text: str | None) -> int:
        if not text:
            return -1
        text = text[:MAX_TEXT]
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        k = self._index.get(key)
        if k is None:
            k = self._index[key] = self.n
            self._spool.write(b"," + self._encode(text) if self.n else self._encode(text))
            self.n += 1
        return k


class _Table:
    """Small values (statuses, reason kinds, proof types, @field lists) numbered once."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        k = self._index.get(value)
        if k is None:
            k = self._index[value] = len(self.values)
            self.values.append(value)
        return k


class _TargetRuns:
    """One target's runs as the viewer shows them, in flat arrays (a few dozen bytes a run,
    where a tuple per run with its lists took about 650 B: issue 19), in outcome order.

    Per run: repetition, status, risk (NaN: none), fields and error (string numbers,
    -1: none), and where its reasons start in ``reasons`` (4 numbers a reason: kind,
    text, @fields, proof type)."""

    def __init__(self, t: TargetRuns, s: _Strings, tables: _Table) -> None:
        n = len(t.outcomes)
        self.rep = np.zeros(n, dtype=np.int32)
        self.status = np.zeros(n, dtype=np.int32)
        self.risk = np.full(n, np.nan)
        self.fields = np.full(n, -1, dtype=np.int32)
        self.error = np.full(n, -1, dtype=np.int32)
        self.first_reason = np.zeros(n + 1, dtype=np.int64)
        reasons = array("i")
        missing = t.missing if t.missing is not None else np.zeros(n, dtype=bool)
        for k, oc in enumerate(t.outcomes):
            self.rep[k] = oc.repetition
            v = oc.verdict if isinstance(oc.verdict, Verdict) else None
            if v is None:
                self.status[k] = tables("missing" if missing[k] else oc.status)
                self.error[k] = s(oc.error)
            else:
                self.status[k] = tables(oc.status)
                fields = ", ".join(
                    f"{name}={val}" for name, val in msgspec.structs.asdict(v.fields).items() if val is not None
                )
                for r in v.reasons[:MAX_REASONS]:  # texts numbered before the fields, as always
                    reasons.extend(
                        (tables(("kind", r.kind)), s(r.text), tables(tuple(r.fields)), tables(("proof", r.proof_type)))
                    )
                if v.risk is not None:
                    self.risk[k] = float(v.risk)  # unrounded: 0.49996 must stay below 0.5
                self.fields[k] = s(fields)
            self.first_reason[k + 1] = len(reasons)
        self.reasons = reasons
        # the runs of one case together, in outcome order
        self.order = np.argsort(t.case, kind="stable").astype(np.int32)

    def views(self, positions: np.ndarray, tables: _Table) -> list[RunView]:
        values = tables.values
        out: list[RunView] = []
        for k in positions.tolist():
            a, b = int(self.first_reason[k]), int(self.first_reason[k + 1])
            reasons: list[ReasonView] = []
            for j in range(a, b, 4):
                kind, text, fields, proof = self.reasons[j : j + 4]
                reasons.append((values[kind][1], text, list(values[fields]), values[proof][1]))
            risk = float(self.risk[k])
            out.append(
                (
                    int(self.rep[k]),
                    values[int(self.status[k])],
                    None if risk != risk else risk,
                    int(self.fields[k]),
                    reasons,
                    int(self.error[k]),
                )
            )
        return out


def _strata(inp: ScoreInput) -> tuple[list[str], list[list[int]]]:
    """Strata a reader filters by (the case tags, as the rows' strata, and the label's groups)
    and each case's strata."""
    names: dict[str, set[int]] = {}
    for name, mask in tag_masks(inp.cases).items():
        names[name] = {int(i) for i in mask.nonzero()[0]}
    for i, case in enumerate(inp.cases.cases):
        a = case.label.authenticity
        names.setdefault(f"label={a.verdict}", set()).add(i)
        if a.fake_class:
            names.setdefault(f"class={a.fake_class}", set()).add(i)
        names.setdefault(f"provenance={case.label.provenance}", set()).add(i)
        if case.lineage is not None:
            names.setdefault(f"duplicate={case.lineage.transform}", set()).add(i)
    strata = sorted(names)
    member: list[list[int]] = [[] for _ in inp.cases.cases]
    for k, name in enumerate(strata):
        for i in sorted(names[name]):
            member[i].append(k)
    return strata, member


def write(inp: ScoreInput, out_dir: Path, *, thumbnails: bool = True) -> Path:
    """Write ``out_dir/cases.json`` (a CasesFile) case by case.

    Memory: each target's runs in flat arrays (``_TargetRuns``) and a digest per text;
    the texts and each case's view (its runs, its thumbnail) are encoded and written to
    two spool files as they come, which are then copied into the file in its order. The bytes are those of
    ``msgspec.json.encode(CasesFile(...))`` with the same content (tested against the
    plain build that held every case)."""
    import os

    thumbnails = thumbnails and not os.environ.get(NO_THUMBNAILS_ENV)
    path = Path(out_dir) / "cases.json"
    strings_path = path.with_name(".cases.json.strings")
    spool_path = path.with_name(".cases.json.cases")
    part_path = path.with_name(".cases.json.part")
    tables = _Table()
    strata, member = _strata(inp)
    targets = [t.id for t in inp.targets]
    enc = msgspec.json.Encoder()
    buf = bytearray()
    try:
        with open(strings_path, "wb") as strings_spool:
            s = _Strings(strings_spool)
            runs = [_TargetRuns(t, s, tables) for t in inp.targets]
        sorted_case = [np.asarray(t.case)[r.order] for t, r in zip(inp.targets, runs)]
        with open(spool_path, "wb") as spool:
            for i, case in enumerate(inp.cases.cases):
                per_target: list[list[RunView]] = []
                for r, sc in zip(runs, sorted_case):
                    lo, hi = np.searchsorted(sc, i, side="left"), np.searchsorted(sc, i, side="right")
                    per_target.append(r.views(r.order[lo:hi], tables))
                img_path, media, which = image_of(inp, case) if thumbnails else (None, case.media_type, "none")
                view = CaseView(
                    id=case.id,
                    base=bool(inp.cases.is_base[i]),
                    fake=bool(inp.cases.is_fake[i]),
                    label=_label(case),
                    strata=member[i],
                    lineage=f"{case.lineage.transform} of {case.lineage.of}" if case.lineage else None,
                    img=thumb(img_path, media) if thumbnails else None,
                    img_kind=which,
                    runs=per_target,
                )
                buf.clear()
                if i:
                    buf.extend(b",")
                enc.encode_into(view, buf, -1)
                spool.write(buf)
        head = enc.encode(
            CasesFile(
                format=FORMAT, suite=inp.suite_name, targets=targets, strata=strata, flag_at=0.5, strings=[], cases=[]
            )
        )
        # ..."strings":[],"cases":[],"contracts_version":N}: each array filled from its spool
        at_strings = head.rindex(b'"strings":[],"cases":[]') + len(b'"strings":[')
        at_cases = at_strings + len(b'],"cases":[')
        with open(part_path, "wb") as out:
            out.write(head[:at_strings])
            _copy(strings_path, out)
            out.write(head[at_strings:at_cases])
            _copy(spool_path, out)
            out.write(head[at_cases:] + b"\n")
        os.replace(part_path, path)
    finally:
        for p in (strings_path, spool_path, part_path):
            p.unlink(missing_ok=True)
    return path


def _copy(path: Path, out: IO[bytes]) -> None:
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            out.write(block)
