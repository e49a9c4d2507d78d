#!/usr/bin/env python3
"""Copy the cases of a suite whose numeric id lies in [LO, HI) into a new suite folder.

Why: the real dev receipts are split by id so that the risk model is fitted on one part
(and forgeries of it) and measured on the other (docs/engine.md, "On real receipts").
Plain JSON and file copies; the result validates with `rabench cases validate`.

usage: python scripts/suite-subset.py SRC OUT LO HI
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src, out, lo, hi = Path(argv[0]), Path(argv[1]), int(argv[2]), int(argv[3])
    lines = (src / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    head, cases = json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x.strip()]
    if any(not c["id"].isdigit() for c in cases):
        print(f"{src}: ids are not all numbers (an imported SROIE suite has numeric ids)", file=sys.stderr)
        return 2
    if out.exists():
        print(f"{out}: already exists", file=sys.stderr)
        return 2
    keep = [c for c in cases if lo <= int(c["id"]) < hi]
    head["name"] = f"{head['name']}/ids-{lo}-{hi}"
    for c in keep:
        (out / c["file"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / c["file"], out / c["file"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.jsonl").write_text("\n".join(json.dumps(x) for x in [head, *keep]) + "\n", encoding="utf-8")
    print(f"{out}: {len(keep)} of {len(cases)} cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
