"""Cash tendered less the change must be the total (``check.change_mismatch``): an opinion that
catches a forger who edits only the total, silent whenever the payment block is not clear (a split
tender, a tip after the total, cash rounding, a rounding row, change alone, a doubtful reading),
and never a proof. Small receipts the test writes (fast), and one rendered and read by the ``self``
target through real OCR."""

from __future__ import annotations

import asyncio

from rabench.engine import change_check
from rabench.engine import risk as risk_mod
from rabench.engine.change_check import SIGNAL, change_signal
from rabench.engine.extract import extract_fields, rows_from_text
from rabench.engine.extract.layout import Row, Segment
from rabench.engine.signals import Signal
from rabench.targets.base import CheckRequest

HEAD = "KEDAI RUNCIT MAJU SDN BHD\nDate: 12/03/2018 14:22\n"


def _signal(text: str) -> Signal | None:
    rows = rows_from_text(text)
    return change_signal(extract_fields(rows), rows)


def test_an_edited_total_is_an_opinion_with_the_numbers():
    # the till printed total 30.90 (cash 51.00, change 20.10); the forger made the total 38.90
    sig = _signal(HEAD + "TOTAL  RM 38.90\nCASH  RM 51.00\nCHANGE  RM 20.10\nTHANK YOU")
    assert sig is not None and sig.name == SIGNAL
    assert sig.kind == "opinion" and sig.proof_type is None and sig.fields == ("total",)
    for number in ("51.00", "20.10", "30.90", "38.90", "8.00"):
        assert number in sig.text, sig.text
    # a total edited down is caught too (the cash still covers it)
    assert _signal(HEAD + "TOTAL  RM 25.90\nCASH  RM 51.00\nCHANGE  RM 20.10") is not None


def test_other_languages_tender_and_change_words():
    assert _signal("CAFE CENTRAL GMBH\nDatum: 12.03.2024\nSUMME EUR  38,90\nBAR  51,00\nRÜCKGELD  20,10") is not None
    assert _signal("BAR LUNA SL\nFecha: 12/03/2024\nTOTAL  38,90\nEFECTIVO  51,00\nCAMBIO  20,10") is not None
    assert (
        _signal("CAFE DU PORT\nDate: 12/03/2024\nTOTAL TTC  38,90\nESPECES  51,00\nMONNAIE RENDUE  20,10") is not None
    )
    assert _signal(HEAD + "JUMLAH  RM 38.90\nTUNAI  RM 51.00\nBAKI  RM 20.10") is not None


def test_a_genuine_cash_receipt_is_silent():
    assert _signal(HEAD + "TOTAL  RM 30.90\nCASH  RM 51.00\nCHANGE  RM 20.10") is None
    # the amount paid printed again ("Paid 30.90") is no second payment
    assert _signal(HEAD + "TOTAL  30.90\nCASH TENDERED  51.00\nPAID  30.90\nCHANGE  20.10") is None
    assert (
        _signal("CAFE CENTRAL GMBH\nDatum: 12.03.2024\nSUMME EUR  30,90\nGEGEBEN BAR  51,00\nRÜCKGELD  20,10") is None
    )


def test_a_split_tender_is_silent():
    # 8.00 on a card (or a voucher) and 30.90 in cash paid the 38.90
    assert _signal(HEAD + "TOTAL  38.90\nVISA  8.00\nCASH  51.00\nCHANGE  20.10") is None
    assert _signal(HEAD + "TOTAL  38.90\nVOUCHER  8.00\nCASH  51.00\nCHANGE  20.10") is None
    assert _signal(HEAD + "TOTAL  38.90\nCASH  51.00\nCHANGE  20.10\nDEPOSIT PAID  8.00") is None
    assert _signal(HEAD + "TOTAL  38.90\nCASH  20.00\nCASH  31.00\nCHANGE  12.10") is None


def test_a_tip_written_after_the_total_is_silent():
    assert _signal("THE DINER\nDate: 03/12/2024\nTOTAL  30.90\nTIP  8.00\nCASH  51.00\nCHANGE  12.10") is None
    assert _signal("THE DINER\nDate: 03/12/2024\nTOTAL  30.90\nGRATUITY  8.00\nCASH  51.00\nCHANGE  12.10") is None


def test_cash_rounding_is_silent_and_a_rounding_row_too():
    # Swiss, Australian and Malaysian cash is paid in 0.05 steps, Swedish in whole kronor
    assert _signal("MIGROS AG\nMWST CHE-123.456.789\nTOTAL CHF  30.92\nBAR CHF  50.00\nRÜCKGELD CHF  19.10") is None
    assert _signal("WOOLWORTHS PTY LTD\nABN 88 000 014 675\nTOTAL AUD  30.92\nCASH  50.00\nCHANGE  19.10") is None
    assert _signal("ICA NARA\nMoms 12%\nATT BETALA SEK  30,40\nKONTANT  50,00\nVÄXEL  20,00") is None
    assert _signal(HEAD + "TOTAL  30.87\nROUNDING ADJ  0.03\nCASH  51.00\nCHANGE  20.10") is None
    # ... while a Swiss total edited by francs is still seen
    assert _signal("MIGROS AG\nMWST CHE-123.456.789\nTOTAL CHF  38.90\nBAR CHF  50.00\nRÜCKGELD CHF  19.10") is not None


def test_change_alone_is_silent_and_cash_short_of_the_total_is_seen_unless_a_card_paid_the_rest():
    assert _signal(HEAD + "TOTAL  38.90\nCHANGE  20.10") is None  # no amount tendered
    assert _signal(HEAD + "TOTAL  38.90\nCASH  51.00") is None  # no change row
    # a total inflated over what was paid exactly in cash: the commonest forgery (COVER_REQUIRED is off)
    short = _signal(HEAD + "TOTAL  38.90\nCASH  30.90\nCHANGE  0.00")
    assert short is not None and short.kind == "opinion" and "30.90" in short.text
    # ... but a card row the reader saw makes it a split tender: silent
    assert _signal(HEAD + "TOTAL  38.90\nCASH  30.90\nVISA  8.00\nCHANGE  0.00") is None
    try:
        change_check.COVER_REQUIRED = True
        assert _signal(HEAD + "TOTAL  38.90\nCASH  30.90\nCHANGE  0.00") is None
    finally:
        change_check.COVER_REQUIRED = False


def test_a_doubtful_reading_is_silent():
    def row(label: str, amount: str, conf: float = 0.99) -> Row:
        return Row(segments=(Segment(label, (10, 0, 200, 20), 0.99), Segment(amount, (400, 0, 480, 20), conf)))

    def sig(change_conf: float) -> Signal | None:
        rows = [
            Row(segments=(Segment("KEDAI RUNCIT MAJU SDN BHD", (10, 0, 400, 20), 0.99),)),
            row("TOTAL", "38.90"),
            row("CASH", "51.00"),
            row("CHANGE", "20.10", change_conf),
        ]
        rows = [
            Row(
                segments=tuple(
                    Segment(s.text, (s.box[0], 30 * i, s.box[2], 30 * i + 20), s.confidence) for s in r.segments
                ),
                index=i,
            )
            for i, r in enumerate(rows)
        ]
        return change_signal(extract_fields(rows, ocr=False), rows)

    assert sig(0.99) is not None
    assert sig(0.70) is None  # the change read with low confidence: "20.10" may be "28.10"
    # the difference is a discount printed above the total (the total read may be before it)
    assert _signal(HEAD + "SUBTOTAL  38.90\nMEMBER DISCOUNT  8.00\nTOTAL  38.90\nCASH  51.00\nCHANGE  20.10") is None
    # another total row shows what was paid: the reader may have taken the wrong one
    assert _signal(HEAD + "TOTAL  30.90\nTOTAL SALES  38.90\nCASH  51.00\nCHANGE  20.10") is None
    # an amount read only by mending OCR damage: look-alike letters, a letter run into the digits
    assert _signal(HEAD + "TOTAL  38.90\nCASH  5l.00\nCHANGE  20.10") is None
    assert _signal(HEAD + "TOTAL  38.90\nCASH  V51.00\nCHANGE  20.10") is None


def test_the_risk_fit_always_learns_its_weight():
    editor = Signal("file.editor", "file_fact", "saved by an editor")
    model = risk_mod.fit([[editor], []] * 5, [1, 0] * 5, min_count=1, split="dev")
    assert SIGNAL in model.features  # a feature even when it never fired in the fit's data
    fired = Signal(SIGNAL, "opinion", "tendered − change ≠ total", ("total",), value=1.0)
    assert risk_mod.risk(model, [fired]) < risk_mod.FLAG_LINE  # an opinion alone never flags


def test_end_to_end_an_edited_total_is_an_opinion_never_a_proof(self_target, render, tmp_path):
    rows = [
        ("Date: 12/03/2018 14:22", ""),
        ("", ""),
        ("TOTAL", "RM 38.90"),
        ("CASH", "RM 51.00"),
        ("CHANGE", "RM 20.10"),
        ("", ""),
        ("THANK YOU", ""),
    ]
    path = tmp_path / "edited.png"
    render(rows, title="KEDAI MAJU SDN BHD").save(path)
    req = CheckRequest(
        case_id="edited", original=path, media_type="image/png", prepared=path, prepared_media_type="image/png"
    )
    v = asyncio.run(self_target.check(req))
    assert v.fields.total == 38.90
    change = [r for r in v.reasons if "tendered 51.00" in r.text]
    assert change and change[0].kind == "opinion" and change[0].proof_type is None, [r.text for r in v.reasons]
    assert not [r for r in v.reasons if r.kind == "proof"]
    assert v.risk < risk_mod.PROOF_FLOOR


def test_corroborated_when_the_printed_amounts_add_up_to_what_was_paid():
    # subtotal 26.00 + tax 1.56 + rounding -0.01 = 27.55 = cash 27.55 - change 0.00; total made 47.55
    sig = _signal(
        HEAD + "Item A  20.00\nItem B  6.00\nSUB-TOTAL (EX)  26.00\nTOTAL TAX  1.56\n"
        "ROUNDING  -0.01\nTOTAL  47.55\nCASH  27.55\nCHANGE  0.00"
    )
    assert sig is not None and sig.corroborated and sig.kind == "opinion" and sig.proof_type is None
    assert "add up to what was paid, 27.55" in sig.text, sig.text
    # the printed amounts add up to neither: an opinion as before, not corroborated
    sig = _signal(
        HEAD + "Item A  20.00\nItem B  6.00\nSUB-TOTAL (EX)  26.00\nTOTAL TAX  1.56\n"
        "ROUNDING  -0.01\nTOTAL  47.55\nCASH  30.00\nCHANGE  0.45"
    )
    assert sig is not None and not sig.corroborated and "add up to what was paid" not in sig.text
    # no subtotal or items read at all: nothing to corroborate with
    sig = _signal(HEAD + "TOTAL  RM 38.90\nCASH  RM 51.00\nCHANGE  RM 20.10")
    assert sig is not None and not sig.corroborated


def test_a_corroborated_opinion_is_not_held_under_the_flag_line():
    unreconciled = Signal("check.totals_add_up", "opinion", "amounts could not be reconciled", ("total",))
    plain = Signal(SIGNAL, "opinion", "tendered − change ≠ total", ("total",), value=1.0)
    firm = Signal(
        SIGNAL,
        "opinion",
        "tendered − change ≠ total; the rest adds up to what was paid",
        ("total",),
        value=1.0,
        corroborated=True,
    )
    model = risk_mod.RiskModel(
        features=["kind:opinion", SIGNAL], coef=[1.5, 1.5], intercept=-1.0, n_cases=10, n_fakes=5
    )
    assert risk_mod.probability(model, [unreconciled, plain]) > risk_mod.FLAG_LINE
    assert risk_mod.risk(model, [unreconciled, plain]) < risk_mod.FLAG_LINE  # opinions alone: held
    p = risk_mod.probability(model, [unreconciled, firm])
    assert risk_mod.risk(model, [unreconciled, firm]) == round(p, 6) > risk_mod.FLAG_LINE
    # a model that does not reach the line stays under it: corroboration lifts no risk by itself
    low = msgspec_replace(model, intercept=-6.0)
    assert risk_mod.risk(low, [unreconciled, firm]) < risk_mod.FLAG_LINE


def msgspec_replace(model, **kw):
    import msgspec

    return msgspec.structs.replace(model, **kw)
