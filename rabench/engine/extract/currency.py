"""Currencies: which one a receipt is in, where it is from, and what that implies.

Why evidence is weighed, not matched first: OCR reads no ``€``, ``£``, ``₹``
(see docs/engine.md, "Reading"), ``$`` is printed for a dozen currencies
(Malaysian tills print it for ringgit), and a receipt carries many small clues
that each could mislead alone. The decision has a clear precedence:

1. **printed** — an ISO code (``EUR``, ``MYR``), a sign only one currency uses
   (``€``, ``RM12.00``, ``Rp``, ``S$``, ``12,50 Ft``) or its name (``Ringgit``);
   several are weighed by count, ties broken by the country cues;
2. **country** — the country vote of ``country.py`` (addresses, tax names and
   rates, registration numbers, phone codes, company forms, language), summed
   per currency, with a shared sign printed on the receipt adding to each of
   its currencies; it decides when one currency leads clearly;
3. **shared sign** — ``$``, ``¥``, ``kr``, ``元``, ``Dhs``: the currency among
   the sign's whose countries the cues favour, else the sign's usual one;
4. **language** — German/French/Spanish/Italian/Dutch/Portuguese labels → EUR,
   Swedish/Norwegian/Danish/Polish/Czech labels → their crowns, złoty, koruna;
5. **default** — English amounts with nothing else → USD.

The reading also says which countries the evidence supports, so a tax rate is
judged only against them (``plausibility.py``); a currency guessed from a
shared sign, the language or the default supports no country. The table
carries minor units (JPY has none, so ``1,234`` is 1234 yen) and the usual
numeric date order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rabench.engine.extract.country import LANGUAGE_VOTES, country_scores
from rabench.engine.extract.vocab import fold


@dataclass(frozen=True)
class CurrencyInfo:
    code: str
    decimals: int
    symbols: tuple[str, ...]
    countries: tuple[str, ...]  # ISO 3166 alpha-2, the main user first
    date_order: str  # "DMY" | "MDY" | "YMD": the usual order for numeric dates
    languages: tuple[str, ...] = field(default=())


# (every euro country: a printed "EUR" with no other cue is judged by the rates of all of them, so a
# Croatian 25 % is not "not charged" in a euro area without Croatia)
_EURO_AREA = (
    "DE",
    "FR",
    "ES",
    "IT",
    "NL",
    "AT",
    "BE",
    "PT",
    "IE",
    "FI",
    "GR",
    "LU",
    "HR",
    "SK",
    "SI",
    "EE",
    "LV",
    "LT",
    "CY",
    "MT",
    "BG",
)

CURRENCIES: dict[str, CurrencyInfo] = {
    c.code: c
    for c in [
        CurrencyInfo("USD", 2, ("US$", "$"), ("US",), "MDY", ("en", "es")),
        CurrencyInfo("EUR", 2, ("€", "EUR"), _EURO_AREA, "DMY", ("de", "fr", "es", "it", "nl", "pt")),
        CurrencyInfo("GBP", 2, ("£",), ("GB",), "DMY", ("en",)),
        CurrencyInfo("JPY", 0, ("¥", "円", "￥"), ("JP",), "YMD", ("ja",)),
        CurrencyInfo("CNY", 2, ("元", "RMB", "¥"), ("CN",), "YMD", ("zh",)),
        CurrencyInfo("KRW", 0, ("₩", "원"), ("KR",), "YMD", ("ko",)),
        CurrencyInfo("CHF", 2, ("CHF", "Fr."), ("CH",), "DMY", ("de", "fr", "it")),
        CurrencyInfo("CAD", 2, ("C$", "CA$", "$"), ("CA",), "DMY", ("en", "fr")),
        CurrencyInfo("AUD", 2, ("A$", "AU$", "$"), ("AU",), "DMY", ("en",)),
        CurrencyInfo("NZD", 2, ("NZ$", "$"), ("NZ",), "DMY", ("en",)),
        CurrencyInfo("SGD", 2, ("S$", "$"), ("SG",), "DMY", ("en",)),
        CurrencyInfo("HKD", 2, ("HK$", "$"), ("HK",), "DMY", ("en", "zh")),
        CurrencyInfo("MXN", 2, ("MX$", "$"), ("MX",), "DMY", ("es",)),
        CurrencyInfo("BRL", 2, ("R$",), ("BR",), "DMY", ("pt",)),
        CurrencyInfo("INR", 2, ("₹", "Rs.", "Rs", "INR"), ("IN",), "DMY", ("en", "hi")),
        CurrencyInfo("SEK", 2, ("kr", "SEK"), ("SE",), "YMD", ("sv",)),
        CurrencyInfo("NOK", 2, ("kr", "NOK"), ("NO",), "DMY", ("no",)),
        CurrencyInfo("DKK", 2, ("kr", "DKK"), ("DK",), "DMY", ("da",)),
        CurrencyInfo("PLN", 2, ("zł", "zl", "PLN"), ("PL",), "DMY", ("pl",)),
        CurrencyInfo("CZK", 2, ("Kč", "Kc"), ("CZ",), "DMY", ("cs",)),
        CurrencyInfo("HUF", 0, ("Ft",), ("HU",), "YMD", ("hu",)),
        CurrencyInfo("ZAR", 2, ("R",), ("ZA",), "YMD", ("en",)),
        CurrencyInfo("TRY", 2, ("₺", "TL"), ("TR",), "DMY", ("tr",)),
        CurrencyInfo("THB", 2, ("฿",), ("TH",), "DMY", ("th",)),
        CurrencyInfo("MYR", 2, ("RM",), ("MY",), "DMY", ("en", "ms")),
        CurrencyInfo("IDR", 0, ("Rp",), ("ID",), "DMY", ("id",)),
        CurrencyInfo("PHP", 2, ("₱", "PHP"), ("PH",), "MDY", ("en",)),
        CurrencyInfo("VND", 0, ("₫", "đ"), ("VN",), "DMY", ("vi",)),
        CurrencyInfo("TWD", 0, ("NT$", "元"), ("TW",), "YMD", ("zh",)),
        CurrencyInfo("AED", 2, ("AED", "Dhs"), ("AE",), "DMY", ("en", "ar")),
        CurrencyInfo("MAD", 2, ("DH", "MAD"), ("MA",), "DMY", ("fr", "ar")),
    ]
}
_COUNTRY_CURRENCY = {country: c.code for c in CURRENCIES.values() for country in c.countries}

# ----------------------------------------------------------------- 1. printed currency
_NUM = r"[-(]?\d"
_ISO = [c for c in CURRENCIES if c not in ("MAD", "TRY")] + ["RMB", "NTD"]
_ALIAS = {"RMB": "CNY", "NTD": "TWD"}
# (pattern on raw text, currency, weight per occurrence)
_PRINTED: list[tuple[re.Pattern[str], str, float]] = [
    *[(re.compile(rf"(?<![A-Za-z]){code}(?![A-Za-z])"), _ALIAS.get(code, code), 1.0) for code in _ISO],
    *[(re.compile(rf"(?<![A-Za-z]){code}[ ]?(?={_NUM})|(?<=\d)[ ]?{code}(?![A-Za-z])"), code, 1.0) for code in _ISO],
    *[
        (re.compile(rf"(?<![A-Za-z]){code}[ ]?(?=\d)|(?<=\d)[ ]?{code}(?![A-Za-z])"), code, 2.0)
        for code in ("MAD", "TRY")
    ],
    *[
        (re.compile(re.escape(sym)), code, 2.0)
        for sym, code in {
            "€": "EUR",
            "£": "GBP",
            "₹": "INR",
            "₩": "KRW",
            "원": "KRW",
            "円": "JPY",
            "₺": "TRY",
            "฿": "THB",
            "₱": "PHP",
            "₫": "VND",
        }.items()
    ],
    (re.compile(r"(?<![A-Za-z])(?:US\$|USD\$)"), "USD", 2.0),
    (re.compile(r"(?<![A-Za-z])(?:C|CA|CAD)\$"), "CAD", 2.0),
    (re.compile(r"(?<![A-Za-z])(?:A|AU|AUD)\$"), "AUD", 2.0),
    (re.compile(r"(?<![A-Za-z])NZ\$"), "NZD", 2.0),
    (re.compile(r"(?<![A-Za-z])(?:S|SG)\$"), "SGD", 2.0),
    (re.compile(r"(?<![A-Za-z])HK\$"), "HKD", 2.0),
    (re.compile(r"(?<![A-Za-z])MX\$"), "MXN", 2.0),
    (re.compile(r"(?<![A-Za-z])NT\$"), "TWD", 2.0),
    (re.compile(r"(?<![A-Za-z])R\$"), "BRL", 2.0),
    (re.compile(r"(?<![A-Za-z])RM[ ]?(?=[-(]?\d)"), "MYR", 2.0),  # RM12.00
    (re.compile(r"(?<![A-Za-z])RM(?![A-Za-z\d])"), "MYR", 1.0),  # a column header "RM", "TOTAL (RM)"
    (re.compile(r"(?<![A-Za-z])R[Pp]\.?[ ]?(?=\d)"), "IDR", 2.0),
    (re.compile(r"(?<![A-Za-z])Rs\.?[ ]?(?=\d)"), "INR", 2.0),
    (re.compile(r"(?<=\d)[ ]?Ft(?![A-Za-z])"), "HUF", 2.0),
    (re.compile(r"(?<=\d)[ ]?K[čc](?![A-Za-z])"), "CZK", 2.0),
    (re.compile(r"(?<=\d)[ ]?z[łl](?![A-Za-z])"), "PLN", 2.0),
    (re.compile(r"(?<=\d)[ ]?TL(?![A-Za-z])"), "TRY", 2.0),
    (re.compile(r"(?<=\d)[ ]?[đ₫](?![A-Za-z])|(?<![A-Za-z])VN[DĐ](?![A-Za-z])"), "VND", 2.0),
    (re.compile(r"(?<![\d.,])\d{1,3}(?:[.,]\d{3})+[ ]?d(?![A-Za-z])"), "VND", 2.0),  # OCR reads ₫ as "d"
    (re.compile(r"(?<![A-Za-z])S?Fr\.[ ]?(?=\d)"), "CHF", 2.0),
]
# Currency names (folded text).
_PRINTED_WORDS: list[tuple[re.Pattern[str], str, float]] = [
    (re.compile(r"(?<![a-z])ringgit(?![a-z])"), "MYR", 3.0),
    (re.compile(r"(?:(?<![a-z])|(?<=total)|(?<=summe))euros?(?![a-z])"), "EUR", 1.0),  # OCR glue: "TOTALEURO"
    (re.compile(r"(?<![a-z])rupees?(?![a-z])"), "INR", 2.0),
    (re.compile(r"(?<![a-z])rupiah(?![a-z])"), "IDR", 2.0),
    (re.compile(r"(?<![a-z])baht(?![a-z])|บาท"), "THB", 2.0),
    (re.compile(r"(?<![a-z])(?:yuan|renminbi)(?![a-z])|人民币"), "CNY", 2.0),
    (re.compile(r"(?<![a-z])(?:zloty|zlotych)(?![a-z])"), "PLN", 2.0),
    (re.compile(r"(?<![a-z])forint(?![a-z])"), "HUF", 2.0),
    (re.compile(r"(?<![a-z])kronor(?![a-z])"), "SEK", 2.0),
    (re.compile(r"(?<![a-z])reais(?![a-z])"), "BRL", 2.0),
]
PRINTED_CAP = 6.0  # per currency: a code repeated on every line is no stronger than a few times

# ----------------------------------------------------------------- 3. shared signs
# (pattern on raw text, the currencies sharing it, most common first, minimum occurrences)
_SHARED: list[tuple[re.Pattern[str], tuple[str, ...], int]] = [
    (re.compile(r"(?<![A-Za-z])\$"), ("USD", "AUD", "CAD", "SGD", "NZD", "HKD", "MXN", "TWD"), 1),
    (re.compile(r"[¥￥]"), ("JPY", "CNY"), 1),
    (re.compile(r"元"), ("CNY", "TWD", "HKD"), 1),
    (re.compile(r"(?<![A-Za-z])[Kk]r\.?(?![A-Za-z])"), ("SEK", "NOK", "DKK"), 1),
    (re.compile(r"(?<![A-Za-z])(?:Dhs?|DHS?)\.?[ ]?(?=\d)|(?<=\d)[ ]?(?:Dhs?|DHS?)(?![A-Za-z])"), ("AED", "MAD"), 1),
    (re.compile(r"(?<![A-Za-z])R[ ]?(?=\d+[.,]\d{2}(?!\d))"), ("ZAR",), 2),
    # how the recogniser reads signs it lacks: "£12.50" -> "f12.50", "₱120.00" -> "P120.00"
    (re.compile(r"(?<![A-Za-z0-9])f(?=\d+[.,]\d{2}(?!\d))"), ("GBP",), 1),
    (re.compile(r"(?<![A-Za-z0-9])P(?=\d+[.,]\d{2}(?!\d))"), ("PHP",), 2),
]
SHARED_BONUS = 2.0  # a shared sign printed adds this to each of its currencies' country score
COUNTRY_DECIDES = 2.0  # a currency's country score must reach this ...
COUNTRY_MARGIN = 1.0  # ... and lead the next currency by this much
COUNTRY_NARROWS = 1.0  # a shared sign's currency is chosen by country when its score reaches this
SUPPORT_SHARE = 0.3  # countries within this share of the top score are supported too

_LANGUAGE_CURRENCY = {
    "de": "EUR",
    "fr": "EUR",
    "es": "EUR",
    "it": "EUR",
    "nl": "EUR",
    "pt": "EUR",
    "ja": "JPY",
    "zh": "CNY",
    "ko": "KRW",
    "sv": "SEK",
    "no": "NOK",
    "da": "DKK",
    "pl": "PLN",
    "cs": "CZK",
}
_SHARED_BY_LANGUAGE = {"kr": {"no": "NOK", "da": "DKK"}, "$": {"es": "MXN"}}


@dataclass(frozen=True)
class CurrencyReading:
    """The currency a receipt is in and the evidence behind it."""

    code: str | None
    basis: str | None  # "printed" | "country" | "shared_symbol" | "language" | "default" | None
    countries: tuple[str, ...] = ()  # the countries the evidence supports, strongest first; () = unknown
    scores: dict[str, float] = field(default_factory=dict)  # country votes (country.py)


def _printed_scores(text: str) -> dict[str, float]:
    scores: dict[str, float] = {}
    folded = fold(text)
    for rx, code, w in _PRINTED:
        n = len(rx.findall(text))
        if n:
            scores[code] = scores.get(code, 0.0) + n * w
    for rx, code, w in _PRINTED_WORDS:
        n = len(rx.findall(folded))
        if n:
            scores[code] = scores.get(code, 0.0) + n * w
    return {c: min(s, PRINTED_CAP) for c, s in scores.items()}


_ISO_WORD_PATTERNS = 2 * len(_ISO)  # the first entries of _PRINTED: an ISO code as a word, or beside a number


def _beside_amount(text: str, code: str) -> bool:
    """The code is printed beside an amount ("SEK 45,80", "45.80 EUR", "JPY 1200"), not only as a word."""
    if decimals_for(_ALIAS.get(code, code)) == 0:
        return bool(re.search(rf"(?<![A-Za-z]){code}[ :]*[-(]?\d|\d[ ]?{code}(?![A-Za-z])", text))
    return bool(
        re.search(
            rf"(?<![A-Za-z]){code}[ :]*[-(]?\d[\d.,']*[.,]\d{{2}}(?!\d)|\d[.,]\d{{2}}[ ]?{code}(?![A-Za-z])", text
        )
    )


def _word_only_codes(text: str, printed: dict[str, float]) -> set[str]:
    """Currencies printed only as a bare code word, never beside an amount and with no sign or name: "SEK 13"
    (Seksyen 13 in a Malaysian address), "CAD CAM". Such a word may be something else."""
    strong = {code for rx, code, _ in _PRINTED[_ISO_WORD_PATTERNS:] if rx.search(text)}
    strong |= {code for rx, code, _ in _PRINTED_WORDS if rx.search(fold(text))}
    out = set()
    for code in printed:
        spelled = [iso for iso in _ISO if _ALIAS.get(iso, iso) == code]
        if code not in strong and not any(_beside_amount(text, iso) for iso in spelled):
            out.add(code)
    return out


def _supported(code: str | None, basis: str | None, scores: dict[str, float]) -> tuple[str, ...]:
    """The countries a tax rate may be judged against: those the cues back, that use ``code``."""
    if code is None or basis not in ("printed", "country"):
        return ()
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if ranked and ranked[0][1] >= COUNTRY_DECIDES:
        top = ranked[0][1]
        backed = [c for c, s in ranked if s >= SUPPORT_SHARE * top]
        if any(_COUNTRY_CURRENCY.get(c) != code for c in backed[:1]):
            return ()  # the strongest country does not use this currency: conflicting evidence
        return tuple(c for c in backed if _COUNTRY_CURRENCY.get(c) == code)
    if basis == "printed":
        return CURRENCIES[code].countries  # every user of a printed currency
    return ()


def _per_currency(scores: dict[str, float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for country, s in scores.items():
        cur = _COUNTRY_CURRENCY.get(country)
        if cur:
            out[cur] = out.get(cur, 0.0) + s
    return out


@lru_cache(maxsize=64)  # extraction and plausibility both ask for the same receipt (~7 ms a reading)
def read_currency(text: str, language: str | None = None) -> CurrencyReading:
    """Weigh every clue the printed text carries (see the module docstring for the order).
    The reading is shared between callers: treat it, and its ``scores``, as read-only."""
    cues = country_scores(text)
    scores = dict(cues)
    for country, w in LANGUAGE_VOTES.get(language or "", {}).items():
        scores[country] = scores.get(country, 0.0) + w
    by_currency = _per_currency(scores)
    shared = [(codes, len(rx.findall(text)), rx) for rx, codes, least in _SHARED if len(rx.findall(text)) >= least]

    def result(code: str | None, basis: str | None) -> CurrencyReading:
        return CurrencyReading(code, basis, _supported(code, basis, scores), scores)

    printed = _printed_scores(text)
    if printed:
        # a code printed only as a word yields to what the country cues decide for another currency
        ranked_cues = sorted(by_currency.items(), key=lambda kv: -kv[1])
        if (
            ranked_cues
            and ranked_cues[0][1] >= COUNTRY_DECIDES
            and (len(ranked_cues) == 1 or ranked_cues[0][1] - ranked_cues[1][1] >= COUNTRY_MARGIN)
        ):
            decided = ranked_cues[0][0]
            printed = {
                c: v
                for c, v in printed.items()
                if c == decided or by_currency.get(c, 0.0) > 0 or c not in _word_only_codes(text, printed)
            }
    if printed:
        code = max(printed, key=lambda c: (printed[c], by_currency.get(c, 0.0)))
        return result(code, "printed")

    boosted = dict(by_currency)
    for codes, _, _ in shared:
        for c in codes:
            boosted[c] = boosted.get(c, 0.0) + SHARED_BONUS
    ranked = sorted(boosted.items(), key=lambda kv: -kv[1])
    if (
        ranked
        and ranked[0][1] >= COUNTRY_DECIDES
        and (len(ranked) == 1 or ranked[0][1] - ranked[1][1] >= COUNTRY_MARGIN)
    ):
        code = ranked[0][0]
        return result(code, "country" if by_currency.get(code, 0.0) > 0 else "shared_symbol")

    if shared:
        codes, _, rx = max(shared, key=lambda s: s[1])
        favoured = [c for c in codes if by_currency.get(c, 0.0) >= COUNTRY_NARROWS]
        if favoured:
            code = max(favoured, key=lambda c: (by_currency[c], -codes.index(c)))
            return result(code, "country")
        if codes[0] == "JPY":  # ¥ with cents and Chinese labels is yuan
            return result("CNY" if language == "zh" and _has_decimals(text) else "JPY", "shared_symbol")
        sign = "kr" if "SEK" in codes else "$" if "USD" in codes else ""
        return result(_SHARED_BY_LANGUAGE.get(sign, {}).get(language or "", codes[0]), "shared_symbol")

    weak = sorted(_per_currency(cues).items(), key=lambda kv: -kv[1])  # printed cues only, not the language
    if weak and weak[0][1] >= COUNTRY_NARROWS and (len(weak) == 1 or weak[0][1] - weak[1][1] >= COUNTRY_MARGIN):
        return result(weak[0][0], "country")
    if language in _LANGUAGE_CURRENCY:
        return result(_LANGUAGE_CURRENCY[language], "language")
    if language == "en" and _has_decimals(text):
        return result("USD", "default")
    return result(None, None)


def detect_currency(text: str, language: str | None = None) -> str | None:
    """The ISO 4217 code the receipt is in, or None if nothing points at one."""
    return read_currency(text, language).code


def _has_decimals(text: str) -> bool:
    return bool(re.search(r"\d[.,]\d{2}(?!\d)", text))


def decimals_for(code: str | None) -> int:
    if code is None:
        return 2
    info = CURRENCIES.get(code)
    return info.decimals if info else 2


def country_date_order(code: str | None) -> str | None:
    info = CURRENCIES.get(code or "")
    return info.date_order if info else None
