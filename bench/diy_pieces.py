"""The pieces of the DIY call path changed for issue 19, each before and after, in one process.

"Before" is the code of ``--before`` (a commit: its ``answer.py`` and ``execute.py`` are read
with ``git show`` and loaded beside the current ones) or the old way of calling what is still
here (a request body built around the base64 string; ``await PrepCache.get`` for a warm file;
``concurrency + max(8, concurrency // 4)`` workers all taking units). Each figure is the best of
many short repeats, the two sides interleaved, so a loaded machine moves both alike.

    .venv/bin/python bench/diy_pieces.py --before 7e1493d
    .venv/bin/python bench/diy_pieces.py --only writes --rounds 15   # outcome writes and stats
    .venv/bin/python bench/diy_pieces.py --only per-run --before 3b06d21 --rounds 3   # suite, cache, git
    .venv/bin/python bench/diy_pieces.py --only session --rounds 9   # the target's aiohttp session
    .venv/bin/python bench/diy_pieces.py --only call-counts   # Python calls per call: bare, load path
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from types import ModuleType
from collections.abc import Callable
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def module_at(commit: str, path: str, name: str, tmp: Path) -> ModuleType:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
    ).stdout
    file = tmp / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def best_us(fn: Any, number: int, repeat: int = 40) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def show(what: str, before: float, after: float) -> None:
    print(f"{what:58s} before {before:8.2f} us, after {after:8.2f} us, saved {before - after:7.2f} us")


def answers(old: ModuleType) -> None:
    import random

    from rabench.fakeprovider.answers import CANNED, render
    from rabench.targets.diy import answer as new

    rng = random.Random(1)
    texts = [render(CANNED, rng) for _ in range(50)]
    b = a = 1e9
    for _ in range(40):
        b = min(b, timeit.timeit(lambda: [old.parse_answer(x) for x in texts], number=10) / 500 * 1e6)
        a = min(a, timeit.timeit(lambda: [new.parse_answer(x) for x in texts], number=10) / 500 * 1e6)
    show("parse_answer, the fake's 50 answer shapes", b, a)


def bodies() -> None:
    import msgspec

    from rabench.contracts.targets_config import TargetsConfig
    from rabench.targets.diy import openai
    from rabench.targets.diy.config import provider_settings
    from rabench.targets.diy.prompt import prompt_text
    from rabench.targets.diy.target import B64Cache

    encode = msgspec.json.Encoder().encode
    settings, prompt = provider_settings("openai-compatible", TargetsConfig()), prompt_text()
    for size, label in ((3072, "4 KB of base64, the bench's receipts"), (300_000, "a 300 KB image")):
        b64 = base64.b64encode(os.urandom(size)).decode()
        cache = B64Cache()

        def before() -> bytes:
            return encode(openai.build(settings, "sk-x", "fake-vl", prompt, b64, "image/png").body)

        def after() -> bytes:
            raw = cache.json_value("/x/p.png", openai, "image/png", b64)
            return encode(openai.build(settings, "sk-x", "fake-vl", prompt, raw, "image/png").body)

        assert before() == after()
        n = 50 if size > 10_000 else 200
        b = a = 1e9
        for _ in range(20):
            b, a = min(b, best_us(before, n, 2)), min(a, best_us(after, n, 2))
        show(f"request body, {label}", b, a)


def lookups(tmp: Path) -> None:
    from PIL import Image

    from rabench.prepare.cache import PrepCache

    img = tmp / "r.png"
    Image.new("RGB", (240, 360), "white").save(img)
    sha = hashlib.sha256(img.read_bytes()).hexdigest()
    cache = PrepCache(tmp / "prepared")
    asyncio.run(cache.get(img, sha, "image/png"))

    async def via_get(n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            await cache.get(img, sha, "image/png")
        return time.perf_counter() - t0

    def via_lookup(n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            cache.lookup(img, sha)
        return time.perf_counter() - t0

    b = a = 1e9
    for _ in range(40):
        b = min(b, asyncio.run(via_get(500)) / 500 * 1e6)
        a = min(a, via_lookup(500) / 500 * 1e6)
    show("warm prepared-image lookup (await get -> lookup)", b, a)
    print(f"{'  of which the os.stat both make':58s} {best_us(lambda: os.stat(img), 500):8.2f} us")


def calls(old: ModuleType) -> None:
    from rabench.contracts import Verdict
    from rabench.run import execute as new
    from rabench.run.config import Limits
    from rabench.run.limits import ProviderGate
    from rabench.run.retry import RetryPolicy
    from rabench.targets.base import CheckRequest

    class Instant:
        verdict = Verdict()

        async def check(self, request: CheckRequest) -> Verdict:
            return self.verdict

    request = CheckRequest("c", Path("a"), "image/png", Path("a"), "image/png")

    async def main() -> tuple[float, float]:
        gate, target, policy = ProviderGate("x", Limits(concurrency=64)), Instant(), RetryPolicy()
        best = {"old": 1e9, "new": 1e9}
        for _ in range(30):
            for name, mod in (("old", old), ("new", new)):
                t0 = time.perf_counter()
                for _ in range(2000):
                    await mod.call_target(target, request, gate, timeout_s=180, policy=policy)
                best[name] = min(best[name], (time.perf_counter() - t0) / 2000 * 1e6)
        return best["old"], best["new"]

    show("call_target with an instant target (gate, timeout)", *asyncio.run(main()))


def slow_target(*, reads_original: bool) -> type:
    """A target answering in 2 ms (the calls overlap, as a provider's do); ``reads_original`` as
    rabench.targets.base.Target says (False: the runner stats each original once per case)."""
    from rabench.contracts import Capabilities, TargetInfo, Verdict

    class Slow:
        def __init__(self) -> None:
            self.info = TargetInfo(
                id="slow",
                kind="other",
                provider="slowp",
                capabilities=Capabilities(checks=False, memory=False, proofs=False),
            )

        async def open(self) -> None: ...
        async def close(self) -> None: ...
        async def reset(self, repetition: int) -> None: ...

        async def check(self, request: Any) -> Verdict:
            await asyncio.sleep(0.002)
            return Verdict()

    Slow.reads_original = reads_original  # type: ignore[attr-defined]
    return Slow


def workers(tmp: Path, rounds: int) -> None:
    import anyio

    sys.path.insert(0, str(ROOT / "bench"))
    from diy_overhead import make_suite

    from rabench.run import runner
    from rabench.run.session import RunOptions, run

    Slow = slow_target(reads_original=True)  # says nothing, as before the third pass: a stat per unit
    suite = make_suite(tmp / "suite", 50)
    current = runner.TargetRun._lane

    async def all_running(self: Any, reps: list[int], *, replay: bool, only_replay: bool = False) -> None:
        events: dict[Any, Any] = {}
        units = self._units(reps, replay, events, only_replay)
        conc = self.gate.limits.concurrency
        async with anyio.create_task_group() as tg:
            for _ in range(max(1, min(conc + max(8, conc // 4), self.ctx.plan.count * len(reps)))):
                tg.start_soon(self._worker, units, events)

    cpu: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(rounds):
        for name, lane in (("old", all_running), ("new", current)):
            runner.TargetRun._lane = lane  # type: ignore[method-assign]
            c0 = time.process_time()
            run(
                RunOptions(
                    out=tmp / f"run-{name}-{r}",
                    suite_dir=str(suite),
                    repetitions=100,
                    cache_root=tmp / "prepared",
                    progress="none",
                    concurrency={"slowp": 64},
                ),
                targets=[Slow()],
            )
            cpu[name].append((time.process_time() - c0) / 5000 * 1e6)
    runner.TargetRun._lane = current  # type: ignore[method-assign]
    med = {k: sorted(v)[len(v) // 2] for k, v in cpu.items()}
    show(f"rabench run, 5,000 units of 2 ms at 64, CPU/unit (median of {rounds})", med["old"], med["new"])
    print(
        "  rounds, old: "
        + " ".join(f"{x:.1f}" for x in cpu["old"])
        + "; new: "
        + " ".join(f"{x:.1f}" for x in cpu["new"])
    )


def writes_and_lookups(tmp: Path, rounds: int) -> None:
    """The run path's own per-unit work (issue 19, third pass): an outcome ``write`` per outcome
    against one per pass of the event loop, and a ``stat`` of the original per unit against one
    per case for a target that reads only the prepared image (``reads_original = False``)."""
    from unittest.mock import patch

    import anyio

    sys.path.insert(0, str(ROOT / "bench"))
    from diy_overhead import make_suite

    from rabench.contracts import Outcome, Verdict
    from rabench.run import outcomes, session
    from rabench.run.session import RunOptions, run

    class EachWrite(outcomes.OutcomeWriter):  # the old writer (f1866d3): one write per outcome, at once
        def write(self, outcome: Outcome) -> None:
            buf = self._buf
            self._encoder.encode_into(outcome, buf)
            buf.extend(b"\n")
            self._fh.write(buf)
            buf.clear()  # (the old one overwrote it next time; close() must not write it again)
            self.written += 1

    Slow = slow_target(reads_original=False)  # reads no file: one stat per case
    SlowStat = slow_target(reads_original=True)  # the runner stats the original per unit

    suite = make_suite(tmp / "suite-wl", 50)
    variants = {"old": (EachWrite, SlowStat), "new": (outcomes.OutcomeWriter, Slow)}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(rounds + 1):
        for name, (writer, target) in variants.items():
            with patch.object(session, "OutcomeWriter", writer):  # what ``run`` writes its outcomes with
                c0 = time.process_time()
                run(
                    RunOptions(
                        out=tmp / f"run-wl-{name}-{r}",
                        suite_dir=str(suite),
                        repetitions=100,
                        cache_root=tmp / "prepared",
                        progress="none",
                        concurrency={"slowp": 64},
                    ),
                    targets=[target()],
                )
                if r:  # the first round warms the preparation cache
                    cpu[name].append((time.process_time() - c0) / 5000 * 1e6)
    med = {k: sorted(v)[len(v) // 2] for k, v in cpu.items()}
    show(f"rabench run, 5,000 units of 2 ms, writes and stats, CPU/unit (median of {rounds})", med["old"], med["new"])
    print(
        "  rounds, old: "
        + " ".join(f"{x:.1f}" for x in cpu["old"])
        + "; new: "
        + " ".join(f"{x:.1f}" for x in cpu["new"])
    )

    line = Outcome(
        run_id="r",
        case_id="c0001",
        target="diy:openai-compatible:fake-vl",
        repetition=3,
        status="ok",
        attempts=1,
        latency_s=0.0123,
        verdict=Verdict(),
        finished_at=time.time(),
    )
    each, per_pass = EachWrite(tmp / "each.jsonl"), outcomes.OutcomeWriter(tmp / "pass.jsonl")

    async def eight_a_pass(w: outcomes.OutcomeWriter, n: int) -> float:
        t0 = time.process_time()
        for _ in range(n // 8):
            for _ in range(8):
                w.write(line)
            await asyncio.sleep(0)
        return (time.process_time() - t0) / n * 1e6

    b = a = 1e9
    for _ in range(20):
        b = min(b, anyio.run(eight_a_pass, each, 4000))
        a = min(a, anyio.run(eight_a_pass, per_pass, 4000))
    each.close()
    per_pass.close()
    show("one outcome line written, 8 finishing per loop pass (CPU)", b, a)


def per_run(tmp: Path, before: str, rounds: int) -> None:
    """What a run pays per case and per run before its calls (issue 19, fourth pass): each case's
    path resolved in the suite folder, a streaming pass and a vetting pass over the suite, each
    case's prepared image found on disk by a new run's cache, and run.json's git commit. "Before"
    is ``--before``'s ``rabench/cases/manifest.py``, ``rabench/prepare/cache.py`` and
    ``rabench/run/manifest.py``, loaded beside the current ones. CPU, best of ``rounds`` x 7."""
    sys.path.insert(0, str(ROOT / "bench"))
    from diy_overhead import make_suite

    from rabench.cases import manifest as new_suite
    from rabench.prepare import cache as new_cache
    from rabench.run import manifest as new_run

    old_suite = module_at(before, "rabench/cases/manifest.py", "suite_before", tmp)
    old_cache = module_at(before, "rabench/prepare/cache.py", "cache_before", tmp)
    old_run = module_at(before, "rabench/run/manifest.py", "run_manifest_before", tmp)
    suite = make_suite(tmp / "suite-run", 50)
    files = [(lc.path, lc.case.sha256) for lc in new_suite.open_suite(suite).cases()]

    async def prepare_all(cache: Any) -> None:
        for path, sha in files:
            await cache.get(path, sha, "image/png")

    asyncio.run(prepare_all(new_cache.PrepCache(tmp / "prepared-run")))

    def fresh_cache(module: ModuleType) -> Callable[[], None]:
        def go() -> None:  # a new run's cache: each original hashed, its entry found on disk
            asyncio.run(prepare_all(module.PrepCache(tmp / "prepared-run")))

        return go

    def cpu_us(fn: Callable[[], object], n: int) -> float:
        best = 1e9
        for _ in range(7):
            c0 = time.process_time()
            for _ in range(n):
                fn()
            best = min(best, (time.process_time() - c0) / n * 1e6)
        return best

    root = Path(suite)
    real = root.resolve()
    new_run.git_commit()  # the cached one asks git once, as a process's first run does
    pieces: list[tuple[str, Callable[[], object], Callable[[], object], int]] = [
        (
            "a case's path resolved in the suite folder",
            lambda: old_suite.resolve_in_suite(root, "r7.png", real),
            lambda: new_suite.resolve_in_suite(root, "r7.png", real),
            500,
        ),
        (
            "streaming pass over the suite, 50 cases",
            lambda: list(old_suite.open_suite(suite).cases()),
            lambda: list(new_suite.open_suite(suite).cases()),
            20,
        ),
        (
            "vetting pass (duplicate keys), 50 cases",
            lambda: list(old_suite.open_suite(suite).cases(check_keys=True)),
            lambda: list(new_suite.open_suite(suite).cases(check_keys=True)),
            20,
        ),
        ("a new run's cache, 50 prepared images on disk", fresh_cache(old_cache), fresh_cache(new_cache), 5),
        ("run.json's git commit", old_run.git_commit, new_run.git_commit, 5),
    ]
    for what, old_fn, new_fn, n in pieces:
        b = a = 1e9
        for _ in range(rounds):
            b, a = min(b, cpu_us(old_fn, n)), min(a, cpu_us(new_fn, n))
        show(what, b, a)


def session(rounds: int) -> None:
    """The DIY target's aiohttp session options (issue 19, the target per call): before, a total
    timeout (``timeout_s + 30``) and a per-host limit equal to the pool's limit; after, no total
    (the caller's per-attempt timer governs) and the pool's limit alone. Three figures: aiohttp's
    per-request timeout handling alone (CPU, best of repeats); the Python function calls per
    request of 2,000 posts against the fake provider (cProfile's count: deterministic, unlike time on
    a shared machine); CPU per post, 2,000 posts at concurrency 64 a round, the two sessions
    alternated, median of ``rounds``."""
    import cProfile
    import pstats

    import aiohttp
    from aiohttp.helpers import TimeoutHandle

    sys.path.insert(0, str(ROOT / "bench"))
    from diy_overhead import free_port, start_fake

    async def timer_pieces() -> tuple[float, float]:
        loop = asyncio.get_running_loop()

        def handle(total: float | None) -> Callable[[], None]:
            def go() -> None:  # what ClientSession._request does with the session's timeout
                tm = TimeoutHandle(loop, total, ceil_threshold=5)
                h = tm.start()
                with tm.timer():
                    pass
                tm.close()
                if h is not None:
                    h.cancel()

            return go

        b = a = 1e9
        for _ in range(20):
            b, a = min(b, best_us(handle(210.0), 2000, 3)), min(a, best_us(handle(None), 2000, 3))
        return b, a

    show("aiohttp's per-request timeout handling", *asyncio.run(timer_pieces()))

    port = free_port()
    fake = start_fake(port)
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    body = b'{"model":"fake-vl","messages":[{"role":"user","content":"' + b"x" * 6000 + b'"}],"max_tokens":64}'
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench-0123456789"}
    conc, n = 64, 2000

    def make(name: str) -> aiohttp.ClientSession:
        if name == "before":
            return aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=conc, limit_per_host=conc),
                timeout=aiohttp.ClientTimeout(total=210.0, sock_connect=30.0),
            )
        return aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=conc), timeout=aiohttp.ClientTimeout(total=None, sock_connect=30.0)
        )

    async def posts(s: aiohttp.ClientSession, calls: int) -> None:
        it = iter(range(calls))

        async def worker() -> None:
            for _ in it:
                async with s.post(url, data=body, headers=headers) as resp:
                    await resp.read()

        await asyncio.gather(*(worker() for _ in range(conc)))

    async def main() -> dict[str, list[float]]:
        sessions = {name: make(name) for name in ("before", "after")}
        cpu: dict[str, list[float]] = {"before": [], "after": []}
        try:
            for s in sessions.values():
                await posts(s, 200)  # connections open
            for name, s in sessions.items():
                prof = cProfile.Profile()
                prof.enable()
                await posts(s, n)
                prof.disable()
                calls = pstats.Stats(prof).total_calls / n  # type: ignore[attr-defined]
                print(f"{'  Python function calls per post, ' + name:58s} {calls:8.1f}")
            for _ in range(rounds):
                for name, s in sessions.items():
                    c0 = time.process_time()
                    await posts(s, n)
                    cpu[name].append((time.process_time() - c0) / n * 1e6)
        finally:
            for s in sessions.values():
                await s.close()
        return cpu

    try:
        cpu = asyncio.run(main())
    finally:
        fake.terminate()
        fake.wait(10)
    med = {k: sorted(v)[len(v) // 2] for k, v in cpu.items()}
    show(f"a post to the fake provider, CPU (median of {rounds})", med["before"], med["after"])
    print(
        "  rounds, before: "
        + " ".join(f"{x:.1f}" for x in cpu["before"])
        + "; after: "
        + " ".join(f"{x:.1f}" for x in cpu["after"])
        + f"; load average {os.getloadavg()[0]:.1f}"
    )


def call_counts(tmp: Path) -> None:
    """Python function calls per call (cProfile's count: the same on a busy machine as on a quiet
    one) of 2,000 calls at concurrency 64 against the fake provider: the bare loop of
    ``bench/diy_overhead.py``, and ``rabench load``'s path (``drive`` with the real
    ``diy:openai-compatible`` target) with the target's session as it was before this pass (a total
    timeout and a per-host limit) and as it is."""
    import cProfile
    import pstats

    import aiohttp
    import anyio
    import msgspec

    sys.path.insert(0, str(ROOT / "bench"))
    from diy_overhead import bare, free_port, make_suite, start_fake

    from rabench.prepare.cache import PrepCache
    from rabench.run import config as cfg
    from rabench.run.load import drive, suite_requests
    from rabench.run.retry import RetryPolicy
    from rabench.targets.diy.target import DiyTarget
    from rabench.targets.registry import make_target

    port = free_port()
    fake = start_fake(port)
    os.environ["RABENCH_OPENAI_COMPATIBLE_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
    os.environ["OPENAI_COMPATIBLE_API_KEY"] = "sk-bench-0123456789"
    conc, n, tid = 64, 2000, "diy:openai-compatible:fake-vl"
    try:
        suite = make_suite(tmp / "suite-counts", 50)
        reqs = anyio.run(suite_requests, str(suite), PrepCache(tmp / "prepared-counts"))
        config = cfg.with_overrides(cfg.TargetsConfig(), None, {"openai-compatible": conc})
        t = make_target(tid, config)
        b64 = base64.b64encode(reqs[0].prepared.read_bytes()).decode()
        built = t._wire.build(
            t.settings,
            "sk-bench-0123456789",
            "fake-vl",
            t._prompt,
            b64,  # type: ignore[attr-defined]
            reqs[0].prepared_media_type,
        )
        body = msgspec.json.encode(built.body)
        current_open = DiyTarget.open

        async def old_open(self: DiyTarget) -> None:  # the session before this pass
            if self._session is None:
                k = self.settings.concurrency
                self._session = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=k, limit_per_host=k),
                    # DiyTarget's old default timeout_s (180 s) + 30 s (the attribute is gone since 2420b7f)
                    timeout=aiohttp.ClientTimeout(total=180.0 + 30.0, sock_connect=self.settings.connect_timeout_s),
                )

        def load_side(open_: Any) -> Callable[[], None]:
            def go() -> None:
                async def main() -> None:
                    DiyTarget.open = open_  # type: ignore[method-assign]
                    target = make_target(tid, config)
                    await target.open()
                    try:
                        await drive(target, reqs, concurrency=conc, calls=n, timeout_s=60, policy=RetryPolicy())
                    finally:
                        await target.close()
                        DiyTarget.open = current_open  # type: ignore[method-assign]

                anyio.run(main)

            return go

        sides = {
            "bare aiohttp loop": lambda: asyncio.run(bare(built.url, body, built.headers, n, conc)),
            "load path, the session before": load_side(old_open),
            "load path, the session now": load_side(current_open),
        }
        for what, fn in sides.items():
            fn()  # warm
            prof = cProfile.Profile()
            prof.enable()
            fn()
            prof.disable()
            print(f"{'Python function calls per call, ' + what:58s} {pstats.Stats(prof).total_calls / n:8.1f}")  # type: ignore[attr-defined]
    finally:
        fake.terminate()
        fake.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="7e1493d", help="the commit whose answer.py and execute.py are 'before'")
    ap.add_argument("--rounds", type=int, default=9, help="rounds of the workers comparison")
    ap.add_argument(
        "--only",
        choices=["answers", "bodies", "lookups", "calls", "workers", "writes", "per-run", "session", "call-counts"],
        help="just this piece",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rabench-diy-pieces-") as name:
        tmp = Path(name)
        pieces: dict[str, Callable[[], None]] = {
            "answers": lambda: answers(module_at(args.before, "rabench/targets/diy/answer.py", "answer_before", tmp)),
            "bodies": bodies,
            "lookups": lambda: lookups(tmp),
            "calls": lambda: calls(module_at(args.before, "rabench/run/execute.py", "execute_before", tmp)),
            "workers": lambda: workers(tmp, args.rounds),
            "writes": lambda: writes_and_lookups(tmp, args.rounds),
            "per-run": lambda: per_run(tmp, args.before, args.rounds),
            "session": lambda: session(args.rounds),
            "call-counts": lambda: call_counts(tmp),
        }
        for piece, fn in pieces.items():
            if args.only in (None, piece):
                fn()
    return 0


if __name__ == "__main__":
    sys.exit(main())
