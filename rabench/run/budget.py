"""The spending cap: admit a call only while recorded cost + in-flight estimates stay under it.

Why a separate, I/O-free object: *whether* a call may start is a small piece of
arithmetic a reader must be able to check at a glance and a test must be able to
check without a provider. The runner asks ``admit`` before each unit's call and
``settle``s it when the call finished (with what the outcome says it cost).

* Recorded cost: the ``usage.cost_usd`` of every outcome of the run, earlier
  sessions included (a resume reads them back), so a cap is a cap on the whole run
  folder, and ``--resume --max-cost HIGHER`` continues where the lower cap stopped.
* In-flight estimate: for each call started and not settled, the mean recorded cost
  of that target's priced calls in this run; before any call of the target has a
  price, the a-priori estimate the target gives (prompt and image tokens at the
  list price plus an assumed typical answer length, ``rabench.targets.diy.estimate``).
  The cap is kept on estimates: it can be passed by what the calls in flight when it
  stopped the run cost beyond their estimates, never by a call started after.
* ``admit`` answers ``go`` (reserved), ``wait`` (it would pass a cap only because of
  calls still in flight, which may come in cheaper than estimated: ask again after one
  settles) or ``stop`` (recorded cost alone plus this call would pass it). After a
  ``stop`` no unit under that cap starts again in this session, so a stopped run stops
  rather than trickling in cheaper calls; the units not started are not recorded and a
  resume runs them.

Caps: one for the whole run (``--max-cost``) and one per target (``[targets."ID"]
max_cost`` in targets.toml). Costs that are unknown (``None``) count as 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class _Account:
    spent: float = 0.0  # recorded cost, earlier sessions included
    priced: int = 0  # calls with a known cost (for the mean)
    reserved: float = 0.0  # in-flight estimates
    in_flight: int = 0
    refused: int = 0  # units not started because of a cap
    stopped: bool = False  # this target's own cap refused a unit


@dataclass(slots=True)
class Budget:
    """Caps in USD: ``total`` over every target (None = none), ``per_target`` by target id."""

    total: float | None = None
    per_target: dict[str, float] = field(default_factory=dict)
    accounts: dict[str, _Account] = field(default_factory=dict)
    stopped_total: bool = False

    def _acct(self, tid: str) -> _Account:
        acct = self.accounts.get(tid)
        if acct is None:
            acct = self.accounts[tid] = _Account()
        return acct

    def record_earlier(self, tid: str, cost: float | None) -> None:
        """A cost from an outcome written before this session (resume)."""
        acct = self._acct(tid)
        if cost is not None:
            acct.spent += cost
            acct.priced += 1

    def estimate(self, tid: str, a_priori: float | None) -> float:
        """The in-flight estimate of one call: the target's mean recorded cost, else ``a_priori``."""
        acct = self._acct(tid)
        if acct.priced:
            return acct.spent / acct.priced
        return a_priori if a_priori is not None else 0.0

    def has_mean(self, tid: str) -> bool:
        return self._acct(tid).priced > 0

    def spent(self, tid: str | None = None) -> float:
        if tid is not None:
            return self._acct(tid).spent
        return sum(a.spent for a in self.accounts.values())

    def _reserved(self) -> float:
        return sum(a.reserved for a in self.accounts.values())

    def stopped(self, tid: str) -> bool:
        """No new unit of ``tid`` may start (a cap it is under refused one)."""
        return self.stopped_total or self._acct(tid).stopped

    def admit(self, tid: str, estimate: float) -> str:
        """``go`` (``estimate`` reserved for one call of ``tid``), ``wait`` or ``stop``. Pure."""
        acct = self._acct(tid)
        if self.stopped(tid):
            acct.refused += 1
            return "stop"
        cap = self.per_target.get(tid)
        wait = False
        if cap is not None and acct.spent + acct.reserved + estimate > cap:
            if acct.spent + estimate > cap or not acct.in_flight:
                acct.stopped = True
                acct.refused += 1
                return "stop"
            wait = True
        if self.total is not None and self.spent() + self._reserved() + estimate > self.total:
            if self.spent() + estimate > self.total or not self._in_flight():
                self.stopped_total = True
                acct.refused += 1
                return "stop"
            wait = True
        if wait:
            return "wait"
        acct.reserved += estimate
        acct.in_flight += 1
        return "go"

    def _in_flight(self) -> int:
        return sum(a.in_flight for a in self.accounts.values())

    def settle(self, tid: str, estimate: float, cost: float | None) -> None:
        """The call admitted with ``estimate`` finished having cost ``cost`` (None: unknown)."""
        acct = self._acct(tid)
        acct.reserved -= estimate
        acct.in_flight -= 1
        if acct.in_flight == 0:
            acct.reserved = 0.0  # no float drift left behind
        if cost is not None:
            acct.spent += cost
            acct.priced += 1

    def refused(self) -> int:
        return sum(a.refused for a in self.accounts.values())

    def message(self) -> str | None:
        """One line naming what was spent and what is left under each cap that stopped the run."""
        parts: list[str] = []
        if self.stopped_total and self.total is not None:
            spent = self.spent()
            parts.append(
                f"spending cap reached: spent ${spent:.4f} of --max-cost ${self.total:.4f} "
                f"(${max(0.0, self.total - spent):.4f} left)"
            )
        for tid in sorted(self.accounts):
            acct = self.accounts[tid]
            if acct.stopped and tid in self.per_target:
                cap = self.per_target[tid]
                parts.append(
                    f"{tid}: spent ${acct.spent:.4f} of its max_cost ${cap:.4f} "
                    f"(${max(0.0, cap - acct.spent):.4f} left)"
                )
        if not parts:
            return None
        n = self.refused()
        return (
            "; ".join(parts) + f"; {n} unit{'s' if n != 1 else ''} not started "
            "(rabench run --resume with a higher cap continues)"
        )
