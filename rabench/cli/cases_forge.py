"""``rabench cases forge SUITE --out DIR --seed N``: labelled forgeries and genuine controls from a suite."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rabench.cases.forge import forge_suite
from rabench.cases.forge.plan import CONTROL_SHARES, FAKE_SHARES


def default_ocr_cache() -> Path:
    env = os.environ.get("RABENCH_CACHE")
    return Path(env) / "forge-ocr" if env else Path(".cache") / "forge-ocr"


def _progress(done: int, total: int) -> None:
    if done == total or done % 10 == 0 or done == 1:
        print(f"forged from {done}/{total} receipts", file=sys.stderr, flush=True)


def _run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    cache = None if args.no_cache else Path(args.cache) if args.cache else default_ocr_cache()
    kwargs = dict(seed=args.seed, ocr_cache=cache, name=args.name)
    if sys.stderr.isatty():
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("forging", total=None)
            s = forge_suite(
                Path(args.suite), Path(args.out), progress=lambda d, t: bar.update(task, completed=d, total=t), **kwargs
            )  # type: ignore[arg-type]
    else:
        s = forge_suite(Path(args.suite), Path(args.out), progress=_progress, **kwargs)  # type: ignore[arg-type]
    fakes = ", ".join(f"{k} {v}" for k, v in sorted(s.fakes.items()))
    controls = ", ".join(f"{k} {v}" for k, v in sorted(s.controls.items()))
    print(
        f"{s.out}: {s.n_fakes} fakes over {len(s.fakes)} kinds ({fakes}) and {s.n_controls} genuine controls "
        f"({controls}) from {s.sources} receipts, {time.perf_counter() - start:.0f} s"
    )
    if s.glyphs_copied + s.glyphs_drawn:
        print(
            f"  edited characters: {s.glyphs_copied} pasted from the same receipt, {s.glyphs_drawn} drawn in a "
            "matched font"
        )
    for reason, n in sorted(s.not_made.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  not made on {n} receipt(s): {reason}")
    for reason, n in sorted(s.skipped.items()):
        print(f"  skipped {n} case(s): {reason}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "forge",
        help="Make labelled forgeries and genuine controls from a suite's genuine receipts (real or synthetic).",
        description=(
            "Read the genuine receipt images of SUITE (JPEG/PNG base cases) and write a new suite to --out: "
            "each receipt becomes either one genuine control (" + ", ".join(CONTROL_SHARES) + ") or up to two "
            "forgeries (" + ", ".join(FAKE_SHARES) + "), never both, so no forgery meets its own original in a "
            "duplicate memory. Edits copy glyphs from the same receipt and are read back with the engine's OCR; "
            "a value that cannot be found or re-read is not edited, and the summary says why. Deterministic: "
            "the same SUITE and --seed give the same bytes. OCR results are cached (see --cache). "
            "See docs/cases.md, 'Forging from real receipts'."
        ),
    )
    p.add_argument("suite", metavar="SUITE", help="source suite folder (manifest.jsonl + files)")
    p.add_argument("--out", required=True, metavar="DIR", help="new suite folder (must not exist, or be empty)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--name", help="suite name in the header (default SOURCE-NAME+forged)")
    p.add_argument("--cache", metavar="DIR", help="OCR cache (default $RABENCH_CACHE/forge-ocr, else .cache/forge-ocr)")
    p.add_argument("--no-cache", action="store_true", help="read every receipt again, write no cache")
    p.set_defaults(func=_run)
