"""``runs/ID/outcomes.jsonl``: append one Outcome per finished unit; read back what is done.

Why this shape: whole lines, appended with ``write`` to an unbuffered file,
so the kernel has them as soon as they are written; the file is valid JSON
Lines except perhaps for a torn last line, which ``scan_done`` cuts off before
a resume appends to it.

When: the outcomes that finish in one pass of the event loop are written
together, in one ``write`` at the start of the loop's next pass (a ``call_soon``
callback), instead of one ``write`` per outcome; outside an event loop, at once.
So a crash (even ``kill -9``) loses at most the calls in flight and the calls
that finished in the loop's last pass (a resume runs both again); an outcome
finished in an earlier pass is in the file. Code that records elsewhere that
outcomes exist (the batch mode's "ended" records) calls ``flush`` first.
A failed ``write`` (a full disk) is raised by the next ``write``, ``flush``
or ``close``, so the run stops as before, one pass later.
"""

from __future__ import annotations

import asyncio
import errno
import os
from pathlib import Path

import msgspec

from rabench.contracts import Outcome
from rabench.errors import UserError
from rabench.run.breaker import BREAKER

OUTCOMES = "outcomes.jsonl"


class _Key(msgspec.Struct):
    """Just enough of an Outcome to know which unit it finished (decodes fast)."""

    case_id: str
    target: str
    repetition: int
    error: str | None = None


_key_decoder = msgspec.json.Decoder(_Key)
UnitKey = tuple[str, str, int]  # (case_id, target, repetition)


class OutcomeWriter:
    """Append-only, no user-space buffer beyond the current pass of the event loop (see above)."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = open(path, "ab", buffering=0)
        self._encoder = msgspec.json.Encoder()
        self._buf = bytearray()  # encoded lines not yet written
        self._scheduled = False  # a flush is queued for the loop's next pass
        self._failed: OSError | None = None  # a deferred write that failed, raised by the next call
        self.written = 0

    def write(self, outcome: Outcome) -> None:
        if self._failed is not None:
            self._raise_failed()
        buf = self._buf
        self._encoder.encode_into(outcome, buf, -1)  # appended after the lines not yet written
        buf.extend(b"\n")
        self.written += 1
        if not self._scheduled:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no event loop: write now
                self.flush()
                return
            self._scheduled = True
            loop.call_soon(self._flush_soon)

    def _flush_soon(self) -> None:
        self._scheduled = False
        if self._fh.closed or self._failed is not None:
            return
        try:
            self.flush()
        except OSError as exc:  # raised in the run's own code by the next write, flush or close
            self._failed = exc

    def flush(self) -> None:
        """Write every line not yet written (one ``write``; more only if the kernel takes part)."""
        if self._failed is not None:
            self._raise_failed()
        buf = self._buf
        while buf:  # one write; a short one (rare on a regular file) is followed by the rest
            n = self._fh.write(buf)
            if not n:
                raise OSError(errno.EIO, f"{self.path}: the write wrote nothing")
            del buf[:n]  # what was written never goes twice, even if the next write fails

    def _raise_failed(self) -> None:
        exc, self._failed = self._failed, None
        assert exc is not None
        raise exc

    def close(self) -> None:
        if not self._fh.closed:
            try:
                self.flush()
                os.fsync(self._fh.fileno())
            finally:
                self._fh.close()

    def __enter__(self) -> OutcomeWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def truncate_torn_tail(path: Path) -> int:
    """Cut a last line that has no newline (a write torn by a crash); returns bytes removed."""
    if not path.exists():
        return 0
    size = path.stat().st_size
    if size == 0:
        return 0
    with open(path, "rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        # walk back to the previous newline
        pos = size
        chunk = 1 << 16
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            data = fh.read(pos - start)
            nl = data.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            pos = start
        else:
            keep = 0
        fh.truncate(keep)
        return size - keep


def scan_done(path: Path) -> set[UnitKey]:
    """The units already finished in ``path`` (after cutting a torn tail)."""
    done: set[UnitKey] = set()
    if not path.exists():
        return done
    truncate_torn_tail(path)
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                k = _key_decoder.decode(raw)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                raise UserError(f"{path}:{lineno}: not an outcome line ({exc}); cannot resume") from None
            if k.error is not None and k.error.startswith(BREAKER):
                continue  # never sent (the provider's circuit breaker was open): not done
            done.add((k.case_id, k.target, k.repetition))
    return done


class _CostUsage(msgspec.Struct):
    cost_usd: float | None = None


class _CostVerdict(msgspec.Struct):
    usage: _CostUsage | None = None


class _Cost(msgspec.Struct):
    """Just enough of an Outcome to know what it cost (``usage``, else the verdict's)."""

    target: str
    usage: _CostUsage | None = None
    verdict: _CostVerdict | None = None
    cached: bool = False


_cost_decoder = msgspec.json.Decoder(_Cost)


def scan_costs(path: Path) -> list[tuple[str, float | None]]:
    """(target, cost_usd) of every outcome in ``path`` (for a resumed spending cap); an answer
    from the response cache cost nothing in this run."""
    out: list[tuple[str, float | None]] = []
    if not path.exists():
        return out
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            c = _cost_decoder.decode(raw)
            if c.cached:
                continue
            usage = c.usage if c.usage is not None else (c.verdict.usage if c.verdict is not None else None)
            out.append((c.target, usage.cost_usd if usage is not None else None))
    return out


def read_outcomes(path: Path) -> list[Outcome]:
    """Every outcome in a file (for tests and small tools; the scorer streams its own way)."""
    dec = msgspec.json.Decoder(Outcome)
    with open(path, "rb") as fh:
        return [dec.decode(line) for line in fh if line.strip()]
