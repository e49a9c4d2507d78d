"""The AP prompt and its parser: the prompt lists exactly the contract's vocabulary, answers in
the shapes models write parse into an APVerdict, anything outside the contract is refused."""

from __future__ import annotations

import json
import re

import pytest

from rabench.contracts.ap import DISCREPANCY_KINDS, FIELD_NAMES, OUTCOME_CLASSES, REASON_CODES
from rabench.targets.diy.answer import AnswerError
from rabench.targets.diy.ap_answer import ap_prompt_text, parse_ap_answer


def _listed(text: str, key: str) -> list[str]:
    line = next(ln for ln in text.splitlines() if ln.startswith(f'- "{key}"'))
    return re.findall(r"[a-z_]+", line.split("only:", 1)[1]) if "only:" in line else []


def test_the_prompt_lists_exactly_the_contract_vocabulary():
    text = ap_prompt_text()
    assert _listed(text, "reason_codes") == list(REASON_CODES)
    assert _listed(text, "discrepancies") == list(DISCREPANCY_KINDS)
    assert all(f in text for f in FIELD_NAMES) and all(f'"{c}"' in text for c in OUTCOME_CLASSES)


GOOD = {
    "decision": "escalate fraud",
    "fields": {
        "total": {"value": "1.234,50", "evidence": {"doc": "invoice.pdf", "page": 1, "box": [0.6, 0.8, 0.9, 0.85]}},
        "invoice_date": "2026-03-02T00:00:00",
        "invoice_number": 12345,
        "vendor_name": "null",
    },
    "line_items": [{"description": "Bolts", "quantity": 2, "unit_price": "1,50", "total": "3,00"}, {"description": ""}],
    "reason_codes": ["bank_account_changed"],
    "discrepancies": [],
    "duplicate_links": [{"kind": "duplicate", "source": "invoice.pdf", "target": "LED-000001"}],
    "campaign_links": None,
    "probabilities": {"bank_fraud": 0.7, "safe": 0.3},
}


def test_an_answer_in_prose_and_fences_parses_with_the_receipt_rules():
    v = parse_ap_answer("Here you go:\n```json\n" + json.dumps(GOOD) + "\n```\nThanks")
    assert v.decision == "ESCALATE_FRAUD"
    assert v.fields["total"].value == 1234.5 and v.fields["total"].evidence.box == (0.6, 0.8, 0.9, 0.85)
    assert v.fields["invoice_date"].value == "2026-03-02" and v.fields["invoice_number"].value == "12345"
    assert v.fields["vendor_name"].value is None
    assert [(i.description, i.total) for i in v.line_items] == [("Bolts", 3.0)]
    assert v.duplicate_links[0].target == "LED-000001" and v.campaign_links == []
    assert v.probabilities == {"bank_fraud": 0.7, "safe": 0.3}


@pytest.mark.parametrize(
    "change",
    [
        {"decision": "APPROVE"},
        {"reason_codes": ["looks_fishy"]},
        {"probabilities": {"safe": 1.4}},
        {"fields": {"colour": "red"}},
        {"fields": {"total": {"value": "lots"}}},
        {"fields": {"total": {"value": 1, "evidence": {"doc": "invoice.pdf", "page": 1, "box": [0.9, 0.1, 0.2, 0.3]}}}},
        {"duplicate_links": [{"kind": "same", "source": "a", "target": "b"}]},
    ],
)
def test_anything_outside_the_contract_is_an_unreadable_answer(change):
    with pytest.raises(AnswerError):
        parse_ap_answer(json.dumps({**GOOD, **change}))


@pytest.mark.parametrize("wire", ["openai", "anthropic", "gemini"])
def test_every_invoice_page_is_attached_in_the_wires_own_shape(wire):
    import msgspec

    from rabench.targets.diy import wire_module
    from rabench.targets.diy.ap import more_images
    from rabench.targets.diy.config import provider_settings
    from rabench.contracts import TargetsConfig

    settings = provider_settings(wire, TargetsConfig())
    req = wire_module(settings.wire).build(settings, "k", "m", "PROMPT", "AAAA", "image/jpeg")
    more_images(req.body, "AAAA", "image/jpeg", [("BBBB", "image/png"), ("CCCC", "image/jpeg")])
    raw = msgspec.json.encode(req.body).decode()
    assert raw.index("AAAA") < raw.index("BBBB") < raw.index("CCCC") and raw.count("PROMPT") == 1
    assert "image/png" in raw and raw.count("image/jpeg") == 2
