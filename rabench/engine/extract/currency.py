"""Currencies: which one a receipt is in, and what that implies.

The currency is read from evidence in order of strength: an ISO code printed
on the receipt, then an unambiguous symbol (``€``, ``£``, ``₹``...), then tax
words and addresses (``HST`` is Canadian, ``ABN`` Australian, ``MWST`` Swiss,
``VAT`` British, a state and ZIP American), then a shared symbol (``$``,
``kr``, ``¥``) and finally the language (German, French, Spanish → EUR),
because OCR models often drop ``€`` and ``£``. The table also
carries what other stages need: minor units (JPY has none, so ``1,234`` is one
thousand two hundred and thirty-four yen), the usual date order, and the tax
rates a plausibility check may expect.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CurrencyInfo:
    code: str
    decimals: int
    symbols: tuple[str, ...]
    countries: tuple[str, ...]
    date_order: str  # "DMY" | "MDY" | "YMD": the usual order for numeric dates
    # Tax rates (percent) that are normal somewhere this currency is used.
    tax_rates: tuple[float, ...] = ()
    # Sales-tax style currencies (US): any rate in this range is plausible.
    tax_range: tuple[float, float] | None = None
    languages: tuple[str, ...] = field(default=())


CURRENCIES: dict[str, CurrencyInfo] = {
    c.code: c
    for c in [
        CurrencyInfo("USD", 2, ("US$", "$"), ("US",), "MDY", (), (0.0, 11.5), ("en", "es")),
        CurrencyInfo(
            "EUR", 2, ("€", "EUR"), ("DE", "FR", "ES", "IT", "NL", "AT", "BE", "PT", "IE", "FI"), "DMY",
            (19, 7, 20, 10, 5.5, 2.1, 21, 4, 22, 5, 9, 13, 6, 12, 23, 13.5, 24, 14, 25.5, 8, 17, 16, 3),
            None, ("de", "fr", "es", "it", "nl", "pt"),
        ),
        CurrencyInfo("GBP", 2, ("£",), ("GB",), "DMY", (20, 5, 0), None, ("en",)),
        CurrencyInfo("JPY", 0, ("¥", "円", "￥"), ("JP",), "YMD", (10, 8), None, ("ja",)),
        CurrencyInfo("CNY", 2, ("元", "RMB", "¥"), ("CN",), "YMD", (13, 9, 6, 3, 1), None, ("zh",)),
        CurrencyInfo("KRW", 0, ("₩", "원"), ("KR",), "YMD", (10,), None, ("ko",)),
        CurrencyInfo("CHF", 2, ("CHF", "Fr."), ("CH",), "DMY", (8.1, 2.6, 3.8, 7.7, 2.5, 3.7), None, ("de", "fr", "it")),
        CurrencyInfo("CAD", 2, ("C$", "CA$", "$"), ("CA",), "DMY", (5, 13, 15, 14.975, 12, 11, 9.975, 7, 6), None, ("en", "fr")),
        CurrencyInfo("AUD", 2, ("A$", "AU$", "$"), ("AU",), "DMY", (10,), None, ("en",)),
        CurrencyInfo("NZD", 2, ("NZ$", "$"), ("NZ",), "DMY", (15,), None, ("en",)),
        CurrencyInfo("SGD", 2, ("S$", "$"), ("SG",), "DMY", (9, 8, 7), None, ("en",)),
        CurrencyInfo("HKD", 2, ("HK$", "$"), ("HK",), "DMY", (0,), None, ("en", "zh")),
        CurrencyInfo("MXN", 2, ("MX$", "$"), ("MX",), "DMY", (16, 8), None, ("es",)),
        CurrencyInfo("BRL", 2, ("R$",), ("BR",), "DMY", (), (0.0, 30.0), ("pt",)),
        CurrencyInfo("INR", 2, ("₹", "Rs.", "Rs", "INR"), ("IN",), "DMY", (5, 12, 18, 28, 2.5, 6, 9, 14), None, ("en", "hi")),
        CurrencyInfo("SEK", 2, ("kr", "SEK"), ("SE",), "YMD", (25, 12, 6), None, ("sv",)),
        CurrencyInfo("NOK", 2, ("kr", "NOK"), ("NO",), "DMY", (25, 15, 12), None, ("no",)),
        CurrencyInfo("DKK", 2, ("kr", "DKK"), ("DK",), "DMY", (25,), None, ("da",)),
        CurrencyInfo("PLN", 2, ("zł", "zl", "PLN"), ("PL",), "DMY", (23, 8, 5), None, ("pl",)),
        CurrencyInfo("CZK", 2, ("Kč", "Kc"), ("CZ",), "DMY", (21, 12, 15, 10), None, ("cs",)),
        CurrencyInfo("HUF", 0, ("Ft",), ("HU",), "YMD", (27, 18, 5), None, ("hu",)),
        CurrencyInfo("ZAR", 2, ("R",), ("ZA",), "YMD", (15,), None, ("en",)),
        CurrencyInfo("TRY", 2, ("₺", "TL"), ("TR",), "DMY", (20, 10, 1, 18, 8), None, ("tr",)),
        CurrencyInfo("THB", 2, ("฿",), ("TH",), "DMY", (7,), None, ("th",)),
    ]
}

# Symbols that name exactly one currency.
_UNIQUE_SYMBOLS = {"€": "EUR", "£": "GBP", "₹": "INR", "₩": "KRW", "원": "KRW", "円": "JPY",
                   "￥": "JPY", "zł": "PLN", "Kč": "CZK", "₺": "TRY", "฿": "THB", "R$": "BRL",
                   "US$": "USD", "C$": "CAD", "CA$": "CAD", "A$": "AUD", "AU$": "AUD",
                   "NZ$": "NZD", "S$": "SGD", "HK$": "HKD", "MX$": "MXN", "元": "CNY"}

# Words that point at a country (and so at a currency for a shared symbol).
_COUNTRY_CUES: list[tuple[str, str]] = [
    (r"\b(HST|PST|QST|TPS|TVQ)(?![A-Za-z])", "CAD"),
    (r"\bABN(?![A-Za-z])", "AUD"),
    (r"\bGST\s*(?:\(?10(?:[.,]0+)?\s?%)", "AUD"),
    (r"\bGST\s*(?:\(?15(?:[.,]0+)?\s?%)", "NZD"),
    (r"\bGST\s*(?:\(?[98](?:[.,]0+)?\s?%)", "SGD"),
    (r"\bGST\s*(?:\(?5(?:[.,]0+)?\s?%)", "CAD"),
    (r"\b(CGST|SGST|IGST|GSTIN)(?![A-Za-z])", "INR"),
    (r"\bSales\s+Tax\b", "USD"),
    (r"(?<![A-Za-z])GST(?![A-Za-z])", "AUD"),
    (r"\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b", "USD"),  # US state + ZIP
    (r"\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b", "CAD"),  # Canadian postcode
    (r"\b(NSW|VIC|QLD|TAS|ACT)\b", "AUD"),
    (r"\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b", "GBP"),  # UK postcode
    (r"\bMVA(?![A-Za-z])", "NOK"),
    (r"\bMWST(?![A-Za-z])", "CHF"),  # Swiss receipts print MWST; German ones MwSt
    (r"\b(MwSt|USt|TVA|IVA|BTW)(?![A-Za-z])", "EUR"),
    (r"(?<![A-Za-z])VAT(?![A-Za-z])", "GBP"),
    (r"\bMoms(?![A-Za-z])", "SEK"),
    (r"消費税|税込|内税", "JPY"),
    (r"增值税|发票", "CNY"),
]

# Codes that are also English words ("TRY") only count next to a number.
_CODE_RE = re.compile(
    r"(?<![A-Za-z])(" + "|".join(c for c in CURRENCIES if c != "TRY") + r"|TRY(?=\s?\d))(?![A-Za-z])"
)


def detect_currency(text: str, language: str | None = None) -> str | None:
    """The ISO 4217 code the receipt is in, or None if nothing points at one."""
    codes = Counter(m.group(1) for m in _CODE_RE.finditer(text))
    if codes:
        return codes.most_common(1)[0][0]
    hits: Counter[str] = Counter()
    for sym, code in _UNIQUE_SYMBOLS.items():
        if sym.isalpha() and sym.isascii():
            n = len(re.findall(rf"(?<![A-Za-z]){re.escape(sym)}(?![A-Za-z])", text))
        else:
            n = text.count(sym)
        if n:
            hits[code] += n
    if hits:
        code = hits.most_common(1)[0][0]
        if code == "JPY" and "円" not in text and "￥" not in text and _has_decimals(text):
            return "CNY"
        return code
    for pattern, code in _COUNTRY_CUES:
        flags = 0 if code in ("USD", "CHF", "EUR") else re.IGNORECASE
        if re.search(pattern, text, flags):
            if code in ("NOK", "SEK") and "kr" not in text.lower():
                continue
            return code
    if "¥" in text:
        return "CNY" if _has_decimals(text) and language == "zh" else "JPY"
    if re.search(r"\bkr\b", text, re.IGNORECASE):
        return {"no": "NOK", "da": "DKK"}.get(language or "", "SEK")
    if re.search(r"\bFr\.", text) or re.search(r"\bCHF\b", text):
        return "CHF"
    if "$" in text:
        return {"es": "MXN"}.get(language or "", "USD")
    if re.search(r"\bFt\b", text):
        return "HUF"
    # OCR models often drop € and £: a euro-area language is the last clue
    if language in ("de", "fr", "es", "it", "nl", "pt"):
        return "EUR"
    if language == "en" and _has_decimals(text):
        # English amounts with no symbol OCR can read: "$" would have been read, "£" is not
        return "GBP"
    return None


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
