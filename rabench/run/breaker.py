"""A circuit breaker per provider: after ``N`` calls in a row that ended in a transport failure
(after their retries), stop sending to that provider; the rest of its units are recorded as
errors whose message starts with ``BREAKER``, and ``scan_done`` counts those as not done, so
``rabench run --resume`` sends them again.

Why: a provider that is down (a wrong base URL, an outage) otherwise costs every unit its full
retry schedule: 50,000 units times four attempts before anyone looks. One ``ok`` answer (or a
failure that is not transport: a refusal, an unreadable answer) closes it again.
"""

from __future__ import annotations

from rabench.run.execute import CallResult

BREAKER = "circuit breaker open"  # the start of the message of every unit it kept from being sent
TRIP_AFTER = 10  # transport failures in a row (each after its retries) that open it


def is_transport(result: CallResult) -> bool:
    return result.status == "error" and (result.error or "").startswith("transport failure")


class Breaker:
    def __init__(self, provider: str, trip_after: int = TRIP_AFTER):
        self.provider = provider
        self.trip_after = trip_after
        self.in_a_row = 0
        self.last_error = ""
        self.skipped = 0

    @property
    def open(self) -> bool:
        return self.in_a_row >= self.trip_after

    def record(self, result: CallResult) -> None:
        if is_transport(result):
            self.in_a_row += 1
            self.last_error = result.error or ""
        else:
            self.in_a_row = 0

    def skip(self) -> CallResult:
        """The result recorded for a unit not sent because the breaker is open."""
        self.skipped += 1
        return CallResult(
            "error",
            0,
            None,
            error=f"{BREAKER}: {self.provider} failed {self.in_a_row} calls in a row "
            f"(last: {self.last_error[:200]}); not sent (rabench run --resume sends it)",
        )
