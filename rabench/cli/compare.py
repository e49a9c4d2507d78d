"""``rabench compare runs/A runs/B``: which rows of the same target moved beyond their intervals;
with ``--domains``, where a target's synthetic and real figures disagree."""

from __future__ import annotations

import argparse
from pathlib import Path

from rabench.errors import UserError


def _fmt(row) -> str:
    from rabench.report.style import num

    if row.value is None:
        return "–"
    if row.lo is not None and row.hi is not None:  # rounded outward: the value inside its interval
        return f"{num(row.value, row.lo, row.hi)} n={row.n}"
    return f"{row.value:.4g} n={row.n}"


MAX_CASES = 20  # changed cases printed per target (all of them in --html)


def _print_changed(c) -> None:
    from collections import Counter

    print(f"\ncases whose decision changed (flagged in most answered runs, or not; {c.cases} cases per target):")
    for t in c.targets:
        mine = [x for x in c.changed if x.target == t]
        counts = Counter(x.now for x in mine)
        print(
            f"{t}: {len(mine)} changed"
            + (" (" + ", ".join(f"{n} {k}" for k, n in counts.items()) + ")" if mine else "")
        )
        for x in mine[:MAX_CASES]:
            rb = "–" if x.risk_before is None else f"{x.risk_before:.2f}"
            ra = "–" if x.risk_after is None else f"{x.risk_after:.2f}"
            print(f"  {x.now:<13} {x.case_id}  {x.label}: {x.before} (risk {rb}) -> {x.after} (risk {ra})")
        if len(mine) > MAX_CASES:
            print(f"  ... {len(mine) - MAX_CASES} more (--html FILE lists them all)")


def _domains(args: argparse.Namespace) -> int:
    from rabench.score.compare import compare_domains
    from rabench.score.tracks import figure, gap_text, summary

    pairs = compare_domains([args.run_a] + ([args.run_b] if args.run_b else []))
    for _, line in summary(pairs):
        print(line)
    print()
    for p in pairs:
        mark = {"worse": "worse on real", "better": "better on real"}.get(p.mark, p.reason)
        print(
            f"{p.target}  {p.task}/{p.metric}: synthetic {figure(p.synthetic)} | real {figure(p.real)}"
            f"{'  gap ' + gap_text(p) if p.gap is not None else ''}  ({mark})"
        )
    return 1 if args.fail_on_worse and any(p.mark == "worse" for p in pairs) else 0


def _run(args: argparse.Namespace) -> int:
    from rabench.score.compare import compare

    if args.domains:
        return _domains(args)
    if not args.run_b:
        raise UserError("give two runs to compare (or one run with --domains)")
    c = compare(args.run_a, args.run_b, strata=args.strata)
    moved = c.moved
    print(
        f"{c.compared} rows compared, {len(moved)} moved beyond their intervals "
        f"({sum(m.direction == 'better' for m in moved)} better, "
        f"{sum(m.direction == 'worse' for m in moved)} worse)"
    )
    for m in moved:
        print(
            f"{m.direction:<6} {m.target}  {m.task}/{m.metric} [{m.stratum}]: "
            f"{_fmt(m.before)} -> {_fmt(m.after)} ({m.reason})"
        )
    _print_changed(c)
    if args.html:
        from rabench.report.compare_html import render

        Path(args.html).write_text(render(c, args.run_a, args.run_b), encoding="utf-8")
        print(f"\ncomparison page: {args.html}")
    return 1 if args.fail_on_worse and gate_fails(moved, include_latency=args.include_latency) else 0


def gate_fails(moved, *, include_latency: bool) -> bool:
    """--fail-on-worse: a row got worse beyond its interval. Latency and cost have no interval
    (their rule is "1.2x apart", which loopback noise passes), so they count only when asked."""
    from rabench.score.metrics import BY_KEY

    return any(
        m.direction == "worse" and (include_latency or BY_KEY[(m.task, m.metric)].compare != "ratio") for m in moved
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="Same target, two runs (or synthetic vs real): which rows moved beyond their 95%% intervals.",
        description=(
            "Score RUN_A and RUN_B (runs of one suite) and list, for every target in both, the "
            "headline rows whose value moved beyond what the intervals allow: the 95% intervals "
            "don't overlap (latency and cost: at least 1.2x apart), never on fewer than 10 cases "
            "or calls; then the cases whose decision changed (flagged in most of the target's "
            "answered runs, or not), now right or now wrong against the label. --html FILE writes "
            "both as one self-contained page with the receipts. Use it to compare engine versions "
            "or prompt versions. With --domains, compare "
            "synthetic with real receipts instead, by the same rule: the domain=synthetic and "
            "domain=real strata of one combined run, or of two runs of different suites (e.g. "
            "runs/ID-self and runs/ID-real-self of `rabench bench --real`); a case without a "
            "domain tag takes its suite's (generated: synthetic, imported: real)."
        ),
    )
    p.add_argument("run_a", metavar="RUN_A", help="the earlier run folder (runs/ID)")
    p.add_argument("run_b", metavar="RUN_B", nargs="?", help="the later run folder (runs/ID)")
    p.add_argument("--strata", action="store_true", help="compare every stratum (e.g. domain=real), not only 'all'")
    p.add_argument("--domains", action="store_true", help="synthetic vs real per target, from the runs' domain strata")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write the comparison as one self-contained HTML page (moved rows, then "
        "every changed case with its receipt)",
    )
    p.add_argument(
        "--fail-on-worse",
        action="store_true",
        help="exit 1 if any row got worse beyond its 95%% interval (with --domains: is worse on real) "
        "(for CI gates); latency and cost rows, which have no interval, only with --include-latency",
    )
    p.add_argument(
        "--include-latency",
        action="store_true",
        help="--fail-on-worse also fails on latency and cost rows at least 1.2x worse",
    )
    p.set_defaults(func=_run)
