"""Leak audit: could a lazy detector tell fakes from genuine receipts by a shortcut?

For every non-proof signal (file format, byte size, pixel count, JPEG quality,
EXIF present, any Software/Producer/CreatorTool tag, font family, colour
statistics, and the days between the printed date and the case's ``submitted_at``, which
targets receive) this computes the ROC AUC of that signal *alone* for genuine vs
fake over base cases, overall and per fake class. Orientation does not matter
(``max(auc, 1 - auc)``: a reversed signal is as much a leak); a categorical
signal is scored one category at a time (``is it a PNG?``) and reports its
worst category. Ties count half, as in the spec.

Per class, fakes are compared with the genuine receipts of the capture kinds
that class occurs in (a ``pdf_edit`` is always a PDF, a ``photo_date`` always a
photo: comparing them with every genuine receipt would measure the class's
definition, not a leak). Signals missing for a file (JPEG quality of a PNG,
pixel count of a PDF) are left out of that signal's comparison.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

import numpy as np
from PIL import Image

from rabench.cases.manifest import LoadedCase, open_suite

THRESHOLD = 0.70
MIN_N = 5

NUMERIC = ("byte_size", "pixels", "jpeg_quality", "luma_mean", "luma_std", "saturation_mean", "submission_age")
CATEGORICAL = ("format", "exif_present", "software_tag", "font_family")
SIGNALS = (
    "format",
    "byte_size",
    "pixels",
    "jpeg_quality",
    "exif_present",
    "software_tag",
    "font_family",
    "luma_mean",
    "luma_std",
    "saturation_mean",
    "submission_age",
)

# JPEG Annex K luminance table (order is irrelevant: only scaled sums are compared).
_STD_LUMA = np.array(
    [
        16,
        11,
        10,
        16,
        24,
        40,
        51,
        61,
        12,
        12,
        14,
        19,
        26,
        58,
        60,
        55,
        14,
        13,
        16,
        24,
        40,
        57,
        69,
        56,
        14,
        17,
        22,
        29,
        51,
        87,
        80,
        62,
        18,
        22,
        37,
        56,
        68,
        109,
        103,
        77,
        24,
        35,
        55,
        64,
        81,
        104,
        113,
        92,
        49,
        64,
        78,
        87,
        103,
        121,
        120,
        101,
        72,
        92,
        95,
        98,
        112,
        100,
        103,
        99,
    ],
    dtype=np.int64,
)


def _ijg_sum(q: int) -> int:
    scale = 5000 // q if q < 50 else 200 - 2 * q
    return int(np.clip((_STD_LUMA * scale + 50) // 100, 1, 255).sum())


_IJG_SUMS = np.array([_ijg_sum(q) for q in range(1, 101)])


def auc_ties_half(pos: np.ndarray, neg: np.ndarray) -> float:
    """Mann-Whitney AUC: P(pos > neg) + 0.5 P(pos == neg)."""
    pos = np.asarray(pos, dtype=float)
    neg = np.asarray(neg, dtype=float)
    allv = np.concatenate([pos, neg])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(len(allv), dtype=float)
    sv = allv[order]
    i = 0
    while i < len(sv):
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    r_pos = ranks[: len(pos)].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2.0) / (len(pos) * len(neg)))


def oriented(auc: float) -> float:
    return max(auc, 1.0 - auc)


def jpeg_quality(img: Image.Image) -> float | None:
    """IJG quality estimated from the luminance quantisation table's scale."""
    q = getattr(img, "quantization", None)
    if not q:
        return None
    return float(np.argmin(np.abs(_IJG_SUMS - int(sum(q[0])))) + 1)


def _software_in_pdf(data: bytes) -> bool:
    from pypdf import PdfReader

    try:
        meta = PdfReader(io.BytesIO(data)).metadata or {}
    except Exception:
        return False
    return any(str(meta.get(k) or "").strip() for k in ("/Producer", "/Creator"))


def file_signals(data: bytes, media_type: str) -> dict[str, object]:
    """The non-proof signals a lazy detector could read from one file."""
    sig: dict[str, object] = {"format": media_type, "byte_size": float(len(data))}
    if media_type == "application/pdf":
        sig.update(exif_present=False, software_tag=_software_in_pdf(data))
        return sig
    img = Image.open(io.BytesIO(data))
    sig["pixels"] = float(img.width * img.height)
    if img.format == "JPEG":
        sig["jpeg_quality"] = jpeg_quality(img)
    exif = img.getexif()
    info = img.info
    xmp = info.get("xmp") or info.get("XML:com.adobe.xmp") or b""
    if isinstance(xmp, str):
        xmp = xmp.encode()
    sig["exif_present"] = bool(len(exif)) or "exif" in info
    sig["software_tag"] = bool(exif.get(0x0131)) or bool(info.get("Software")) or b"CreatorTool" in xmp
    img.draft("RGB", (320, 320))
    small = img.convert("RGB")
    small.thumbnail((320, 320))
    a = np.asarray(small, dtype=np.float32)
    luma = a @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    mx, mn = a.max(axis=2), a.min(axis=2)
    sat = np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-6), 0.0)
    sig.update(luma_mean=float(luma.mean()), luma_std=float(luma.std()), saturation_mean=float(sat.mean()))
    return sig


def submission_age(submitted_at: str | None, printed: object) -> float | None:
    """Days from the printed (labelled) date to the submission: a lazy detector's "old receipt" shortcut."""
    from rabench.contracts.case import submission_date

    if not submitted_at or not isinstance(printed, str):
        return None
    try:
        return float((submission_date(submitted_at) - date.fromisoformat(printed)).days)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class SignalAUC:
    signal: str
    group: str  # "all" or a fake class
    auc: float | None  # oriented; None = too few cases with the signal
    n_fake: int
    n_genuine: int
    detail: str = ""  # worst category for categorical signals


@dataclass
class AuditResult:
    rows: list[SignalAUC] = field(default_factory=list)
    n_cases: int = 0

    def failures(self, threshold: float = THRESHOLD) -> list[SignalAUC]:
        return [r for r in self.rows if r.auc is not None and r.auc > threshold]


def _signal_auc(signal: str, fake: list[dict], genuine: list[dict]) -> tuple[float | None, int, int, str]:
    fv = [f[signal] for f in fake if f.get(signal) is not None]
    gv = [g[signal] for g in genuine if g.get(signal) is not None]
    if len(fv) < MIN_N or len(gv) < MIN_N:
        return None, len(fv), len(gv), ""
    if signal in CATEGORICAL:
        worst, which = 0.5, ""
        for cat in sorted(set(map(str, fv)) | set(map(str, gv))):
            a = oriented(
                auc_ties_half(
                    np.array([str(v) == cat for v in fv], float), np.array([str(v) == cat for v in gv], float)
                )
            )
            if a > worst:
                worst, which = a, cat
        return worst, len(fv), len(gv), which
    return oriented(auc_ties_half(np.array(fv, float), np.array(gv, float))), len(fv), len(gv), ""


def signal_auc(signal: str, positive: list[dict], negative: list[dict]) -> tuple[float | None, int, int, str]:
    """Oriented AUC of one signal alone between two groups of signal dicts: (auc, n_pos, n_neg, worst category).

    The audit's own comparison, public for other two-group checks (``rabench cases shift``).
    """
    return _signal_auc(signal, positive, negative)


def audit_records(records: Iterable[tuple[dict[str, str], bool, dict[str, object]]]) -> AuditResult:
    """``records``: (tags, is_fake, signals) for each base case."""
    recs = list(records)
    res = AuditResult(n_cases=len(recs))
    genuine = [(t, s) for t, fake, s in recs if not fake]
    fakes = [(t, s) for t, fake, s in recs if fake]
    groups: list[tuple[str, list[dict], list[dict]]] = [("all", [s for _, s in fakes], [s for _, s in genuine])]
    for cls in sorted({t.get("class", "fake") for t, _ in fakes}):
        f = [(t, s) for t, s in fakes if t.get("class", "fake") == cls]
        captures = {t.get("capture") for t, _ in f}
        g = [s for t, s in genuine if t.get("capture") in captures] if None not in captures else [s for _, s in genuine]
        groups.append((cls, [s for _, s in f], g))
    for name, fv, gv in groups:
        for sig in SIGNALS:
            auc, nf, ng, detail = _signal_auc(sig, fv, gv)
            res.rows.append(SignalAUC(sig, name, auc, nf, ng, detail))
    return res


def audit_suite(root, progress=None) -> AuditResult:
    """Read every base case of the suite at ``root`` and audit it."""
    suite = open_suite(root)

    def gen():
        for i, lc in enumerate(suite):
            lc: LoadedCase
            if lc.case.lineage is not None:
                continue
            sig = file_signals(lc.read_bytes(), lc.case.media_type)
            if "font" in lc.case.tags:
                sig["font_family"] = lc.case.tags["font"]
            age = submission_age(lc.case.submitted_at, lc.case.label.date)
            if age is not None:
                sig["submission_age"] = age
            if progress:
                progress(i + 1)
            yield lc.case.tags, lc.case.label.is_fake, sig

    return audit_records(gen())
