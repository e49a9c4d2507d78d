"""The new values a forger prints, written the way the receipt already writes them.

Why keep the format: a forged total in a different number style (a comma where
the till prints a point, a missing thousands separator, a 1-digit day where the
till pads to 2) is a giveaway no real forger leaves and no label could describe;
so every new value is printed with the receipt's own separators, padding, year
width and month-name case, and, where possible, the same number of characters
(a same-length edit changes only the differing glyphs, as a careful forger
does).
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np

from rabench.cases.forge.locate import MONTHS, DateSpot

# Shop-name words a forger might put in place of one word of the merchant's name.
MERCHANT_WORDS = (
    "ACE",
    "BAY",
    "BIG",
    "CITY",
    "STAR",
    "MART",
    "FOOD",
    "CAFE",
    "HOME",
    "KING",
    "GOLD",
    "PARK",
    "MAIN",
    "BEST",
    "ROYAL",
    "GRAND",
    "LUCKY",
    "PRIME",
    "METRO",
    "UNITY",
    "PEARL",
    "OCEAN",
    "NOBLE",
    "SUNNY",
    "GREEN",
    "TOWER",
    "GLOBAL",
    "GOLDEN",
    "SUNRISE",
    "EASTERN",
    "CENTRAL",
    "PACIFIC",
    "SUMMIT",
    "LEGEND",
    "ANCHOR",
    "DIAMOND",
    "HARMONY",
    "LIBERTY",
    "EMPIRE",
    "CAPITAL",
    "UNIVERSAL",
    "SQUARE",
    "GARDEN",
    "SILVER",
    "ORIENT",
    "MAJESTIC",
    "SENTOSA",
    "MUTIARA",
    "CAHAYA",
    "BINTANG",
    "SETIA",
    "MAJU",
    "JAYA",
    "INDAH",
    "MULIA",
    "SINAR",
    "RIA",
    "NORTH",
    "SOUTH",
    "WEST",
    "EAST",
    "PLAZA",
    "CORNER",
    "MARKET",
    "SUPPLY",
    "DEPOT",
    "STORE",
    "TRADERS",
    "HOLDINGS",
    "VENTURES",
    "PARTNERS",
    "SERVICES",
    "NETWORK",
    "OUTLET",
    "EXPRESS",
    "KITCHEN",
    "BAKERY",
    "STATION",
    "CENTRE",
    "CENTER",
    "MEDICAL",
    "OFFICE",
    "TECH",
    "MOTOR",
    "PRINT",
    "TRAVEL",
)


def format_like(value: float, old: str) -> str:
    """``value`` printed with ``old``'s decimal mark and thousands separator."""
    m = re.fullmatch(r"(\d{1,3}(?:([,.])\d{3})+|\d+)([.,])(\d{2})", old)
    if m is None:
        raise ValueError(f"not an amount: {old!r}")
    group_sep, dec = m.group(2), m.group(3)
    cents = int(round(value * 100))
    whole, frac = divmod(cents, 100)
    digits = str(whole)
    if group_sep:
        digits = f"{whole:,}".replace(",", group_sep)
    return f"{digits}{dec}{frac:02d}"


def new_total(old_text: str, old_value: float, rng: np.random.Generator, *, glyphs: set[str] | None = None) -> str:
    """An inflated total as a forger types it (a digit changed, a digit put in front, or a new sum).

    Prefers candidates whose characters all exist in ``glyphs`` (the receipt's own print),
    so the edit can be pasted from the same receipt.
    """
    cands: list[str] = []
    digits = [i for i, c in enumerate(old_text) if c.isdigit()]
    lead = digits[0]
    for d in "123456789":
        if old_text[lead] != "0" and int(d) > int(old_text[lead]):
            cands.append(old_text[:lead] + d + old_text[lead + 1 :])  # 18.50 -> 48.50
    if old_value < 100:
        for d in "123456789":
            cands.append(d + old_text)  # 9.00 -> 19.00
    if len(digits) >= 4:
        second = digits[1]
        for d in "0123456789":
            if int(d) > int(old_text[second]):
                cands.append(old_text[:second] + d + old_text[second + 1 :])  # 23.40 -> 28.40
    for factor in (1.5, 2.0, 2.5, 3.0):
        v = round(old_value * factor, 1)
        cands.append(format_like(v, old_text))
    cands = [c for c in dict.fromkeys(cands) if _valid(c, old_text, old_value)]
    if glyphs is not None:
        own = [c for c in cands if set(c) <= glyphs]
        cands = own or cands
    return cands[int(rng.integers(len(cands)))]


def _valid(new: str, old: str, old_value: float) -> bool:
    m = re.fullmatch(r"(\d{1,3}(?:[,.]\d{3})+|\d+)[.,]\d{2}", new)
    if m is None or new == old or new.startswith("0"):
        return False
    v = amount_value(new)
    return old_value < v <= max(old_value * 4.0, old_value + 50.0)


def amount_value(text: str) -> float:
    whole, frac = text[:-3], text[-2:]
    return float(re.sub(r"[.,]", "", whole) + "." + frac)


def shift_amount(old_text: str, delta: float) -> str:
    """``old_text`` plus ``delta`` in the same format (for an item and the total changed together)."""
    return format_like(round(amount_value(old_text) + delta, 2), old_text)


def print_date(spot: DateSpot, day: dt.date) -> str:
    g = spot.parts

    def pad(old: str, v: int) -> str:
        return f"{v:0{len(old)}d}"

    def year(old: str) -> str:
        return f"{day.year % 100:02d}" if len(old) == 2 else f"{day.year:04d}"

    if spot.order in ("dmy", "mdy"):
        a, sep, b, y = g
        first, second = (day.day, day.month) if spot.order == "dmy" else (day.month, day.day)
        return f"{pad(a, first)}{sep}{pad(b, second)}{sep}{year(y)}"
    if spot.order == "ymd":
        y, sep, mo, d = g
        return f"{year(y)}{sep}{pad(mo, day.month)}{sep}{pad(d, day.day)}"
    if spot.order == "dMy":
        d, sep, mon, rest, y = g
        return f"{pad(d, day.day)}{sep}{_month_like(mon + rest, day.month)}{sep}{year(y)}"
    mon, rest, d, y = g
    comma = "," if spot.spot.text[len(mon + rest + d) :].startswith(",") else ""
    return f"{_month_like(mon + rest, day.month)}{pad(d, day.day)}{comma}{year(y)}"


_FULL = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


def _month_like(old: str, month: int) -> str:
    name = _FULL[month - 1] if len(old) > 3 and old.lower() in _FULL else MONTHS[month - 1]
    if old.isupper():
        return name.upper()
    if old[:1].isupper():
        return name.capitalize()
    return name


def new_date(spot: DateSpot, old: dt.date, rng: np.random.Generator) -> tuple[dt.date, str]:
    """A changed date printed like ``spot`` with the same number of characters."""
    cands: list[dt.date] = []
    for day in range(1, 29):
        if day != old.day:
            cands.append(old.replace(day=day))
    month_moves = [old.replace(month=m) for m in range(1, 13) if m != old.month and old.day <= 28]
    year_moves = [old.replace(year=old.year + k) for k in (-1, 1) if not (old.month == 2 and old.day == 29)]
    pick = rng.random()
    pool = cands if pick < 0.6 else month_moves if pick < 0.9 else year_moves
    old_text = spot.spot.text
    same = [(d, print_date(spot, d)) for d in pool]
    same = [(d, t) for d, t in same if len(t) == len(old_text) and t != old_text]
    if not same:  # fall back to any day change that keeps the length
        same = [(d, print_date(spot, d)) for d in cands]
        same = [(d, t) for d, t in same if len(t) == len(old_text) and t != old_text]
    if not same:
        raise ValueError(f"no same-length date for {old_text!r}")
    # a forger moves a date by days or weeks far more often than across years
    same.sort(key=lambda dt_t: abs((dt_t[0] - old).days))
    k = min(len(same), 12)
    return same[int(rng.integers(k))]


def new_merchant_words(old: str, rng: np.random.Generator, *, glyphs: set[str]) -> list[str]:
    """Shop words in ``old``'s letter case, about its length, printable from ``glyphs`` (the
    name line's own letters), in a seeded random order; empty if there are none."""
    words = [w for w in MERCHANT_WORDS if abs(len(w) - len(old)) <= 2 and w != old.upper()]
    if old.isupper():
        cased = words
    elif old[:1].isupper():
        cased = [w.capitalize() for w in words]
    else:
        cased = [w.lower() for w in words]
    own = [w for w in cased if set(w) <= glyphs]
    return [own[i] for i in rng.permutation(len(own))]
