"""Nothing lost, nothing doubled: kill -9 / Ctrl-C mid-run, then --resume; refusals are one line."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

from rabench.cli.main import main
from rabench.contracts import RunManifest, Verdict
from rabench.errors import UserError
from rabench.run.lock import RunLock
from rabench.run.outcomes import read_outcomes
from runfakes import FakeTarget, run_fake
from runsuite import make_suite

N, REPS = 120, 2
TARGETS = ["null:slow=0.05", "null"]  # slow enough that SIGINT lands mid-run even on a loaded machine


def _cli(*args, cwd):
    env = dict(os.environ, RABENCH_CACHE=str(cwd / "cache"))
    return subprocess.Popen(
        [sys.executable, "-m", "rabench", "run", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _run_args(suite, out):
    args = [
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--repeat",
        str(REPS),
        "--progress",
        "plain",
        "--concurrency",
        "null=2",
    ]
    for t in TARGETS:
        args += ["--target", t]
    return args


def _wait_for_lines(path: Path, n: int, proc, timeout=30.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.01)
    raise AssertionError("run made no progress")


def _exactly_one_per_unit(out: Path):
    outcomes = read_outcomes(out / "outcomes.jsonl")  # every line decodes
    keys = [(o.case_id, o.target, o.repetition) for o in outcomes]
    expected = {(f"c{i:05d}", t, r) for i in range(N) for t in TARGETS for r in range(REPS)}
    assert len(keys) == len(set(keys)), "an outcome was written twice"
    assert set(keys) == expected, f"missing {len(expected - set(keys))}"
    return outcomes


def test_kill_9_mid_run_then_resume_gives_exactly_one_outcome_per_unit(tmp_path):
    suite = make_suite(tmp_path / "s", N, distinct_files=10)
    out = tmp_path / "runs" / "r1"
    proc = _cli(*_run_args(suite, out), cwd=tmp_path)
    _wait_for_lines(out / "outcomes.jsonl", 40, proc)
    # a second run on the same folder refuses while the first is alive
    with pytest.raises(UserError, match="another rabench run"):
        RunLock(out).acquire()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = (out / "outcomes.jsonl").read_bytes()
    assert 40 <= partial.count(b"\n") < N * REPS * len(TARGETS)
    with open(out / "outcomes.jsonl", "ab") as fh:  # a write torn by the crash
        fh.write(b'{"run_id":"r1","case_id":"c0')
    assert msgspec.json.decode((out / "run.json").read_bytes(), type=RunManifest).finished_at is None

    resumed = subprocess.run(
        [sys.executable, "-m", "rabench", "run", "--out", str(out), "--resume", "--progress", "none"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ, RABENCH_CACHE=str(tmp_path / "cache")),
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "from before the resume" in resumed.stdout
    _exactly_one_per_unit(out)
    manifest = msgspec.json.decode((out / "run.json").read_bytes(), type=RunManifest)
    assert manifest.finished_at is not None and manifest.repetitions == REPS
    # resuming a finished run runs nothing and writes nothing
    before = (out / "outcomes.jsonl").read_bytes()
    assert main(["run", "--out", str(out), "--resume", "--progress", "none"]) == 0
    assert (out / "outcomes.jsonl").read_bytes() == before


def test_ctrl_c_leaves_a_valid_file_and_resume_finishes(tmp_path):
    suite = make_suite(tmp_path / "s", N, distinct_files=10)
    out = tmp_path / "runs" / "r2"
    proc = _cli(*_run_args(suite, out), cwd=tmp_path)
    _wait_for_lines(out / "outcomes.jsonl", 30, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err
    # the exact command that finishes it (issue 32 defect 3)
    assert (
        err.decode().strip().splitlines()[-1] == f"rabench: interrupted; resume with: rabench run --resume --out {out}"
    )
    data = (out / "outcomes.jsonl").read_bytes()
    assert data.endswith(b"\n")
    read_outcomes(out / "outcomes.jsonl")  # valid as it stands
    assert main(["run", "--out", str(out), "--resume", "--progress", "none", "--cache", str(tmp_path / "c")]) == 0
    _exactly_one_per_unit(out)


def test_resume_refuses_other_settings_with_one_line(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 5)
    out = tmp_path / "r"
    base = [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--target",
        "null",
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "c"),
    ]
    assert main(base) == 0
    capsys.readouterr()
    cases = [
        (base, "already holds a run"),
        (base + ["--resume", "--repeat", "2"], "repetitions differs"),
        (["run", "--suite", str(suite), "--out", str(out), "--target", "null:slow=0.1", "--resume"], "targets differ"),
    ]
    for argv, expected in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err
    # the timeout and the retry count may change on --resume (docs/running.md)
    assert main(base + ["--resume", "--timeout", "5", "--retries", "1"]) == 0
    capsys.readouterr()
    # a changed suite is refused too
    make_suite(tmp_path / "s", 6)
    assert main(base + ["--resume"]) == 2
    assert "suite manifest sha256 differs" in capsys.readouterr().err


def test_memory_target_replays_a_partly_done_repetition_before_going_on(tmp_path):
    """After a crash, a target with memory must see the earlier cases again (unrecorded)."""
    n = 12
    suite = make_suite(tmp_path / "s", n, lineage={k: k - 6 for k in range(6, 12)})
    out = tmp_path / "r"

    def remembering():
        seen = set()

        def behaviour(request, attempt):
            of = f"c{int(request.case_id[1:]) - 6:05d}"
            hit = of in seen
            seen.add(request.case_id)
            return Verdict(seen_before=hit)

        class Remembering(FakeTarget):
            async def reset(self, repetition):
                await super().reset(repetition)
                seen.clear()  # fresh memory per repetition, like the engine's duplicate network

        return Remembering(behaviour=behaviour, memory=True)

    run_fake(suite, out, [remembering()], repetitions=2, concurrency=1)
    full = read_outcomes(out / "outcomes.jsonl")
    assert sum(o.verdict.seen_before for o in full) == 12  # every duplicate recognised in both reps
    # simulate a crash after 16 outcomes (rep 0 complete, rep 1 4 cases in)
    lines = (out / "outcomes.jsonl").read_bytes().splitlines(keepends=True)
    (out / "outcomes.jsonl").write_bytes(b"".join(lines[:16]))
    second = remembering()
    run_fake(suite, out, [second], repetitions=2, concurrency=1, resume=True)
    again = read_outcomes(out / "outcomes.jsonl")
    assert len(again) == 2 * n
    assert {(o.case_id, o.repetition): o.verdict.seen_before for o in again} == {
        (o.case_id, o.repetition): o.verdict.seen_before for o in full
    }
    assert second.resets == [1]  # rep 0 was complete: not redone
    assert [c for c, r, _, _ in second.calls][:4] == ["c00000", "c00001", "c00002", "c00003"]
