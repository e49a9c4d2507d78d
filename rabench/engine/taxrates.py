"""The tax rates each country prints, and when: a data table read once, at import.

Why a table: judging a printed rate needs the right country *and* the right time
(Malaysia charged GST 6 % until May 2018, 0 % for three months, then SST;
Germany cut 19/7 % to 16/5 % for the second half of 2020), and a rate that
changes is a one-line data edit with its source, not code. The file is
``rabench/data/tax-rates.json``; it is decoded into msgspec Structs that
forbid unknown fields and then checked (dates in order, no overlaps, known
currencies), so a broken file fails loudly at import instead of silently
turning every tax-rate reason off.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import msgspec

from rabench.engine.extract.currency import CURRENCIES

DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "tax-rates.json"
RATE_TOLERANCE = 0.35  # percentage points between a computed or printed rate and a known one
# A receipt is judged against every period within this window around its printed date: tills
# are updated late after a change, and a misread day or month must not make a rate look wrong.
DAYS_BEFORE = 92
DAYS_AFTER = 31


class Period(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    start: dt.date | None = msgspec.field(name="from")
    until: dt.date | None
    standard: list[float]
    reduced: list[float] = []
    other: list[float] = []  # regional, provincial, split or combined rates printed on receipts
    max: float | None = None  # sales-tax countries: any rate from 0 to this
    note: str = ""

    @property
    def judged(self) -> bool:
        return bool(self.standard or self.reduced or self.other) or self.max is not None


class Country(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    currency: str
    tax: str
    sources: list[str]
    periods: list[Period]
    note: str = ""


class TaxTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    about: str
    version: int
    countries: dict[str, Country]


class TaxTableError(ValueError):
    """The data file is malformed: raised at import, never swallowed."""


def _check(table: TaxTable, where: str) -> None:
    if table.version != 1:
        raise TaxTableError(f"{where}: version {table.version} is not 1")
    for code, c in table.countries.items():
        at = f"{where}: country {code}"
        if not re.fullmatch(r"[A-Z]{2}", code):
            raise TaxTableError(f"{at}: not an ISO 3166 alpha-2 code")
        if c.currency not in CURRENCIES:
            raise TaxTableError(f"{at}: currency {c.currency} is not in the currency table")
        if code not in CURRENCIES[c.currency].countries:
            raise TaxTableError(f"{at}: the currency table does not list {code} under {c.currency}")
        if not c.sources or not all(s.strip() for s in c.sources):
            raise TaxTableError(f"{at}: no sources")
        if not c.periods:
            raise TaxTableError(f"{at}: no periods")
        prev_end: dt.date | None = None
        for i, p in enumerate(c.periods):
            if i > 0 and (p.start is None or prev_end is None or p.start <= prev_end):
                raise TaxTableError(f"{at}: period {i} starts before the previous one ends")
            if p.start is not None and p.until is not None and p.until < p.start:
                raise TaxTableError(f"{at}: period {i} ends before it starts")
            if i < len(c.periods) - 1 and p.until is None:
                raise TaxTableError(f"{at}: period {i} is open-ended but is not the last")
            for r in (*p.standard, *p.reduced, *p.other, *(() if p.max is None else (p.max,))):
                if not 0 <= r <= 50:
                    raise TaxTableError(f"{at}: period {i} has rate {r} outside 0-50 %")
            prev_end = p.until


def load(path: Path = DATA_FILE) -> TaxTable:
    """Decode and check a tax-rate table; any problem raises ``TaxTableError`` naming it."""
    try:
        table = msgspec.json.decode(path.read_bytes(), type=TaxTable)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise TaxTableError(f"{path}: {exc}") from None
    _check(table, str(path))
    return table


TABLE = load()


class Rule(msgspec.Struct, frozen=True):
    """What a set of countries charged around a date: the union of their rates."""

    countries: tuple[str, ...]
    rates: tuple[float, ...]
    max: float | None = None  # a sales-tax range 0..max also holds

    def allows(self, rate: float) -> bool:
        if rate <= RATE_TOLERANCE:
            return True  # zero-rated and exempt supplies exist everywhere
        if self.max is not None and rate <= self.max + RATE_TOLERANCE:
            return True
        return any(abs(rate - k) <= RATE_TOLERANCE for k in self.rates)

    @property
    def highest(self) -> float:
        return max((*self.rates, *(() if self.max is None else (self.max,))), default=0.0)

    @property
    def where(self) -> str:
        return "/".join(self.countries)


def _overlaps(p: Period, lo: dt.date, hi: dt.date) -> bool:
    return (p.start is None or p.start <= hi) and (p.until is None or p.until >= lo)


def rule(
    countries: tuple[str, ...] | list[str], dates: list[dt.date] | None = None, table: TaxTable = TABLE
) -> Rule | None:
    """The rates any of ``countries`` charged around any of ``dates`` (all periods when no date).

    None — judge nothing — when a country is not in the table, or any matching period has no
    rates (Hong Kong has no VAT; Brazil prints no single rate), or a date precedes the table."""
    if not countries:
        return None
    rates: list[float] = []
    top: float | None = None
    for code in countries:
        c = table.countries.get(code)
        if c is None:
            return None
        periods = list(c.periods)
        if dates:
            windows = [(d - dt.timedelta(days=DAYS_BEFORE), d + dt.timedelta(days=DAYS_AFTER)) for d in dates]
            periods = [p for p in c.periods if any(_overlaps(p, lo, hi) for lo, hi in windows)]
            if not periods:
                return None
        for p in periods:
            if not p.judged:
                return None
            rates.extend((*p.standard, *p.reduced, *p.other))
            if p.max is not None:
                top = max(top or 0.0, p.max)
    return Rule(tuple(countries), tuple(sorted(set(rates), reverse=True)), top)
