"""Progress: counters the run loop bumps, and a display that reads them at a fixed rate.

Why counters plus a separate reader: the hot path (10,000+ calls/s with the
``null`` target) must only increment integers; drawing happens a few times a
second in a background thread (rich's Live refresh thread on a terminal, a
plain log line every ``interval`` seconds otherwise), so its cost does not
depend on the call rate.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rabench.run.adaptive import AdaptiveGate


class TargetCounters:
    __slots__ = (
        "target",
        "total",
        "done",
        "previous",
        "active",
        "in_flight",
        "preparing",
        "retries",
        "errors",
        "statuses",
        "started",
        "gate",
    )

    def __init__(self, target: str, total: int, previous: int = 0):
        self.target = target
        self.total = total  # units of this target in the whole run (resume included)
        self.done = previous  # finished units, earlier sessions included
        self.previous = previous  # finished before this session (resume)
        self.active = 0  # units started and not finished (waiting for a dependency or a slot included)
        self.in_flight = 0  # attempts inside the provider's slot right now
        self.preparing = 0  # units whose file is being prepared (or waiting for its preparation)
        self.retries = 0
        self.errors = 0  # finished with any status but ok
        self.statuses: dict[str, int] = {}
        self.started = time.monotonic()
        self.gate: AdaptiveGate | None = None  # the provider's gate, when adaptive: its live limit is shown

    def finish(self, status: str) -> None:
        self.done += 1
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status != "ok":
            self.errors += 1

    def rate(self, now: float | None = None) -> float:
        elapsed = (now or time.monotonic()) - self.started
        return (self.done - self.previous) / elapsed if elapsed > 0 else 0.0

    def eta_s(self, now: float | None = None) -> float | None:
        r = self.rate(now)
        remaining = self.total - self.done
        if remaining <= 0:
            return 0.0
        return remaining / r if r > 0 else None


def _fmt_eta(eta: float | None) -> str:
    if eta is None:
        return "?"
    eta = int(eta)
    h, rem = divmod(eta, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def in_flight_text(c: TargetCounters) -> str:
    """Calls in flight plus files being prepared: work that is running, however long it takes."""
    busy = c.in_flight + c.preparing
    return f"{busy} ({c.preparing} preparing)" if c.preparing else str(busy)


def line_for(c: TargetCounters, now: float | None = None) -> str:
    return (
        f"{c.target}: {c.done}/{c.total} done, {in_flight_text(c)} in flight, {c.retries} retries, "
        f"{c.errors} errors, {c.rate(now):.1f} calls/s, ETA {_fmt_eta(c.eta_s(now))}"
        + (f", concurrency {c.gate.limit}/{c.gate.limits.concurrency}" if c.gate is not None else "")
    )


class Progress:
    """``mode``: "rich" (live table), "plain" (log lines), "none", or "auto" (rich on a TTY)."""

    def __init__(
        self,
        counters: list[TargetCounters],
        mode: str = "auto",
        *,
        interval: float = 10.0,
        stream: TextIO | None = None,
    ):
        self.counters = counters
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "rich" if self.stream.isatty() else "plain"
        self.mode = mode
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._live: Any = None  # rich.live.Live, imported only when shown

    def _table(self) -> Any:
        from rich.table import Table

        table = Table(box=None, pad_edge=False)
        for col in ("target", "done/total", "in flight", "retries", "errors", "calls/s", "ETA"):
            table.add_column(col, justify="left" if col == "target" else "right")
        now = time.monotonic()
        for c in self.counters:
            table.add_row(
                c.target,
                f"{c.done}/{c.total}",
                in_flight_text(c) + (f" of {c.gate.limit}" if c.gate is not None else ""),
                str(c.retries),
                str(c.errors),
                f"{c.rate(now):.1f}",
                _fmt_eta(c.eta_s(now)),
            )
        return table

    def _plain_loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.log_lines()

    def log_lines(self) -> None:
        now = time.monotonic()
        for c in self.counters:
            print(f"[{now - c.started:7.1f}s] {line_for(c, now)}", file=self.stream, flush=True)

    def start(self) -> None:
        if self.mode == "rich":
            from rich.console import Console
            from rich.live import Live

            self._live = Live(
                get_renderable=self._table, console=Console(file=self.stream), refresh_per_second=4, transient=False
            )
            self._live.start()
        elif self.mode == "plain":
            self._thread = threading.Thread(target=self._plain_loop, name="rabench-progress", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.refresh()
            self._live.stop()
            self._live = None
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            self.log_lines()

    def __enter__(self) -> Progress:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
