"""Relational audit of an ``ap`` suite: can a small rule learner over cross-document relations
tell the cases that must not be paid from the rest, family by family?

The single-signal audit (``audit.py``) sees one document at a time. Fraud analysts decide on
relations between documents: the sender's domain against the vendor master, a Reply-To
elsewhere, DMARC, whether the callback went to the number on file, a goods receipt, amounts
against the PO, the ledger. If a depth-3 decision tree over such booleans, fitted on one half
of a family and scored on the other, reaches ROC AUC above ``THRESHOLD``, the family is solved
by a shallow rule and fails the audit. The relations are read from the documents; the invoice's
printed values (bank account, number, total, PO) are taken from the label's fields, i.e. what a
perfect reader of the invoice would see.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from email.utils import parseaddr
from typing import Any

import numpy as np

from rabench.cases.ap.manifest import LoadedAPCase, open_ap_suite
from rabench.cases.audit import auc_ties_half
from rabench.contracts.ap import FAMILIES

THRESHOLD = 0.80
DEPTH = 3
_PHONE = re.compile(r"\+?\d[\d ()/-]{6,}\d")


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def relation_features(lc: LoadedAPCase) -> dict[str, bool]:
    """Booleans over pairs of documents (and a few presence flags) for one case."""
    case, lab = lc.case, lc.case.label
    f: dict[str, bool] = {}
    roles = {d.role for d in case.documents}
    for r in ("email", "approval", "purchase_order", "goods_receipt", "credit_note"):
        f[f"has_{r}"] = r in roles
    f["several_invoices"] = len(case.by_role("invoice")) > 1
    docs = {d.role: lc.read(d.name) for d in case.documents if d.role != "invoice"}
    master = json.loads(docs["vendor_master"])["vendors"] if "vendor_master" in docs else []
    domains = {m.get("email_domain") for m in master}
    phones = {_digits(str(m.get("phone", ""))) for m in master}
    accounts = [m["bank"]["account"] for m in master]
    names = {m.get("name") for m in master}
    field = {k: v.value for k, v in lab.fields.items()}
    acct = str(field.get("bank_account") or "")
    f["account_in_master"] = acct in accounts
    f["account_shared_in_master"] = len(accounts) != len(set(accounts))
    f["master_bank_changed"] = any(m["bank"].get("last_changed") for m in master)
    f["master_phone_changed"] = any(m.get("contact_change") for m in master)
    f["master_phone_changed_unreferenced"] = any(
        m.get("contact_change") and not m["contact_change"].get("change_ref") for m in master
    )
    f["vendor_in_master"] = field.get("vendor_name") in names
    f["vat_in_master"] = field.get("vendor_vat_id") in {m.get("vat_id") for m in master}
    if "email" in docs:
        msg = BytesParser(policy=policy.default).parsebytes(docs["email"])
        sender = parseaddr(str(msg.get("From", "")))[1].lower()
        dom = sender.split("@")[-1]
        reply = parseaddr(str(msg.get("Reply-To", "")))[1].lower()
        auth = str(msg.get("Authentication-Results", ""))
        body = msg.get_body(("plain",))
        text = body.get_content() if body is not None else ""
        newest = text.split("\nOn ", 1)[0]
        f["sender_domain_in_master"] = dom in domains
        f["sender_is_buyer"] = dom == parseaddr(str(msg.get("To", "")))[1].lower().split("@")[-1]
        f["reply_to_elsewhere"] = bool(reply) and reply.split("@")[-1] != dom
        f["dmarc_pass"] = "dmarc=pass" in auth
        mail_phones = {_digits(p) for p in _PHONE.findall(newest)}
        f["mail_phone_not_on_file"] = bool(mail_phones - phones)
        f["mail_mentions_bank"] = bool(re.search(r"IBAN|bank|account", newest, re.I))
        f["thread_history"] = bool(msg.get("In-Reply-To"))
    if "approval" in docs:
        ap = json.loads(docs["approval"])
        cb = ap.get("callback") or {}
        f["approval_approved"] = ap.get("status") == "approved"
        f["callback_to_number_on_file"] = _digits(str(cb.get("number_called", ""))) in phones - {""}
        f["second_approver"] = bool(ap.get("second_approver"))
    if "purchase_order" in docs:
        po = json.loads(docs["purchase_order"])
        total = field.get("subtotal")
        f["po_total_matches"] = isinstance(total, float) and abs(float(po.get("total", 0)) - total) < 0.01
        f["po_number_matches"] = po.get("po_number") == field.get("po_number")
    if "goods_receipt" in docs:
        gr = json.loads(docs["goods_receipt"])
        f["gr_empty"] = not gr.get("receipts")
    if "ledger" in docs:
        rows = list(csv.DictReader(io.StringIO(docs["ledger"].decode("utf-8"))))
        number, total = field.get("invoice_number"), field.get("total")
        vid = next((m["vendor_id"] for m in master if m.get("name") == field.get("vendor_name")), None)
        mine = [r for r in rows if r["vendor_id"] == vid]
        f["ledger_same_number"] = any(r["invoice_number"] == number for r in mine)
        f["ledger_other_vendor_same_number"] = any(r["invoice_number"] == number for r in rows if r not in mine)
        f["ledger_same_amount"] = isinstance(total, float) and any(abs(float(r["amount"]) - total) < 0.01 for r in mine)
        f["ledger_credit_note"] = any(r["document_type"] == "credit_note" for r in mine)
        f["ledger_paid_to_invoice_account"] = any(r["paid_to_account"] == acct for r in mine)
        f["ledger_similar_number"] = any(
            r["invoice_number"] != number and _digits(r["invoice_number"])[-5:] == _digits(str(number))[-5:]
            for r in mine
        )
    return f


@dataclass(frozen=True, slots=True)
class FamilyFit:
    family: str
    auc: float | None
    n_fit: int
    n_score: int
    rules: str  # the fitted tree, printed


@dataclass(frozen=True, slots=True)
class RelRecord:
    family: str
    unsafe: bool
    features: dict[str, bool]


def records(root: Any) -> list[RelRecord]:
    return [
        RelRecord(lc.case.label.family, not lc.case.label.safe_to_pay, relation_features(lc))
        for lc in open_ap_suite(root)
    ]


def _matrix(recs: list[RelRecord], names: list[str]) -> np.ndarray:
    return np.array([[float(r.features.get(n, False)) for n in names] for r in recs], float)


def fit_family(recs: list[RelRecord], family: str, *, seed: int = 0) -> FamilyFit:
    """Fit a depth-``DEPTH`` tree on a stratified half, score the other half (ROC AUC, ties half)."""
    from sklearn.tree import DecisionTreeClassifier, export_text

    sub = [r for r in recs if r.family == family]
    y = np.array([r.unsafe for r in sub])
    if y.sum() < 4 or (~y).sum() < 4:
        return FamilyFit(family, None, 0, len(sub), "")
    rng = np.random.default_rng([seed, 31])
    fit_idx: list[int] = []
    for cls in (True, False):
        idx = np.flatnonzero(y == cls)
        fit_idx += list(rng.permutation(idx)[: len(idx) // 2])
    fit_mask = np.zeros(len(sub), bool)
    fit_mask[fit_idx] = True
    names = sorted({k for r in sub for k in r.features})
    x = _matrix(sub, names)
    tree = DecisionTreeClassifier(max_depth=DEPTH, min_samples_leaf=3, random_state=0).fit(x[fit_mask], y[fit_mask])
    score = tree.predict_proba(x[~fit_mask])[:, list(tree.classes_).index(True)]
    yt = y[~fit_mask]
    auc = auc_ties_half(score[yt], score[~yt])
    return FamilyFit(
        family, float(auc), int(fit_mask.sum()), int((~fit_mask).sum()), export_text(tree, feature_names=names)
    )


def relational_audit(root: Any) -> list[FamilyFit]:
    recs = records(root)
    return [fit_family(recs, fam) for fam in FAMILIES]


def format_relational(fits: list[FamilyFit]) -> str:
    lines = [f"relational audit (depth-{DEPTH} tree over cross-document relations; fit one half, score the other)"]
    for ft in fits:
        a = "n/a" if ft.auc is None else f"{ft.auc:.3f}"
        bad = " FAIL" if ft.auc is not None and ft.auc > THRESHOLD else ""
        lines.append(f"  {ft.family:<24} AUC {a}  (fit {ft.n_fit}, scored {ft.n_score}){bad}")
    return "\n".join(lines)
