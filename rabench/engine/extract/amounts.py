"""Printed amounts -> numbers, whatever the locale.

``1,234.56``, ``1.234,56``, ``1 234,56``, ``1'234.56``, ``¥1,234``, ``-3.00``,
``3.00-`` and ``(3.00)`` are all read, also with a till's tax code glued on
(``41.07T``, ``190.00SR``). The rule for the separators: the last
``.`` or ``,`` followed by one or two digits is the decimal mark; any other
separator followed by exactly three digits groups thousands (India groups
lakhs and crores by two above them: ``1,23,456.00``). A lone separator
followed by three digits (``1.234``) groups thousands unless the integer part
is 0, because receipts print minor units when the currency has them. For a
currency without minor units (JPY, KRW, HUF as printed) integers are amounts;
for others an amount must show its decimals, so that "Table 12" or a phone
number is not read as money.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import msgspec

_SEP = r"[,.'\u2019\u00a0\u202f ]"
_NUMBER = (
    r"(?P<num>\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?"  # India's lakh grouping: "1,23,456.00"
    r"|\d{1,3}(?:" + _SEP + r"\d{3})+(?:[.,]\d{1,2})?"
    r"|\d+(?:[.,]\d{1,3})?"
    r"|(?<![\d.,])\.\d{2})"  # ".02": a till printing cents without the leading zero
)
_SYMBOLS = (
    r"(?:US\$|C\$|CA\$|A\$|AU\$|NZ\$|S\$|HK\$|MX\$|R\$|[$€£¥￥₹₩₺฿₱₫]|CHF|EUR|USD|GBP|JPY|MYR|SGD|AUD|CAD|NZD|HKD|SEK|NOK|DKK|PLN|CZK|HUF|INR|Fr\.|kr|zł|Kč|Ft"
    r"|(?<![A-Za-z])(?:RM|Rp|Rs)|円|원|元)"
)
_AMOUNT_RE = re.compile(
    r"(?P<neg1>[-−–(])?(?:(?P<sym1>"
    + _SYMBOLS
    + r")\s?)?(?P<neg2>[-−–])?"
    + _NUMBER
    + r"(?:\s?(?P<sym2>"
    + _SYMBOLS
    + r"))?(?P<neg3>-(?!\d)|\))?(?![\d%])"
)


_BROKEN = re.compile(r"(\d)([.,])( {1,2})(\d{2})(?=\s*$|\s{2})")
# ... or before it, or on both sides ("12 .50", "12 , 50")
_BROKEN_BEFORE = re.compile(r"(\d)( )([.,])( {0,2})(\d{2})(?=\s*$|\s{2}|[^\d.,])")


_O_FOR_ZERO = re.compile(r"(?:(?<=[\s$:])|(?<=RM))[Oo](?=[.,]\d{2}(?!\d))")
# OCR reads digits of a printed amount as look-alike letters: O/o/D for 0, l/I/| for 1, S for 5,
# B for 8 ("2.5O", "l2.50", "1S.50", "1B.50"). Only inside a token shaped like an amount (digits,
# one decimal mark, two decimals), standing alone or after a currency sign or code, with at least
# two real digits and at most two letters; a leading "S" stays the dollar sign OCR makes of "$".
_CONFUSABLE = "0-9OoDlI|SB"
_LOOKALIKE_AMOUNT = re.compile(
    r"(?:(?<=[\s$€£:(])|(?<=^)|(?<=RM)|(?<=EUR)|(?<=Rp))"
    r"([" + _CONFUSABLE + r"]{1,7}(?:[.,][" + _CONFUSABLE + r"]{3})*[.,][0-9Oo]{2})(?![A-Za-z0-9.,])"
)
_LOOKALIKE = str.maketrans({"O": "0", "o": "0", "D": "0", "l": "1", "I": "1", "|": "1", "S": "5", "B": "8"})


def _digits_for_lookalikes(text: str) -> str:
    def fix(m: re.Match[str]) -> str:
        tok = m.group(1)
        letters = sum(not ch.isdigit() and ch not in ".," for ch in tok)
        digits = sum(ch.isdigit() for ch in tok)
        if letters == 0 or letters > 2 or digits < 2 or tok[0] in "SB" or tok[0] in "Oo" and tok[1:2].isdigit():
            return tok
        return tok.translate(_LOOKALIKE)

    return _LOOKALIKE_AMOUNT.sub(fix, text)


class Amount(msgspec.Struct, frozen=True):
    value: float
    text: str  # as printed
    start: int  # offset in the string it was found in
    end: int
    decimals: int  # digits after the decimal mark as printed (0 if none)


def parse_number(num: str, *, minor_units: int = 2) -> tuple[Decimal, int] | None:
    """One printed number (no sign, no symbol) -> (value, printed decimals)."""
    s = num.strip()
    if s[:1] == "." and len(s) == 3:
        s = "0" + s  # ".02"
    if not s or not s[0].isdigit():
        return None
    seps = [(i, ch) for i, ch in enumerate(s) if not ch.isdigit()]
    if not seps:
        return Decimal(s), 0
    last_i, last_ch = seps[-1]
    tail = len(s) - last_i - 1
    decimal_at: int | None = None
    if last_ch in ".," and tail in (1, 2):
        decimal_at = last_i
    elif last_ch in ".," and tail == 3 and len(seps) == 1:
        head = s[:last_i]
        if head == "0" or minor_units == 3:
            decimal_at = last_i
    if decimal_at is not None:
        int_part = s[:decimal_at]
        frac = s[decimal_at + 1 :]
        groups = [i for i, _ in seps if i != decimal_at]
    else:
        int_part, frac, groups = s, "", [i for i, _ in seps]
    # every grouping separator must be followed by exactly three digits
    if groups:
        chars = {s[i] for i in groups}
        if len(chars) != 1:
            return None
        if decimal_at is not None and s[decimal_at] in chars:
            return None
        pieces = re.split(r"[^\d]", int_part)
        # (or India's lakh and crore grouping, "1,23,456.00": pairs of digits above the last three)
        lakh = (
            chars == {","}
            and len(pieces) >= 3
            and len(pieces[0]) <= 2
            and len(pieces[-1]) == 3
            and all(len(p) == 2 for p in pieces[1:-1])
        )
        if not lakh and (len(pieces[0]) > 3 or any(len(p) != 3 for p in pieces[1:])):
            return None
    digits = re.sub(r"\D", "", int_part)
    try:
        value = Decimal(digits + ("." + frac if frac else ""))
    except InvalidOperation:
        return None
    return value, len(frac)


def find_amounts(text: str, *, minor_units: int = 2, allow_integers: bool | None = None) -> list[Amount]:
    """Every amount in ``text``, left to right.

    ``allow_integers`` defaults to ``minor_units == 0``; an integer next to a
    currency symbol always counts.
    """
    if allow_integers is None:
        allow_integers = minor_units == 0
    out: list[Amount] = []
    # OCR breaks an amount at its decimal mark ("29. 70", "$154.  78" in two boxes): join it back
    # (same length, offsets kept)
    text = _BROKEN.sub(lambda m: m.group(1) + m.group(2) + m.group(4) + m.group(3), text)
    text = _BROKEN_BEFORE.sub(lambda m: m.group(1) + m.group(3) + m.group(5) + m.group(2) + m.group(4), text)
    text = _O_FOR_ZERO.sub("0", text)  # "RMO.94": the letter O for a zero before the decimal mark
    text = _digits_for_lookalikes(text)  # "RM2.5O", "l2.50", "1S.50": letters OCR made of digits
    for m in _AMOUNT_RE.finditer(text):
        num = m.group("num")
        start, end = m.start(), m.end()
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        # not digits glued to letters (SKU "AB123"), to a date or time, or inside a longer number
        glued_symbol = (
            before in "fEeCSP" and (start < 2 or not text[start - 2].isalnum()) and re.search(r"[.,]\d{1,2}$", num)
        )  # OCR reads a dropped "£"/"€" as a letter ("f1.08"), "$" as "S" ("S8.20"), "₱" as "P" ("P99.00")
        # a till's tax code glued to the price ("41.07T", "190.00SR", "1,99A") is not a unit
        tax_code = bool(re.match(r"[A-Z]{1,3}(?=\s|$|\*)", text[end:])) and bool(re.search(r"[.,]\d{2}$", num))
        # "Total:$8.20", not "10:30"; also a label whose last "l" OCR read as "1" ("Tota1:193.35", "Subtota1:9.00")
        label_colon = before == ":" and (
            start < 2
            or not text[start - 2].isdigit()
            or (text[start - 2] == "1" and start >= 3 and text[start - 3].isalpha())
        )
        lettered = (m.group("sym1") or "")[:1].isalpha()  # "EinzelpreisEUR23,49": a code glued to its label
        if (
            (before.isalnum() and not glued_symbol and not (lettered and before.isalpha()))
            or (before in ".,:/" and not label_colon)
            or after in ":/"
            or (after.isalpha() and after not in "kKx" and not tax_code)
        ):
            continue
        if text[end : end + 2][:1] == "-" and text[end + 1 : end + 2].isdigit():
            continue  # "2-21-1": part of an address or a reference
        if re.search(r"[ \u00a0\u202f]", num):
            # "1 234,56": only as the last thing in the text, not after "2 x" or another number
            prev = text[:start].rstrip().split()
            if text[end:].strip() or (prev and (prev[-1] in ("x", "X", "@", "×") or prev[-1][-1:].isdigit())):
                # fall back to the last space-free part: "2 150,00" -> "150,00"
                tail = num.split()[-1] if num.split() else num
                shift = len(num) - len(tail)
                parsed = parse_number(tail, minor_units=minor_units)
                if parsed is None:
                    continue
                num, start = tail, m.start("num") + shift
        parsed = parse_number(num, minor_units=minor_units)
        if parsed is None:
            continue
        value, decimals = parsed
        has_symbol = bool(m.group("sym1") or m.group("sym2"))
        if decimals == 0 and not allow_integers and not has_symbol:
            continue
        if 0 < decimals != minor_units and minor_units > 0 and not has_symbol:
            continue  # "12.4 km", "0.345 kg": a measure, not money printed with its minor units
        if decimals == 0 and len(re.sub(r"\D", "", num)) > 9:
            continue  # card numbers, barcodes
        if decimals == 0 and num[0] == "0" and len(num) > 1 and not has_symbol:
            continue  # "000659": a reference number, not money
        negative = bool(m.group("neg1") or m.group("neg2") or m.group("neg3"))
        if m.group("neg1") == "(" and m.group("neg3") != ")":
            negative = bool(m.group("neg2"))
        if m.group("neg3") == ")" and m.group("neg1") != "(":
            negative = bool(m.group("neg2"))
        v = float(-value if negative else value)
        out.append(Amount(value=v, text=m.group(0).strip(), start=start, end=end, decimals=decimals))
    return out
