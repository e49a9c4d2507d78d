"""Plausibility: facts about a receipt that are odd without proving anything.

A tax rate no country using this currency charges, a purchase date in the
future, a receipt older than an expense policy would take: a reviewer wants
to know, but a real receipt can show each of these (a typo at the till, a
wrong clock, a late claim), so they are reasons of kind ``plausibility`` and
never proofs (spec, "Evidence"). The risk model decides how much each weighs.
"""

from __future__ import annotations

import datetime as dt
import re

from rabench.engine.extract.currency import CURRENCIES
from rabench.engine.extract.fields import Extraction
from rabench.engine.signals import Signal

RATE_TOLERANCE = 0.35  # percentage points between a computed and a known rate
MAX_AGE_DAYS = 365


def _near(rate: float, known: tuple[float, ...]) -> bool:
    return any(abs(rate - k) <= RATE_TOLERANCE for k in known)


def tax_rate_signals(ex: Extraction) -> list[Signal]:
    f = ex.fields
    info = CURRENCIES.get(f.currency or "")
    if info is None or f.tax_total is None or f.tax_total <= 0:
        return []
    out: list[Signal] = []
    where = "/".join(info.countries[:3])
    known = info.tax_rates
    for rate in dict.fromkeys(ex.tax_rates):
        if info.tax_range is not None:
            lo, hi = info.tax_range
            ok = lo - 1e-9 <= rate <= hi + 1e-9
        else:
            ok = _near(rate, known)
        if not ok:
            out.append(Signal(
                name="plausibility.tax_rate_printed",
                kind="plausibility",
                text=f"The printed tax rate {rate:g}% is not a rate charged in {where} ({f.currency}).",
                fields=("tax_total",),
            ))
    base = f.subtotal
    if base is not None and base > 0 and len(set(ex.tax_rates)) <= 1:
        effective = 100.0 * f.tax_total / (base - f.tax_total if ex.tax_inclusive else base)
        printed = ex.tax_rates[0] if ex.tax_rates else None
        if printed is not None and abs(effective - printed) > max(RATE_TOLERANCE, 100 * 0.011 / base):
            out.append(Signal(
                name="plausibility.tax_rate_mismatch",
                kind="plausibility",
                text=(f"Tax {f.tax_total:.2f} is {effective:.2f}% of {base:.2f}, "
                      f"not the {printed:g}% printed beside it."),
                fields=("tax_total",),
            ))
        elif printed is None and info.tax_range is None and known and not _near(effective, known):
            if not (min(known) - RATE_TOLERANCE <= effective <= max(known) + RATE_TOLERANCE and ex.tax_inclusive):
                out.append(Signal(
                    name="plausibility.tax_rate",
                    kind="plausibility",
                    text=(f"Tax {f.tax_total:.2f} on {base:.2f} is {effective:.2f}%, "
                          f"not a rate charged in {where} ({f.currency})."),
                    fields=("tax_total",),
                ))
        elif printed is None and info.tax_range is not None and not (
            info.tax_range[0] <= effective <= info.tax_range[1] + RATE_TOLERANCE
        ):
            out.append(Signal(
                name="plausibility.tax_rate",
                kind="plausibility",
                text=f"Tax {f.tax_total:.2f} on {base:.2f} is {effective:.2f}%, above any {f.currency} sales tax.",
                fields=("tax_total",),
            ))
    return out


def date_signals(ex: Extraction, *, today: dt.date | None = None, max_age_days: int = MAX_AGE_DAYS) -> list[Signal]:
    if not ex.fields.date or today is None:  # no submission time: no time rules (never the wall clock)
        return []
    try:
        printed = dt.date.fromisoformat(ex.fields.date)
    except ValueError:
        return []
    if printed > today + dt.timedelta(days=1):
        return [Signal(
            name="plausibility.date_future",
            kind="plausibility",
            text=f"The purchase date {printed.isoformat()} is in the future (today is {today.isoformat()}).",
            fields=("date",),
        )]
    age = (today - printed).days
    if age > max_age_days:
        return [Signal(
            name="plausibility.receipt_age",
            kind="plausibility",
            text=f"The receipt is {age} days old (dated {printed.isoformat()}), older than {max_age_days} days.",
            fields=("date",),
            value=min(1.0, age / (5 * 365)),
        )]
    return []


# Addresses that templates and form examples print where a real shop's address goes: the
# textbook "123 Main Street", and streets named "example"/"sample"/"placeholder" in the
# languages the engine reads (Musterstraße and Beispielstraße are the German forms; OCR reads
# "ß" as "B"). A genuine shop can sit at 123 Main St, so this is plausibility, never proof.
_PLACEHOLDER_ADDRESS = re.compile(
    r"(?<![0-9a-z])(?:123\s+main\s+st(?:reet|\.)?(?![a-z])"
    r"|(?:example|sample|placeholder|your)\s+(?:street|st\.?|road|rd\.?|avenue|ave\.?|lane)(?![a-z])"
    r"|(?:muster|beispiel)stra(?:ß|ss|b|s)e"
    r"|(?:rue|avenue)\s+(?:exemple|de\s+l'exemple)(?![a-z])"
    r"|(?:calle|avenida)\s+(?:ejemplo|falsa)(?![a-z])"
    r"|via\s+esempio(?![a-z]))",
    re.IGNORECASE,
)


def placeholder_signals(ex: Extraction) -> list[Signal]:
    text = ex.text or ""
    m = _PLACEHOLDER_ADDRESS.search(text)
    if m is None:
        return []
    line = text[text.rfind("\n", 0, m.start()) + 1 :].split("\n", 1)[0].strip()
    return [Signal(
        "plausibility.placeholder_address", "plausibility",
        f"The address printed under the merchant looks like a template's placeholder: '{line}'.",
        fields=("merchant",),
    )]


def plausibility_signals(ex: Extraction, *, today: dt.date | None = None, max_age_days: int = MAX_AGE_DAYS) -> list[Signal]:
    return (tax_rate_signals(ex) + date_signals(ex, today=today, max_age_days=max_age_days)
            + placeholder_signals(ex))
