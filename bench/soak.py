"""Soak: N units through the real ``rabench run`` against the fake provider, with faults and kill -9s.

Why: the runner promises (DESIGN.md, "Nothing lost"; "One retry layer") that a
long run against a flaky service ends with exactly one outcome per unit, that
only transport failures are retried and at most 3 times, that a ``kill -9``
loses at most the calls in flight and those finished in the event loop's last
pass (written together as the next pass starts), and that memory does not grow
with the suite. Unit tests check each piece; this checks them together, at scale, over
real sockets, with the real CLI in a subprocess.

What it does:

1. builds a suite of N tiny distinct PNG cases (one sha256 per unit, so the
   fake provider's per-image record identifies the unit);
2. serves the fake provider (``rabench.fakeprovider``) on loopback in this
   process with a fault mix: 10% 429 + Retry-After, 5% 5xx (500/502), 1%
   connection resets, 1% hangs past the attempt timeout, 1% malformed bodies,
   the rest right answers; it records which behaviour it injected for every
   request (kept compactly: one character per request per image);
3. runs ``rabench run --target diy:openai-compatible:soak-model`` as a
   subprocess, sends it ``SIGKILL`` at ``--kills`` random points (by outcomes
   written) and finishes with ``rabench run --resume``;
4. verifies: one outcome per unit; each outcome's status and attempts agree
   with the behaviours the fake injected for that unit's requests (the last
   ``attempts`` requests for its image); attempts <= 4 (3 retries); requests
   the server saw that belong to no outcome are only the ones in flight at a
   kill (or finished in its last pass); and reports peak RSS of every runner session.

Usage::

    .venv/bin/python bench/soak.py --units 200000            # the full soak (minutes)
    .venv/bin/python bench/soak.py --units 10000 --json s.json

Exit status 0 when every check passed, 1 otherwise. See docs/performance.md ("Soak").
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zlib
from collections import Counter
from pathlib import Path
from struct import pack

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rabench.contracts import Authenticity, Case, Outcome, ReceiptLabel, SuiteHeader  # noqa: E402
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile  # noqa: E402

MODEL = "soak-model"
TARGET = f"diy:openai-compatible:{MODEL}"
KEY = "sk-soak-0000000000000000"
MIX = {"right": 0.82, "429": 0.10, "500": 0.025, "502": 0.025, "reset": 0.01, "hang": 0.01, "malformed": 0.01}
CODE = {"right": "r", "429": "4", "500": "0", "502": "2", "reset": "x", "hang": "h", "malformed": "m"}
KIND = {v: k for k, v in CODE.items()}
TRANSPORT = frozenset("402x")  # retried by the runner
FINAL = {"r": "ok", "h": "timeout", "m": "invalid_output"}
MAX_ATTEMPTS = 4  # 1 + 3 retries


# --------------------------------------------------------------------------- suite


def _png(pixels: bytes, w: int = 8, h: int = 8) -> bytes:
    """An 8-bit RGB PNG written directly (fast, lossless, so distinct pixels give distinct bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return pack(">I", len(data)) + kind + data + pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + pixels[y * w * 3 : (y + 1) * w * 3] for y in range(h))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows, 6))
        + chunk(b"IEND", b"")
    )


def build_suite(root: Path, units: int, seed: int) -> list[str]:
    """``units`` cases c0000000.. with one distinct 8x8 PNG each; returns their sha256s (in order).

    Reused when a suite of the same size and seed is already there (building 200k files takes a while).
    """
    stamp = root / ".soak-suite"
    want = f"{units} {seed}"
    if stamp.is_file() and stamp.read_text() == want:
        dec = msgspec.json.Decoder(Case)
        with open(root / "manifest.jsonl", "rb") as fh:
            next(fh)
            return [dec.decode(line).sha256 for line in fh]
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    rng = random.Random(seed)
    enc = msgspec.json.Encoder()
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=10.8, currency="USD")
    shas: list[str] = []
    with open(root / "manifest.jsonl", "wb") as fh:
        header = SuiteHeader(suite="receipt", name=f"soak-{units}", meta={"generator": "bench/soak.py", "seed": seed})
        fh.write(enc.encode(header) + b"\n")
        for i in range(units):
            data = _png(i.to_bytes(4, "big") + rng.randbytes(188))
            rel = f"f/{i // 1000:04d}/{i:07d}.png"
            path = root / rel
            if i % 1000 == 0:
                path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            sha = hashlib.sha256(data).hexdigest()
            shas.append(sha)
            fh.write(
                enc.encode(Case(id=f"c{i:07d}", file=rel, sha256=sha, media_type="image/png", label=label)) + b"\n"
            )
    stamp.write_text(want)
    return shas


# --------------------------------------------------------------------------- fake provider


class Recorder:
    """Stands in for ``FakeApp.requests``: keeps one character per request per image, not the bodies.

    (The fake's own list keeps every request body, a few kB each: fine for a
    test, a gigabyte for a soak.)
    """

    def __init__(self) -> None:
        self.by_image: dict[str, str] = {}
        self.kinds: Counter[str] = Counter()
        self.other: Counter[str] = Counter()  # requests without our model/image (should stay 0)

    def append(self, req) -> None:  # called on the fake's event loop thread
        code = CODE.get(req.behaviour)
        if code is None or req.model != MODEL or req.image_sha256 is None:
            self.other[req.behaviour] += 1
            return
        self.kinds[req.behaviour] += 1
        sha = req.image_sha256
        self.by_image[sha] = self.by_image.get(sha, "") + code


def soak_profile(seed: int, hang_s: float, retry_after: str) -> Profile:
    return Profile(
        name="soak",
        seed=seed,
        require_key=True,
        default=ModelProfile(
            latency=Latency(dist="uniform", min_ms=1, max_ms=5), mix=MIX, retry_after=retry_after, hang_s=hang_s
        ),
    )


# --------------------------------------------------------------------------- runner sessions


def _rss_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) in kB from /proc, (0, 0) once the process is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    return rss, hwm


class LineCounter:
    """Counts complete lines of a growing file without re-reading it."""

    def __init__(self, path: Path):
        self.path, self.offset, self.lines = path, 0, 0

    def poll(self) -> int:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return self.lines
        self.offset += len(data)
        self.lines += data.count(b"\n")
        return self.lines


def run_sessions(
    args: argparse.Namespace, work: Path, suite: Path, env: dict[str, str], kill_at: list[int]
) -> list[dict]:
    """Start the runner, kill -9 it at each point in ``kill_at`` (outcomes written), resume to the end."""
    out = work / "run"
    config = work / "targets.toml"
    config.write_text(
        f"[defaults]\ntimeout_s = {args.timeout}\nconcurrency = {args.concurrency}\n"
        f"[providers.openai-compatible]\nconcurrency = {args.concurrency}\n"
        'api_key_env = "OPENAI_COMPATIBLE_API_KEY"\n'
    )
    base = [
        sys.executable,
        "-m",
        "rabench",
        "run",
        "--out",
        str(out),
        "--config",
        str(config),
        "--progress",
        "plain",
        "--log-every",
        "10",
        "--cache",
        str(work / "cache"),
    ]
    first = base + ["--suite", str(suite), "--target", TARGET, "--timeout", str(args.timeout)]
    resume = base + ["--resume", "--timeout", str(args.timeout)]
    counter = LineCounter(out / "outcomes.jsonl")
    sessions: list[dict] = []
    pending = list(kill_at)
    while True:
        cmd = resume if sessions else first
        log = open(work / f"session-{len(sessions)}.log", "wb")
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        start_lines = counter.poll()
        info = {
            "session": len(sessions),
            "cmd": " ".join(cmd[1:]),
            "start_outcomes": start_lines,
            "killed": False,
            "hwm_kb": 0,
            "hwm_kb_at_10k_units": None,
        }
        while proc.poll() is None:
            time.sleep(0.1)
            lines = counter.poll()
            _, hwm = _rss_kb(proc.pid)
            info["hwm_kb"] = max(info["hwm_kb"], hwm)
            if info["hwm_kb_at_10k_units"] is None and lines - start_lines >= 10_000:
                info["hwm_kb_at_10k_units"] = hwm
            if pending and lines >= pending[0]:
                _, hwm = _rss_kb(proc.pid)
                info["hwm_kb"] = max(info["hwm_kb"], hwm)
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                pending.pop(0)
                info["killed"] = True
                break
        log.close()
        info["rc"] = proc.returncode
        info["elapsed_s"] = round(time.monotonic() - t0, 2)
        info["end_outcomes"] = counter.poll()
        sessions.append(info)
        if not info["killed"]:
            if proc.returncode != 0:
                sys.stderr.write((work / f"session-{info['session']}.log").read_text()[-3000:])
            return sessions
        if len(sessions) > args.kills + 3:
            raise RuntimeError("too many sessions")


# --------------------------------------------------------------------------- verification


def verify(outcomes_path: Path, shas: list[str], rec: Recorder) -> dict:
    """Compare every outcome with what the fake injected for its unit's requests."""
    dec = msgspec.json.Decoder(Outcome)
    seen: dict[str, Outcome] = {}
    duplicates = 0
    lines = 0
    with open(outcomes_path, "rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            lines += 1
            o = dec.decode(raw)
            if o.case_id in seen:
                duplicates += 1
            seen[o.case_id] = o
    statuses: Counter[str] = Counter()
    expected: Counter[str] = Counter()
    attempts: Counter[int] = Counter()
    mismatches: list[str] = []
    orphans = 0
    missing = 0
    for i, sha in enumerate(shas):
        cid = f"c{i:07d}"
        o = seen.get(cid)
        if o is None:
            missing += 1
            continue
        statuses[o.status] += 1
        attempts[o.attempts] += 1
        sent = rec.by_image.get(sha, "")
        k = o.attempts
        if not 1 <= k <= MAX_ATTEMPTS or len(sent) < k:
            mismatches.append(f"{cid}: {o.status} after {k} attempts, server saw {sent!r}")
            continue
        tail, orphans = sent[-k:], orphans + len(sent) - k
        if any(c not in TRANSPORT for c in tail[:-1]):
            mismatches.append(f"{cid}: retried after a non-transport behaviour: {tail!r}")
            continue
        final = tail[-1]
        want = FINAL.get(final) or ("error" if k == MAX_ATTEMPTS else "retry-missing")
        expected[want] += 1
        if o.status != want:
            mismatches.append(f"{cid}: {o.status} after {k} attempts, server injected {tail!r} (expected {want})")
    return {
        "outcome_lines": lines,
        "units_with_outcome": len(seen),
        "duplicates": duplicates,
        "missing": missing,
        "statuses": dict(sorted(statuses.items())),
        "expected_statuses": dict(sorted(expected.items())),
        "attempts": {str(k): v for k, v in sorted(attempts.items())},
        "retries": sum((k - 1) * v for k, v in attempts.items()),
        "max_attempts": max(attempts) if attempts else 0,
        "orphan_requests": orphans,
        "mismatches": len(mismatches),
        "mismatch_examples": mismatches[:10],
    }


# --------------------------------------------------------------------------- main


def soak(args: argparse.Namespace) -> dict:
    work = Path(args.workdir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    for stale in ("run", "cache"):
        shutil.rmtree(work / stale, ignore_errors=True)
    for old in work.glob("session-*.log"):
        old.unlink()
    t0 = time.monotonic()
    suite = work / f"suite-{args.units}-{args.seed}"
    shas = build_suite(suite, args.units, args.seed)
    build_s = time.monotonic() - t0
    rng = random.Random(args.seed)
    # kill points spread over the run, at least 5% apart
    kill_at = sorted(
        int(args.units * (0.1 + 0.8 * (k + rng.random() * 0.8) / max(1, args.kills))) for k in range(args.kills)
    )
    rec = Recorder()
    profile = soak_profile(args.seed, args.hang, args.retry_after)
    with BackgroundFakeProvider(profile) as fake:
        fake.app.requests = rec  # type: ignore[assignment]  # compact record instead of bodies
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(fake.env())
        env["OPENAI_COMPATIBLE_API_KEY"] = KEY
        env["PYTHONPATH"] = str(ROOT)
        t1 = time.monotonic()
        sessions = run_sessions(args, work, suite, env, kill_at)
        run_s = time.monotonic() - t1
    result = verify(work / "run" / "outcomes.jsonl", shas, rec)
    injected = {k: rec.kinds.get(k, 0) for k in MIX}
    # units without an outcome at a kill: each of the lane's workers (concurrency + spares) has one
    # in flight and may have one finished in the loop's last pass, not yet written
    in_flight_cap = 2 * (args.concurrency + max(8, args.concurrency // 4))
    checks = {
        "one_outcome_per_unit": result["missing"] == 0
        and result["duplicates"] == 0
        and result["outcome_lines"] == args.units,
        "statuses_match_injected": result["mismatches"] == 0 and result["statuses"] == result["expected_statuses"],
        "retries_at_most_3": result["max_attempts"] <= MAX_ATTEMPTS,
        "lost_only_in_flight": result["orphan_requests"] <= args.kills * in_flight_cap * MAX_ATTEMPTS,
        "finished_ok": sessions[-1]["rc"] == 0 and sum(s["killed"] for s in sessions) == args.kills,
        "no_foreign_requests": not rec.other,
    }
    return {
        "git_commit": _git("rev-parse", "HEAD"),
        "rabench_uncommitted_changes": bool(_git("status", "--porcelain", "rabench")),
        "units": args.units,
        "seed": args.seed,
        "concurrency": args.concurrency,
        "timeout_s": args.timeout,
        "hang_s": args.hang,
        "kills": args.kills,
        "kill_at_outcomes": kill_at,
        "suite_build_s": round(build_s, 1),
        "run_s": round(run_s, 1),
        "units_per_s": round(args.units / run_s, 1) if run_s else None,
        "requests": sum(injected.values()),
        "injected": injected,
        "foreign_requests": dict(rec.other),
        **result,
        "sessions": sessions,
        "peak_rss_mb": round(max(s["hwm_kb"] for s in sessions) / 1024, 1),
        "checks": checks,
        "passed": all(checks.values()),
    }


def _git(*args: str) -> str:
    out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--units", type=int, default=200_000, help="cases in the suite = units of the run (default 200000)")
    p.add_argument("--kills", type=int, default=2, help="kill -9s of the runner at random points (default 2)")
    p.add_argument("--concurrency", type=int, default=128, help="calls in flight (default 128)")
    p.add_argument("--timeout", type=float, default=2.0, help="per-attempt timeout, s (default 2)")
    p.add_argument("--hang", type=float, default=6.0, help="how long a 'hang' lasts, s (default 6)")
    p.add_argument("--retry-after", default="1", help="Retry-After header on 429 (default 1)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workdir", default=str(ROOT / ".cache" / "soak"), help="suite, run and logs (default .cache/soak)")
    p.add_argument("--json", default=None, metavar="PATH", help="write the figures as JSON here")
    args = p.parse_args(argv)
    if args.units < 1 or args.kills < 0 or args.timeout >= args.hang:
        p.error("need --units >= 1, --kills >= 0 and --timeout < --hang")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = soak(args)
    text = msgspec.json.format(msgspec.json.encode(report), indent=2).decode()
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
