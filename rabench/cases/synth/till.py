"""How a merchant's till prints: one fixed template per merchant (tax block, quantity lines, rounding, cash rows).

Why per merchant and not per receipt: a shop's till prints every receipt the same
way, and a hard negative (another receipt from the same shop and day) must share
its look-alike's template. The template is drawn from a generator seeded by the
merchant's name only, so it is the same in every split and for every receipt of
that merchant, and it is decided *before* any fake work: a fake that changes the
merchant name keeps the original till's template (a forger edits text, not the till).

What real receipts print that the first generator never drew (issue 13, from the
SROIE scans and US phone photos): tax-inclusive totals worded several ways
("Total (Inclusive of GST)", "enthaltene MwSt", a tax summary table with net and
tax per rate), Malaysian GST receipts (SDN BHD companies with a registration and
GST number, "Rounding Adj" lines to the 5 sen, ``$`` or ``RM`` for ringgit),
quantity and unit-price info lines in several forms ("2 x 1,50", "@RM6.90",
"Einzelpreis EUR 9,95", a quantity column before the item), repeated identical
item rows instead of a quantity, and the cash tendered and change after the total.
None of these depends on whether the receipt is genuine or fake.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

TAX_STYLES = ("line", "incl_line", "total_incl", "summary")
QTY_STYLES = ("below", "above", "at", "unit_word")


@dataclass(frozen=True, slots=True)
class Template:
    tax_style: str = "line"  # line | incl_line (tax "included" after the total) | total_incl | summary
    qty_style: str = "below"  # below: "  2 x 1,50" | above | at: "@1.50" | unit_word: "Unit price 1.50"
    qty_column: bool = False  # quantity printed before each item ("2 CLAYPOT TOFU")
    repeats: bool = False  # repeated purchases printed as identical rows, not a quantity
    cash_rows: bool = True  # cash payments print the amount tendered and the change
    rounding_line: bool = False  # a rounding adjustment line is always printed (Malaysia)
    symbol: str | None = None  # currency symbol override ("$" or "RM" for ringgit)
    symbol_all: bool = False  # every amount carries the symbol ("$7.10")
    head: tuple[str, ...] = ()  # registration / tax-number / "TAX INVOICE" lines under the address
    upper: bool = False  # the whole receipt in capitals (Malaysian tills)
    inclusive: bool | None = None  # tax included in prices; None = the locale's default
    variant: int = 0  # which of a style's wordings this till uses (0-2)


DEFAULT = Template()

_UNIT_WORDS = {"en": "Unit price", "de": "Einzelpreis", "fr": "Prix unitaire", "es": "Precio unidad"}
_TAX_IDS = {
    "de": lambda r: f"USt-IdNr.: DE{_digits(r, 9)}",
    "gb": lambda r: f"VAT Reg No: GB {_digits(r, 3)} {_digits(r, 4)} {_digits(r, 2)}",
    "fr": lambda r: f"SIRET {_digits(r, 14)}",
    "es": lambda r: f"CIF B{_digits(r, 8)}",
    "au": lambda r: f"ABN {_digits(r, 2)} {_digits(r, 3)} {_digits(r, 3)} {_digits(r, 3)}",
    "ch": lambda r: f"MWST-Nr. CHE-{_digits(r, 3)}.{_digits(r, 3)}.{_digits(r, 3)}",
}


def _digits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(int(d)) for d in rng.integers(0, 10, size=n))


def unit_word(language: str) -> str:
    return _UNIT_WORDS.get(language, "Unit price")


def template_for(merchant: str, locale: str, layout: str) -> Template:
    """The till template of ``merchant`` (deterministic: seeded by the name alone)."""
    rng = np.random.default_rng([zlib.crc32(merchant.encode("utf-8")), 13])
    till = layout not in ("hotel", "ecommerce", "taxi")
    variant = int(rng.integers(3))
    if locale == "my":
        style = str(rng.choice(["incl_line", "total_incl", "summary", "line"], p=[0.25, 0.25, 0.3, 0.2]))
        return Template(
            tax_style=style,
            inclusive=style in ("incl_line", "total_incl") or (style == "summary" and bool(rng.random() < 0.6)),
            variant=variant,
            qty_style=str(rng.choice(["below", "at", "unit_word"], p=[0.5, 0.3, 0.2])),
            qty_column=bool(rng.random() < 0.5),
            repeats=bool(rng.random() < 0.4),
            cash_rows=True,
            rounding_line=bool(rng.random() < 0.85),
            symbol="$" if rng.random() < 0.25 else "RM",
            symbol_all=bool(rng.random() < 0.2),
            head=_malaysian_head(rng),
            upper=True,
        )
    tax = "line"
    if locale in ("de", "gb", "fr", "es", "ch", "au", "jp"):
        tax = str(rng.choice(["line", "incl_line", "total_incl", "summary"], p=[0.35, 0.2, 0.15, 0.3]))
    head: tuple[str, ...] = ()
    if locale in _TAX_IDS and rng.random() < 0.5:
        head = (_TAX_IDS[locale](rng),)
    return Template(
        tax_style=tax,
        qty_style=str(rng.choice(QTY_STYLES, p=[0.45, 0.2, 0.15, 0.2])),
        qty_column=bool(layout == "restaurant" and rng.random() < 0.5),
        repeats=bool(till and rng.random() < 0.35),
        cash_rows=bool(rng.random() < 0.8),
        symbol_all=bool(locale == "us" and rng.random() < 0.2),
        head=head,
        variant=variant,
    )


def _malaysian_head(rng: np.random.Generator) -> tuple[str, ...]:
    reg = f"({int(rng.integers(10000, 999999))}-{'ADHKMPTUVWX'[int(rng.integers(11))]})"
    gst = f"{str(rng.choice(['GST Reg No', 'GST ID', 'GST No.']))} : 000{_digits(rng, 9)}"
    tel = f"TEL : 0{int(rng.integers(3, 10))}-{_digits(rng, 4)} {_digits(rng, 4)}"
    title = str(rng.choice(["TAX INVOICE", "SIMPLIFIED TAX INVOICE", "RECEIPT", "CASH RECEIPT"]))
    return (reg, tel, gst, title) if rng.random() < 0.5 else (reg, gst, tel, title)


# Malaysia: invented companies and streets in the country's own style (no real shop's data).
MY_STREETS = (
    "JALAN PERMAS 10/7",
    "JALAN BESAR",
    "JALAN SS 2/24",
    "JALAN PUCHONG",
    "JALAN KLANG LAMA",
    "JALAN TAMPOI 7/4",
    "JALAN KPB 6",
    "JALAN TUN RAZAK",
    "JALAN MERANTI 3",
    "JALAN SETIA PRIMA Q U13/Q",
)
MY_AREAS = (
    "TAMAN PERMAS JAYA",
    "TAMAN SRI MUDA",
    "KAWASAN PERINDUSTRIAN BALAKONG",
    "TAMAN DAYA",
    "BANDAR BARU BANGI",
    "SEKSYEN 25",
    "TAMAN MELAWATI",
    "BANDAR PUCHONG JAYA",
)
MY_CITIES = (
    ("81750", "JOHOR BAHRU", "JOHOR"),
    ("40400", "SHAH ALAM", "SELANGOR"),
    ("43300", "SERI KEMBANGAN", "SELANGOR"),
    ("47100", "PUCHONG", "SELANGOR"),
    ("50450", "KUALA LUMPUR", "W.P. KUALA LUMPUR"),
    ("41200", "KLANG", "SELANGOR"),
    ("81200", "JOHOR BAHRU", "JOHOR"),
    ("43650", "BANDAR BARU BANGI", "SELANGOR"),
)


def malaysian_address(rng: np.random.Generator) -> tuple[str, ...]:
    lot = str(
        rng.choice(
            [
                f"NO. {int(rng.integers(1, 120))}",
                f"LOT {int(rng.integers(100, 9999))}",
                f"NO.{int(rng.integers(1, 40))}-{int(rng.integers(1, 12))}",
            ]
        )
    )
    street = MY_STREETS[int(rng.integers(len(MY_STREETS)))]
    area = MY_AREAS[int(rng.integers(len(MY_AREAS)))]
    pc, city, state = MY_CITIES[int(rng.integers(len(MY_CITIES)))]
    if rng.random() < 0.5:
        return (f"{lot}, {street},", f"{area},", f"{pc} {city}, {state}.")
    return (f"{lot}, {street}, {area},", f"{pc} {city}, {state}")
