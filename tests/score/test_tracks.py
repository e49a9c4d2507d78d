"""Synthetic beside real: pairing, the disagreement rule and the sentences, on small row sets."""

from __future__ import annotations

from rabench.contracts import Row
from rabench.score.tracks import domain_rows, domains_in, pair_tracks, summary


def auc(target: str, value: float, lo: float, hi: float, n: int = 300, stratum: str = "all") -> Row:
    return Row(
        task="authenticity",
        metric="roc_auc",
        stratum=stratum,
        target=target,
        value=value,
        n=n,
        lo=lo,
        hi=hi,
        interval="bootstrap",
    )


def rate(
    metric: str, value: float, lo: float, hi: float, n: int = 200, task: str = "evidence", target: str = "self"
) -> Row:
    return Row(
        task=task, metric=metric, stratum="all", target=target, value=value, n=n, lo=lo, hi=hi, interval="wilson"
    )


def test_auc_far_apart_is_marked_worse_with_the_sentence():
    pairs = pair_tracks([auc("self", 0.92, 0.88, 0.95)], [auc("self", 0.71, 0.63, 0.78, n=250)])
    assert [(p.metric, p.mark) for p in pairs] == [("roc_auc", "worse")]
    assert abs(pairs[0].gap - (0.71 - 0.92)) < 1e-12
    lines = summary(pairs)
    assert lines[0] == (
        "none",
        "self: 1 of 1 compared headline rows differ beyond their intervals (1 worse on real, 0 better).",
    )
    assert lines[1] == (
        "worse",
        "self: authenticity ROC AUC 0.920 [0.880, 0.950] (n=300) on synthetic but "
        "0.710 [0.630, 0.780] (n=250) on real receipts — the synthetic figure "
        "does not carry over (95% intervals don't overlap).",
    )


def test_overlapping_intervals_are_not_marked_even_with_a_visible_gap():
    pairs = pair_tracks([auc("self", 0.90, 0.85, 0.94)], [auc("self", 0.82, 0.74, 0.88)])
    assert pairs[0].mark == "none" and pairs[0].compared and pairs[0].reason == "95% intervals overlap"
    assert summary(pairs) == [
        ("none", "self: no headline row differs between synthetic and real beyond its intervals (1 compared).")
    ]


def test_touching_intervals_overlap():
    pairs = pair_tracks([auc("self", 0.90, 0.80, 0.95)], [auc("self", 0.70, 0.60, 0.80)])
    assert pairs[0].mark == "none"


def test_lower_is_better_metric_reads_the_direction_from_the_metric():
    # More proofs on genuine receipts is worse, even though the number went up.
    syn = rate("genuine_with_proof", 0.01, 0.004, 0.03)
    real = rate("genuine_with_proof", 0.40, 0.33, 0.47, n=120)
    caught_syn = rate("fakes_caught_with_proof", 0.30, 0.24, 0.37)
    caught_real = rate("fakes_caught_with_proof", 0.60, 0.52, 0.67)
    pairs = {p.metric: p for p in pair_tracks([syn, caught_syn], [real, caught_real])}
    assert pairs["genuine_with_proof"].mark == "worse"
    assert pairs["fakes_caught_with_proof"].mark == "better"
    marks = [m for m, _ in summary(list(pairs.values()))]
    assert marks == ["none", "worse", "better"]  # the worse-on-real sentence comes first


def test_too_few_cases_or_no_value_is_never_marked_and_is_counted_as_not_compared():
    syn = [auc("self", 0.95, 0.93, 0.97), rate("edited_field_named", 0.9, 0.85, 0.93)]
    real = [
        auc("self", 0.40, 0.10, 0.70, n=8),
        Row(
            task="evidence",
            metric="edited_field_named",
            stratum="all",
            target="self",
            value=None,
            n=0,
            interval="wilson",
            note="no cases",
        ),
    ]
    pairs = pair_tracks(syn, real)
    assert [p.mark for p in pairs] == ["none", "none"]
    assert not any(p.compared for p in pairs)
    assert pairs[0].reason == "fewer than 10 cases on one side"
    assert "(0 compared; 2 not comparable: no value" in summary(pairs)[0][1]


def test_latency_uses_the_ratio_rule():
    def lat(v: float) -> Row:
        return Row(task="operations", metric="latency_p50_s", stratum="all", target="self", value=v, n=400)

    assert pair_tracks([lat(1.0)], [lat(1.1)])[0].mark == "none"
    assert pair_tracks([lat(1.0)], [lat(1.5)])[0].mark == "worse"


def test_every_headline_row_of_either_track_appears_once_per_target():
    syn = [
        auc("self", 0.9, 0.85, 0.94),
        auc("diy:x:y", 0.8, 0.7, 0.88),
        auc("self", 0.5, 0.3, 0.7, stratum="class=ai_full"),
    ]
    real = [auc("self", 0.88, 0.8, 0.93), rate("genuine_with_proof", 0.1, 0.05, 0.2)]
    pairs = pair_tracks(syn, real)
    keys = [(p.target, p.task, p.metric) for p in pairs]
    assert keys == [
        ("self", "authenticity", "roc_auc"),
        ("self", "evidence", "genuine_with_proof"),
        ("diy:x:y", "authenticity", "roc_auc"),
    ]  # ours first, then the baselines
    assert pairs[2].real is None and pairs[2].reason == "no real row"
    assert pairs[1].synthetic is None and pairs[1].reason == "no synthetic row"


def test_a_combined_run_splits_into_tracks_by_its_domain_strata():
    rows = [
        auc("self", 0.9, 0.85, 0.94),
        auc("self", 0.93, 0.9, 0.96, stratum="domain=synthetic"),
        auc("self", 0.6, 0.5, 0.7, stratum="domain=real"),
    ]
    assert domains_in(rows) == {"synthetic", "real"}
    pairs = pair_tracks(domain_rows(rows, "synthetic"), domain_rows(rows, "real"))
    assert [(p.synthetic.value, p.real.value, p.mark) for p in pairs] == [(0.93, 0.6, "worse")]


def _suite(root, meta: dict, tags: list[dict[str, str]]):
    import msgspec

    from rabench.contracts import Authenticity, Case, ReceiptLabel, SuiteHeader

    root.mkdir(parents=True)
    lines = [msgspec.json.encode(SuiteHeader(suite="receipt", name="t", meta=meta))]
    for i, t in enumerate(tags):
        label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=float(i))
        lines.append(
            msgspec.json.encode(
                Case(id=f"c{i}", file=f"c{i}.jpg", sha256="0" * 64, media_type="image/jpeg", label=label, tags=t)
            )
        )
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return str(root)


def test_a_suite_without_domain_tags_takes_its_domain_from_where_it_came_from(tmp_path):
    from rabench.score.load import load_cases
    from rabench.score.strata import tag_masks

    generated, _, _ = load_cases(_suite(tmp_path / "g", {"generator": "rabench-synth 1.0"}, [{}] * 3))
    assert {k: list(v) for k, v in tag_masks(generated).items()} == {"domain=synthetic": [True] * 3}
    # Imported receipts are real unless a case says otherwise (its own tag wins).
    imported, _, _ = load_cases(
        _suite(tmp_path / "i", {"importer": "x"}, [{}, {"domain": "synthetic", "capture": "scan"}])
    )
    masks = {k: list(v) for k, v in tag_masks(imported).items()}
    assert masks == {"capture=scan": [False, True], "domain=real": [True, False], "domain=synthetic": [False, True]}
    unknown, _, _ = load_cases(_suite(tmp_path / "u", {}, [{}]))
    assert tag_masks(unknown) == {}


def test_expected_cost_is_never_marked_on_its_ratio_alone():
    def cost(v: float) -> Row:
        return Row(
            task="decisions", metric="expected_cost_per_1000_at_risk_0.5", stratum="all", target="self", value=v, n=300
        )

    pair = pair_tracks([cost(2540.0)], [cost(1722.0)])[0]
    assert pair.mark == "none" and not pair.compared and "false-flag" in pair.reason


def test_a_suite_made_from_another_takes_its_domain():
    from rabench.score.load import suite_domain

    assert suite_domain({"forged": {"seed": 1}, "from_meta": {"importer": "rabench.cases.importers.sroie"}}) == "real"
    assert suite_domain({"forged": {"seed": 1}, "from_meta": {"generator": "rabench-synth 1.0"}}) == "synthetic"
    assert suite_domain({"forged": {"seed": 1}, "from_meta": {}}) is None
