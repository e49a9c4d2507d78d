"""Leak audit of an ``ap`` suite: could a shallow model tell risky cases from safe ones by a shortcut?

For every signal a lazy model could key on without doing the task, the ROC AUC of that
signal alone, ``max(auc, 1 - auc)``, ties half (the receipt audit's rules, ``rabench.cases.audit``):

- the invoice's template (layout), font, language, currency, vendor country, file format,
  PDF producer, number of invoices and of documents, file sizes;
- presence of each document role and of each e-mail header; the mailer; thread length;
- the subject invoice's total (raw and binned), its number of lines, days from invoice date to
  submission, ledger and vendor-master sizes;
- every word of the e-mail text and of the invoices' text layers, each one alone (the worst
  word is reported): the LedgerShield kind of give-away string.

Positives are cases that must not be paid (``safe_to_pay`` false) against the rest, over the
whole suite, within each family, and fraud (``FRAUD_CLASSES``) against everything else.
Relations (a sender's domain against the vendor master, an IBAN against the master, amounts
against the PO) are the task itself and are not signals here.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from typing import Any

import numpy as np

from rabench.cases.ap.manifest import LoadedAPCase, open_ap_suite
from rabench.cases.audit import auc_ties_half, oriented
from rabench.contracts.ap import DOC_ROLES, FAMILIES

THRESHOLD = 0.70
MIN_N = 5
MIN_TOKEN_CASES = 5
CATEGORICAL = (
    "layout",
    "font",
    "language",
    "currency",
    "country",
    "format",
    "producer",
    "invoices",
    "documents",
    "mailer",
    "thread_length",
    "total_bin",
)
NUMERIC = ("total", "line_items", "invoice_bytes", "email_bytes", "ledger_rows", "vendors_in_master", "days_to_submit")
TOKEN_SIGNALS = ("email_token", "invoice_token")
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


@dataclass(frozen=True, slots=True)
class APSignalAUC:
    signal: str
    group: str
    auc: float | None
    n_pos: int
    n_neg: int
    detail: str = ""


@dataclass
class APAuditResult:
    rows: list[APSignalAUC] = field(default_factory=list)
    n_cases: int = 0

    def failures(self, threshold: float = THRESHOLD) -> list[APSignalAUC]:
        return [r for r in self.rows if r.auc is not None and r.auc > threshold]

    @property
    def signals(self) -> list[str]:
        return list(dict.fromkeys(r.signal for r in self.rows))


@dataclass(frozen=True, slots=True)
class Record:
    family: str
    unsafe: bool
    fraud: bool
    values: dict[str, Any]
    tokens: dict[str, frozenset[str]]


def _pdf_text(data: bytes) -> tuple[str, str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    producer = reader.metadata.get("/Producer") if reader.metadata else None
    return "\n".join(p.extract_text() or "" for p in reader.pages), str(producer or "")


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))


def case_record(lc: LoadedAPCase) -> Record:
    """The shortcut signals of one case, read from its files (and the printed total of its label)."""
    case, lab = lc.case, lc.case.label
    v: dict[str, Any] = {k: case.tags.get(k) for k in ("layout", "font", "language", "currency", "country", "format")}
    v["invoices"] = str(len(case.by_role("invoice")))
    v["documents"] = str(len(case.documents))
    for role in DOC_ROLES:
        v[f"has_{role}"] = any(d.role == role for d in case.documents)
    total = lab.fields.get("total")
    if total is not None and isinstance(total.value, (int, float)):
        v["total"] = float(total.value)
        v["total_bin"] = str(int(math.log10(max(float(total.value), 1.0)) * 2))
    v["line_items"] = float(len(lab.line_items))
    date = lab.fields.get("invoice_date")
    if case.submitted_at and date is not None and isinstance(date.value, str):
        from datetime import date as _date

        v["days_to_submit"] = float(
            (_date.fromisoformat(case.submitted_at[:10]) - _date.fromisoformat(date.value)).days
        )
    invoice_words: set[str] = set()
    email_words: frozenset[str] = frozenset()
    subject = case.document(lab.subject)
    for d in case.documents:
        data = lc.read(d.name)
        if d.role in ("invoice", "credit_note") and d.media_type == "application/pdf":
            text, producer = _pdf_text(data)
            invoice_words |= _words(text)
            if d is subject:
                v["producer"] = producer
        if d is subject:
            v["invoice_bytes"] = float(len(data))
        if d.role == "email":
            msg = BytesParser(policy=policy.default).parsebytes(data)
            for name in {k.lower() for k in msg.keys()}:
                v[f"header_{name}"] = True
            v["mailer"] = str(msg.get("X-Mailer") or "none")
            v["thread_length"] = str(len(str(msg.get("References") or "").split()) + 1)
            part = msg.get_body(("plain",))
            text = part.get_content() if part is not None else ""
            email_words = _words(str(msg.get("Subject") or "") + "\n" + text)
            v["email_bytes"] = float(len(data))
        if d.role == "ledger":
            v["ledger_rows"] = float(sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8")))) - 1)
        if d.role == "vendor_master":
            v["vendors_in_master"] = float(len(json.loads(data)["vendors"]))
    return Record(
        lab.family,
        not lab.safe_to_pay,
        lab.is_fraud,
        v,
        {"email_token": email_words, "invoice_token": frozenset(invoice_words)},
    )


def _categorical_auc(pos: list[Any], neg: list[Any]) -> tuple[float, str]:
    worst, which = 0.5, ""
    for cat in sorted({str(x) for x in pos} | {str(x) for x in neg}):
        a = oriented(
            auc_ties_half(np.array([str(x) == cat for x in pos], float), np.array([str(x) == cat for x in neg], float))
        )
        if a > worst:
            worst, which = a, cat
    return worst, which


def _token_auc(pos: list[frozenset[str]], neg: list[frozenset[str]]) -> tuple[float, str]:
    """The worst single word: presence rates p (positives) and q (negatives) give AUC 0.5 + (p - q) / 2."""
    counts: dict[str, list[int]] = {}
    for group, sets in ((0, pos), (1, neg)):
        for s in sets:
            for w in s:
                counts.setdefault(w, [0, 0])[group] += 1
    worst, which = 0.5, ""
    for w, (a, b) in sorted(counts.items()):
        if a + b < MIN_TOKEN_CASES:
            continue
        auc = oriented(0.5 + (a / len(pos) - b / len(neg)) / 2)
        if auc > worst:
            worst, which = auc, w
    return worst, which


def _groups(recs: list[Record]) -> list[tuple[str, list[Record], list[Record]]]:
    out = [
        ("all", [r for r in recs if r.unsafe], [r for r in recs if not r.unsafe]),
        ("fraud", [r for r in recs if r.fraud], [r for r in recs if not r.fraud]),
    ]
    for fam in FAMILIES:
        sub = [r for r in recs if r.family == fam]
        out.append((fam, [r for r in sub if r.unsafe], [r for r in sub if not r.unsafe]))
    return out


def audit_ap_records(recs: list[Record]) -> APAuditResult:
    res = APAuditResult(n_cases=len(recs))
    binary = sorted({k for r in recs for k in r.values if k.startswith(("has_", "header_"))})
    for name, pos, neg in _groups(recs):
        for sig in CATEGORICAL + NUMERIC + tuple(binary):
            is_bool = sig in binary
            pv = [r.values.get(sig, False) if is_bool else r.values.get(sig) for r in pos]
            nv = [r.values.get(sig, False) if is_bool else r.values.get(sig) for r in neg]
            pv, nv = [x for x in pv if x is not None], [x for x in nv if x is not None]
            if len(pv) < MIN_N or len(nv) < MIN_N:
                res.rows.append(APSignalAUC(sig, name, None, len(pv), len(nv)))
                continue
            if sig in NUMERIC:
                res.rows.append(
                    APSignalAUC(
                        sig, name, oriented(auc_ties_half(np.array(pv, float), np.array(nv, float))), len(pv), len(nv)
                    )
                )
            else:
                auc, which = _categorical_auc(pv, nv)
                res.rows.append(APSignalAUC(sig, name, auc, len(pv), len(nv), which))
        for sig in TOKEN_SIGNALS:
            ps = [r.tokens[sig] for r in pos]
            ns = [r.tokens[sig] for r in neg]
            if sig == "email_token":  # only cases that have an e-mail
                ps, ns = [s for s in ps if s], [s for s in ns if s]
            if len(ps) < MIN_N or len(ns) < MIN_N:
                res.rows.append(APSignalAUC(sig, name, None, len(ps), len(ns)))
                continue
            auc, which = _token_auc(ps, ns)
            res.rows.append(APSignalAUC(sig, name, auc, len(ps), len(ns), which))
    return res


def audit_ap_suite(root: Any) -> APAuditResult:
    return audit_ap_records([case_record(lc) for lc in open_ap_suite(root)])


def format_ap_table(res: APAuditResult) -> str:
    groups = list(dict.fromkeys(r.group for r in res.rows))
    cell = {(r.signal, r.group): r for r in res.rows}
    short = {"duplicate_bank_change": "dup_bank", "three_way_match": "3way_match"}
    head = f"{'signal':<30}" + "".join(f"{short.get(g, g):>12}" for g in groups)
    lines = [head, "-" * len(head)]
    for sig in res.signals:
        parts = []
        for g in groups:
            r = cell.get((sig, g))
            parts.append(f"{'n/a' if r is None or r.auc is None else f'{r.auc:.3f}':>12}")
        lines.append(f"{sig:<30}" + "".join(parts))
    counts = {r.group: f"{r.n_pos}/{r.n_neg}" for r in res.rows if r.signal == "layout"}
    lines.append(f"{'(risky/safe n)':<30}" + "".join(f"{counts.get(g, ''):>12}" for g in groups))
    return "\n".join(lines)
