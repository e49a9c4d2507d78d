"""The verdict sentences, honest numbers, the ROC with ties and colours that never move."""

import re
import subprocess
import sys

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from rabench.contracts import Row
from rabench.report import charts, verdict
from rabench.report.html import scenario_label
from rabench.report.style import FIXED, PALETTE, num, pct, target_colour
from rabench.score.details import roc_points

GPT = "diy:gateway:openai/gpt-5"


def _mann_whitney(scores, fake):
    """P(score of a fake > score of a genuine) + half the ties, by brute force."""
    pos, neg = scores[fake], scores[~fake]
    gt = (pos[:, None] > neg[None, :]).sum()
    eq = (pos[:, None] == neg[None, :]).sum()
    return (gt + 0.5 * eq) / (len(pos) * len(neg))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_area_under_the_drawn_roc_is_the_auc_with_ties_counted_half(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random(400), 1)  # eleven values: many ties
    fake = rng.random(400) < 0.35
    fpr, tpr = roc_points(scores, fake, np.ones(400))
    area = charts.curve_area(fpr, tpr)
    assert area == pytest.approx(roc_auc_score(fake, scores), abs=1e-5)
    assert area == pytest.approx(_mann_whitney(scores, fake), abs=1e-5)
    w = rng.choice([0.5, 1.0], 400)  # weighted (a case's runs share its weight)
    fpr, tpr = roc_points(scores, fake, w)
    assert charts.curve_area(fpr, tpr) == pytest.approx(roc_auc_score(fake, scores, sample_weight=w), abs=1e-5)


def test_a_target_giving_everyone_the_same_risk_is_the_chance_diagonal():
    fake = np.array([True, False] * 50)
    fpr, tpr = roc_points(np.full(100, 0.5), fake, np.ones(100))
    assert (fpr, tpr) == ([0.0, 1.0], [0.0, 1.0])  # one straight segment, not a step along the edges
    assert charts.curve_area(fpr, tpr) == 0.5
    svg = charts.roc_chart({"null": (fpr, tpr, "0.500 [0.500, 0.500]")})
    assert "null (AUC 0.500 [0.500, 0.500])" in svg


def test_colours_are_fixed_per_target_id_everywhere():
    assert target_colour("self") == FIXED["self"] and target_colour("null") == FIXED["null"]
    assert target_colour("null:slow=0.1") == FIXED["null"]
    assert target_colour(GPT) in PALETTE and target_colour(GPT) not in FIXED.values()
    # Not Python's salted hash: another process with another hash seed gives the same colour.
    code = f"from rabench.report.style import target_colour; print(target_colour({GPT!r}))"
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
        ).stdout.strip()
        assert out == target_colour(GPT)
    # The same colour in a chart whatever the order or company of the targets.
    a = charts.roc_chart({"self": ([0, 1], [0, 1], None), GPT: ([0, 0.5, 1], [0, 0.8, 1], None)})
    b = charts.roc_chart({GPT: ([0, 0.5, 1], [0, 0.8, 1], None)})
    colour = target_colour(GPT)
    assert colour in a and colour in b and FIXED["self"] in a and FIXED["self"] not in b


@pytest.mark.parametrize(
    "value,lo,hi",
    [
        (0.998, 0.9951, 1.0),
        (0.7123, 0.6349, 0.7801),
        (0.5, 0.5, 0.5),
        (0.0, 0.0, 0.0191),
        (1.0, 0.986, 1.0),
        (0.42, 0.43, 0.61),  # a percentile interval that misses its own estimate
    ],
)
def test_a_printed_value_is_never_outside_its_printed_interval(value, lo, hi):
    for text, scale in ((num(value, lo, hi), 1.0), (pct(value, lo, hi), 100.0)):
        v, a, b = (float(x) for x in re.findall(r"[\d.]+", text))
        assert a <= v <= b, text
        assert a <= lo * scale + 1e-9 and b >= hi * scale - 1e-9, text  # rounded outward
    assert num(0.998, 0.9951, 1.0) == "0.998 [0.995, 1.000]"


def _row(target, task, metric, value, lo=None, hi=None, n=200, supported=True, stratum="all"):
    return Row(
        task=task,
        metric=metric,
        stratum=stratum,
        target=target,
        value=value,
        n=n,
        lo=lo,
        hi=hi,
        interval="wilson" if lo is not None else "none",
        supported=supported,
    )


def test_verdict_sentences_say_who_wins_with_intervals_and_the_money_line():
    rows = [
        _row("self", "authenticity", "detection_at_ffr_5pct", 0.71, 0.63, 0.78),
        _row(GPT, "authenticity", "detection_at_ffr_5pct", 0.52, 0.44, 0.60),
        _row("self", "authenticity", "roc_auc", 0.90, 0.86, 0.93),
        _row(GPT, "authenticity", "roc_auc", 0.88, 0.84, 0.92),
        _row("self", "evidence", "fakes_caught_with_proof", 0.40, 0.33, 0.47),
        _row(GPT, "evidence", "fakes_caught_with_proof", None, supported=False),
        _row("self", "extraction", "merchant_accuracy", 0.95, 0.92, 0.97),
        _row(GPT, "extraction", "merchant_accuracy", 0.80, 0.75, 0.85),
        _row("self", "decisions", "expected_cost_per_1000_at_risk_0.5", 2008.0),
        _row(GPT, "decisions", "expected_cost_per_1000_at_risk_0.5", 640.0),
        _row("self", "decisions", "expected_cost_per_1000_approve_everything", 1000.0, n=0),
        _row(GPT, "decisions", "expected_cost_per_1000_approve_everything", 1000.0, n=0),
    ]
    targets = [
        {"id": GPT, "kind": "diy", "provider": "gateway", "model": "openai/gpt-5"},
        {"id": "self", "kind": "self"},
    ]
    v = verdict.build(rows, targets)
    assert [(p.ours, p.other) for p in v.pairs] == [("self", GPT)]
    texts = [s.text for s in v.pairs[0].sentences]
    assert texts[0] == (
        f"`self` flags 71% [63, 78] of fakes at a 5% false-flag rate; `{GPT}` flags 52% "
        f"[44, 60]: `self` wins (95% intervals don't overlap)."
    )
    assert texts[1].endswith("no clear winner (95% intervals overlap).")
    assert f"`{GPT}` does not do this (not supported): not comparable." in texts[2]
    assert v.pairs[0].rest == (
        "Other headline rows: `self` is better on merchant_accuracy; "
        f"`{GPT}` is better on expected_cost_per_1000_at_risk_0.5; "
        "no clear difference on 1 more."
    )
    assert "approving everything costs $1,000 per 1,000 receipts" in v.money_head
    money = {s.text.split("`")[1]: s for s in v.money}
    assert (
        money["self"].result == "loss"
        and "$2,008, $1,008 more than approving everything: it loses money" in money["self"].text
    )
    assert money[GPT].result == "win" and "$640, saving $360" in money[GPT].text
    md = "\n".join(verdict.to_markdown(v))
    assert md.startswith("## Verdict") and f"### `self` vs `{GPT}`" in md


def test_a_report_of_one_target_says_there_is_nothing_to_compare():
    v = verdict.build([_row("self", "authenticity", "roc_auc", 0.9, 0.8, 0.95)], [{"id": "self", "kind": "self"}])
    assert v.pairs == [] and "nothing to compare" in "\n".join(verdict.to_markdown(v))


def test_cost_chart_writes_unknown_and_zero_and_names_the_default_scenario():
    assert scenario_label("all") == "default: p=0.01, C_miss=$100, C_review=$17"
    assert scenario_label("assumption=c_miss=182") == "c_miss=$182 (rest default)"
    svg = charts.cost_sweep_chart(
        ["default", "p=0.05 (rest default)"],
        {"self at risk ≥ 0.5": [0.0, 120.0], "null at risk ≥ 0.5": [None, 50.0]},
        [1000.0, 5000.0],
    )
    assert "unknown" in svg and "$0" in svg and "approve everything" in svg


def test_console_headline_keeps_names_whole_and_values_inside_intervals():
    from rabench.report.console import headline_table

    long_metric = "expected_cost_per_1000_approve_everything"
    rows = [
        _row(GPT, "authenticity", "roc_auc", 0.998, 0.9951, 1.0),
        _row("self", "authenticity", "roc_auc", 0.9, 0.85, 0.94),
        _row("self", "decisions", long_metric, 1000.0, n=0),
        _row("self", "authenticity", "roc_auc", 0.5, 0.4, 0.6, stratum="capture=photo"),
    ]
    text = headline_table(rows)
    assert GPT in text.splitlines()[0] and long_metric in text
    assert "0.998 [0.995, 1.000]" in text and "0.500" not in text  # only stratum "all"
    for v, a, b in re.findall(r"(\d\.\d+) \[(\d\.\d+), (\d\.\d+)\]", text):
        assert float(a) <= float(v) <= float(b)


@pytest.mark.parametrize("command", ["report", "compare", "bench", "score"])
def test_help_prints_a_plain_percent(command, capsys):
    from rabench.cli.main import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out


def test_a_thumbnail_that_makes_pillow_warn_stays_quiet(tmp_path, monkeypatch, recwarn):
    import warnings

    from PIL import Image

    from rabench.report.casedata import thumb

    path = tmp_path / "big.jpg"
    Image.new("RGB", (60, 120), "white").save(path)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 4000)  # 7,200 px: a DecompressionBombWarning
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        Image.open(path)
    assert any(issubclass(w.category, Image.DecompressionBombWarning) for w in seen)  # it does warn
    uri = thumb(path, "image/jpeg")
    assert uri and uri.startswith("data:image/jpeg;base64,")
    assert not [w for w in recwarn.list if "PIL" in (w.filename or "") or "Decompression" in str(w.message)]
