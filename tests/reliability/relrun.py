"""Run the real ``rabench`` CLI in a subprocess and measure it: exit code, output, wall time, peak RSS.

Why a subprocess: the promises under test (bounded memory, survival of
``kill -9``, one clear line on stderr, the lock between two processes) are
promises about a process, and only a separate process shows them honestly.
Peak RSS: the child's own high-water mark (``VmHWM``) and, sampled every 50 ms,
the sum of the resident sets of its whole process tree (the engine's and the
preparation's worker processes included).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec

from rabench.contracts import Authenticity, Case, Outcome, ReceiptLabel, SuiteHeader

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Finished:
    rc: int
    stdout: str
    stderr: str
    elapsed_s: float
    max_rss_mb: float  # the main process's peak
    tree_rss_mb: float = 0.0  # the highest sampled sum over the process and all its descendants


def rabench_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "rabench", *args]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment without any real provider key, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


def run_measured(
    cmd: list[str], *, env: dict[str, str], cwd: Path, timeout_s: float, stdout_path: Path, stderr_path: Path
) -> Finished:
    """Run to completion (killed after ``timeout_s``); output goes to files so it can be grepped later."""
    t0 = time.monotonic()
    peak_kb = tree_kb = 0
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err)
        deadline = t0 + timeout_s
        while True:
            peak_kb = max(peak_kb, _vm_hwm_kb(proc.pid))
            tree_kb = max(tree_kb, tree_rss_kb(proc.pid))
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
    return Finished(
        proc.returncode,
        stdout_path.read_text(errors="replace"),
        stderr_path.read_text(errors="replace"),
        time.monotonic() - t0,
        (peak_kb or usage.ru_maxrss) / 1024,
        tree_kb / 1024,
    )


def _status_kb(pid: int, key: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(c) for c in fh.read().split()]
    except OSError:
        pass
    return out


def tree_rss_kb(pid: int) -> int:
    """Resident set (VmRSS) of ``pid`` plus every descendant, now."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += _status_kb(p, b"VmRSS:")
        todo += _children(p)
    return total


def _vm_hwm_kb(pid: int) -> int:
    """The child's own peak RSS (VmHWM of its address space), 0 if unreadable.

    Not ``ru_maxrss``: Linux carries the parent's high-water mark across fork+exec into the
    child's ru_maxrss, so a child of a big pytest process would report pytest's size.
    """
    return _status_kb(pid, b"VmHWM:")


def write_suite(root: Path, files: list[tuple[str, str, bytes, str]], name: str = "reliability") -> Path:
    """A suite from (case id, file name, bytes, declared media type); every case a genuine receipt."""
    root.mkdir(parents=True, exist_ok=True)
    enc = msgspec.json.Encoder()
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=8.5, currency="USD")
    lines = [enc.encode(SuiteHeader(suite="receipt", name=name))]
    for cid, fname, data, media in files:
        (root / fname).write_bytes(data)
        lines.append(
            enc.encode(Case(id=cid, file=fname, sha256=hashlib.sha256(data).hexdigest(), media_type=media, label=label))
        )
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return root


def outcomes(run_dir: Path) -> list[Outcome]:
    dec = msgspec.json.Decoder(Outcome)
    path = run_dir / "outcomes.jsonl"
    return [dec.decode(line) for line in path.read_bytes().splitlines() if line.strip()]
