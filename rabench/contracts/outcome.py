"""What the runner records: one Outcome per (case, target, repetition), and run.json."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from rabench.contracts.answer import Answer
from rabench.contracts.ap_verdict import APVerdict
from rabench.contracts.verdict import Usage, Verdict
from rabench.contracts.version import CONTRACTS_VERSION

Status = Literal["ok", "error", "refusal", "timeout", "invalid_output"]
STATUSES: tuple[str, ...] = ("ok", "error", "refusal", "timeout", "invalid_output")


class Outcome(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One line of ``runs/ID/outcomes.jsonl``: one call of one target on one case and repetition,
    its status, attempts, latency, the answer (when ok) or the error, and the usage.

    ``verdict`` is the target's answer, whatever the suite: an ``Answer`` (a receipt
    ``Verdict`` or an ``APVerdict``, told apart by their ``suite`` tag). Version 1 files kept
    an AP answer in a second field, ``ap_verdict``; ``decode_outcome_v1`` reads them."""

    run_id: str
    case_id: str
    target: str
    repetition: int
    status: Status
    attempts: int  # 1 + retries
    latency_s: float | None = None  # monotonic wall time of the final attempt
    verdict: Answer | None = None
    error: str | None = None  # provider message / raw unreadable text, truncated
    usage: Usage | None = None  # usage also when the call failed after spending tokens
    finished_at: float = 0.0  # unix time, for time-series views
    # answered from the response cache (rabench run --cache-responses): no call was made, so the
    # scorer leaves it out of latency and cost rows; attempts 0, latency_s None
    cached: bool = False


class OutcomeV1(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """An outcome line as contracts version 1 wrote it: a receipt answer (untagged) in
    ``verdict``, an AP answer in ``ap_verdict``. Read only, through ``decode_outcome_v1``."""

    run_id: str
    case_id: str
    target: str
    repetition: int
    status: Status
    attempts: int
    latency_s: float | None = None
    verdict: Verdict | None = None
    error: str | None = None
    usage: Usage | None = None
    finished_at: float = 0.0
    cached: bool = False
    ap_verdict: APVerdict | None = None


_v1_decoder = msgspec.json.Decoder(OutcomeV1)


def decode_outcome_v1(data: bytes | memoryview) -> Outcome:
    """One version-1 outcome line -> the current ``Outcome`` (the answer in its one field);
    msgspec's ValidationError / DecodeError as for a current line."""
    o = _v1_decoder.decode(data)
    return Outcome(
        run_id=o.run_id,
        case_id=o.case_id,
        target=o.target,
        repetition=o.repetition,
        status=o.status,
        attempts=o.attempts,
        latency_s=o.latency_s,
        verdict=o.verdict if o.verdict is not None else o.ap_verdict,
        error=o.error,
        usage=o.usage,
        finished_at=o.finished_at,
        cached=o.cached,
    )


class Capabilities(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a target can do by construction; the scorer reports "not supported" otherwise."""

    checks: bool = False  # deterministic checks (totals_add_up)
    memory: bool = False  # memory across checks (duplicates)
    proofs: bool = False  # verifiable findings (evidence task)


class TargetInfo(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """A target as run.json records it: id, kind, capabilities, the pinned model, provider,
    prompt version and settings (never a key)."""

    id: str  # "self", "null", "diy:openai:gpt-5"
    kind: Literal["self", "diy", "null", "other"]
    capabilities: Capabilities = Capabilities()
    model: str | None = None  # pinned model id
    provider: str | None = None
    prompt_version: str | None = None
    settings: dict[str, Any] = {}


class RunManifest(msgspec.Struct, forbid_unknown_fields=True):
    """``runs/ID/run.json``: enough to resume, to refuse a mismatched resume, and to score."""

    run_id: str
    suite_dir: str
    suite_name: str
    suite_kind: str
    manifest_sha256: str
    targets: list[TargetInfo]
    repetitions: int
    seed: int
    rabench_version: str
    contracts_version: int = CONTRACTS_VERSION
    git_commit: str | None = None
    price_date: str | None = None
    timeout_s: float = 180.0
    started_at: float = 0.0
    finished_at: float | None = None
    settings: dict[str, Any] = {}
