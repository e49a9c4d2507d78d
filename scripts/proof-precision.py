"""Per proof type: how often a run's verdicts claimed it on genuine receipts (false proofs) and on fakes.

    .venv/bin/python scripts/proof-precision.py RUN_DIR [RUN_DIR ...] [--group NAME=RUN_DIR,RUN_DIR ...]

Each RUN_DIR is a `rabench run` folder (outcomes.jsonl, run.json naming its suite); the labels come
from the suite's manifest. A case "has" a proof type when any reason of its verdict is a proof of
that type. Only base cases count (spec: authenticity and evidence use cases without lineage);
duplicate transforms (re-encoded, cropped, re-shot copies of an earlier case) are the duplicates
task's and are reported apart, with how many carried a `duplicate_match` proof. Prints, per group of runs (default: each run on its own), one markdown table: proof type,
genuine receipts with it / genuine receipts (with a Wilson 95 % interval), fakes with it / fakes,
and precision = fakes with it / all cases with it (Wilson 95 %). Error outcomes are counted apart.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from pathlib import Path

Z = 1.959964


def wilson(k: int, n: int) -> tuple[float, float]:
    if n <= 0:
        return math.nan, math.nan
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z / d * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, c - h), min(1.0, c + h)


def _pct(k: int, n: int) -> str:
    if n == 0:
        return "–"
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"


def load(run: Path) -> tuple[list[tuple[bool, set[str]]], int, tuple[int, int]]:
    meta = json.loads((run / "run.json").read_text())
    suite = Path(meta["suite_dir"])
    labels: dict[str, bool] = {}
    transforms: set[str] = set()
    for line in (suite / "manifest.jsonl").read_text().splitlines():
        c = json.loads(line)
        if c.get("type") == "suite_header":
            continue
        labels[c["id"]] = c["label"]["authenticity"]["verdict"] == "fake"
        if c.get("lineage"):
            transforms.add(c["id"])
    rows, errors, dup = [], 0, [0, 0]
    for line in (run / "outcomes.jsonl").read_text().splitlines():
        o = json.loads(line)
        if o.get("status") != "ok" or not o.get("verdict"):
            errors += 1
            continue
        kinds = {r.get("proof_type") or "?" for r in o["verdict"].get("reasons") or [] if r.get("kind") == "proof"}
        if o["case_id"] in transforms:
            dup[0] += 1
            dup[1] += "duplicate_match" in kinds
            continue
        rows.append((labels[o["case_id"]], kinds))
    return rows, errors, (dup[0], dup[1])


def table(name: str, rows: list[tuple[bool, set[str]]], errors: int, dup: tuple[int, int]) -> str:
    n_fake = sum(f for f, _ in rows)
    n_gen = len(rows) - n_fake
    gen, fake = Counter(), Counter()
    for f, kinds in rows:
        for k in kinds:
            (fake if f else gen)[k] += 1
    any_gen = sum(1 for f, k in rows if k and not f)
    any_fake = sum(1 for f, k in rows if k and f)
    dups = f"; {dup[0]} duplicate transforms left out ({dup[1]} with `duplicate_match`)" if dup[0] else ""
    out = [
        f"**{name}**: {n_gen} genuine, {n_fake} fake base cases, {errors} error outcomes{dups}",
        "",
        "| proof type | genuine with it (false proofs) | fakes with it | precision |",
        "|---|---|---|---|",
    ]
    for k in sorted(set(gen) | set(fake)):
        out.append(f"| `{k}` | {_pct(gen[k], n_gen)} | {fake[k]}/{n_fake} | {_pct(fake[k], fake[k] + gen[k])} |")
    out.append(f"| any proof | {_pct(any_gen, n_gen)} | {any_fake}/{n_fake} | {_pct(any_fake, any_fake + any_gen)} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    groups: list[tuple[str, list[Path]]] = []
    it = iter(argv)
    for a in it:
        if a == "--group":
            spec = next(it, None)
            if spec is None or "=" not in spec:
                print("proof-precision: --group needs NAME=RUN_DIR[,RUN_DIR...]", file=sys.stderr)
                return 2
            name, dirs = spec.split("=", 1)
            groups.append((name, [Path(d) for d in dirs.split(",")]))
        else:
            groups.append((a, [Path(a)]))
    if not groups:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    for name, dirs in groups:
        rows: list[tuple[bool, set[str]]] = []
        errors, dup = 0, (0, 0)
        for d in dirs:
            if not (d / "outcomes.jsonl").is_file() or not (d / "run.json").is_file():
                print(f"proof-precision: {d} is not a run folder (no outcomes.jsonl / run.json)", file=sys.stderr)
                return 2
            r, e, dd = load(d)
            rows += r
            errors += e
            dup = (dup[0] + dd[0], dup[1] + dd[1])
        print(table(name, rows, errors, dup))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
