"""Upper-bound check of the duplicate rule on a suite, with the *labelled* fields as if OCR were perfect.

Usage: ``python -m rabench.engine.dupes.survey SUITE_DIR``. Submits every case in manifest order
to a fresh MemoryStore and reports recall over duplicate transforms and false matches over hard
negatives (cases with ``after``) and other genuine receipts. The engine's real numbers (with its
own OCR) come from ``rabench run --target self``; this separates rule errors from reading errors.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from rabench.cases.transforms import load_image
from rabench.contracts import Fields, LineItem
from rabench.engine.dupes import MemoryStore, make_fingerprint

_FIELDS = ("merchant", "date", "subtotal", "tax_total", "total", "currency", "receipt_number")


def main(argv: list[str]) -> int:
    suite = Path(argv[0])
    store = MemoryStore()
    rec, hard, gen = [0, 0], [0, 0], [0, 0]
    kinds: collections.Counter = collections.Counter()
    for line in (suite / "manifest.jsonl").read_text("utf-8").splitlines()[1:]:
        c = json.loads(line)
        lab = c["label"]
        data = (suite / c["file"]).read_bytes()
        f = Fields(**{k: lab.get(k) for k in _FIELDS})
        items = [LineItem(**x) for x in lab.get("line_items") or []]
        m = store.lookup_and_add(make_fingerprint(data, load_image(data, c["media_type"]), f, items), c["id"])
        if c.get("lineage"):
            rec[0] += 1
            rec[1] += m is not None
            kinds[(c["lineage"]["transform"], m.kind if m else "missed")] += 1
        elif c.get("after"):
            hard[0] += 1
            hard[1] += m is not None
        elif lab["authenticity"]["verdict"] == "genuine":
            gen[0] += 1
            gen[1] += m is not None
        if m is not None and not c.get("lineage"):
            print("false match:", c["id"], m)
    print(
        f"recall {rec[1]}/{rec[0]}; false matches: hard negatives {hard[1]}/{hard[0]}, other genuine {gen[1]}/{gen[0]}"
    )
    print("by transform and match kind:", dict(kinds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
