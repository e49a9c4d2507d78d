"""The words receipts use, per language, and what each row of a receipt is.

Extraction is keyword-led because receipts are: a printed amount means
nothing until the label beside it says whether it is the total, the tax or
the change given back. Matching is done on lowercased, accent-stripped text so
"Sous-total", "SOUS TOTAL" and "sous-total" are one word. The row kinds are
tried most specific first ("Sub Total" is a subtotal before it is a total,
"Total TVA" a tax, "Total TTC" a total, "Total Qty" a count, "Total Sales
(Excluding GST)" a subtotal, "Total Sales (Inclusive of GST)" a total,
"Rounding Adj" a rounding line, "Total Savings" a discount note).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter


def fold(text: str) -> str:
    """Lowercase, accents stripped (ß kept as ss), for keyword matching."""
    text = text.replace("ß", "ss").replace("ẞ", "ss")
    norm = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in norm if not unicodedata.combining(ch)).lower()


def _alt(words: list[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


def _kw(words: list[str]) -> re.Pattern[str]:
    # word-ish boundaries that also work next to CJK characters and punctuation
    return re.compile(r"(?<![a-z])(?:" + _alt(words) + r")(?![a-z])")


SUBTOTAL = _kw(
    [
        "subtotal",
        "sub total",
        "sub-total",
        "sous-total",
        "sous total",
        "zwischensumme",
        "zw.-summe",
        "zw summe",
        "total ht",
        "montant ht",
        "total h.t",
        "netto",
        "nettobetrag",
        "net amount",
        "net total",
        "subtotale",
        "imponibile",
        "base imponible",
        "subtotaal",
        "items total",
        "total before tax",
        "total excl",
        "total excl.",
        "total hors taxes",
        "小計",
        "소계",
        "summa netto",
        "netto summe",
        "excluding",
        "exclusive",
        "excl",
        "exkl",
        "exkl.",
        "ohne mwst",
        "hors taxe",
        "hors taxes",
        "sin iva",
        "senza iva",
        "excl. btw",
        "exclusief",
        "before gst",
        "before tax",
        "before vat",
        "zwsumme",
        "taxable sales",
        "taxable amount",
        "taxable total",
        "jumlah kecil",
        "sub jumlah",
        "subjumlah",
        "taxable value",
        "mezisoucet",
        "valisumma",
        "小计",
    ]
)
# The taxable base of one tax group, printed beside the tax rows: Poland's fiscal receipts ("SPRZEDAZ
# OPODATKOWANA A 4,29" over "PTU A 23% 0,80"), the Philippines' "VATable Sales", "VAT-Exempt Sales",
# "Zero-Rated Sales". Neither an item nor the receipt's subtotal: a fact about the tax.
TAX_BASE = re.compile(
    r"sprzed\w*\s*opod|(?<![a-z])(?:vatable|vat[\s-]*exempt|zero[\s-]*rated)\s*(?:sales?|amount)(?![a-z])"
)
# Tax words OCR often glues to the word before ("SalesTax", "dontTVA", "enth.MwSt"): these
# match without a left boundary (never "taxi": the right boundary still holds).
_GLUED_TAX = re.compile(r"(tax|vat|tva|mwst|iva|gst|hst|btw)(?=\s?\d|\.\s?\d|:|rate)")  # not "oliva"; "TaxRate"
TAX = _kw(
    [
        "tax",
        "taxes",
        "vat",
        "tva",
        "mwst",
        "mwst.",
        "ust",
        "ust.",
        "iva",
        "gst",
        "hst",
        "pst",
        "qst",
        "btw",
        "moms",
        "mva",
        "消費税",
        "内税",
        "外税",
        "税",
        "부가세",
        "ptu",
        "dph",
        "afa",
        "kdv",
        "steuer",
        "sst",
        "ppn",
        "pajak",
        "cukai",
        "pb1",
        "pb 1",
        "service tax",
        "sales tax",
        "i.v.a",
        "taxe",
        "imposta",
        "impuesto",
        "cgst",
        "sgst",
        "igst",
        "tps",
        "tvq",
        "alv",
        "fpa",
        "pvm",
        "pvn",
        "ddv",
        "pdv",
        "dds",
    ]
)
TIP = _kw(
    [
        "tip",
        "tips",
        "gratuity",
        "service",
        "service charge",
        "serv. charge",
        "pourboire",
        "trinkgeld",
        "propina",
        "mancia",
        "servizio",
        "servicio",
        "bedienung",
        "fooi",
        "coperto",
        "service compris",
        "serv charge",
        "svc charge",
        "svc chg",
        "service chg",
        "caj perkhidmatan",
    ]
)
DISCOUNT = _kw(
    [
        "discount",
        "rabatt",
        "remise",
        "reduction",
        "descuento",
        "sconto",
        "korting",
        "coupon",
        "savings",
        "you saved",
        "promo",
        "promotion",
        "voucher",
        "nachlass",
        "割引",
        "値引",
        "할인",
        "rebate",
        "diskaun",
        "sconto",
        "abzug",
        "saving",
        "great saving",
        "off",
        "preisvorteil",
        "ermassigung",
        "member discount",
        "diskon",
        "potongan",
        "descuento aplicado",
        "korting totaal",
        "gutschein",
        "wertgutschein",
        "bon de reduction",
        "buono sconto",
        "rabat",
        "upust",
        "sleva",
        "zlava",
        "kedvezmeny",
        "popust",
        "alennus",
        "desconto",
    ]
)
# "Rounding Adj -0.02", "Total Rounded": cash rounding to the coin (Malaysia, Switzerland, ...).
ROUNDING = _kw(
    [
        "rounding",
        "round adj",
        "rounding adj",
        "rounding adjustment",
        "round off",
        "rounded",
        "rundung",
        "gerundet",
        "arrondi",
        "arrondissement",
        "redondeo",
        "arrotondamento",
        "afronding",
        "avrundning",
        "oresavrundning",
        "pembundaran",
        "penggenapan",
        "round adjustment",
        "rounding adj.",
        "pembulatan",
        "pelarasan",
        "adj rounding",
        "rundungsdifferenz",
        "rappenrundung",
        "zaokrouhleni",
        "zaokraglenie",
        "afrunding",
        "avrunding",
        "oreavrunding",
        "øreavrunding",
        "pyoristys",
        "arredondamento",
    ]
)
PAYMENT = _kw(
    [
        "cash",
        "card",
        "visa",
        "mastercard",
        "master card",
        "amex",
        "maestro",
        "paid",
        "payment",
        "tendered",
        "change",
        "bar",
        "ec",
        "ec-karte",
        "karte",
        "girocard",
        "ruckgeld",
        "zuruck",
        "gegeben",
        "especes",
        "carte",
        "cb",
        "carte bancaire",
        "rendu",
        "monnaie",
        "efectivo",
        "tarjeta",
        "cambio",
        "contanti",
        "resto",
        "pin",
        "お預り",
        "お預かり",
        "お釣り",
        "おつり",
        "debit",
        "credit",
        "contactless",
        "apple pay",
        "google pay",
        "pagato",
        "pagado",
        "pago",
        "paye",
        "bezahlt",
        "received",
        "tarjeta credito",
        "pinnen",
        "contant",
        "wisselgeld",
        "現金",
        "釣銭",
        "gift card",
        "tunai",
        "baki",
        "tender",
        "tendered",
        "amex",
        "bancontact",
        "kartenzahlung",
        "bargeld",
        "zahlbetrag bar",
        "kembali",
        "kembalian",
        "uang kembali",
        "entregado",
        "entrega",
        "bancomat",
        "contante",
        "terug",
        "betaald",
        "wisselgeld",
        "kartu",
        "kartu debit",
        "kad kredit",
        "kad debit",
        "gotowka",
        "karta",
        "hotove",
        "hotovost",
        "platba kartou",
        "kontant",
        "kort",
        "bankkort",
        "dankort",
        "eftpos",
        "interac",
        "multibanco",
        "pankkikortti",
        "kateinen",
        "vraceno",
        "vekslepenger",
        "takaisin",
        "现金",
        "支付宝",
        "微信支付",
        "银行卡",
        "实收",
        "实付",
        "tien mat",
        "tien khach dua",
        "khach dua",
        "khach tra",
    ]
)
# Money given back: a payment row above it shows what was tendered, not what was due.
CHANGE = _kw(
    [
        "change",
        "change due",
        "ruckgeld",
        "zuruck",
        "wechselgeld",
        "rendu",
        "monnaie rendue",
        "a rendre",
        "cambio",
        "vuelto",
        "vuelta",
        "resto",
        "troco",
        "wisselgeld",
        "terug",
        "baki",
        "kembali",
        "kembalian",
        "uang kembali",
        "お釣り",
        "おつり",
        "釣銭",
        "找零",
        "找赎",
        "reszta",
        "vaxel",
        "vaxelpengar",
        "byttepenge",
        "vraceno",
        "vekslepenger",
        "takaisin",
        "tien thua",
        "tien tra lai",
    ]
)
TOTAL = _kw(
    [
        "total",
        "grand total",
        "amount due",
        "balance due",
        "total due",
        "to pay",
        "amount",
        "summe",
        "gesamt",
        "gesamtbetrag",
        "gesamtsumme",
        "zu zahlen",
        "betrag",
        "endbetrag",
        "total ttc",
        "net a payer",
        "a payer",
        "montant",
        "montant ttc",
        "importe",
        "total a pagar",
        "totale",
        "totale complessivo",
        "totaal",
        "te betalen",
        "合計",
        "お会計",
        "総計",
        "합계",
        "summa",
        "att betala",
        "razem",
        "suma",
        "celkem",
        "osszesen",
        "toplam",
        "balance",
        "ttc",
        "jumlah",
        "jumlah besar",
        "total payable",
        "amount payable",
        "nett total",
        "net payable",
        "payable",
        "bill total",
        "total bill",
        "total amt",
        "totale euro",
        "importe total",
        "total factura",
        "due",
        "ttl",
        "importo",
        "totaalbedrag",
        "totalt",
        "i alt",
        "yhteensa",
        "k uhrade",
        "do zaplaty",
        "at betale",
        "a betale",
        "zahlbetrag",
        "ukupno",
        "ukupan iznos",
        "za platiti",
        "za placanje",
        "skupaj",
        "za placilo",
        "spolu",
        "celkom",
        "kokku",
        "is viso",
        "fizetendo",
        "合计",
        "总计",
        "总额",
        "应收",
        "应付",
        "tong cong",
        "tong tien",
        "tong thanh toan",
        "tong so tien",
        "total belanja",
        "total bayar",
        "jumlah bayaran",
        "jumlah perlu dibayar",
    ]
)
INCLUSIVE = re.compile(
    r"(?<![a-z])(incl|inkl|including|included|inclus|incluido|incluida|incluso|inbegrepen|dont|davon|enthalten|"
    r"inc\.|inc|includes|enth\.?|enthaltene?|inclus|inclusive|inklusive|incluye|incluyen|compris|inbegriffen|"
    r"inclusief|termasuk|内税|税込|ttc)(?![a-z])|inclusive|incl\.?(?=[a-z])|(?<![a-z])[il1]nc[il1](?:usive|\.)"
    r"|(?<![a-z])[il1]?n(?:[dc][il1]|d)usive"  # OCR's "lnclusive", "ndusive" ("cl" read as "d")
)
ITEM_TAXES = _kw(
    [
        "city tax",
        "tourist tax",
        "kurtaxe",
        "taxe de sejour",
        "tasa turistica",
        "citytax",
        "bettensteuer",
        "occupancy tax",
        "tassa di soggiorno",
        "toeristenbelasting",
    ]
)
# Deposits on bottles and crates ("Pfand", "CRV", "Statiegeld"); "Leergut" returns are negative.
DEPOSIT = _kw(
    [
        "pfand",
        "deposit",
        "bottle deposit",
        "crv",
        "leergut",
        "statiegeld",
        "consigne",
        "envase",
        "vuoto",
        "pant",
        "emballage",
        "einwegpfand",
        "mehrwegpfand",
    ]
)
# Facts printed beside a number that is not money (table, server, distance, time).
INFO = _kw(
    [
        "table",
        "tisch",
        "mesa",
        "tavolo",
        "server",
        "serveur",
        "camarero",
        "cashier",
        "kassierer",
        "caissier",
        "time",
        "zeit",
        "uhrzeit",
        "duree",
        "tiempo",
        "heure",
        "hora",
        "distance",
        "strecke",
        "distancia",
        "km",
        "miles",
        "guests",
        "couverts",
        "personen",
        "pers",
        "terminal",
        "kasse",
        "till",
        "pos",
        "store",
        "filiale",
        "tel",
        "phone",
        "fax",
        "points",
        "punkte",
    ]
)
COUNT_WORDS = re.compile(
    r"(?<![a-z])(items?|item\(s\)|qty|qty\(s\)|quantity|articles?|artikel|stuck|pcs|anzahl|nombre|点数|点|"
    r"no\. of items|item count|qty count|kuantiti|unidades|articoli|artikelen|pieces|posten|positionen)(?![a-z])"
)
# OCR often drops the spaces between a till's words ("TotalSales(ExcludingGST)", "TOTALRM"):
# a space goes back between two receipt words glued together, before the keywords are matched.
_GLUE_WORDS = [
    "total",
    "sub",
    "grand",
    "nett",
    "net",
    "sales",
    "amount",
    "amt",
    "incl",
    "excl",
    "inclusive",
    "exclusive",
    "excluding",
    "including",
    "includes",
    "gst",
    "vat",
    "tax",
    "qty",
    "items",
    "item",
    "rm",
    "rounding",
    "rounded",
    "adj",
    "payable",
    "due",
    "cash",
    "change",
    "summe",
    "mwst",
    "inkl",
    "exkl",
    "of",
    "sst",
    "sr",
    "zr",
    "after",
    "before",
    "bill",
    "euro",
    "eur",
    "usd",
    "ttc",
    "ht",
    "pm",
    "am",
    "tip",
]
_GLUE = re.compile(r"(" + _alt(_GLUE_WORDS) + r")(?=(?:" + _alt(_GLUE_WORDS) + r")(?![a-z]))")
# "Total" run into a word OCR misread ("TotalSalecIncucive", "Totalbetrag"): the label still starts with
# the word total. Not "totale"/"totalt" (Italian, Scandinavian: the word itself) nor "totalisateur".
_TOTAL_GLUED = re.compile(r"(?<![a-z])total(?=[a-z]{3,})(?!is|iz)")


def unglue(s: str) -> str:
    """``"totalsales(excludinggst)"`` -> ``"total sales(excluding gst)"`` (folded text)."""
    return _TOTAL_GLUED.sub("total ", _GLUE.sub(r"\1 ", s))


def says_inclusive(s: str) -> bool:
    """The (folded, unglued) label says its amount includes the tax, also as OCR misreads the word
    ("lnclusive", "ndusive", "Incucive")."""
    if re.search(r"excluding|exclusive|(?<![a-z])(excl|exkl|ex)(?![a-z])", s):
        return False  # "excluding" is two letters from "including"
    return bool(INCLUSIVE.search(s)) or _near_inclusive(s)


# "Total" as OCR misreads it on thermal paper ("lotal", "Totai", "Totl"), or glued to the time
# printed before it ("06/02 2:44pTOTAL")
_TOTAL_MISREAD = re.compile(
    r"(?<![a-z])(?:[tli1][oa0]t[a4]?[li1]|[li1][oa0][tl][a4][li1])(?![a-z])|(?<=\d)[ap]?total(?![a-z])"
)
# ... and "Sub Total" with it ("Sub Tota1", "SubT0tal")
_SUBTOTAL_MISREAD = re.compile(r"(?<![a-z])sub[\s.-]{0,2}(?:[tli1][oa0]t[a4]?[li1])(?![a-z])")
# "Inclusive" as OCR misreads it: "lnclusive", "Inciucive", "inclusiva", "ndusive"; one or two
# letters off a long word is still that word
_INCLUSIVE_WORDS = ("inclusive", "including", "inclusief", "inklusive")


def _near_inclusive(s: str) -> bool:
    from rapidfuzz.distance import Levenshtein

    for tok in re.findall(r"[a-z]{7,}", s):
        for w in _INCLUSIVE_WORDS:
            # the word alone, or glued at either end of a longer run ("salesinciucive", "salecincucive":
            # a letter dropped, so the glued word is one shorter)
            parts = (
                {tok}
                if len(tok) <= len(w) + 2
                else {tok[:n] for n in (len(w) - 1, len(w), len(w) + 1)}
                | {tok[-n:] for n in (len(w) - 1, len(w), len(w) + 1)}
            )
            if any(Levenshtein.distance(p, w) <= 2 for p in parts):
                return True
    return False


# "GST" as OCR misreads it: "GSI", "GS1", "6ST"
_TAX_MISREAD = re.compile(r"(?<![a-z])(gs[il1]|6st|g5t)(?![a-z])")

_GLUED_COUNT = re.compile(r"total\s*(qty|quantity|items?|item\(s\)|pcs|pieces)")
# A total row that is really a statement of savings ("Total Savings", "You saved").
SAVINGS = re.compile(r"(?<![a-z])(savings?|saved|ersparnis|gespart|economie|ahorro|risparmio|besparing)(?![a-z])")
# A balance that is not this purchase's amount due: what is left on a gift card, a loyalty account
# or a tab ("Remaining Balance", "Card Balance", "Points Balance", "Previous Balance", "Restguthaben").
STORED_BALANCE = re.compile(
    r"(?<![a-z])(remaining|available|avail|previous|prev|prior|beginning|starting|opening|ending|closing|"
    r"points?|pts|card|gift|account|acct|stored|prepaid|reward|rewards|loyalty|bonus|wallet|ytd)"
    r"\s*(balance|bal)(?![a-z])|(?<![a-z])(balance|bal)\s*(remaining|left|forward|b/f|available|on card)(?![a-z])"
    r"|(?<![a-z])(rest)?guthaben|(?<![a-z])(solde|saldo)\s*(carte|tarjeta|punti|punkte|points)"
)
# "Total Sales (Excluding GST)", "Total excl. VAT", "Sub-total (EX)": the net amount before tax.
EXCLUSIVE = re.compile(
    r"(?<![a-z])(excl|exkl|excluding|exclusive|exclusief|excl\.|ex|before|hors|sin|senza|ohne|netto|net of)(?![a-z])"
    r"|excluding|exclusive"
)

LANGUAGE_WORDS: dict[str, list[str]] = {
    "en": [
        "total",
        "subtotal",
        "tax",
        "thank you",
        "change",
        "receipt",
        "cash",
        "amount due",
        "tip",
        "gratuity",
        "qty",
        "date",
        "balance",
    ],
    "de": [
        "summe",
        "mwst",
        "zwischensumme",
        "datum",
        "ruckgeld",
        "gegeben",
        "danke",
        "vielen dank",
        "betrag",
        "bar",
        "kasse",
        "quittung",
        "rechnung",
        "inkl",
        "netto",
        "brutto",
        "gesamt",
        "uhrzeit",
    ],
    "fr": [
        "tva",
        "sous-total",
        "merci",
        "especes",
        "rendu",
        "ttc",
        "ht",
        "montant",
        "ticket",
        "facture",
        "carte bancaire",
        "a payer",
        "le",
        "au revoir",
    ],
    "es": [
        "iva",
        "gracias",
        "fecha",
        "importe",
        "efectivo",
        "cambio",
        "tarjeta",
        "factura",
        "propina",
        "total a pagar",
        "ticket",
        "base imponible",
        "hora",
    ],
    "it": ["totale", "scontrino", "grazie", "contanti", "resto", "iva", "imponibile", "documento"],
    "nl": ["totaal", "btw", "bedankt", "pinnen", "contant", "wisselgeld", "datum", "bon"],
    "ja": ["合計", "小計", "消費税", "お預り", "お釣り", "領収", "税込"],
    "zh": ["发票", "合计", "金额", "增值税", "元"],
    "ko": ["합계", "부가세", "영수증"],
    # Nordic and Central European till words (distinctive ones: "moms" is Swedish and Danish, "totalt"
    # Swedish and Norwegian)
    "sv": ["kvitto", "kassakvitto", "att betala", "kontant", "vaxel", "summa", "moms", "totalt", "tack for"],
    "no": ["mva", "totalt", "kvittering", "bankkort", "vekslepenger", "takk for", "betalt", "kontant"],
    "da": ["i alt", "moms", "dankort", "byttepenge", "at betale", "heraf moms", "kvittering"],
    "pl": ["paragon fiskalny", "paragon", "suma", "ptu", "gotowka", "reszta", "sprzedaz opodatkowana", "razem"],
    "cs": ["celkem", "dph", "hotove", "uctenka", "vraceno", "k uhrade", "zaplaceno", "dekujeme"],
}
_LANG_RE = {lang: _kw(words) for lang, words in LANGUAGE_WORDS.items()}


def detect_language(text: str) -> str | None:
    """The language the receipt's labels are in (most keyword hits), or None."""
    folded = fold(text)
    hits = Counter({lang: len(rx.findall(folded)) for lang, rx in _LANG_RE.items()})
    # a plain "total"/"date" is shared by several languages: English only wins when it leads clearly
    lang, n = hits.most_common(1)[0]
    if n == 0:
        return None
    if lang == "en":
        others = [(l, c) for l, c in hits.items() if l != "en" and c >= max(2, n - 1)]
        if others:
            return max(others, key=lambda lc: lc[1])[0]
    return lang


# The words a total row starts with, for reading a label OCR misread ("SUMNE", "Gesarnt", "T0TAL",
# "8alance", "Jum1ah"); used only when no row reads as a total.
_NEAR_TOTAL_WORDS = (
    "total",
    "summe",
    "gesamt",
    "gesamtbetrag",
    "betrag",
    "endbetrag",
    "balance",
    "montant",
    "totale",
    "totaal",
    "importe",
    "jumlah",
    "amount",
    "payable",
    "razem",
    "summa",
    "totalt",
)
_LOOKALIKES = (
    ("rn", "m"),
    ("nn", "m"),
    ("vv", "w"),
    ("0", "o"),
    ("1", "l"),
    ("|", "l"),
    ("5", "s"),
    ("8", "b"),
    ("4", "a"),
    ("$", "s"),
)


def near_total(label: str) -> bool:
    """A label that is a total word as OCR misreads it: look-alike characters ("T0TAL", "SUMNE" is one
    letter off, "Gesarnt" has "rn" for "m"), or one letter off a word of six letters or more."""
    from rapidfuzz.distance import Levenshtein

    for tok in re.findall(r"[a-z0-9|$]{4,}", fold(label)):
        if not re.search(r"[a-z].*[a-z].*[a-z]", tok):
            continue  # a number, not a misread word
        read = tok
        for a, b in _LOOKALIKES:
            read = read.replace(a, b)
        for w in _NEAR_TOTAL_WORDS:
            # one letter off: replaced in a word of five letters ("SUMNE"; not "Summer"), or also dropped or
            # doubled in a longer one ("Gesamnt")
            near = len(read) == len(w) if len(w) < 6 else len(read) >= 5
            if read == w or (len(w) >= 5 and near and Levenshtein.distance(read, w) <= 1):
                return True
    return False


# Electronic cash registers (Casio, Sharp, Sam4s...) print two-letter codes for the totals block: "TL" the total,
# "CG" the change ("CA" cash and "ST" subtotal are left alone: "CA" is also California, "ST" a street).
# Only a label that is the code alone counts ("TL." / "TL  $28.31"; not "TOPLAM TL").
_REGISTER_CODES = {"tl": "total", "cg": "payment"}


def says_change(text: str) -> bool:
    """The row says money given back: a change word (``CHANGE``), or a register's "CG" code printed
    alone before the amount ("CG  $11.69"; not "CG BAG", not "CGST 9%")."""
    s = fold(text)
    return bool(CHANGE.search(s)) or re.sub(r"[^a-z]", "", unglue(s)) == "cg"


def row_kind(label: str) -> str:
    """What a row's label says its amount is: subtotal | tax | tip | discount | rounding | deposit |
    payment | count (a number of items) | total | info (not money) | other (an item)."""
    s = unglue(fold(label))
    bare = re.sub(r"[^a-z]", "", s)
    if bare in _REGISTER_CODES:
        return _REGISTER_CODES[bare]  # a cash register's two-letter codes: "TL  $28.31", "CG  $11.69"
    if ITEM_TAXES.search(s):
        return "other"  # a tourist tax is a charge on the bill, not the receipt's tax
    if TAX_BASE.search(s):
        return "info"
    has_tax = bool(TAX.search(s) or _GLUED_TAX.search(s) or _TAX_MISREAD.search(s))
    has_total = bool(TOTAL.search(s) or _TOTAL_MISREAD.search(s))
    if ROUNDING.search(s) and not (has_tax and not has_total):
        # "Rounding Adj", "Total Rounded", "Total after rounding": the rounded total is a total
        return "total" if has_total else "rounding"
    if _GLUED_COUNT.search(s):
        return "count"
    if (
        SUBTOTAL.search(s)
        or _SUBTOTAL_MISREAD.search(s)
        or (has_total and re.search(r"excluding|exclusive|excl\.?\s?(gst|vat|tax)", s))
    ):
        return "subtotal"
    if has_tax and has_total:
        # "Total TTC"/"Total incl. VAT"/"Total Sales (Inclusive of GST)" is the total;
        # "Total tax"/"Total TVA" the tax; "Total excl. GST" the net amount
        if EXCLUSIVE.search(s):
            return "subtotal"
        tax_at = min(m.start() for m in (TAX.search(s), _GLUED_TAX.search(s), _TAX_MISREAD.search(s)) if m)
        total_at = min(m.start() for m in (TOTAL.search(s), _TOTAL_MISREAD.search(s)) if m)
        if (
            says_inclusive(s)
            and total_at < tax_at
            and not re.search(r"(?<![a-z])(tax|vat|tva|mwst|iva|gst|btw)\s*(total|summe|payable|amount|amt)", s)
        ):
            return "total"  # "Total incl. VAT", not "GST @6% included in total" (the tax)
        return "tax"
    if has_tax:
        return "tax"
    if has_total and (SAVINGS.search(s) or STORED_BALANCE.search(s)):
        # "Total Savings -3.29": a statement, already inside the prices; "Remaining Balance 86.50",
        # "Points Balance": what is left on a card or account, not what this purchase costs
        return "info"
    if DISCOUNT.search(s):
        return "discount"
    if TIP.search(s):
        return "tip"
    if DEPOSIT.search(s):
        return "deposit"
    if has_total and COUNT_WORDS.search(s):
        # "Total Qty: 7" is a count; "Qty:1  Total RM" a total printed after the count
        last_total = max(m.end() for m in TOTAL.finditer(s)) if TOTAL.search(s) else 0
        return (
            "total" if not COUNT_WORDS.search(s[last_total:]) and last_total > COUNT_WORDS.search(s).end() else "count"
        )
    if PAYMENT.search(s):
        return "payment"
    if has_total:
        return "total"
    if COUNT_WORDS.search(s) and re.search(r"(?<![a-z])(total|no\.|count|anzahl|number|jumlah|nombre|numero)", s):
        return "count"
    if INFO.search(s):
        return "info"
    return "other"
