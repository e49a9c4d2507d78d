"""Two processes at once: the run folder is locked, the prepared-image cache is shared safely.

* Two ``rabench run`` pointed at the same ``--out``: the second refuses with one
  line naming the holder, whether it starts a run or ``--resume``s; after the
  holder is killed (-9) the lock is free, and ``--resume`` ends with exactly one
  outcome per unit (nothing interleaved, nothing doubled).
* Two runs (different ``--out``) preparing the same files into one ``--cache``
  at the same moment: every cache entry is a whole, valid image, identical to a
  fresh preparation of its file; no temporary file is left behind.
"""

from __future__ import annotations

import io
import subprocess
import time

import pytest
from PIL import Image

from relhostile import receipt_image, receipt_png
from relrun import ROOT, child_env, outcomes, rabench_cmd, run_measured, write_suite
from rabench.prepare.image import prepare_bytes


def _wait_for(predicate, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.slow  # three CLI starts and 20 s of a held folder, cut short
def test_second_run_on_the_same_out_refuses_with_one_line(tmp_path):
    n = 40
    suite = write_suite(tmp_path / "suite", [(f"c{i:03d}", f"r{i}.png", receipt_png(i), "image/png") for i in range(n)])
    out = tmp_path / "run"
    # 0.5 s per unit, one at a time: the first run holds the folder for 20 s unless stopped
    cmd = rabench_cmd(
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--target",
        "null:slow=0.5",
        "--concurrency",
        "null=1",
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
    )
    env = child_env()
    first = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: (out / "outcomes.jsonl").exists() and (out / "outcomes.jsonl").stat().st_size > 0)
        for attempt in (cmd, rabench_cmd("run", "--out", str(out), "--resume", "--progress", "none")):
            second = run_measured(
                attempt, env=env, cwd=ROOT, timeout_s=30, stdout_path=tmp_path / "o.txt", stderr_path=tmp_path / "e.txt"
            )
            assert second.rc == 2
            lines = second.stderr.strip().splitlines()
            assert len(lines) == 1, second.stderr
            assert f"another rabench run (pid {first.pid}) is writing to this folder" in lines[0]
        assert first.poll() is None, "the first run should still be running"
        first.kill()  # kill -9: the kernel drops its lock with it
        first.wait()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    written = len(outcomes(out))
    assert 0 < written < n
    again = run_measured(
        rabench_cmd("run", "--out", str(out), "--resume", "--concurrency", "null=64", "--progress", "none"),
        env=env,
        cwd=ROOT,
        timeout_s=60,
        stdout_path=tmp_path / "o2.txt",
        stderr_path=tmp_path / "e2.txt",
    )
    assert again.rc == 0, again.stderr
    got = outcomes(out)
    assert len(got) == n and len({o.case_id for o in got}) == n  # nothing doubled, nothing interleaved
    assert all(o.status == "ok" for o in got)


def _rotated_jpeg(i: int) -> bytes:
    """A 1400x1000 JPEG marked 'rotate 90°' in EXIF: preparation must decode, turn and re-encode it."""
    im = receipt_image(i, size=(1400, 1000))
    exif = Image.Exif()
    exif[0x0112] = 6
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=90, exif=exif.tobytes())
    return buf.getvalue()


def _two_runs_into_one_cache(root, files, n):
    """Start two runs on one cache at once; check what they left; return files prepared by each."""
    suite = write_suite(root / "suite", files)
    cache = root / "cache"
    env = child_env()
    procs = [
        subprocess.Popen(
            rabench_cmd(
                "run",
                "--suite",
                str(suite),
                "--out",
                str(root / f"run{k}"),
                "--target",
                "null",
                "--progress",
                "none",
                "--cache",
                str(cache),
            ),
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(2)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    for p, (_out, err) in zip(procs, results):
        assert p.returncode == 0, err
    for k in range(2):
        got = outcomes(root / f"run{k}")
        assert len(got) == n and all(o.status == "ok" for o in got)
    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert not [p for p in entries if p.name.endswith(".tmp")]
    assert len(entries) == n  # one entry per file, whoever wrote it last
    expected = {prepare_bytes(data, media).data for _, _, data, media in files}
    for entry in entries:
        data = entry.read_bytes()
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            assert im.size == (1000, 1400)  # turned upright
        assert data in expected  # byte for byte what one preparation writes
    return [int(out.rsplit(";", 1)[1].split()[0]) for out, _ in results]  # "...; N files prepared"


def test_two_runs_preparing_the_same_files_into_one_cache(tmp_path):
    """Whether both processes really prepare a file at the same moment depends on how fast each
    starts on a busy machine, so up to three fresh attempts are made; at least one must have
    exercised the race, and every attempt must leave a valid cache."""
    n = 24
    files = [(f"c{i:03d}", f"r{i}.jpg", _rotated_jpeg(i), "image/jpeg") for i in range(n)]
    tries = []
    for attempt in range(3):
        prepared = _two_runs_into_one_cache(tmp_path / f"try{attempt}", files, n)
        tries.append(prepared)
        if sum(prepared) > n:
            break
    assert sum(tries[-1]) > n, f"no file was prepared by both runs at once in {tries}; the race was not exercised"
