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
table and referenced by index.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from rabench.contracts import Case
from rabench.contracts.views import CASES_FORMAT, CaseLabelView, CasesFile, CaseView, ReasonView, RunView
from rabench.score.details import case_path, thumbnail
from rabench.score.load import ScoreInput
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


def build(inp: ScoreInput, *, thumbnails: bool = True) -> CasesFile:
    import os

    thumbnails = thumbnails and not os.environ.get(NO_THUMBNAILS_ENV)
    strings: list[str] = []
    index: dict[str, int] = {}

    def s(text: str | None) -> int:
        if not text:
            return -1
        text = text[:MAX_TEXT]
        k = index.get(text)
        if k is None:
            k = index[text] = len(strings)
            strings.append(text)
        return k

    # Strata a reader filters by: the case tags (as the rows' strata) and the label's groups.
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
    targets = [t.id for t in inp.targets]
    runs: list[list[list[RunView]]] = [[[] for _ in targets] for _ in inp.cases.cases]
    for ti, t in enumerate(inp.targets):
        missing = t.missing if t.missing is not None else [False] * len(t.outcomes)
        for oc, c, miss in zip(t.outcomes, t.case, missing):
            v = oc.verdict
            if v is None:
                runs[int(c)][ti].append((oc.repetition, "missing" if miss else oc.status, None, -1,
                                         [], s(oc.error)))
                continue
            fields = ", ".join(f"{k}={val}" for k, val in msgspec.structs.asdict(v.fields).items()
                               if val is not None)
            reasons: list[ReasonView] = [(r.kind, s(r.text), list(r.fields), r.proof_type)
                                         for r in v.reasons[:MAX_REASONS]]
            risk = None if v.risk is None else float(v.risk)  # unrounded: 0.49996 must stay below 0.5
            runs[int(c)][ti].append((oc.repetition, oc.status, risk, s(fields), reasons, -1))
    cases_out = []
    for i, case in enumerate(inp.cases.cases):
        path, media, which = image_of(inp, case) if thumbnails else (None, case.media_type, "none")
        cases_out.append(CaseView(
            id=case.id, base=bool(inp.cases.is_base[i]), fake=bool(inp.cases.is_fake[i]),
            label=_label(case), strata=member[i],
            lineage=f"{case.lineage.transform} of {case.lineage.of}" if case.lineage else None,
            img=thumb(path, media) if thumbnails else None, img_kind=which, runs=runs[i],
        ))
    return CasesFile(format=FORMAT, suite=inp.suite_name, targets=targets, strata=strata,
                     flag_at=0.5, strings=strings, cases=cases_out)


def encode(doc: CasesFile) -> bytes:
    return msgspec.json.encode(doc) + b"\n"


def write(inp: ScoreInput, out_dir: Path) -> Path:
    path = Path(out_dir) / "cases.json"
    path.write_bytes(encode(build(inp)))
    return path
