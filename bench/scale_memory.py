"""Memory at scale: N ``null`` units through ``rabench run``; the scorer's memory per outcome.

    .venv/bin/python bench/scale_memory.py [--cases 10000 --repeats 1,10,100]
    .venv/bin/python bench/scale_memory.py --scorer [--outcomes 10000,100000]

Builds one suite of ``--cases`` cases (20 distinct tiny JPEGs), then runs
``rabench run --suite S --target null --repeat R`` once per R, each in a fresh
process (the same code path a user takes), and prints its peak RSS
(``getrusage`` ru_maxrss) and wall time per unit. 10,000 cases x 100
repetitions = 1,000,000 units. Goal (issue 19): peak RSS at 1M units within
1.2x of 10k units, and the per-unit cost flat.

``--scorer``: synthetic runs (``rabench.score.synthetic``: 10 targets x C cases x 2
repetitions) scored in a fresh process each, two ways: ``score_runs`` (load the
outcomes, rows, details) and the whole ``rabench score`` command (which also writes
the per-case viewer data, ``rabench.report.casedata``); peak RSS, and the growth per
outcome between the two sizes. Goal (issue 19): scorer <= 1 KB per outcome.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rabench.contracts import Authenticity, Case, ReceiptLabel, SuiteHeader  # noqa: E402

PROBE = (
    "import resource, sys\n"
    "from rabench.cli.main import main\n"
    "rc = main(sys.argv[1:])\n"
    "ru = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print('MAXRSS', ru.ru_maxrss, ru.ru_utime + ru.ru_stime)\n"
    "sys.exit(rc)\n"
)


def make_suite(root: Path, n: int, files: int = 20) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    shas = []
    for k in range(files):
        buf = io.BytesIO()
        Image.new("RGB", (8, 8), ((k * 37) % 256, (k * 91) % 256, 0)).save(buf, "JPEG", quality=80)
        (root / f"f{k}.jpg").write_bytes(buf.getvalue())
        shas.append(hashlib.sha256(buf.getvalue()).hexdigest())
    enc = msgspec.json.Encoder()
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=1.0)
    with open(root / "manifest.jsonl", "wb") as fh:
        fh.write(enc.encode(SuiteHeader(suite="receipt", name="scale")) + b"\n")
        for i in range(n):
            k = i % files
            fh.write(
                enc.encode(Case(id=f"c{i:07d}", file=f"f{k}.jpg", sha256=shas[k], media_type="image/jpeg", label=label))
                + b"\n"
            )
    return root


def run_once(tmp: Path, suite: Path, repeat: int) -> tuple[float, float, int, float]:
    """(peak RSS MB, seconds, units written, CPU seconds) of one ``rabench run`` process."""
    out = tmp / f"run-r{repeat}"
    argv = [
        sys.executable,
        "-c",
        PROBE,
        "run",
        "--suite",
        str(suite),
        "--target",
        "null",
        "--repeat",
        str(repeat),
        "--out",
        str(out),
        "--progress",
        "none",
        "--cache",
        str(tmp / "cache"),
        "--concurrency",
        "null=64",
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"rabench run failed: {proc.stderr.strip()[-500:]}")
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("MAXRSS")]
    units = 0
    with open(out / "outcomes.jsonl", "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            units += block.count(b"\n")
    (out / "outcomes.jsonl").unlink()  # 1M outcomes are ~300 MB on disk
    return int(line.split()[1]) / 1024, wall, units, float(line.split()[2])


SCORE_PROBE = (
    "import resource, sys\n"
    "from rabench.score.scorer import score_runs\n"
    "result = score_runs([sys.argv[1]])\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def peak_mb(argv: list[str]) -> float:
    proc = subprocess.run([sys.executable, "-c", *argv], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        sys.exit(f"failed: {proc.stderr.strip()[-500:]}")
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("MAXRSS")]
    return int(line.split()[1]) / 1024


def scorer(sizes: list[int]) -> None:
    from rabench.score import synthetic

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(f"{'outcomes':>10} {'score_runs MB':>14} {'rabench score MB':>17}")
        first: tuple[int, float, float] | None = None
        for n in sizes:
            run = synthetic.make(tmp / str(n), 10, n // 20, 2)
            count = sum(1 for _ in (run / "outcomes.jsonl").open("rb"))
            inner = peak_mb([SCORE_PROBE, str(run)])
            whole = peak_mb([PROBE, "score", str(run), "--out", str(tmp / f"report-{n}")])
            print(f"{count:>10,} {inner:>14.1f} {whole:>17.1f}", flush=True)
            if first is None:
                first = (count, inner, whole)
            else:
                grown = count - first[0]
                print(
                    f"   per outcome from {first[0]:,}: score_runs {(inner - first[1]) * 1048576 / grown:,.0f} B, "
                    f"rabench score {(whole - first[2]) * 1048576 / grown:,.0f} B",
                    flush=True,
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--repeats", default="1,10,100", help="comma-separated --repeat values")
    ap.add_argument("--scorer", action="store_true", help="measure the scorer instead of the runner")
    ap.add_argument("--outcomes", default="10000,100000", help="--scorer: comma-separated outcome counts")
    args = ap.parse_args()
    if args.scorer:
        scorer([int(x) for x in args.outcomes.split(",")])
        return
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        suite = make_suite(tmp / "suite", args.cases)
        # marginal us/unit: (wall - first row's wall) / (units - first row's units), i.e. without
        # the process start-up and suite planning every run pays once
        # CPU: the process's own user + system time (on a shared machine wall time mostly says
        # how busy the other processes were)
        print(
            f"{'units':>10} {'peak RSS MB':>12} {'x first':>8} {'wall s':>8} {'marginal us/unit':>17} "
            f"{'CPU s':>7} {'marginal CPU us/unit':>21}"
        )
        first: tuple[float, float, int, float] | None = None
        for r in (int(x) for x in args.repeats.split(",")):
            rss, wall, units, cpu = run_once(tmp, suite, r)
            if first is None:
                first = (rss, wall, units, cpu)
            grown = units - first[2]
            marginal = ((wall - first[1]) / grown * 1e6) if grown > 0 else float("nan")
            marginal_cpu = ((cpu - first[3]) / grown * 1e6) if grown > 0 else float("nan")
            print(
                f"{units:>10,} {rss:>12.1f} {rss / first[0]:>8.2f} {wall:>8.1f} {marginal:>17.1f} "
                f"{cpu:>7.1f} {marginal_cpu:>21.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
