"""The verdict a report opens with: per pair of targets, who wins on what, in sentences.

Generated from the headline rows (stratum "all") with the findings' own rule
(``rabench.score.findings.compare``: a win or loss only when the 95% intervals
don't overlap, latency and cost at least 1.2x apart, never on fewer than 10
cases), so a sentence never claims more than the findings table. Pairs: the
findings' own pairs, the reference target (rows.json header ``reference``: ``--reference``,
else the first ``self`` target, else the first target named) against every other
target (DIY baselines, the ``null`` floor, the ``meta`` baseline). Key rows get a sentence with both values and intervals; every other
headline row is named in one line by its result. Then the money line: each
target's expected cost per 1,000 receipts against approving everything, with
the default assumptions, and whether it loses money.

Text uses backticks around target ids; ``to_html`` turns them into <code>.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rabench.contracts import Row
from rabench.report.style import money, num, pct
from rabench.score.findings import compare, pick_reference

# (task, metric) -> (phrase with {v}, the short phrase for the second target, how the value
# is printed), in reading order.
KEY_ROWS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("authenticity", "detection_at_ffr_5pct"): ("flags {v} of fakes at a 5% false-flag rate", "flags {v}", "pct"),
    ("authenticity", "roc_auc"): ("has ROC AUC {v}", "{v}", "num"),
    ("authenticity", "false_flag_rate_at_risk_0.5"): ("flags {v} of genuine receipts at risk ≥ 0.5", "{v}", "pct"),
    ("extraction", "all_fields_right"): ("reads every field right on {v} of receipts", "on {v}", "pct"),
    ("checks", "totals_add_up_recall"): ("catches {v} of receipts whose totals don't add up", "{v}", "pct"),
    ("duplicates", "recall"): ("recognises {v} of resubmitted receipts", "{v}", "pct"),
    ("evidence", "fakes_caught_with_proof"): ("backs {v} of fakes with a verifiable proof", "{v}", "pct"),
    ("evidence", "genuine_with_proof"): ("claims a proof on {v} of genuine receipts", "on {v}", "pct"),
    ("operations", "cost_per_check_usd"): ("costs {v} a check", "{v}", "money"),
    ("operations", "latency_p50_s"): ("answers in {v} (median)", "in {v}", "seconds"),
}
COST = "expected_cost_per_1000_at_risk_{}"
APPROVE = "expected_cost_per_1000_approve_everything"
THRESHOLDS = ("0.5", "0.7")
WHAT = {
    "self": "our engine, in process",
    "null": "answers nothing: the floor every detector has to beat",
    "other": "a simple baseline",
}


@dataclass
class Sentence:
    text: str
    result: str  # win | loss | tie | not_supported (from the first target's side)


@dataclass
class PairVerdict:
    ours: str
    other: str
    sentences: list[Sentence] = field(default_factory=list)
    rest: str = ""  # the other headline rows in one line
    tally: dict[str, int] = field(default_factory=dict)


@dataclass
class Verdict:
    who: list[str]  # one line per target: what it is
    pairs: list[PairVerdict]
    money: list[Sentence]  # result "loss" when the target loses money against approve-everything
    money_head: str = ""


def _value(row: Row, how: str) -> str:
    if not row.supported:
        return "not supported"
    if how == "pct":
        return pct(row.value, row.lo, row.hi)
    if how == "num":
        return num(row.value, row.lo, row.hi)
    if how == "money":
        return money(row.value)
    if row.value is None:
        return "unknown"
    return f"{row.value:.3g} s"


def _describe(info: Mapping[str, Any]) -> str:
    kind = info.get("kind", "other")
    if kind == "diy":
        return f"`{info['id']}`: {info.get('model', '?')} asked one plain prompt through {info.get('provider', '?')}"
    if info["id"] == "meta" or str(info["id"]).startswith("meta:"):
        return (
            f"`{info['id']}`: metadata-only rules (file tags and PDF revisions; no OCR, no pixels; "
            "docs/running.md), a baseline that needs no key"
        )
    return f"`{info['id']}`: {WHAT.get(kind, WHAT['other'])}"


def _as_rows(rows: Sequence[Any]) -> list[Row]:
    return [r if isinstance(r, Row) else msgspec.convert(r, Row) for r in rows]


def _pair(ours: str, other: str, head: dict[tuple[str, str, str], Row], keys: list[tuple[str, str]]) -> PairVerdict:
    pv = PairVerdict(ours, other)
    better, worse, ties, ns = [], [], [], []
    for task, metric in keys:
        a, b = head.get((ours, task, metric)), head.get((other, task, metric))
        if a is None or b is None:
            continue
        result, reason = compare(a, b)
        if not a.supported and not b.supported:
            continue
        pv.tally[result] = pv.tally.get(result, 0) + 1
        if (task, metric) in KEY_ROWS:
            phrase, short, how = KEY_ROWS[(task, metric)]
            left = _side(ours, a, phrase, how)
            right = _side(other, b, short, how)
            if result == "win":
                end = f"`{ours}` wins ({reason})"
            elif result == "loss":
                end = f"`{other}` wins ({reason})"
            elif result == "not_supported":
                end = "not comparable"
            else:
                end = f"no clear winner ({reason})"
            pv.sentences.append(Sentence(f"{left}; {right}: {end}.", result))
        else:
            {"win": better, "loss": worse, "tie": ties, "not_supported": ns}[result].append(metric)
    parts = []
    if better:
        parts.append(f"`{ours}` is better on " + ", ".join(better))
    if worse:
        parts.append(f"`{other}` is better on " + ", ".join(worse))
    if ties:
        parts.append(f"no clear difference on {len(ties)} more")
    if ns:
        parts.append(f"{len(ns)} not comparable (one side doesn't do the task)")
    if parts:
        pv.rest = "Other headline rows: " + "; ".join(parts) + "."
    return pv


def _side(target: str, row: Row, phrase: str, how: str) -> str:
    if not row.supported:
        return f"`{target}` does not do this (not supported)"
    if how == "money" and row.value is None:
        return f"`{target}`'s cost per check is unknown"
    return f"`{target}` " + phrase.format(v=_value(row, how))


def _money(head: dict[tuple[str, str, str], Row], targets: list[str]) -> tuple[str, list[Sentence]]:
    approve = next(
        (r.value for (t, task, m), r in head.items() if task == "decisions" and m == APPROVE and r.value is not None),
        None,
    )
    if approve is None:
        return "", []
    lead = (
        f"Money (default assumptions: 1% of receipts fake, a missed fake costs $100, a review $17; "
        f"no interval): approving everything costs {money(approve)} per 1,000 receipts."
    )
    out = []
    for t in targets:
        bits = []
        loses = False
        for th in THRESHOLDS:
            row = head.get((t, "decisions", COST.format(th)))
            if row is None:
                continue
            if row.value is None or not row.supported:
                bits.append(f"flagging at risk ≥ {th} costs unknown")
                continue
            diff = row.value - approve
            if diff > 0:
                loses = loses or th == "0.5"
                bits.append(
                    f"flagging at risk ≥ {th} costs {money(row.value)}, {money(diff)} more than "
                    "approving everything: it loses money there"
                )
            elif diff < 0:
                bits.append(f"flagging at risk ≥ {th} costs {money(row.value)}, saving {money(-diff)}")
            else:
                bits.append(f"flagging at risk ≥ {th} costs {money(row.value)}, the same as approving everything")
        if bits:
            out.append(Sentence(f"`{t}`: " + "; ".join(bits) + ".", "loss" if loses else "win"))
    return lead, out


def build(
    rows: Sequence[Any], targets: Sequence[Any], reference: str | None = None, named: Sequence[str] = ()
) -> Verdict:
    """The verdict from rows.json's rows and header targets (dicts or structs); ``reference``
    and ``named`` from the header (the findings' reference and the run's target order)."""
    rows_ = _as_rows(rows)
    infos = [t if isinstance(t, Mapping) else msgspec.to_builtins(t) for t in targets]
    head = {(r.target, r.task, r.metric): r for r in rows_ if r.stratum == "all"}
    ids = [t["id"] for t in infos] or list(dict.fromkeys(r.target for r in rows_))
    if named and set(named) == set(ids):
        ids = list(named)
    ref = pick_reference(ids, {t["id"]: t.get("kind", "") for t in infos}, reference)
    ours = [ref] if ref is not None else []
    keys = list(dict.fromkeys((r.task, r.metric) for r in rows_ if r.stratum == "all"))
    keys.sort(key=lambda k: list(KEY_ROWS).index(k) if k in KEY_ROWS else len(KEY_ROWS))
    pairs = [_pair(a, b, head, keys) for a in ours for b in ids if b != a]
    lead, money_lines = _money(head, ids)
    return Verdict(who=[_describe(t) for t in infos], pairs=pairs, money=money_lines, money_head=lead)


def to_markdown(v: Verdict) -> list[str]:
    lines = ["## Verdict", ""]
    lines += [f"- {w}" for w in v.who] + [""]
    if not v.pairs:
        lines += [
            "Only one target ran: nothing to compare it with. Add `null` or `meta` (no key needed) or a DIY target.",
            "",
        ]
    for p in v.pairs:
        tally = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(p.tally.items()))
        lines += [f"### `{p.ours}` vs `{p.other}` ({tally})", ""]
        lines += [f"- {s.text}" for s in p.sentences]
        if p.rest:
            lines.append(f"- {p.rest}")
        lines.append("")
    if v.money_head:
        lines += [v.money_head, ""] + [f"- {s.text}" for s in v.money] + [""]
    lines += [
        "A win or loss only when the 95% intervals don't overlap (latency and cost: at least 1.2x "
        "apart), never on fewer than 10 cases; details in the tables below and docs/methodology.md.",
        "",
    ]
    return lines


_TICKS = re.compile(r"`([^`]+)`")


def to_html(text: str) -> str:
    return _TICKS.sub(lambda m: f"<code>{m.group(1)}</code>", html.escape(text, quote=False))
