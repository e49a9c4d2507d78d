"""Synthetic beside real: pair each headline row of a target across the two tracks.

Why: a figure measured on receipts our own generator drew says how well a target
knows the generator; the real track says how much of it carries over. The report
shows both side by side and says in words where they disagree, with one rule for
"disagree", the project's rule for any two rows (``findings.compare``, see
docs/methodology.md "Synthetic vs real"): the two 95% intervals don't overlap
(latency and cost, which have no interval: at least 1.2x apart), never when
either side rests on fewer than 10 cases or calls. The two tracks are different
receipts (independent samples), so non-overlap is a conservative test of the
difference; with ~30 headline rows per target a looser 5% test per row would
mark one or two rows by chance in every report. Expected cost (a ratio metric
over cases, without an interval) is not marked: it follows the false-flag and
detection rows, which are.

A "track" here is a list of rows: the headline rows (stratum ``all``) of a suite
of one domain, or the ``domain=<d>`` stratum rows of a combined suite
(``domain_rows``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from rabench.contracts import Row
from rabench.score.findings import compare
from rabench.score.metrics import BY_KEY, ORDER
from rabench.score.rows import ALL, MIN_STRATUM

SYNTHETIC, REAL = "synthetic", "real"
DOMAIN = "domain"
Mark = Literal["worse", "better", "none"]

# How a few metrics read in a sentence; every other metric: its name with spaces.
_LABELS = {
    "roc_auc": "ROC AUC",
    "line_item_f1": "line-item F1",
    "all_fields_right": "all fields right",
}


@dataclass(frozen=True, slots=True)
class Pair:
    """One headline metric of one target on both tracks."""

    target: str
    task: str
    metric: str
    synthetic: Row | None
    real: Row | None
    mark: Mark  # "worse"/"better": real against synthetic, beyond the intervals
    reason: str  # why it is marked or not (the comparison rule's words)
    compared: bool  # the rule could decide: values, intervals (or a ratio) and >= 10 on both sides

    @property
    def gap(self) -> float | None:
        """real - synthetic, when both have a value."""
        s, r = self.synthetic, self.real
        if s is None or r is None or s.value is None or r.value is None:
            return None
        return r.value - s.value


def _decide(syn: Row | None, real: Row | None) -> tuple[Mark, str, bool]:
    if syn is None or real is None:
        return "none", f"no {'synthetic' if syn is None else 'real'} row", False
    if not syn.supported or not real.supported:
        return "none", "not supported", False
    if syn.value is None or real.value is None:
        return "none", "no value on one side", False
    meta = BY_KEY[(real.task, real.metric)]
    if meta.compare == "ratio" and meta.unit != "calls":
        # Expected cost has no interval of its own and follows the false-flag and detection
        # rates, whose intervals decide; a 1.2x ratio of it is not evidence of a difference.
        return "none", "no interval (see the false-flag and detection rows)", False
    decidable = (
        meta.compare != "none"
        and min(syn.n, real.n) >= MIN_STRATUM
        and (meta.compare == "ratio" or None not in (syn.lo, syn.hi, real.lo, real.hi))
    )
    result, reason = compare(real, syn)
    if result == "win":
        return "better", reason, True
    if result == "loss":
        return "worse", reason, True
    return "none", reason, decidable


def pair_tracks(synthetic: Iterable[Row], real: Iterable[Row]) -> list[Pair]:
    """Every (target, task, metric) headline row of either track, paired, in report order.

    Only rows of stratum ``all`` are paired; pass ``domain_rows(...)`` for a combined run.
    """
    syn = {(r.target, r.task, r.metric): r for r in synthetic if r.stratum == ALL}
    rea = {(r.target, r.task, r.metric): r for r in real if r.stratum == ALL}
    keys = [k for k in {**syn, **rea} if k[1:] in BY_KEY]
    keys.sort(key=lambda k: (k[0].startswith("diy:"), k[0], ORDER[k[1:]]))  # ours before baselines
    out = []
    for key in keys:
        s, r = syn.get(key), rea.get(key)
        mark, reason, decided = _decide(s, r)
        out.append(Pair(key[0], key[1], key[2], s, r, mark, reason, decided))
    return out


def domain_rows(rows: Iterable[Row], domain: str) -> list[Row]:
    """The ``domain=<domain>`` stratum rows of a scored run, relabelled as headline rows."""
    name = f"{DOMAIN}={domain}"
    return [msgspec.structs.replace(r, stratum=ALL) for r in rows if r.stratum == name]


def domains_in(rows: Iterable[Row]) -> set[str]:
    prefix = f"{DOMAIN}="
    return {r.stratum[len(prefix) :] for r in rows if r.stratum.startswith(prefix)}


_PATTERNS = (
    (re.compile(r"detection_at_ffr_(\d+)pct"), r"detection at \1% false-flag rate"),
    (re.compile(r"detection_at_risk_([\d.]+)"), r"detection at risk ≥ \1"),
    (re.compile(r"false_flag_rate_at_risk_([\d.]+)"), r"false-flag rate at risk ≥ \1"),
    (re.compile(r"expected_cost_per_1000_at_risk_([\d.]+)"), r"expected cost per 1,000 at risk ≥ \1"),
    (re.compile(r"latency_(p\d+)_s"), r"latency \1 (s)"),
    (re.compile(r"cost_per_check_usd"), r"cost per check (USD)"),
    (re.compile(r"model_cost_per_check_usd"), r"model cost per check (USD)"),
)


def label(task: str, metric: str) -> str:
    """'authenticity ROC AUC', 'authenticity detection at 5% false-flag rate', ..."""
    if metric in _LABELS:
        return f"{task} {_LABELS[metric]}"
    for pattern, words in _PATTERNS:
        if pattern.fullmatch(metric):
            return f"{task} {pattern.sub(words, metric)}"
    return f"{task} {metric.replace('_', ' ')}"


def _num(x: float | None) -> str:
    if x is None:
        return "–"
    if abs(x) < 1e-9:  # a Wilson bound of 0 successes comes out as 1e-18, not 0
        x = 0.0
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) > 1:
        return f"{x:.2f}"
    return f"{x:.3f}" if abs(x) >= 0.001 or x == 0 else f"{x:.2g}"


def figure(row: Row | None) -> str:
    """'0.920 [0.880, 0.950] (n=300)'; '–' when there is no value."""
    if row is None or not row.supported or row.value is None:
        return "–"
    text = _num(row.value)
    if row.lo is not None and row.hi is not None:
        text += f" [{_num(row.lo)}, {_num(row.hi)}]"
    return f"{text} (n={row.n})"


def gap_text(pair: Pair) -> str:
    gap = pair.gap
    if gap is None:
        return ""
    return ("+" if gap > 0 else "−" if gap < 0 else "±") + _num(abs(gap))


def sentence(pair: Pair) -> str:
    """The words for a marked pair; '' for an unmarked one."""
    if pair.mark == "none":
        return ""
    tail = (
        "the synthetic figure does not carry over"
        if pair.mark == "worse"
        else "real receipts score better than synthetic ones"
    )
    return (
        f"{pair.target}: {label(pair.task, pair.metric)} {figure(pair.synthetic)} on synthetic but "
        f"{figure(pair.real)} on real receipts — {tail} ({pair.reason})."
    )


def summary(pairs: Sequence[Pair]) -> list[tuple[Mark, str]]:
    """One line per target (how many rows could be compared, how many disagree), then a
    sentence per disagreeing row, worse-on-real first; each with its mark ("none" for
    the per-target line)."""
    lines: list[tuple[Mark, str]] = []
    for target in dict.fromkeys(p.target for p in pairs):
        mine = [p for p in pairs if p.target == target]
        compared = [p for p in mine if p.compared]
        marked = [p for p in mine if p.mark != "none"]
        undecided = len(mine) - len(compared)
        rest = (
            (f"; {undecided} not comparable: no value, no interval or fewer than 10 cases on a side")
            if undecided
            else ""
        )
        if not marked:
            lines.append(
                (
                    "none",
                    f"{target}: no headline row differs between synthetic and real "
                    f"beyond its intervals ({len(compared)} compared{rest}).",
                )
            )
            continue
        worse = sum(p.mark == "worse" for p in marked)
        lines.append(
            (
                "none",
                f"{target}: {len(marked)} of {len(compared)} compared headline rows "
                f"differ beyond their intervals ({worse} worse on real, "
                f"{len(marked) - worse} better){rest}.",
            )
        )
        lines += [(p.mark, sentence(p)) for p in sorted(marked, key=lambda p: p.mark != "worse")]
    return lines
