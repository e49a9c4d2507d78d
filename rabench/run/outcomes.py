"""``runs/ID/outcomes.jsonl``: append one Outcome per finished unit; read back what is done.

Why this shape: each outcome is one ``write`` of one whole line to an
unbuffered file opened for append, so the kernel has it as soon as the call
finished; a crash (even ``kill -9``) loses at most the calls in flight, and
the file is valid JSON Lines except perhaps for a torn last line, which
``scan_done`` cuts off before a resume appends to it.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from rabench.contracts import Outcome
from rabench.errors import UserError

OUTCOMES = "outcomes.jsonl"


class _Key(msgspec.Struct):
    """Just enough of an Outcome to know which unit it finished (decodes fast)."""

    case_id: str
    target: str
    repetition: int


_key_decoder = msgspec.json.Decoder(_Key)
UnitKey = tuple[str, str, int]  # (case_id, target, repetition)


class OutcomeWriter:
    """Append-only, one ``write`` syscall per outcome, no user-space buffer."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = open(path, "ab", buffering=0)
        self._encoder = msgspec.json.Encoder()
        self._buf = bytearray()
        self.written = 0

    def write(self, outcome: Outcome) -> None:
        buf = self._buf
        self._encoder.encode_into(outcome, buf)
        buf.extend(b"\n")
        self._fh.write(buf)
        self.written += 1

    def close(self) -> None:
        if not self._fh.closed:
            os.fsync(self._fh.fileno())
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
