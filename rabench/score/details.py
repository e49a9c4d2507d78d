"""details.json: the per-call material behind the report's pictures.

rows.json holds numbers; a reader also wants to *see* them: ROC curves,
a reliability diagram, latency distributions and the worst misses with the
receipt, its label and what the target said. The report stage must not read
runs itself (DESIGN.md: each stage reads only what the stage before wrote), so
the scorer writes this beside rows.json. Deterministic like rows.json.
"""

from __future__ import annotations

import base64
import io
import warnings
from pathlib import Path

import msgspec
import numpy as np

from rabench.cases.manifest import SymlinkLoop, resolve_in_suite
from rabench.contracts import Case, Outcome, Verdict
from rabench.contracts.details import DetailsFile, MissReason, ReliabilityBin, RocCurve, WorstMiss
from rabench.score.load import ScoreInput, TargetRuns
from rabench.score.reduce import RunFacts
from rabench.score.tasks.decisions import N_BINS, risk_bins

MAX_LATENCY_SAMPLES = 2000
WORST_PER_KIND = 4  # missed fakes and false flags, per target
THUMB_PX = 220


def roc_points(scores: np.ndarray, fake: np.ndarray, weight: np.ndarray) -> tuple[list[float], list[float]]:
    """Weighted ROC step points (false-flag rate, detection), thresholds from high to low."""
    order = np.argsort(-scores, kind="stable")
    s, y, w = scores[order], fake[order], weight[order]
    pos, neg = w[y].sum(), w[~y].sum()
    if pos == 0 or neg == 0:
        return [], []
    last = np.r_[np.nonzero(np.diff(s))[0], len(s) - 1]  # end of each tied group
    tp = np.cumsum(np.where(y, w, 0.0))[last] / pos
    fp = np.cumsum(np.where(~y, w, 0.0))[last] / neg
    return [0.0, *np.round(fp, 6).tolist()], [0.0, *np.round(tp, 6).tolist()]


def reliability_bins(risk: np.ndarray, fake: np.ndarray, bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width bins over runs with a risk: mean risk, share fake, runs in the bin."""
    # The calibration_error row's bins (by comparison with the edges k/10).
    idx = risk_bins(risk) if bins == N_BINS else np.minimum((risk * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        m = idx == b
        n = int(m.sum())
        out.append(
            ReliabilityBin(
                lo=b / bins,
                hi=(b + 1) / bins,
                n=n,
                mean_risk=round(float(risk[m].mean()), 6) if n else 0.0,
                share_fake=round(float(fake[m].mean()), 6) if n else 0.0,
            )
        )
    return out


def thumbnail(
    path: Path, media_type: str, *, px: int = THUMB_PX, pdf_scale: float = 0.6, quality: int = 70
) -> str | None:
    """A small JPEG data URI of the case file (``px`` wide, up to twice as tall); None if it
    can't be read (never raises, and Pillow's warnings about huge or odd images stay quiet)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from PIL import Image

            if media_type == "application/pdf":
                import pypdfium2 as pdfium

                pdf = pdfium.PdfDocument(str(path))
                try:
                    img = pdf[0].render(scale=pdf_scale).to_pil()
                finally:
                    pdf.close()
            else:
                img = Image.open(path)
                img.draft("RGB", (px * 2, px * 4))
            img = img.convert("RGB")
            img.thumbnail((px, px * 2))
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=quality)
        return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()
    except Exception:  # noqa: BLE001 - a hostile or missing file must not stop the report
        return None


def case_path(suite_dir: Path | None, case: Case) -> Path | None:
    """The case file through the suite-path resolver (never a path joined from a raw id or
    file name): None outside the suite, through a symlink out of it or a loop, or with no suite."""
    if suite_dir is None:
        return None
    try:
        return resolve_in_suite(suite_dir, case.file)
    except SymlinkLoop:
        return None


def _label_text(case: Case) -> str:
    lab = case.label
    a = lab.authenticity
    head = a.verdict if a.fake_class is None else f"{a.verdict} ({a.fake_class})"
    if a.edited_fields:
        head += f", edited: {', '.join(a.edited_fields)}"
    covered = ", ".join(f"{k}={v}" for k, v in lab.covered().items())
    return f"{head}; provenance {lab.provenance}\n{covered}"


def _verdict_text(oc: Outcome) -> str:
    if not isinstance(oc.verdict, Verdict):
        return f"{oc.status}: {oc.error or ''}"[:400]
    v = oc.verdict
    fields = ", ".join(f"{k}={val}" for k, val in msgspec.structs.asdict(v.fields).items() if val is not None)
    return f"risk {v.risk if v.risk is not None else 'none'}\n{fields}"


def _worst(t: TargetRuns, facts: RunFacts, inp: ScoreInput) -> list[WorstMiss]:
    cases = inp.cases
    base = cases.is_base[facts.case]
    fake = cases.is_fake[facts.case]
    # A run without a risk is never flagged (spec), so never a false flag; the worst
    # misses show runs that gave a risk (a failed call is shown by operations rows).
    risk = np.where(np.isnan(facts.risk), -1.0, facts.risk)
    picks: list[tuple[int, str]] = []

    def first_per_case(runs: np.ndarray) -> list[int]:
        """The worst run of each case, worst cases first (a case shows once, not per repetition)."""
        seen: set[int] = set()
        out: list[int] = []
        for i in runs:
            c = int(facts.case[i])
            if c not in seen:
                seen.add(c)
                out.append(int(i))
            if len(out) == WORST_PER_KIND:
                break
        return out

    fakes = np.nonzero(base & fake)[0]
    missed = first_per_case(fakes[np.argsort(risk[fakes], kind="stable")])
    picks += [(i, f"missed fake, risk {risk[i]:.2f}") for i in missed if 0.0 <= risk[i] < 0.5]
    genuine = np.nonzero(base & ~fake)[0]
    flagged = first_per_case(genuine[np.argsort(-risk[genuine], kind="stable")])
    picks += [(i, f"false flag, risk {risk[i]:.2f}") for i in flagged if risk[i] >= 0.5]
    out = []
    for i, why in picks:
        oc = t.outcomes[i]
        case = cases.cases[facts.case[i]]
        path = case_path(inp.suite_dir, case)
        out.append(
            WorstMiss(
                target=t.id,
                case_id=case.id,
                repetition=oc.repetition,
                why=why,
                thumbnail=thumbnail(path, case.media_type) if path else None,
                label=_label_text(case),
                verdict=_verdict_text(oc),
                reasons=[
                    MissReason(kind=r.kind, text=r.text[:300])
                    for r in (oc.verdict.reasons if isinstance(oc.verdict, Verdict) else [])[:5]
                ],
            )
        )
    return out


def details(inp: ScoreInput, facts_by_target: dict[str, RunFacts]) -> DetailsFile:
    roc: dict[str, RocCurve] = {}
    rel: dict[str, list[ReliabilityBin]] = {}
    lat: dict[str, list[float]] = {}
    worst: list[WorstMiss] = []
    for t in inp.targets:
        facts = facts_by_target[t.id]
        base = inp.cases.is_base[facts.case]
        fake = inp.cases.is_fake[facts.case]
        score = np.where(np.isnan(facts.risk), 0.5, facts.risk)[base]
        fpr, tpr = roc_points(score, fake[base], facts.w[base])
        if fpr:
            roc[t.id] = RocCurve(fpr=fpr, tpr=tpr)
        has = base & ~np.isnan(facts.risk)
        if has.any():
            rel[t.id] = reliability_bins(facts.risk[has], fake[has].astype(float))
        ok = facts.latency[~np.isnan(facts.latency)]
        if ok.size:
            step = max(1, ok.size // MAX_LATENCY_SAMPLES)
            lat[t.id] = np.round(np.sort(ok)[::step], 6).tolist()
        worst += _worst(t, facts, inp)
    return DetailsFile(roc=roc, reliability=rel, latency=lat, worst=worst)
