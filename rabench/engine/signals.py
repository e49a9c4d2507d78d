"""The one currency every engine analyser pays in: a ``Signal``.

Provenance readers, checks, plausibility rules, visual forensics and the
duplicate network each return signals; the risk model turns them into one
score and the target turns the strongest into ``Reason``s. A signal with
``reason=False`` is a measurement the risk model weighs (by its name and value)
but no reason a reviewer reads. Keeping one shape
lets an analyser move to another process or machine without the target
knowing (DESIGN.md, "Later").
"""

from __future__ import annotations

import msgspec

from rabench.contracts.verdict import ProofType, Reason, ReasonKind

# Signal names the risk fit always gives a feature, however rarely they fired in its data, so a refit
# learns their weight: a new check (``check.change_mismatch``, cash tendered − change ≠ the total).
# A model fitted before one existed weighs it 0 by name (unknown names are ignored) and counts it
# through its kind only (``kind:opinion``).
ALWAYS_FITTED = ("check.change_mismatch",)


class Signal(msgspec.Struct, frozen=True):
    name: str  # stable id used as a risk-model feature, e.g. "exif.thumbnail_mismatch"
    kind: ReasonKind  # proof | check | file_fact | plausibility | opinion
    text: str  # reviewer-facing sentence, with the numbers
    fields: tuple[str, ...] = ()  # the @field tags it points at
    proof_type: ProofType | None = None  # set exactly when kind == "proof"
    value: float = 1.0  # strength, the feature value the risk model sees
    check: str | None = None  # the deterministic check this reports, if any
    # False: a measurement for the risk model only (e.g. a forensic feature on every receipt,
    # however ordinary); it is never shown as a reason and not counted as one of its kind
    reason: bool = True
    # An opinion that two independent readings of the receipt agree on (cash tendered − change equals
    # what the printed amounts add up to, and only the total differs): the risk model's probability
    # stands for it, where other opinions are held under the flag line (``risk.risk``). Never a proof.
    corroborated: bool = False

    def __post_init__(self) -> None:
        if (self.kind == "proof") != (self.proof_type is not None):
            raise ValueError(f"signal {self.name}: proof_type must be set exactly for proofs")

    def to_reason(self) -> Reason:
        return Reason(
            text=self.text,
            kind=self.kind,
            fields=list(self.fields),
            proof_type=self.proof_type,
            check=self.check,
        )
