"""The end-of-run failure summary: per target, counts by status, the top error messages, and
whether the run must exit 1 (``rabench run --max-error-rate``).

Why a module of its own: it reads only ``outcomes.jsonl`` and a status count, so any run life
cycle (receipt or AP suite) can call it after its lanes end. Error messages are normalised
before they are counted (numbers, hosts and ports become ``#``) so the same cause repeated with
another port or request id groups into one line.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import msgspec

from rabench.run.breaker import BREAKER

TOP = 3  # error messages shown per target
FAILED = ("error", "timeout")  # statuses of a call that failed (the others are answers)


class _Err(msgspec.Struct):
    target: str
    status: str
    error: str | None = None


_decoder = msgspec.json.Decoder(_Err)
_NUM = re.compile(r"\d+(?:\.\d+)*")
_SPACE = re.compile(r"\s+")


def normalise(message: str) -> str:
    """One cause, one key: digits (hosts, ports, ids, timings) become ``#``, whitespace one space, 120 chars."""
    return _SPACE.sub(" ", _NUM.sub("#", message)).strip()[:120]


def top_errors(path: Path, top: int = TOP) -> dict[str, list[tuple[str, int]]]:
    """target -> its ``top`` most frequent normalised error messages (non-ok outcomes) with counts."""
    counts: dict[str, Counter[str]] = {}
    if not path.exists():
        return {}
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                e = _decoder.decode(raw)
            except (msgspec.ValidationError, msgspec.DecodeError):
                continue  # a torn last line: the resume cuts it; not this summary's business
            if e.status == "ok":
                continue
            counts.setdefault(e.target, Counter())[normalise(e.error or e.status)] += 1
    return {t: c.most_common(top) for t, c in counts.items()}


def failure_causes(
    statuses: dict[str, dict[str, int]], errors: dict[str, list[tuple[str, int]]], max_error_rate: float = 1.0
) -> list[str]:
    """One line per target that failed the run, naming why (empty: the run did not fail). A
    target fails when none of its calls in this session was ``ok`` (every one failed), or when
    its share of failed calls passes ``max_error_rate`` (1.0, the default: only a target whose
    every call failed). A call failed when it ended ``error`` or ``timeout``; ``invalid_output``
    and ``refusal`` are answers the target gave (the spec scores them as results), so they never
    fail the run."""
    lines = []
    for target, by_status in statuses.items():
        n = sum(by_status.values())
        if not n:
            continue
        bad = sum(by_status.get(s, 0) for s in FAILED)
        if bad == n or bad / n > max_error_rate:
            why = [m for m, _ in errors.get(target, []) if not m.startswith(BREAKER)]
            cause = f": {why[0]}" if why else ""
            lines.append(f"rabench: {target}: {bad} of {n} calls failed{cause}")
    return lines
