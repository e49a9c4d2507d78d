"""Invoices and credit notes: the document model, its arithmetic and its printed words.

Amounts are integers in minor units (every currency of the suite has two decimals), so the
printed identity ``sum(lines) = subtotal``, ``round(subtotal * rate) = tax``, ``subtotal + tax =
total`` is exact unless a case is about it. Rendering (with the box of every labelled field)
is in ``render.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np

from rabench.cases.ap.vendors import COUNTRIES, Account, Buyer, Vendor

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "invoice": "INVOICE",
        "credit_note": "CREDIT NOTE",
        "number": "Invoice no.",
        "cn_number": "Credit note no.",
        "date": "Invoice date",
        "due": "Due date",
        "po": "PO number",
        "customer": "Bill to",
        "desc": "Description",
        "qty": "Qty",
        "unit": "Unit price",
        "amount": "Amount",
        "subtotal": "Subtotal",
        "tax": "VAT",
        "total": "Total due",
        "credit_total": "Total credit",
        "bank": "Bank details",
        "iban": "IBAN",
        "bic": "BIC/SWIFT",
        "account": "Account no.",
        "routing": "Routing no. (ABA)",
        "terms": "Payment terms: {n} days net",
        "vat_id": "VAT no.",
        "reverse": "Reverse charge: VAT to be accounted for by the recipient",
        "refers": "Credits invoice",
        "period": "Service period",
        "page": "Page 1 of 1",
        "tax_id": "Tax ID",
    },
    "de": {
        "invoice": "RECHNUNG",
        "credit_note": "GUTSCHRIFT",
        "number": "Rechnungsnr.",
        "cn_number": "Gutschrift-Nr.",
        "date": "Rechnungsdatum",
        "due": "Fällig am",
        "po": "Bestellnummer",
        "customer": "Rechnungsempfänger",
        "desc": "Bezeichnung",
        "qty": "Menge",
        "unit": "Einzelpreis",
        "amount": "Betrag",
        "subtotal": "Nettobetrag",
        "tax": "USt.",
        "total": "Gesamtbetrag",
        "credit_total": "Gutschriftsbetrag",
        "bank": "Bankverbindung",
        "iban": "IBAN",
        "bic": "BIC",
        "account": "Konto",
        "routing": "BLZ",
        "terms": "Zahlbar innerhalb von {n} Tagen ohne Abzug",
        "vat_id": "USt-IdNr.",
        "reverse": "Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)",
        "refers": "Gutschrift zu Rechnung",
        "period": "Leistungszeitraum",
        "page": "Seite 1 von 1",
        "tax_id": "Steuernummer",
    },
    "fr": {
        "invoice": "FACTURE",
        "credit_note": "AVOIR",
        "number": "Facture n°",
        "cn_number": "Avoir n°",
        "date": "Date de facture",
        "due": "Échéance",
        "po": "Bon de commande",
        "customer": "Facturé à",
        "desc": "Désignation",
        "qty": "Qté",
        "unit": "Prix unitaire HT",
        "amount": "Montant HT",
        "subtotal": "Total HT",
        "tax": "TVA",
        "total": "Total TTC",
        "credit_total": "Total avoir",
        "bank": "Coordonnées bancaires",
        "iban": "IBAN",
        "bic": "BIC",
        "account": "Compte",
        "routing": "Code banque",
        "terms": "Paiement à {n} jours",
        "vat_id": "N° TVA intracom.",
        "reverse": "Autoliquidation : TVA due par le preneur",
        "refers": "Avoir sur facture",
        "period": "Période",
        "page": "Page 1/1",
        "tax_id": "SIRET",
    },
    "es": {
        "invoice": "FACTURA",
        "credit_note": "FACTURA RECTIFICATIVA",
        "number": "Factura nº",
        "cn_number": "Rectificativa nº",
        "date": "Fecha de factura",
        "due": "Vencimiento",
        "po": "Pedido nº",
        "customer": "Cliente",
        "desc": "Concepto",
        "qty": "Cant.",
        "unit": "Precio unit.",
        "amount": "Importe",
        "subtotal": "Base imponible",
        "tax": "IVA",
        "total": "Total factura",
        "credit_total": "Total rectificativa",
        "bank": "Datos bancarios",
        "iban": "IBAN",
        "bic": "BIC",
        "account": "Cuenta",
        "routing": "Entidad",
        "terms": "Pago a {n} días",
        "vat_id": "NIF/CIF",
        "reverse": "Inversión del sujeto pasivo",
        "refers": "Rectifica la factura",
        "period": "Periodo",
        "page": "Página 1 de 1",
        "tax_id": "NIF",
    },
    "nl": {
        "invoice": "FACTUUR",
        "credit_note": "CREDITNOTA",
        "number": "Factuurnummer",
        "cn_number": "Creditnota nr.",
        "date": "Factuurdatum",
        "due": "Vervaldatum",
        "po": "Inkoopordernr.",
        "customer": "Factuuradres",
        "desc": "Omschrijving",
        "qty": "Aantal",
        "unit": "Stukprijs",
        "amount": "Bedrag",
        "subtotal": "Subtotaal",
        "tax": "BTW",
        "total": "Te betalen",
        "credit_total": "Totaal credit",
        "bank": "Bankgegevens",
        "iban": "IBAN",
        "bic": "BIC",
        "account": "Rekening",
        "routing": "Bankcode",
        "terms": "Betaling binnen {n} dagen",
        "vat_id": "BTW-nr.",
        "reverse": "BTW verlegd",
        "refers": "Crediteert factuur",
        "period": "Periode",
        "page": "Pagina 1 van 1",
        "tax_id": "KvK",
    },
}

# Goods and services billed (base unit price in EUR-like units), one list per language, same order.
_ITEMS = {
    "en": (
        "Stretch film 500 mm x 300 m",
        "Corrugated boxes 600x400x400",
        "Steel brackets M10",
        "Cable harness type B",
        "Maintenance visit (hours)",
        "Software licence, monthly",
        "Pallet transport, regional",
        "Safety gloves (pairs)",
        "Hydraulic hose 1/2in",
        "Consulting (days)",
        "Label rolls 100x150",
        "Server hosting, monthly",
    ),
    "de": (
        "Stretchfolie 500 mm x 300 m",
        "Wellpappkartons 600x400x400",
        "Stahlwinkel M10",
        "Kabelbaum Typ B",
        "Wartungseinsatz (Std.)",
        "Softwarelizenz, monatlich",
        "Palettentransport regional",
        "Schutzhandschuhe (Paar)",
        "Hydraulikschlauch 1/2 Zoll",
        "Beratung (Tage)",
        "Etikettenrollen 100x150",
        "Server-Hosting, monatlich",
    ),
    "fr": (
        "Film étirable 500 mm x 300 m",
        "Cartons ondulés 600x400x400",
        "Équerres acier M10",
        "Faisceau de câbles type B",
        "Intervention maintenance (h)",
        "Licence logicielle, mensuelle",
        "Transport palette régional",
        "Gants de sécurité (paires)",
        "Flexible hydraulique 1/2",
        "Conseil (jours)",
        "Rouleaux d'étiquettes 100x150",
        "Hébergement serveur, mensuel",
    ),
    "es": (
        "Film estirable 500 mm x 300 m",
        "Cajas de cartón 600x400x400",
        "Escuadras de acero M10",
        "Mazo de cables tipo B",
        "Visita de mantenimiento (h)",
        "Licencia de software, mensual",
        "Transporte de palé regional",
        "Guantes de seguridad (pares)",
        "Manguera hidráulica 1/2",
        "Consultoría (días)",
        "Rollos de etiquetas 100x150",
        "Alojamiento de servidor, mensual",
    ),
    "nl": (
        "Stretchfolie 500 mm x 300 m",
        "Golfkartonnen dozen 600x400x400",
        "Stalen hoeken M10",
        "Kabelboom type B",
        "Onderhoudsbezoek (uur)",
        "Softwarelicentie, maandelijks",
        "Pallettransport regionaal",
        "Werkhandschoenen (paar)",
        "Hydraulische slang 1/2",
        "Advies (dagen)",
        "Etiketrollen 100x150",
        "Serverhosting, maandelijks",
    ),
}
_BASE_PRICES = (38.0, 2.4, 1.15, 46.0, 95.0, 420.0, 180.0, 3.2, 27.5, 1150.0, 12.8, 640.0)
_QTY_RANGES = (
    (5, 120),
    (50, 1500),
    (100, 4000),
    (4, 80),
    (2, 24),
    (1, 3),
    (1, 12),
    (50, 600),
    (4, 60),
    (1, 8),
    (10, 200),
    (1, 2),
)
_FX = {"EUR": 1.0, "GBP": 0.86, "USD": 1.08, "CHF": 0.95}


@dataclass(frozen=True, slots=True)
class Line:
    description: str
    quantity: int
    unit: int  # minor units
    total: int
    sku: str


@dataclass(frozen=True, slots=True)
class Invoice:
    kind: str  # "invoice" | "credit_note"
    number: str
    issued: date
    due: date
    vendor: Vendor
    buyer: Buyer
    po_number: str | None
    currency: str
    lines: tuple[Line, ...]
    tax_rate: float
    subtotal: int
    tax: int
    total: int
    account: Account  # the account printed (may differ from the vendor master's)
    vat_id: str | None  # the VAT id printed
    language: str
    reverse_charge: bool = False
    refers_to: str | None = None  # a credit note's original invoice number
    period: str | None = None  # "03/2025" for recurring services
    notes: tuple[str, ...] = field(default=())

    @property
    def words(self) -> dict[str, str]:
        return WORDS[self.language]


def item_language(vendor: Vendor) -> str:
    lang = vendor.c.language
    return lang if lang in _ITEMS else "en"


def draw_lines(
    rng: np.random.Generator, vendor: Vendor, currency: str, n: int | None = None, budget: float | None = None
) -> tuple[Line, ...]:
    """1-6 invoice lines in the vendor's language; with ``budget`` (major units) the net total lands near it."""
    lang = item_language(vendor)
    k = n or int(rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6]))
    picks = rng.choice(len(_BASE_PRICES), size=k, replace=False)
    lines = []
    for j, i in enumerate(picks):
        unit = int(round(_BASE_PRICES[i] * _FX[currency] * rng.uniform(0.8, 1.25) * 100))
        lo, hi = _QTY_RANGES[i]
        qty = int(rng.integers(lo, hi + 1))
        if budget is not None:
            qty = max(1, int(round(budget / k * 100 / max(unit, 1))))
        lines.append(Line(_ITEMS[lang][i], qty, unit, qty * unit, f"{vendor.vendor_id[-3:]}-{int(i):02d}{j}"))
    return tuple(lines)


def priced(inv: Invoice, lines: tuple[Line, ...] | None = None) -> Invoice:
    """``inv`` with subtotal, tax and total recomputed from its lines (the printed identity holds)."""
    ls = inv.lines if lines is None else lines
    sub = sum(x.total for x in ls)
    tax = 0 if inv.reverse_charge else int(round(sub * inv.tax_rate / 100))
    return replace(inv, lines=ls, subtotal=sub, tax=tax, total=sub + tax)


def invoice_number(rng: np.random.Generator, vendor: Vendor, issued: date) -> str:
    """A vendor-style number: each vendor numbers its invoices one way (seeded by its id)."""
    style = sum(map(ord, vendor.vendor_id)) % 5
    seq = int(rng.integers(100, 9999))
    return (
        f"INV-{issued.year}-{seq:04d}",
        f"{issued.year}{seq:05d}",
        f"RE{issued:%y}-{seq:04d}",
        f"{vendor.name[:3].upper()}/{issued.year}/{seq}",
        f"F{issued:%y%m}{seq:04d}",
    )[style]


def new_invoice(
    rng: np.random.Generator,
    vendor: Vendor,
    buyer: Buyer,
    issued: date,
    *,
    po_number: str | None,
    lines: tuple[Line, ...] | None = None,
    budget: float | None = None,
) -> Invoice:
    c = COUNTRIES[vendor.country]
    currency = c.currency
    lang = c.language if c.language in WORDS and rng.random() < 0.85 else "en"
    cross_border = (
        vendor.country != buyer.country
        and c.code != "US"
        and buyer.country != "US"
        and c.currency == "EUR"
        and buyer.currency == "EUR"
    )
    inv = Invoice(
        kind="invoice",
        number=invoice_number(rng, vendor, issued),
        issued=issued,
        due=date.fromordinal(issued.toordinal() + vendor.payment_terms),
        vendor=vendor,
        buyer=buyer,
        po_number=po_number,
        currency=currency,
        lines=lines or draw_lines(rng, vendor, currency, budget=budget),
        tax_rate=c.tax_rate,
        subtotal=0,
        tax=0,
        total=0,
        account=vendor.account,
        vat_id=vendor.vat_id,
        language=lang,
        reverse_charge=cross_border and rng.random() < 0.7,
    )
    return priced(inv)


def money(v: int, currency: str, country: str, *, code: bool = False) -> str:
    c = COUNTRIES[country]
    neg, v = v < 0, abs(v)
    whole, frac = divmod(v, 100)
    s = f"{whole:,}".replace(",", "\x00").replace("\x00", c.thousands) + c.decimal + f"{frac:02d}"
    if code:
        sym = {"EUR": "€", "GBP": "£", "USD": "$", "CHF": "CHF"}[currency]
        s = f"{sym} {s}" if currency == "CHF" else (f"{s} €" if currency == "EUR" and c.decimal == "," else f"{sym}{s}")
    return ("-" if neg else "") + s


def print_date(d: date, country: str) -> str:
    return d.strftime(COUNTRIES[country].date_fmt)


def minor_to_float(v: int) -> float:
    return round(v / 100, 2)
