"""Plausibility: facts about a receipt that are odd without proving anything.

A tax rate the receipt's country did not charge at the time, a purchase date
in the future, a receipt older than an expense policy would take: a reviewer
wants to know, but a real receipt can show each of these (a typo at the till,
a wrong clock, a late claim), so they are reasons of kind ``plausibility`` and
never proofs (spec, "Evidence"). The risk model decides how much each weighs.

Tax rates are judged only against the countries the printed evidence supports
(``currency.read_currency``: addresses, tax names, registration numbers...)
and the rates those countries charged around the printed date
(``taxrates``, from ``rabench/data/tax-rates.json``). When the country is
unknown nothing is said: a wrong country's rates would make a correct receipt
look wrong. A tax *below* a rate is never odd (exempt and zero-rated items sit
in the same subtotal); a tax above what the rate gives on the whole subtotal is.
"""

from __future__ import annotations

import datetime as dt
import re

from rabench.engine import taxrates
from rabench.engine.extract.currency import read_currency
from rabench.engine.extract.fields import Extraction
from rabench.engine.signals import Signal

RATE_TOLERANCE = taxrates.RATE_TOLERANCE  # percentage points between a computed and a known rate
MAX_AGE_DAYS = 365


def _dates(ex: Extraction) -> list[dt.date]:
    out = []
    for text in (ex.fields.date, ex.date_earliest):
        try:
            d = dt.date.fromisoformat(text or "")
        except ValueError:
            continue
        if d not in out:
            out.append(d)
    return out


def tax_rule(ex: Extraction) -> taxrates.Rule | None:
    """The rates the receipt's country charged around its date, or None when that is not known."""
    reading = read_currency(ex.text, ex.language)
    if reading.code is None or reading.code != ex.fields.currency or not reading.countries:
        return None
    return taxrates.rule(reading.countries, _dates(ex) or None)


def _where(rule: taxrates.Rule, ex: Extraction) -> str:
    names = " / ".join(f"{taxrates.TABLE.countries[c].name} ({c})" for c in rule.countries)
    when = f" around {ex.fields.date}" if ex.fields.date else ""
    return f"{names}{when}"


def _effective_rates(ex: Extraction) -> list[tuple[float, float]]:
    """(rate, base): the tax as a percentage of every base the printed amounts allow: the subtotal
    (+ tips or service charges, which are taxed in many countries), the subtotal less the tax when
    the tax is inside it, and the total less the tax. Empty when no base can be trusted (a tax as
    large as the subtotal is a misreading, not a rate)."""
    f = ex.fields
    sub, tax = f.subtotal, f.tax_total
    if sub is None or tax is None or sub <= 0 or tax <= 0 or tax >= sub:
        return []
    bases = [sub + sum(ex.tips)] if ex.tips else []
    bases.append(sub)
    if ex.tax_inclusive:
        bases.append(sub - tax)
    if f.total is not None and f.total > tax:
        bases.append(f.total - tax)  # everything taxed: service fees and charges the reading did not label
    return [(100.0 * tax / b, b) for b in bases]


def _credible(rate: float) -> float:
    """The largest effective rate that is still a reading of a tax: beyond it the "tax" is another
    row misread as one (a net total, a subtotal), which says nothing about the receipt."""
    return 2 * rate + 5


def tax_rate_signals(ex: Extraction) -> list[Signal]:
    f = ex.fields
    if f.tax_total is None or f.tax_total <= 0:
        return []
    out: list[Signal] = []
    rule = tax_rule(ex)
    if rule is not None:
        for rate in dict.fromkeys(ex.tax_rates):
            if not rule.allows(rate):
                out.append(
                    Signal(
                        name="plausibility.tax_rate_printed",
                        kind="plausibility",
                        text=f"The printed tax rate {rate:g}% is not a rate charged in {_where(rule, ex)} ({f.currency}).",
                        fields=("tax_total",),
                    )
                )
    effective = _effective_rates(ex)
    if not effective or len(set(ex.tax_rates)) > 1:
        return out
    lowest, base = min(effective)  # the most lenient reading
    slack = max(RATE_TOLERANCE, 100 * 0.011 * max(1, len(ex.line_items)) / f.subtotal)  # type: ignore[operator]
    # one rate on several tax rows is a split tax, each row its share: India's "CGST 2.5 %" + "SGST 2.5 %"
    # is 5 % of the base, so the rates add up (never less lenient than one of them)
    printed = ex.tax_rates[0] * len(ex.tax_rates) if ex.tax_rates else None
    if printed is not None:
        if printed + slack < lowest <= _credible(printed):
            out.append(
                Signal(
                    name="plausibility.tax_rate_mismatch",
                    kind="plausibility",
                    text=(
                        f"Tax {f.tax_total:.2f} is {lowest:.2f}% of {base:.2f}, "
                        f"more than the {printed:g}% printed beside it."
                        + (f" ({len(ex.tax_rates)} rows of {ex.tax_rates[0]:g}%)" if len(ex.tax_rates) > 1 else "")
                    ),
                    fields=("tax_total",),
                )
            )
    elif rule is not None and rule.max is None and rule.highest + slack < lowest <= _credible(rule.highest):
        # (not in sales-tax countries: a US "Tax" line also carries liquor, lodging and meal taxes)
        out.append(
            Signal(
                name="plausibility.tax_rate",
                kind="plausibility",
                text=(
                    f"Tax {f.tax_total:.2f} on {base:.2f} is {lowest:.2f}%, above any rate charged in "
                    f"{_where(rule, ex)} ({f.currency})."
                ),
                fields=("tax_total",),
            )
        )
    return out


def date_signals(ex: Extraction, *, today: dt.date | None = None, max_age_days: int = MAX_AGE_DAYS) -> list[Signal]:
    if not ex.fields.date or today is None:  # no submission time: no time rules (never the wall clock)
        return []
    try:
        printed = dt.date.fromisoformat(ex.fields.date)
    except ValueError:
        return []
    if printed > today + dt.timedelta(days=1):
        return [
            Signal(
                name="plausibility.date_future",
                kind="plausibility",
                text=f"The purchase date {printed.isoformat()} is in the future (today is {today.isoformat()}).",
                fields=("date",),
            )
        ]
    age = (today - printed).days
    if age > max_age_days:
        return [
            Signal(
                name="plausibility.receipt_age",
                kind="plausibility",
                text=f"The receipt is {age} days old (dated {printed.isoformat()}), older than {max_age_days} days.",
                fields=("date",),
                value=min(1.0, age / (5 * 365)),
            )
        ]
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
    return [
        Signal(
            "plausibility.placeholder_address",
            "plausibility",
            f"The address printed under the merchant looks like a template's placeholder: '{line}'.",
            fields=("merchant",),
        )
    ]


def plausibility_signals(
    ex: Extraction, *, today: dt.date | None = None, max_age_days: int = MAX_AGE_DAYS
) -> list[Signal]:
    return tax_rate_signals(ex) + date_signals(ex, today=today, max_age_days=max_age_days) + placeholder_signals(ex)
