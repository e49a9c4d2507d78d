"""The words receipts use, per language, and what each row of a receipt is.

Extraction is keyword-led because receipts are: a printed amount means
nothing until the label beside it says whether it is the total, the tax or
the change given back. Matching is done on lowercased, accent-stripped text so
"Sous-total", "SOUS TOTAL" and "sous-total" are one word. The row kinds are
tried most specific first ("Sub Total" is a subtotal before it is a total,
"Total TVA" a tax, "Total TTC" a total).
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


SUBTOTAL = _kw([
    "subtotal", "sub total", "sub-total", "sous-total", "sous total", "zwischensumme", "zw.-summe",
    "zw summe", "total ht", "montant ht", "total h.t", "netto", "nettobetrag", "net amount", "net total",
    "subtotale", "imponibile", "base imponible", "subtotaal", "items total", "total before tax",
    "total excl", "total excl.", "total hors taxes", "小計", "소계", "summa netto", "netto summe",
])
# Tax words OCR often glues to the word before ("SalesTax", "dontTVA", "enth.MwSt"): these
# match without a left boundary (never "taxi": the right boundary still holds).
_GLUED_TAX = re.compile(r"(tax|vat|tva|mwst|iva|gst|hst|btw)(?=\s?\d|\.\s?\d|:)")  # not "oliva"
TAX = _kw([
    "tax", "taxes", "vat", "tva", "mwst", "mwst.", "ust", "ust.", "iva", "gst", "hst", "pst", "qst",
    "btw", "moms", "mva", "消費税", "内税", "外税", "税", "부가세", "ptu", "dph", "afa", "kdv", "steuer",
    "sales tax", "i.v.a", "taxe", "imposta", "impuesto", "cgst", "sgst", "igst", "tps", "tvq",
])
TIP = _kw([
    "tip", "tips", "gratuity", "service", "service charge", "serv. charge", "pourboire", "trinkgeld",
    "propina", "mancia", "servizio", "servicio", "bedienung", "fooi", "coperto", "service compris",
])
DISCOUNT = _kw([
    "discount", "rabatt", "remise", "reduction", "descuento", "sconto", "korting", "coupon",
    "savings", "you saved", "promo", "promotion", "voucher", "nachlass", "割引", "値引", "할인",
])
PAYMENT = _kw([
    "cash", "card", "visa", "mastercard", "master card", "amex", "maestro", "paid", "payment",
    "tendered", "change", "bar", "ec", "ec-karte", "karte", "girocard", "ruckgeld", "zuruck",
    "gegeben", "especes", "carte", "cb", "carte bancaire", "rendu", "monnaie", "efectivo", "tarjeta",
    "cambio", "contanti", "resto", "pin", "お預り", "お預かり", "お釣り", "おつり", "debit", "credit",
    "contactless", "apple pay", "google pay", "pagato", "pagado", "pago", "paye", "bezahlt",
    "received", "tarjeta credito", "pinnen", "contant", "wisselgeld", "現金", "釣銭", "gift card",
])
TOTAL = _kw([
    "total", "grand total", "amount due", "balance due", "total due", "to pay", "amount",
    "summe", "gesamt", "gesamtbetrag", "gesamtsumme", "zu zahlen", "betrag", "endbetrag",
    "total ttc", "net a payer", "a payer", "montant", "montant ttc", "importe", "total a pagar",
    "totale", "totale complessivo", "totaal", "te betalen", "合計", "お会計", "総計", "합계",
    "summa", "att betala", "razem", "suma", "celkem", "osszesen", "toplam", "balance", "ttc",
])
INCLUSIVE = re.compile(
    r"(?<![a-z])(incl|inkl|including|included|inclus|incluido|incluida|incluso|inbegrepen|dont|davon|enthalten|"
    r"inc\.|includes|enth\.?|enthaltene?|inclus|内税|税込|ttc)(?![a-z])"
)
ITEM_TAXES = _kw([
    "city tax", "tourist tax", "kurtaxe", "taxe de sejour", "tasa turistica", "citytax", "bettensteuer",
    "occupancy tax", "tassa di soggiorno", "toeristenbelasting",
])
# Facts printed beside a number that is not money (table, server, distance, time).
INFO = _kw([
    "table", "tisch", "mesa", "tavolo", "server", "serveur", "camarero", "cashier", "kassierer", "caissier",
    "time", "zeit", "uhrzeit", "duree", "tiempo", "heure", "hora", "distance", "strecke", "distancia",
    "km", "miles", "guests", "couverts", "personen", "pers", "terminal", "kasse", "till", "pos", "store",
    "filiale", "tel", "phone", "fax", "points", "punkte",
])
COUNT_WORDS = re.compile(r"(?<![a-z])(items?|qty|quantity|articles?|artikel|stuck|pcs|anzahl|nombre|点数|点)(?![a-z])")

LANGUAGE_WORDS: dict[str, list[str]] = {
    "en": ["total", "subtotal", "tax", "thank you", "change", "receipt", "cash", "amount due",
           "tip", "gratuity", "qty", "date", "balance"],
    "de": ["summe", "mwst", "zwischensumme", "datum", "ruckgeld", "gegeben", "danke", "vielen dank",
           "betrag", "bar", "kasse", "quittung", "rechnung", "inkl", "netto", "brutto", "gesamt", "uhrzeit"],
    "fr": ["tva", "sous-total", "merci", "especes", "rendu", "ttc", "ht", "montant", "ticket",
           "facture", "carte bancaire", "a payer", "le", "au revoir"],
    "es": ["iva", "gracias", "fecha", "importe", "efectivo", "cambio", "tarjeta", "factura",
           "propina", "total a pagar", "ticket", "base imponible", "hora"],
    "it": ["totale", "scontrino", "grazie", "contanti", "resto", "iva", "imponibile", "documento"],
    "nl": ["totaal", "btw", "bedankt", "pinnen", "contant", "wisselgeld", "datum", "bon"],
    "ja": ["合計", "小計", "消費税", "お預り", "お釣り", "領収", "税込"],
    "zh": ["发票", "合计", "金额", "增值税", "元"],
    "ko": ["합계", "부가세", "영수증"],
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


def row_kind(label: str) -> str:
    """What a row's label says its amount is:
    subtotal | tax | tip | discount | payment | total | info (not money) | other (an item)."""
    s = fold(label)
    if ITEM_TAXES.search(s):
        return "other"  # a tourist tax is a charge on the bill, not the receipt's tax
    if SUBTOTAL.search(s):
        return "subtotal"
    has_tax = bool(TAX.search(s) or _GLUED_TAX.search(s))
    has_total = bool(TOTAL.search(s))
    if has_tax and has_total:
        # "Total TTC"/"Total incl. VAT" is the total; "Total tax"/"Total TVA" the tax
        if re.search(r"(?<![a-z])(incl|inkl|including|inc\.|ttc)(?![a-z])", s) and not re.search(
            r"(?<![a-z])(tax|vat|tva|mwst|iva|gst|btw)\s*(total|summe)", s
        ):
            return "total"
        return "tax"
    if has_tax:
        return "tax"
    if DISCOUNT.search(s):
        return "discount"
    if TIP.search(s):
        return "tip"
    if PAYMENT.search(s):
        return "payment"
    if has_total:
        if COUNT_WORDS.search(s):
            return "other"
        return "total"
    if INFO.search(s):
        return "info"
    return "other"
