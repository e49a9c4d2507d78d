"""The ``self`` AP engine on bundles with real documents: each control fires on the scenario it
is for and stays quiet on the benign twin; check digits and look-alike domains by hand."""

from __future__ import annotations

import anyio
import pytest
from ap_bundles import iban, write_bundle_suite

from rabench.cases.ap.manifest import open_ap_suite
from rabench.engine.ap.controls import _lookalike, aba_ok, iban_ok
from rabench.engine.ap.engine import analyse_bundle
from rabench.engine.ap.reading import amount, parse_date
from rabench.run.ap_run import build_request
from rabench.prepare.cache import PrepCache


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    root = tmp_path_factory.mktemp("bundles")
    write_bundle_suite(root / "suite", n=7)
    cache = PrepCache(root / "cache")

    async def go():
        out = {}
        for lc in open_ap_suite(root / "suite"):
            req = await build_request(lc, 0, cache)
            out[lc.case.id] = (lc.case.label, await analyse_bundle(req))
        return out

    return anyio.run(go)


def test_each_scenario_gets_its_decision_and_its_codes(verdicts):
    for cid, (label, v) in verdicts.items():
        assert v.decision in label.acceptable, (cid, label.outcome, v.decision, v.reason_codes)
        assert set(label.reason_codes) <= set(v.reason_codes), (cid, label.outcome, v.reason_codes)
        assert {x.key() for x in label.duplicate_links} == {x.key() for x in v.duplicate_links}
        assert {x.key() for x in label.campaign_links} == {x.key() for x in v.campaign_links}
        assert set(label.discrepancies) == set(v.discrepancies), (cid, v.discrepancies)
        assert v.probabilities is not None and abs(sum(v.probabilities.values()) - 1) < 1e-9


def test_a_verified_bank_change_is_paid_an_unverified_one_escalated(verdicts):
    by_outcome = {lab.benign_twin or lab.outcome: v for lab, v in verdicts.values()}
    assert by_outcome[True].decision == "PAY" and "bank_change_unverified" not in by_outcome[True].reason_codes
    assert by_outcome["bank_fraud"].decision == "ESCALATE_FRAUD"
    assert by_outcome["safe"].decision == "PAY" and by_outcome["safe"].reason_codes == []


def test_fields_are_read_from_the_text_layer(verdicts):
    for label, v in verdicts.values():
        for name in ("invoice_number", "total", "bank_account", "invoice_date"):
            assert v.fields[name].value == label.fields[name].value, name


def test_check_digits_and_lookalikes():
    good = iban("DE", "370400440532013000")
    assert good == "DE89370400440532013000" and iban_ok(good)
    assert not iban_ok(good[:5] + good[6] + good[5] + good[7:])  # two digits swapped
    assert aba_ok("011000015") and not aba_ok("011000016")
    assert _lookalike("nordiicht4-de.com", "nordlicht4.de") and _lookalike("acrne-gmbh.de", "acme-gmbh.de")
    assert not _lookalike("acme-gmbh.de", "acme-gmbh.de") and not _lookalike("zeta-logistics.fr", "acme-gmbh.de")


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.234,50", 1234.5), ("1,234.50", 1234.5), ("EUR 285.00", 285.0), ("1 234,50 €", 1234.5), ("no amount", None)],
)
def test_amounts(text, value):
    assert amount(text) == value


def test_dates():
    assert parse_date("02.03.2026") == "2026-03-02" and parse_date("2026-03-02") == "2026-03-02"
    assert parse_date("03/02/2026", us=True) == "2026-03-02"
