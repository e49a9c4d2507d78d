"""Every metric the scorer emits: its task, direction and how findings compare it.

Why one registry: rows, findings, report.md and docs/methodology.md must agree
on which metrics are lower-is-better and which carry an interval; keeping that
in one table means a new metric can't be compared the wrong way round.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Compare = Literal["interval", "ratio", "none"]

TASKS: tuple[str, ...] = (
    "extraction",
    "checks",
    "authenticity",
    "duplicates",
    "decisions",
    "evidence",
    # AP suites (docs/methodology-ap.md); operations rows are shared and come last
    "ap_extraction",
    "ap_evidence",
    "ap_decision",
    "ap_findings",
    "ap_calibration",
    "operations",
)


class Metric(msgspec.Struct, frozen=True):
    task: str
    name: str
    lower_is_better: bool = False
    # How findings compare two targets: non-overlapping 95% intervals, a >= 1.2x
    # ratio (latency and cost, which have no interval), or not at all.
    compare: Compare = "interval"
    unit: str = "cases"  # what n counts


def _m(task: str, names: list[str], **kw: object) -> list[Metric]:
    return [Metric(task=task, name=n, **kw) for n in names]  # type: ignore[arg-type]


EXTRACTION_FIELDS = ("merchant", "date", "subtotal", "tax_total", "total", "currency", "receipt_number")
FFR_LEVELS = ((0.01, "1pct"), (0.05, "5pct"), (0.10, "10pct"))
RISK_THRESHOLDS = (0.5, 0.7)

METRICS: list[Metric] = [
    *_m("extraction", [f"{f}_accuracy" for f in EXTRACTION_FIELDS]),
    *_m("extraction", ["all_fields_right", "line_item_f1", "valid_output_rate"]),
    *_m("checks", ["totals_add_up_recall", "totals_add_up_precision"]),
    *_m("checks", ["totals_add_up_false_alarm_rate"], lower_is_better=True),
    *_m("checks", ["totals_add_up_coverage"]),
    *_m("authenticity", ["roc_auc"]),
    *_m("authenticity", [f"detection_at_ffr_{tag}" for _, tag in FFR_LEVELS]),
    *[
        m
        for t in RISK_THRESHOLDS
        for m in (
            Metric("authenticity", f"detection_at_risk_{t}"),
            Metric("authenticity", f"false_flag_rate_at_risk_{t}", lower_is_better=True),
        )
    ],
    *_m("duplicates", ["recall", "exact_recall"]),
    *_m("duplicates", ["false_match_rate", "false_match_rate_genuine"], lower_is_better=True),
    *_m("decisions", ["decision_consistency", "total_consistency"]),
    Metric("decisions", "calibration_error", lower_is_better=True, compare="none", unit="runs"),
    *_m(
        "decisions",
        [f"expected_cost_per_1000_at_risk_{t}" for t in RISK_THRESHOLDS],
        lower_is_better=True,
        compare="ratio",
    ),
    Metric(
        "decisions",
        "expected_cost_per_1000_approve_everything",
        lower_is_better=True,
        compare="none",
        unit="none",
    ),
    *_m("evidence", ["edited_field_named", "fakes_caught_with_proof"]),
    *_m("evidence", ["genuine_with_proof"], lower_is_better=True),
    *_m(
        "operations",
        ["latency_p50_s", "latency_p95_s", "latency_p99_s", "cost_per_check_usd", "model_cost_per_check_usd"],
        lower_is_better=True,
        compare="ratio",
        unit="calls",
    ),
    *_m(
        "operations",
        ["error_rate", "refusal_rate", "timeout_rate", "invalid_output_rate"],
        lower_is_better=True,
        unit="calls",
    ),
]

# AP suites (docs/methodology-ap.md). Field names from rabench.contracts.ap.FIELD_NAMES.
AP_TASKS = ("ap_extraction", "ap_evidence", "ap_decision", "ap_findings", "ap_calibration")
AP_FIELDS = (
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
METRICS += [
    *_m("ap_extraction", [f"{f}_accuracy" for f in AP_FIELDS]),
    *_m("ap_extraction", ["all_fields_right", "line_item_f1", "valid_output_rate"]),
    *_m("ap_evidence", ["field_grounded", "field_grounded_and_right"]),
    *_m("ap_decision", ["decision_accuracy"]),
    *_m("ap_decision", ["unsafe_release_rate"], lower_is_better=True),
    *_m("ap_decision", ["fraud_escalation_recall"]),
    *_m("ap_decision", ["exception_release_rate", "false_hold_rate", "false_fraud_rate"], lower_is_better=True),
    *_m("ap_decision", ["decision_consistency"]),
    Metric("ap_decision", "expected_cost_per_1000", lower_is_better=True),
    *_m(
        "ap_decision",
        ["expected_cost_per_1000_pay_everything", "expected_cost_per_1000_review_everything"],
        lower_is_better=True,
        compare="none",
        unit="none",
    ),
    *_m("ap_findings", ["discrepancy_f1", "reason_code_f1", "duplicate_link_f1", "campaign_link_f1"]),
    *_m("ap_calibration", ["brier_score", "log_loss"], lower_is_better=True),
    *_m("ap_calibration", ["forecast_coverage"]),
    Metric("ap_calibration", "brier_score_uniform", lower_is_better=True, compare="none", unit="none"),
]

BY_KEY: dict[tuple[str, str], Metric] = {(m.task, m.name): m for m in METRICS}
ORDER: dict[tuple[str, str], int] = {(m.task, m.name): i for i, m in enumerate(METRICS)}


def metric(task: str, name: str) -> Metric:
    return BY_KEY[(task, name)]


def task_metrics(task: str) -> list[str]:
    return [m.name for m in METRICS if m.task == task]
