"""``rabench cases audit DIR``: leak audit, the AUC of each shortcut signal alone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rabench.cases.audit import SIGNALS, THRESHOLD, AuditResult, audit_suite


def format_table(res: AuditResult) -> str:
    groups = list(dict.fromkeys(r.group for r in res.rows))
    cell = {(r.signal, r.group): r for r in res.rows}
    head = f"{'signal':<16}" + "".join(f"{g:>12}" for g in groups)
    lines = [head, "-" * len(head)]
    for sig in SIGNALS:
        parts = []
        for g in groups:
            r = cell.get((sig, g))
            parts.append(f"{'n/a' if r is None or r.auc is None else f'{r.auc:.3f}':>12}")
        lines.append(f"{sig:<16}" + "".join(parts))
    n = {g: next((r for r in res.rows if r.group == g and r.n_fake), None) for g in groups}
    lines.append(
        f"{'(fake/genuine n)':<16}"
        + "".join(f"{(str(n[g].n_fake) + '/' + str(n[g].n_genuine)) if n[g] else '':>12}" for g in groups)
    )
    return "\n".join(lines)


def run_ap_audit(args: argparse.Namespace) -> int:
    """An ap suite's leak audit (``rabench.suites.ap``)."""
    from rabench.cases.ap.audit import audit_ap_suite, format_ap_table

    res = audit_ap_suite(Path(args.dir))
    print(
        f"{args.dir}: {res.n_cases} ap cases; ROC AUC of each signal alone (cases not to be paid vs the rest; "
        "fraud vs the rest), max(auc, 1-auc), ties half"
    )
    print(format_ap_table(res))
    bad = res.failures(args.threshold)
    for r in bad:
        extra = f" ({r.detail})" if r.detail else ""
        print(f"LEAK: {r.signal} separates {r.group} with AUC {r.auc:.3f} > {args.threshold}{extra}", file=sys.stderr)
    from rabench.cases.ap.relations import THRESHOLD, format_relational, relational_audit

    fits = relational_audit(Path(args.dir))
    print(format_relational(fits))
    solved = [f for f in fits if f.auc is not None and f.auc > THRESHOLD]
    for f in solved:
        print(f"RELATIONAL: a depth-3 rule separates {f.family} with AUC {f.auc:.3f} > {THRESHOLD}", file=sys.stderr)
    if bad or solved:
        return 1
    print(f"no signal above {args.threshold}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from rabench.suites.registry import suite_of

    return suite_of(args.dir).audit(args)


def run_receipt_audit(args: argparse.Namespace) -> int:
    """A receipt suite's leak audit (``rabench.suites.receipt``)."""
    res = audit_suite(Path(args.dir))
    print(f"{args.dir}: {res.n_cases} base cases; ROC AUC of each signal alone, max(auc, 1-auc), ties half")
    print(format_table(res))
    bad = res.failures(args.threshold)
    for r in bad:
        extra = f" (category {r.detail})" if r.detail else ""
        print(
            f"LEAK: {r.signal} separates {r.group} fakes from genuine with AUC {r.auc:.3f} > {args.threshold}{extra}",
            file=sys.stderr,
        )
    if bad:
        return 1
    print(f"no signal above {args.threshold}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="Leak audit: ROC AUC of each shortcut signal alone (format, size, EXIF, Software, fonts, colours).",
        description="For every non-proof signal a lazy detector could use (file format, byte size, pixel count, "
        "JPEG quality, EXIF present, any Software/Producer/CreatorTool tag, font family from the 'font' tag, "
        "colour statistics) print the ROC AUC of that signal alone for genuine vs fake base cases, overall and "
        "per fake class (each class against genuine receipts of the same capture kinds). Exit 1 if any "
        f"exceeds the threshold (default {THRESHOLD}). For an ap suite: template, language, currency, format, "
        "document roles, e-mail headers, amounts, sizes and every single word of the e-mails and invoices, "
        "risky vs safe cases overall, per family, and fraud vs the rest (docs/ap.md).",
    )
    p.add_argument("dir", help="suite folder containing manifest.jsonl")
    p.add_argument("--threshold", type=float, default=THRESHOLD, help="highest acceptable AUC (default 0.70)")
    p.set_defaults(func=_run)
