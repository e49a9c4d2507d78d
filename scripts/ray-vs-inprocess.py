#!/usr/bin/env python3
"""Run SUITE with `self` on a 2-node local Ray cluster + Redis and compare, unit by unit, with
an in-process run of the same suite (BASE_RUN, made with `rabench run --suite SUITE --target self`).

Why: the cluster test (tests/cluster/test_ray_executor.py) runs 8 cases to keep `make test`
short; this checks a whole suite the same way (statuses, risk, fields, reasons, duplicate
matches). docs/running.md, "Running on a cluster", has the figures.

usage: python scripts/ray-vs-inprocess.py BASE_RUN SUITE OUT
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import msgspec

from rabench.cluster.ray_proc import start_ray_cluster
from rabench.cluster.redis_proc import start_redis
from rabench.contracts import Outcome


def load(run: Path) -> dict[tuple[str, int], Outcome]:
    lines = (run / "outcomes.jsonl").read_bytes()
    return {(o.case_id, o.repetition): o for o in msgspec.json.Decoder(Outcome).decode_lines(lines)}


def same(x: Outcome, y: Outcome) -> bool:
    vx, vy = x.verdict, y.verdict
    if x.status != y.status or (vx is None) != (vy is None):
        return False
    if vx is None or vy is None:
        return True
    return (
        vx.risk == vy.risk
        and vx.seen_before == vy.seen_before
        and vx.match_kind == vy.match_kind
        and msgspec.json.encode(vx.fields) == msgspec.json.encode(vy.fields)
        and [r.text for r in vx.reasons] == [r.text for r in vy.reasons]
    )


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    base, suite, out = Path(argv[0]), argv[1], Path(argv[2])
    out.parent.mkdir(parents=True, exist_ok=True)
    with start_redis() as url, start_ray_cluster(nodes=2, cpus_per_node=1) as cluster:
        cfg = out.parent / "ray.toml"
        cfg.write_text(f'[self]\nduplicate_store = "{url}"\n[executor]\nkind = "ray"\naddress = "{cluster.address}"\n')
        t = time.monotonic()
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "rabench",
                "run",
                "--config",
                str(cfg),
                "--suite",
                suite,
                "--target",
                "self",
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
        )
        print(f"ray run: exit {r.returncode}, {time.monotonic() - t:.0f} s", r.stderr.strip()[-500:])
    a, b = load(base), load(out)
    lines = len((out / "outcomes.jsonl").read_bytes().splitlines())
    diff = [k for k in a if k not in b or not same(a[k], b[k])]
    print(f"units: in-process {len(a)}, ray {len(b)} ({lines} outcome lines); differing units: {len(diff)} {diff[:10]}")
    seen = [sum(1 for o in run.values() if o.verdict is not None and o.verdict.seen_before) for run in (a, b)]
    print(f"duplicate matches: in-process {seen[0]}, ray {seen[1]}")
    return 0 if not diff and len(a) == len(b) == lines else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
