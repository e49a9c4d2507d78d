#!/usr/bin/env python3
"""Copy the cases of a suite whose numeric id lies in [LO, HI) into a new suite folder.

Why: the real dev receipts are split by id so that the risk model is fitted on one part
(and forgeries of it) and measured on the other (docs/engine.md, "On real receipts").
The suite is read through its contracts (rabench.cases.manifest); the result validates
with `rabench cases validate`.

usage: python scripts/suite-subset.py SRC OUT LO HI
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import msgspec

from rabench.cases.manifest import open_suite
from rabench.errors import UserError


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src, out, lo, hi = Path(argv[0]), Path(argv[1]), int(argv[2]), int(argv[3])
    try:
        # The suite read through its contract (header version, case ids, every file inside
        # the suite folder), never as raw JSON whose file names could point anywhere.
        suite = open_suite(src)
        cases = list(suite.cases(check_keys=True))
    except UserError as exc:
        print(f"rabench: {exc}", file=sys.stderr)
        return 2
    if any(not lc.case.id.isdigit() for lc in cases):
        print(f"{src}: ids are not all numbers (an imported SROIE suite has numeric ids)", file=sys.stderr)
        return 2
    if out.exists():
        print(f"{out}: already exists", file=sys.stderr)
        return 2
    keep = [lc for lc in cases if lo <= int(lc.case.id) < hi]
    head = msgspec.structs.replace(suite.header, name=f"{suite.header.name}/ids-{lo}-{hi}")
    for lc in keep:
        (out / lc.case.file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lc.path, out / lc.case.file)
    out.mkdir(parents=True, exist_ok=True)
    enc = msgspec.json.Encoder()
    (out / "manifest.jsonl").write_bytes(b"".join(enc.encode(x) + b"\n" for x in [head, *(lc.case for lc in keep)]))
    print(f"{out}: {len(keep)} of {len(cases)} cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
