"""How well one recorded measurement separates fakes from genuine receipts, per capture and per forge kind.

    python scripts/measurement-survey.py RESULTS.jsonl SUITE [SUITE ...] --signal NAME
        [--number REGEX] [--knee X]

RESULTS is what `rabench engine fit --results` wrote for exactly these SUITEs, in the same order (checked
as `engine fit --reuse` checks it). For every base case carrying the signal NAME it takes the
signal's value, or with ``--number`` the first group of REGEX matched in the signal's message (e.g. the
thumbnail's local score, "score ([0-9.]+) where"), and prints ROC AUC (fakes vs genuine; sklearn) by the
case's ``capture`` tag (photo or flat: every other capture, or none), how many pass ``--knee`` and, per
(forge kind, save) of the real forged suites, the values seen. Dev suites only: it reads labels.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from rabench.cases.manifest import open_suite
from rabench.engine.fitting import reuse_results
from rabench.errors import UserError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("suites", type=Path, nargs="+")
    ap.add_argument("--signal", required=True, help="signal name, e.g. visual.jpeg_ghost")
    ap.add_argument("--number", default=None, help="regex whose first group in the message is the value")
    ap.add_argument("--knee", type=float, default=None, help="count values above this")
    args = ap.parse_args(argv)
    try:
        # the suites through their contract, and the file checked to be their results (engine fit --reuse)
        results = reuse_results(args.results, args.suites)
        cases = [lc.case for s in args.suites for lc in open_suite(s)]
    except UserError as exc:
        print(f"measurement-survey: {exc}", file=sys.stderr)
        return 2
    pattern = re.compile(args.number) if args.number else None
    by_capture: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    by_forge: dict[tuple[str, str, bool], list[float]] = defaultdict(list)
    for case, r in zip(cases, results, strict=True):
        if not r.is_base or r.error:
            continue
        values = []
        for s in r.signals:
            if s.name != args.signal:
                continue
            if pattern is None:
                values.append(float(s.value))
            elif m := pattern.search(s.text):
                values.append(float(m.group(1)))
        if not values:
            continue
        v = max(values)
        tags = case.tags
        by_capture["photo" if tags.get("capture") == "photo" else "flat"].append((v, r.is_fake))
        if tags.get("forge"):
            by_forge[(str(tags["forge"]), str(tags.get("saved")), r.is_fake)].append(v)
    for capture, pairs in sorted(by_capture.items()):
        gen = [v for v, f in pairs if not f]
        fake = [v for v, f in pairs if f]
        auc = roc_auc_score([0] * len(gen) + [1] * len(fake), gen + fake) if gen and fake else float("nan")
        over = (
            f"; over {args.knee}: genuine {sum(v > args.knee for v in gen)}, fakes {sum(v > args.knee for v in fake)}"
            if args.knee is not None
            else ""
        )
        med = lambda xs: f"{np.median(xs):.2f}" if xs else "-"  # noqa: E731
        print(
            f"{capture}: genuine {len(gen)}, fakes {len(fake)}; AUC {auc:.3f}; medians {med(gen)} / {med(fake)}{over}"
        )
    for (forge, saved, fake), vs in sorted(by_forge.items()):
        print(
            f"  {'fake' if fake else 'genuine'} {forge}/{saved} ({len(vs)}): {', '.join(f'{v:.2f}' for v in sorted(vs))}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
