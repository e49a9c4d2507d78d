"""The accounts-payable (AP) suite's contracts: a case is a bundle of documents and a label.

Why a case of its own and not the receipt ``Case``: an AP decision is taken on several
documents at once (invoice, purchase order, goods receipt, e-mail thread, vendor master,
ledger extract), what an AP analyst has on the desk. Each document is a file of the suite
with its sha256, media type and role; the label says what is printed where (a box per
field), what the right decision is and why. Everything a target needs is *in the bundle*:
duplicate and campaign links name documents of the bundle or ledger entries in it, never
other cases, so no score depends on the order cases are run in (LedgerShield's shared
global state is the fault this avoids).

The vocabulary (decisions, families, outcome classes, reason codes, discrepancy kinds, link
kinds, document roles, field names) is fixed here and shared by the generator, the verdict
contract and the scorer. Additive changes only: a value once written is never renamed.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec

from rabench.contracts.case import _SHA256_RE, _shown, check_id, submission_date

# --- shared vocabulary -----------------------------------------------------------------

Decision = Literal["PAY", "HOLD", "NEEDS_REVIEW", "ESCALATE_FRAUD"]
DECISIONS: tuple[str, ...] = ("PAY", "HOLD", "NEEDS_REVIEW", "ESCALATE_FRAUD")

# The five task families of issue 17 (LedgerShield's tasks A-E).
Family = Literal["extraction", "three_way_match", "duplicate_bank_change", "inbox_bec", "campaign"]
FAMILIES: tuple[str, ...] = ("extraction", "three_way_match", "duplicate_bank_change", "inbox_bec", "campaign")
FAMILY_LETTER = {
    "extraction": "A",
    "three_way_match": "B",
    "duplicate_bank_change": "C",
    "inbox_bec": "D",
    "campaign": "E",
}

Difficulty = Literal["easy", "medium", "hard", "expert"]
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard", "expert")

# What is really going on in a case: the classes a target gives a probability to.
# safe: pay it. discrepancy: a genuine invoice that does not match its PO / receipt / arithmetic
# (hold, no fraud). duplicate_billing: an invoice already paid, billed again. bank_fraud: payment
# redirected to an account the vendor does not own (forged bank change, swapped IBAN).
# impersonation: a payment requested by someone posing as an executive or a vendor, to an
# account or vendor that is not theirs. campaign_fraud: several invoices that are one scheme
# (split under the approval threshold, one account behind several vendors, coordinated timing).
OutcomeClass = Literal["safe", "discrepancy", "duplicate_billing", "bank_fraud", "impersonation", "campaign_fraud"]
OUTCOME_CLASSES: tuple[str, ...] = (
    "safe",
    "discrepancy",
    "duplicate_billing",
    "bank_fraud",
    "impersonation",
    "campaign_fraud",
)
FRAUD_CLASSES: frozenset[str] = frozenset({"bank_fraud", "impersonation", "campaign_fraud"})

# Facts a target can establish from the bundle. A code names an observation, not a verdict:
# ``bank_account_changed`` is also gold on a legitimate, verified bank change.
ReasonCode = Literal[
    # bank details
    "bank_account_changed",  # the invoice's account differs from the vendor master's
    "bank_change_unverified",  # ... and no completed callback / approval trail confirms it
    "iban_checksum_invalid",  # the printed IBAN (or ABA routing number) fails its check digits
    "bank_country_mismatch",  # the account's country is not the vendor's country
    # duplicates
    "duplicate_invoice",  # same vendor, number and amount as a paid ledger entry
    "near_duplicate",  # a paid entry with an altered number / date / small amount change
    # three-way match and arithmetic
    "po_price_mismatch",
    "po_quantity_mismatch",
    "no_goods_receipt",
    "no_purchase_order",  # the PO the invoice names does not exist or is another vendor's
    "tax_calculation_error",  # tax != rate x net as printed
    "total_mismatch",  # line items / net + tax do not give the printed total
    "vat_id_mismatch",  # the vendor VAT id on the invoice differs from the vendor master
    # e-mail / BEC
    "sender_domain_mismatch",  # the sender's domain is not the vendor's (or company's) domain
    "lookalike_domain",  # ... and it imitates it (acme-gmbh.de vs acrne-gmbh.de)
    "display_name_spoof",  # a trusted display name on a foreign address
    "reply_to_mismatch",  # Reply-To points elsewhere than From
    "urgency_pressure",  # deadline / consequence pressure to pay now
    "policy_bypass_pressure",  # asks to skip a control (approval, PO, second signature)
    "callback_discouraged",  # asks not to call / to use only the number in the mail
    "callback_number_changed",  # the mail's phone number differs from the vendor master's
    "executive_impersonation",  # the request claims to come from an executive
    "vendor_not_in_master",  # payee is not an approved vendor
    # campaigns
    "threshold_splitting",  # invoices split to stay under the approval threshold
    "shared_bank_account",  # one account behind vendors that should be unrelated
    "coordinated_timing",  # invoices of several vendors submitted together, out of pattern
]
REASON_CODES: tuple[str, ...] = (
    "bank_account_changed",
    "bank_change_unverified",
    "iban_checksum_invalid",
    "bank_country_mismatch",
    "duplicate_invoice",
    "near_duplicate",
    "po_price_mismatch",
    "po_quantity_mismatch",
    "no_goods_receipt",
    "no_purchase_order",
    "tax_calculation_error",
    "total_mismatch",
    "vat_id_mismatch",
    "sender_domain_mismatch",
    "lookalike_domain",
    "display_name_spoof",
    "reply_to_mismatch",
    "urgency_pressure",
    "policy_bypass_pressure",
    "callback_discouraged",
    "callback_number_changed",
    "executive_impersonation",
    "vendor_not_in_master",
    "threshold_splitting",
    "shared_bank_account",
    "coordinated_timing",
)

# Three-way-match and arithmetic discrepancies (task B's ``discrepancies``).
DiscrepancyKind = Literal[
    "price_mismatch",
    "quantity_mismatch",
    "missing_goods_receipt",
    "missing_purchase_order",
    "tax_mismatch",
    "total_mismatch",
    "currency_mismatch",
]
DISCREPANCY_KINDS: tuple[str, ...] = (
    "price_mismatch",
    "quantity_mismatch",
    "missing_goods_receipt",
    "missing_purchase_order",
    "tax_mismatch",
    "total_mismatch",
    "currency_mismatch",
)

# duplicate: the same invoice again; near_duplicate: altered copy; credit_note: a credit note
# that cancels the linked invoice (so a re-issue is no duplicate); campaign: two invoices of one scheme.
LinkKind = Literal["duplicate", "near_duplicate", "credit_note", "campaign"]
LINK_KINDS: tuple[str, ...] = ("duplicate", "near_duplicate", "credit_note", "campaign")

DocRole = Literal[
    "invoice",
    "credit_note",
    "purchase_order",
    "goods_receipt",
    "email",
    "vendor_master",
    "ledger",
    "approval",
    "policy",
]
DOC_ROLES: tuple[str, ...] = (
    "invoice",
    "credit_note",
    "purchase_order",
    "goods_receipt",
    "email",
    "vendor_master",
    "ledger",
    "approval",
    "policy",
)

APMediaType = Literal[
    "application/pdf",
    "image/png",
    "image/jpeg",
    "message/rfc822",
    "application/json",
    "text/csv",
    "text/plain",
]

# The invoice fields a target extracts (task A). ``bank_account``: the IBAN in electronic form
# (no spaces) or, for US vendors, the account number; ``bank_code``: the BIC, or the ABA
# routing number. Dates ISO YYYY-MM-DD; amounts as numbers in the invoice currency.
FieldName = Literal[
    "vendor_name",
    "vendor_vat_id",
    "invoice_number",
    "invoice_date",
    "due_date",
    "currency",
    "subtotal",
    "tax",
    "total",
    "po_number",
    "bank_account",
    "bank_code",
]
FIELD_NAMES: tuple[str, ...] = (
    "vendor_name",
    "vendor_vat_id",
    "invoice_number",
    "invoice_date",
    "due_date",
    "currency",
    "subtotal",
    "tax",
    "total",
    "po_number",
    "bank_account",
    "bank_code",
)
AMOUNT_FIELDS: frozenset[str] = frozenset({"subtotal", "tax", "total"})

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


# --- the bundle --------------------------------------------------------------------------


class APDocument(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One document of a case: its name inside the bundle (what links and evidence refer to),
    the file (relative to the suite folder), sha256, media type and role."""

    name: str  # e.g. "invoice.pdf", "thread.eml", "ledger.csv"; unique within the case
    file: str  # relative to the suite folder, POSIX separators
    sha256: str
    media_type: APMediaType
    role: DocRole

    def __post_init__(self) -> None:
        if _NAME_RE.fullmatch(self.name) is None:
            raise ValueError(f"document name {_shown(self.name)} is not 1-64 ASCII letters, digits, '.', '_' or '-'")
        if not self.file or any(not c.isprintable() for c in self.file):
            raise ValueError(f"file {_shown(self.file)} is empty or holds a control character")
        if _SHA256_RE.fullmatch(self.sha256) is None:
            raise ValueError(f"sha256 {_shown(self.sha256)} is not 64 hexadecimal digits")


# --- the label ---------------------------------------------------------------------------


class EvidenceBox(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where a value is printed: a document of the bundle, its page (1-based) and a box in
    page fractions ``[x0, y0, x1, y1]`` (origin top left, 0..1), independent of the resolution
    the page is rendered at. Scored by IoU with the target's box."""

    doc: str
    page: int
    box: tuple[float, float, float, float]

    def __post_init__(self) -> None:
        x0, y0, x1, y1 = self.box
        if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
            raise ValueError(f"evidence box {list(self.box)} is not 0 <= x0 < x1 <= 1, 0 <= y0 < y1 <= 1")
        if self.page < 1:
            raise ValueError(f"evidence page {self.page} is not 1 or more")


class GoldField(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A labelled invoice field: the printed value (null = not printed) and where it is printed."""

    value: str | float | None
    evidence: EvidenceBox | None = None


class GoldLineItem(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One printed invoice line: description, quantity, unit price and line total as printed."""

    description: str
    quantity: float
    unit_price: float
    total: float


class Link(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A relation between two references: document names of the bundle (``invoice-2.pdf``) or
    ledger entry ids printed in the bundle's ledger (``LED-004211``)."""

    kind: LinkKind
    source: str
    target: str

    def key(self) -> tuple[str, str, str]:
        """Order-free identity (``a<->b`` equals ``b<->a``) for set scoring."""
        a, b = sorted((self.source, self.target))
        return (self.kind, a, b)


class APLabel(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="suite", tag="ap"):
    """An AP case's ground truth. Targets never see it.

    ``decision`` is the gold decision; ``acceptable`` lists every decision counted as right
    (it always contains ``decision``). ``safe_to_pay`` is false when paying loses money or pays
    the wrong party (the unsafe-release rate is measured on targets' PAYs of these). ``fields``
    covers the subject invoice (absent key = not scored; value null = not printed);
    ``benign_twin`` marks a case built to look like a fraud pattern that is genuinely fine
    (a verified bank change, a credit-note pair, an urgent but real e-mail)."""

    family: Family
    difficulty: Difficulty
    outcome: OutcomeClass
    decision: Decision
    acceptable: list[Decision]
    safe_to_pay: bool
    fields: dict[FieldName, GoldField] = {}
    subject: str = "invoice.pdf"  # the document whose fields are labelled (campaigns: the first)
    line_items: list[GoldLineItem] = []
    reason_codes: list[ReasonCode] = []
    discrepancies: list[DiscrepancyKind] = []
    duplicate_links: list[Link] = []
    campaign_links: list[Link] = []
    benign_twin: bool = False

    def __post_init__(self) -> None:
        if self.decision not in self.acceptable:
            raise ValueError(f"decision {self.decision} is not among acceptable {self.acceptable}")
        if self.safe_to_pay != ("PAY" in self.acceptable):
            raise ValueError("safe_to_pay must be true exactly when PAY is acceptable")

    @property
    def is_fraud(self) -> bool:
        return self.outcome in FRAUD_CLASSES


class APCase(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One AP case (``manifest.jsonl`` of an ``ap`` suite, line 2 onwards): id, the documents
    of the bundle, the label, tags (strata) and when it was submitted."""

    id: Annotated[str, msgspec.Meta(description="case id, as for receipt cases; unique ignoring case")]
    documents: list[APDocument]
    label: APLabel
    tags: dict[str, str] = {}
    # When the invoice reached AP (ISO date): "today" for due dates, ledger age and timing rules.
    submitted_at: str | None = None

    def __post_init__(self) -> None:
        check_id(self.id)
        if not self.documents:
            raise ValueError("a case needs at least one document")
        names = [d.name for d in self.documents]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"document name {dup} appears twice in the case")
        if self.submitted_at is not None:
            submission_date(self.submitted_at)

    def document(self, name: str) -> APDocument | None:
        return next((d for d in self.documents if d.name == name), None)

    def by_role(self, role: str) -> list[APDocument]:
        return [d for d in self.documents if d.role == role]
