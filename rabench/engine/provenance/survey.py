"""Survey a suite's base cases: which proofs ``file_signals`` finds per class (a dev-split check).

Usage: ``python -m rabench.engine.provenance.survey SUITE_DIR [-v]``. Reads labels only to
group the output (the engine never sees them). Use it on ``dev`` or ``sample``, never to tune on ``test``.
"""

from __future__ import annotations

import collections
import json
import sys
import time
from pathlib import Path

from rabench.engine.provenance import file_signals


def main(argv: list[str]) -> int:
    suite = Path(argv[0])
    verbose = "-v" in argv
    by: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    t0, n = time.perf_counter(), 0
    for line in (suite / "manifest.jsonl").read_text("utf-8").splitlines()[1:]:
        c = json.loads(line)
        if c.get("lineage"):
            continue
        lab = c["label"]
        cls = lab["authenticity"].get("fake_class") or "genuine"
        sigs = file_signals(suite / c["file"], c["media_type"], printed_date=lab.get("date"))
        proofs = [s for s in sigs if s.kind == "proof"]
        by[cls][0] += 1
        by[cls][1] += bool(proofs)
        n += 1
        if verbose or (cls == "genuine" and proofs):
            print(c["id"], cls, c["media_type"], lab.get("provenance"), [f"{s.proof_type}: {s.text}" for s in proofs])
    dt = time.perf_counter() - t0
    for cls, (total, with_proof) in sorted(by.items()):
        print(f"{cls:12s} n={total:4d} with proof={with_proof:4d}")
    print(f"{n} base cases in {dt:.1f} s ({1000 * dt / max(n, 1):.1f} ms each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
