"""The contracts between pipeline stages (DESIGN.md, "Contracts").

Every stage reads only what the stage before it wrote, so these structs are the
whole interface. They are versioned by ``CONTRACTS_VERSION``, which is written
into every file header (manifest, run.json, rows.json) and into the schemas.
"""

from rabench.contracts.answer import Answer
from rabench.contracts.ap_verdict import APVerdict
from rabench.contracts.case import Case, Lineage, SuiteHeader
from rabench.contracts.labels import (
    Authenticity,
    Label,
    LineItem,
    ReceiptLabel,
)
from rabench.contracts.outcome import Outcome, RunManifest, TargetInfo, Capabilities
from rabench.contracts.row import Row
from rabench.contracts.targets_config import TargetsConfig
from rabench.contracts.verdict import Check, Fields, Reason, Usage, Verdict
from rabench.contracts.version import CONTRACTS_VERSION

__all__ = [
    "CONTRACTS_VERSION",
    "Answer",
    "APVerdict",
    "Authenticity",
    "Capabilities",
    "Case",
    "Check",
    "Fields",
    "Label",
    "Lineage",
    "LineItem",
    "Outcome",
    "Reason",
    "ReceiptLabel",
    "Row",
    "RunManifest",
    "SuiteHeader",
    "TargetInfo",
    "TargetsConfig",
    "Usage",
    "Verdict",
]
