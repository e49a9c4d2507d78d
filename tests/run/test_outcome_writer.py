"""The outcomes writer: one ``write`` per pass of the event loop, nothing lost that finished before it.

What ``rabench run`` promises (docs/running.md, "Resume, Ctrl-C, crashes"): a crash, even
``kill -9``, loses at most the calls in flight and those that finished in the event loop's
last pass; Ctrl-C and a normal end write everything; a full disk still stops the run.
"""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rabench.contracts import Outcome
from rabench.run.outcomes import OutcomeWriter, read_outcomes, scan_done


def _outcome(i: int) -> Outcome:
    return Outcome(
        run_id="r",
        case_id=f"c{i:03d}",
        target="null",
        repetition=0,
        status="ok",
        attempts=1,
        latency_s=0.001,
        finished_at=1.0,
    )


class _CountingFile:
    """The writer's file, counting ``write`` calls; ``most`` bytes per call, or an error."""

    def __init__(self, fh, most: int | None = None, fail: OSError | None = None):
        self.fh, self.most, self.fail, self.calls = fh, most, fail, 0

    def write(self, data) -> int:
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        return self.fh.write(bytes(data[: self.most]) if self.most else data)

    def __getattr__(self, name):
        return getattr(self.fh, name)


def _lines(path: Path) -> list[str]:
    return [o.case_id for o in read_outcomes(path)]


def test_outside_an_event_loop_each_outcome_is_written_at_once(tmp_path):
    with OutcomeWriter(tmp_path / "o.jsonl") as w:
        w.write(_outcome(1))
        assert _lines(tmp_path / "o.jsonl") == ["c001"]


def test_one_passs_outcomes_are_one_write_at_the_start_of_the_next_pass(tmp_path):
    path = tmp_path / "o.jsonl"

    async def main() -> None:
        with OutcomeWriter(path) as w:
            w._fh = counting = _CountingFile(w._fh)  # type: ignore[assignment]
            for i in range(3):
                w.write(_outcome(i))
            assert path.read_bytes() == b"" and counting.calls == 0  # still this pass
            await asyncio.sleep(0)
            assert _lines(path) == ["c000", "c001", "c002"] and counting.calls == 1
            w.write(_outcome(3))  # the next pass's outcome; the earlier ones stay written
            assert _lines(path) == ["c000", "c001", "c002"]
            await asyncio.sleep(0)
            assert counting.calls == 2

    asyncio.run(main())
    assert _lines(path) == ["c000", "c001", "c002", "c003"]


def test_close_writes_what_the_last_pass_finished(tmp_path):
    # Ctrl-C and the end of a run close the writer before the loop's next pass: nothing is left out.
    path = tmp_path / "o.jsonl"

    async def main() -> None:
        w = OutcomeWriter(path)
        w.write(_outcome(1))
        w.write(_outcome(2))
        w.close()
        await asyncio.sleep(0)  # the queued flush finds the file closed and does nothing

    asyncio.run(main())
    assert _lines(path) == ["c001", "c002"]


def test_a_short_write_is_followed_by_the_rest(tmp_path):
    path = tmp_path / "o.jsonl"

    async def main() -> None:
        with OutcomeWriter(path) as w:
            w._fh = counting = _CountingFile(w._fh, most=7)  # type: ignore[assignment]
            for i in range(4):
                w.write(_outcome(i))
            await asyncio.sleep(0)
            assert counting.calls > 4

    asyncio.run(main())
    assert _lines(path) == ["c000", "c001", "c002", "c003"]
    assert path.read_bytes().endswith(b"\n")


def test_a_failed_write_stops_the_run_at_the_next_write_or_at_close(tmp_path):
    full = OSError(errno.ENOSPC, "No space left on device")

    async def next_write() -> None:
        w = OutcomeWriter(tmp_path / "a.jsonl")
        w._fh = _CountingFile(w._fh, fail=full)  # type: ignore[assignment]
        w.write(_outcome(1))
        await asyncio.sleep(0)  # the deferred write fails here, in a loop callback
        with pytest.raises(OSError, match="No space left"):
            w.write(_outcome(2))

    async def at_close() -> None:
        w = OutcomeWriter(tmp_path / "b.jsonl")
        w._fh = _CountingFile(w._fh, fail=full)  # type: ignore[assignment]
        w.write(_outcome(1))
        await asyncio.sleep(0)
        with pytest.raises(OSError, match="No space left"):
            w.close()

    asyncio.run(next_write())
    asyncio.run(at_close())


def test_kill_9_keeps_every_outcome_finished_before_the_last_pass(tmp_path):
    # A real SIGKILL in the same pass as a new outcome: the earlier passes' outcomes are in the
    # file, whole lines; the last pass's is not (a resume runs that unit again).
    path = tmp_path / "o.jsonl"
    child = textwrap.dedent(f"""
        import asyncio, os, signal
        from rabench.contracts import Outcome
        from rabench.run.outcomes import OutcomeWriter

        def outcome(i):
            return Outcome(run_id="r", case_id=f"c{{i:03d}}", target="null", repetition=0, status="ok",
                           attempts=1, latency_s=0.001, finished_at=1.0)

        async def main():
            w = OutcomeWriter({str(path)!r})
            for i in range(5):
                w.write(outcome(2 * i))
                w.write(outcome(2 * i + 1))
                await asyncio.sleep(0)
            w.write(outcome(10))
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    assert _lines(path) == [f"c{i:03d}" for i in range(10)]
    assert scan_done(path) == {(f"c{i:03d}", "null", 0) for i in range(10)}
    assert os.path.getsize(path) == len(path.read_bytes().rstrip(b"\n")) + 1  # ends on a whole line
