"""The real DIY call path against a bare aiohttp loop, same fake provider, same run (issue 19).

The fake provider runs in its own process (``rabench fake-provider``, profile ``healthy``:
2-15 ms per answer). In this process, alternating rounds of:

* bare: one ``aiohttp.ClientSession`` (pool = concurrency), C tasks posting the very body
  the DIY target sends (built once, bytes) and reading each reply (no parsing);
* load: ``rabench.run.load.drive`` with ``diy:openai-compatible:<model>`` (what ``rabench
  load`` runs): gate, timeout, retries, the target's request building, msgspec body
  encoding, reply decoding, answer parsing and key scrubbing;
* run: ``rabench.run.session.run`` with the same target over a suite of small receipts
  (what ``rabench run`` does: plan, preparation cache lookups, outcomes written).

Reported per side: the best round's completed calls/s and this process's CPU time per
call (``time.process_time``: the client only; the server is another process), with
every round listed, and the ratios rabench / bare; the server's own CPU per call (from
/proc) is listed beside each round. The order of the sides turns by one each round (bare,
load, run; then load, run, bare; ...): the fake server slows as a run goes on, and a fixed
order gave the first side the fastest server every time. Use a multiple of 3 rounds.

    .venv/bin/python bench/diy_overhead.py --calls 5000 --concurrency 64 --rounds 6
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODEL = "fake-vl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_fake(port: int, profile: str = "healthy") -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rabench", "fake-provider", "--port", str(port), "--profile", profile],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the fake provider did not start")


def receipt_png(seed: int) -> bytes:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (240, 360), "white")
    draw = ImageDraw.Draw(im)
    for i, line in enumerate([f"SHOP {seed}", "2025-03-14", "TEA   5.00", f"TOTAL {5 + seed}.00"]):
        draw.text((10, 10 + 20 * i), line, fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def make_suite(root: Path, n: int) -> Path:
    import hashlib

    import msgspec

    from rabench.contracts import Authenticity, Case, ReceiptLabel, SuiteHeader

    root.mkdir(parents=True, exist_ok=True)
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=1.0)
    lines = [msgspec.json.encode(SuiteHeader(suite="receipt", name="diy-overhead"))]
    for i in range(n):
        data = receipt_png(i)
        (root / f"r{i}.png").write_bytes(data)
        lines.append(
            msgspec.json.encode(
                Case(
                    id=f"c{i:04d}",
                    file=f"r{i}.png",
                    media_type="image/png",
                    sha256=hashlib.sha256(data).hexdigest(),
                    label=label,
                )
            )
        )
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root


LATENCIES: list[float] = []  # the bare loop's per-call latencies, last round


async def bare(url: str, body: bytes, headers: dict[str, str], calls: int, concurrency: int) -> int:
    import aiohttp

    ok = 0
    counter = iter(range(calls))
    LATENCIES.clear()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:

        async def worker() -> None:
            nonlocal ok
            for _ in counter:
                t0 = time.monotonic()
                async with session.post(url, data=body, headers=headers) as resp:
                    await resp.read()
                    ok += resp.status == 200
                LATENCIES.append(time.monotonic() - t0)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return ok


def server_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) the fake server's process has used, from /proc (Linux);
    None elsewhere. Where the server sets the pace, more server work per call is fewer calls/s."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn):  # type: ignore[no-untyped-def]
    cpu0, t0 = time.process_time(), time.perf_counter()
    ok = fn()
    return ok, time.perf_counter() - t0, time.process_time() - cpu0


def main() -> int:
    import anyio
    import msgspec

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", type=int, default=50, help="suite size for the run side (repetitions fill up)")
    ap.add_argument(
        "--latency-ms",
        type=float,
        default=None,
        help="a fixed answer latency instead of the healthy profile's 2-15 ms; then the median "
        "latency `rabench load` reports is compared with the bare loop's",
    )
    args = ap.parse_args()

    port = free_port()
    profile = "healthy"
    if args.latency_ms is not None:
        profile = str(Path(tempfile.mkdtemp(prefix="rabench-fixed-")) / "fixed.toml")
        Path(profile).write_text(f'[default]\nlatency = {{ dist = "fixed", ms = {args.latency_ms} }}\n')
    fake = start_fake(port, profile)
    os.environ["RABENCH_OPENAI_COMPATIBLE_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
    os.environ["OPENAI_COMPATIBLE_API_KEY"] = "sk-bench-0123456789"
    try:
        from rabench.prepare.cache import PrepCache
        from rabench.run import config as cfg
        from rabench.run.load import drive
        from rabench.run.retry import RetryPolicy
        from rabench.run.session import RunOptions, run
        from rabench.targets.base import CheckRequest
        from rabench.targets.registry import make_target

        tmp = Path(tempfile.mkdtemp(prefix="rabench-diy-overhead-"))
        suite = make_suite(tmp / "suite", args.cases)
        cache = tmp / "prepared"
        tid = f"diy:openai-compatible:{MODEL}"
        config = cfg.with_overrides(cfg.TargetsConfig(), None, {"openai-compatible": args.concurrency})

        async def requests() -> list[CheckRequest]:
            from rabench.run.load import suite_requests

            return await suite_requests(str(suite), PrepCache(cache))

        reqs = anyio.run(requests)
        target = make_target(tid, config)
        first = reqs[0]
        b64 = __import__("base64").b64encode(first.prepared.read_bytes()).decode()
        built = target._wire.build(
            target.settings, "sk-bench-0123456789", MODEL, target._prompt, b64, first.prepared_media_type
        )
        body = msgspec.json.encode(built.body)

        def side_bare() -> int:
            return asyncio.run(bare(built.url, body, built.headers, args.calls, args.concurrency))

        p50: dict[str, list[float]] = {"bare": [], "load": []}

        def side_load() -> int:
            async def go() -> int:
                t = make_target(tid, config)
                await t.open()
                try:
                    s = await drive(
                        t, reqs, concurrency=args.concurrency, calls=args.calls, timeout_s=60, policy=RetryPolicy()
                    )
                finally:
                    await t.close()
                if s.p50_s is not None:
                    p50["load"].append(s.p50_s)
                return s.statuses.get("ok", 0)

            return anyio.run(go)

        reps = -(-args.calls // args.cases)

        def side_run(r: int) -> int:
            summary = run(
                RunOptions(
                    out=tmp / f"run-{r}",
                    suite_dir=str(suite),
                    target_ids=[tid],
                    config=config,
                    repetitions=reps,
                    cache_root=cache,
                    progress="none",
                    concurrency={"openai-compatible": args.concurrency},
                )
            )
            return summary.statuses[tid].get("ok", 0)

        results: dict[str, list[tuple[float, float, int]]] = {"bare": [], "load": [], "run": []}
        server_cpu: dict[str, list[float]] = {"bare": [], "load": [], "run": []}
        sides = [("bare", lambda r: side_bare()), ("load", lambda r: side_load()), ("run", side_run)]
        for r in range(args.rounds):
            # The fake server slows as a run goes on (its heap, its sockets' history), so a fixed
            # order would hand the first side the fastest server in every round: each round
            # starts one side later than the last.
            for name, fn in sides[r % 3 :] + sides[: r % 3]:
                s0 = server_seconds(fake.pid)
                ok, wall, cpu = timed(lambda: fn(r))  # called at once, in this pass
                s1 = server_seconds(fake.pid)
                if name == "bare":
                    p50["bare"].append(sorted(LATENCIES)[len(LATENCIES) // 2])
                n = args.calls if name != "run" else reps * args.cases
                results[name].append((n / wall, cpu / n * 1000, ok))
                srv = ""
                if s0 is not None and s1 is not None:
                    server_cpu[name].append((s1 - s0) / n * 1000)
                    srv = f", server {server_cpu[name][-1]:.3f} ms CPU/call"
                print(
                    f"round {r + 1} {name:>4}: {n / wall:8.0f} calls/s, {cpu / n * 1000:.3f} ms CPU/call{srv}, "
                    f"{ok} ok of {n}",
                    flush=True,
                )
            b = results["bare"][-1]
            print(
                f"round {r + 1} vs bare: "
                + ", ".join(
                    f"{k} {results[k][-1][0] / b[0]:.2f}x calls/s, {results[k][-1][1] / b[1]:.2f}x CPU/call"
                    for k in ("load", "run")
                ),
                flush=True,
            )
        best = {k: max(v) for k, v in results.items()}
        cpu = {k: min(x[1] for x in v) for k, v in results.items()}
        print(f"\nbest of {args.rounds} rounds, {args.calls} calls, concurrency {args.concurrency}:")
        for k in ("bare", "load", "run"):
            print(
                f"  {k:>4}: {best[k][0]:8.0f} calls/s ({best[k][0] / best['bare'][0]:.2f}x bare), "
                f"{cpu[k]:.3f} ms CPU/call ({cpu[k] / cpu['bare']:.2f}x bare)"
            )
        # Each round's sides ran back to back, so a round's ratios share the machine's load at
        # the time; their median is steadier than best-of on a shared machine.
        print(f"median over {args.rounds} rounds of each round's ratio to bare:")
        for k in ("load", "run"):
            speed = sorted(x[0] / b[0] for x, b in zip(results[k], results["bare"]))
            cost = sorted(x[1] / b[1] for x, b in zip(results[k], results["bare"]))
            print(f"  {k:>4}: {speed[len(speed) // 2]:.2f}x bare calls/s, {cost[len(cost) // 2]:.2f}x bare CPU/call")
        if all(server_cpu.values()):
            print(
                "  the fake server's CPU per call, median of rounds: "
                + ", ".join(f"{k} {sorted(v)[len(v) // 2]:.3f} ms" for k, v in server_cpu.items())
            )
        print(
            "  median latency per round (ms): bare "
            + ", ".join(f"{x * 1000:.1f}" for x in p50["bare"])
            + "; load "
            + ", ".join(f"{x * 1000:.1f}" for x in p50["load"])
            + f"; load / bare, median of rounds: "
            f"{sorted(p50['load'])[len(p50['load']) // 2] / sorted(p50['bare'])[len(p50['bare']) // 2]:.3f}"
        )
    finally:
        fake.terminate()
        fake.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
