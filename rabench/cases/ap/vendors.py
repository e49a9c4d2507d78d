"""Vendors, buyers and bank accounts: who invoices whom, and where the money goes.

Why a country table and real check digits: an AP analyst (and an engine) can verify an IBAN's
mod-97 digits, an ABA routing number's 3-7-1 checksum and the national check digits of a French
RIB or a Spanish account, so every account the generator prints passes them unless a case is
*about* a mistyped one. The mod-97 check is a one-liner; no IBAN library does it better.
Vendor names, streets and domains are drawn per country from word lists, so no name gives the
label: fraudsters in this suite imitate real vendors of the same lists.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace

import numpy as np

# --- check digits ------------------------------------------------------------------------


def _iban_digits(text: str) -> int:
    return int("".join(str(int(c, 36)) for c in text))


def iban_valid(iban: str) -> bool:
    """ISO 13616 mod-97 check of an IBAN (spaces ignored)."""
    s = iban.replace(" ", "").upper()
    return len(s) > 4 and s[:2].isalpha() and _iban_digits(s[4:] + s[:4]) % 97 == 1


def make_iban(country: str, bban: str) -> str:
    check = 98 - _iban_digits(bban + country + "00") % 97
    return f"{country}{check:02d}{bban}"


def aba_valid(routing: str) -> bool:
    """ABA routing number checksum (weights 3, 7, 1)."""
    if len(routing) != 9 or not routing.isdigit():
        return False
    return sum(int(c) * w for c, w in zip(routing, (3, 7, 1) * 3)) % 10 == 0


def make_aba(prefix8: str) -> str:
    partial = sum(int(c) * w for c, w in zip(prefix8, (3, 7, 1, 3, 7, 1, 3, 7)))
    return prefix8 + str((10 - partial % 10) % 10)


def paper_iban(iban: str) -> str:
    """The IBAN in groups of four, as invoices print it."""
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


def mistype(number: str, rng: np.random.Generator) -> str:
    """``number`` with two adjacent digits swapped (or one digit changed): the typo check digits catch."""
    digits = [
        i
        for i in range(4, len(number) - 1)
        if number[i].isdigit() and number[i + 1].isdigit() and number[i] != number[i + 1]
    ]
    if digits:
        i = int(rng.choice(digits))
        return number[:i] + number[i + 1] + number[i] + number[i + 2 :]
    i = len(number) - 1
    return number[:i] + str((int(number[i]) + 1) % 10)


def _digits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(int(d)) for d in rng.integers(0, 10, n))


def _fr_rib_key(bank: str, branch: str, account: str) -> str:
    return f"{97 - (89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97:02d}"


def _es_dc(bank: str, branch: str, account: str) -> str:
    def dc(digits: str) -> int:
        w = (1, 2, 4, 8, 5, 10, 9, 7, 3, 6)
        r = 11 - sum(int(c) * x for c, x in zip(digits.zfill(10), w)) % 11
        return {11: 0, 10: 1}.get(r, r)

    return f"{dc('00' + bank + branch)}{dc(account)}"


# --- countries ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bank:
    name: str
    code: str  # national bank code / sort code / ABA prefix (8 digits for US)
    bic: str


@dataclass(frozen=True, slots=True)
class Country:
    code: str
    language: str
    currency: str
    tax_rate: float  # standard VAT rate, percent (US: sales tax is rarely on B2B invoices: 0)
    thousands: str
    decimal: str
    date_fmt: str
    tld: str
    phone_prefix: str
    suffixes: tuple[str, ...]
    cities: tuple[tuple[str, str], ...]  # (postcode, city)
    streets: tuple[str, ...]
    banks: tuple[Bank, ...]


COUNTRIES: dict[str, Country] = {
    "DE": Country(
        "DE",
        "de",
        "EUR",
        19.0,
        ".",
        ",",
        "%d.%m.%Y",
        "de",
        "+49",
        ("GmbH", "AG", "GmbH & Co. KG"),
        (
            ("10115", "Berlin"),
            ("20095", "Hamburg"),
            ("80331", "München"),
            ("50667", "Köln"),
            ("70173", "Stuttgart"),
            ("04109", "Leipzig"),
        ),
        ("Industriestraße", "Hafenweg", "Lindenallee", "Am Gewerbepark", "Schillerstraße"),
        (
            Bank("Commerzbank", "37040044", "COBADEFFXXX"),
            Bank("Deutsche Bank", "50070010", "DEUTDEFFXXX"),
            Bank("Sparkasse KölnBonn", "37050198", "COLSDE33XXX"),
            Bank("GLS Bank", "43060967", "GENODEM1GLS"),
        ),
    ),
    "AT": Country(
        "AT",
        "de",
        "EUR",
        20.0,
        ".",
        ",",
        "%d.%m.%Y",
        "at",
        "+43",
        ("GmbH", "AG"),
        (("1010", "Wien"), ("4020", "Linz"), ("8010", "Graz"), ("5020", "Salzburg")),
        ("Mariahilfer Straße", "Landstraße", "Gewerbestraße"),
        (Bank("Erste Bank", "20111", "GIBAATWWXXX"), Bank("Raiffeisen", "32000", "RLNWATWWXXX")),
    ),
    "CH": Country(
        "CH",
        "de",
        "CHF",
        8.1,
        "'",
        ".",
        "%d.%m.%Y",
        "ch",
        "+41",
        ("AG", "GmbH", "SA"),
        (("8001", "Zürich"), ("3011", "Bern"), ("4051", "Basel"), ("6003", "Luzern")),
        ("Bahnhofstrasse", "Industriestrasse", "Seestrasse"),
        (
            Bank("UBS Switzerland", "00230", "UBSWCHZH80A"),
            Bank("Zürcher Kantonalbank", "00700", "ZKBKCHZZ80A"),
            Bank("PostFinance", "09000", "POFICHBEXXX"),
        ),
    ),
    "FR": Country(
        "FR",
        "fr",
        "EUR",
        20.0,
        " ",
        ",",
        "%d/%m/%Y",
        "fr",
        "+33",
        ("SAS", "SARL", "SA"),
        (("75008", "Paris"), ("69002", "Lyon"), ("13001", "Marseille"), ("59000", "Lille"), ("31000", "Toulouse")),
        ("rue de la République", "avenue Jean Jaurès", "boulevard Voltaire", "rue des Entrepreneurs"),
        (
            Bank("BNP Paribas", "30004", "BNPAFRPPXXX"),
            Bank("Société Générale", "30003", "SOGEFRPPXXX"),
            Bank("Crédit Agricole", "18206", "AGRIFRPP882"),
        ),
    ),
    "ES": Country(
        "ES",
        "es",
        "EUR",
        21.0,
        ".",
        ",",
        "%d/%m/%Y",
        "es",
        "+34",
        ("S.L.", "S.A."),
        (("28013", "Madrid"), ("08002", "Barcelona"), ("46002", "Valencia"), ("41001", "Sevilla"), ("48001", "Bilbao")),
        ("Calle de Alcalá", "Avenida Diagonal", "Calle Industria", "Paseo de la Castellana"),
        (
            Bank("Banco Santander", "0049", "BSCHESMMXXX"),
            Bank("BBVA", "0182", "BBVAESMMXXX"),
            Bank("CaixaBank", "2100", "CAIXESBBXXX"),
        ),
    ),
    "NL": Country(
        "NL",
        "nl",
        "EUR",
        21.0,
        ".",
        ",",
        "%d-%m-%Y",
        "nl",
        "+31",
        ("B.V.", "N.V."),
        (("1012 AB", "Amsterdam"), ("3011 AD", "Rotterdam"), ("3511 LX", "Utrecht"), ("5611 AZ", "Eindhoven")),
        ("Keizersgracht", "Industrieweg", "Stationsplein", "Havenstraat"),
        (
            Bank("ABN AMRO", "ABNA", "ABNANL2AXXX"),
            Bank("ING Bank", "INGB", "INGBNL2AXXX"),
            Bank("Rabobank", "RABO", "RABONL2UXXX"),
        ),
    ),
    "GB": Country(
        "GB",
        "en",
        "GBP",
        20.0,
        ",",
        ".",
        "%d/%m/%Y",
        "co.uk",
        "+44",
        ("Ltd", "PLC", "Limited"),
        (
            ("EC1A 1BB", "London"),
            ("M1 1AE", "Manchester"),
            ("B1 1BB", "Birmingham"),
            ("LS1 4AP", "Leeds"),
            ("BS1 4ST", "Bristol"),
        ),
        ("High Street", "Station Road", "Mill Lane", "Commercial Street"),
        (
            Bank("Barclays", "BARC200000", "BARCGB22XXX"),
            Bank("Lloyds Bank", "LOYD309634", "LOYDGB21XXX"),
            Bank("NatWest", "NWBK601613", "NWBKGB2LXXX"),
        ),
    ),
    "IE": Country(
        "IE",
        "en",
        "EUR",
        23.0,
        ",",
        ".",
        "%d/%m/%Y",
        "ie",
        "+353",
        ("Ltd", "DAC"),
        (("D02 X285", "Dublin"), ("T12 T997", "Cork"), ("H91 E2K3", "Galway")),
        ("Harcourt Street", "Main Street", "Grand Canal Quay"),
        (Bank("AIB", "AIBK931152", "AIBKIE2DXXX"), Bank("Bank of Ireland", "BOFI900017", "BOFIIE2DXXX")),
    ),
    "US": Country(
        "US",
        "en",
        "USD",
        0.0,
        ",",
        ".",
        "%m/%d/%Y",
        "com",
        "+1",
        ("Inc.", "LLC", "Corp."),
        (
            ("10001", "New York, NY"),
            ("60601", "Chicago, IL"),
            ("94105", "San Francisco, CA"),
            ("78701", "Austin, TX"),
            ("02110", "Boston, MA"),
        ),
        ("Main Street", "Commerce Drive", "Market Street", "Industrial Parkway"),
        (
            Bank("JPMorgan Chase", "02100002", "CHASUS33XXX"),
            Bank("Bank of America", "02600959", "BOFAUS3NXXX"),
            Bank("Wells Fargo", "12100024", "WFBIUS6SXXX"),
        ),
    ),
}
# How often each country's vendors appear (EUR-heavy, as a European AP desk sees them).
COUNTRY_WEIGHTS = {
    "DE": 0.22,
    "FR": 0.14,
    "ES": 0.1,
    "NL": 0.1,
    "GB": 0.14,
    "US": 0.12,
    "CH": 0.07,
    "AT": 0.06,
    "IE": 0.05,
}

_STEMS = {
    "de": (
        "Nordlicht",
        "Bergmann",
        "Rheinwerk",
        "Hansa",
        "Alpina",
        "Weber",
        "Krämer",
        "Sonnenfeld",
        "Elbtal",
        "Brandt",
        "Falkenstein",
        "Morgenrot",
    ),
    "fr": (
        "Dubois",
        "Atelier Lumière",
        "Moreau",
        "Provence",
        "Lefèvre",
        "Bel Horizon",
        "Garnier",
        "Rivoli",
        "Mistral",
        "Fontaine",
    ),
    "es": ("Iberia", "Hermanos García", "Levante", "Soler", "Castellana", "Nogal", "Ruiz", "Almendro", "Serrano"),
    "nl": ("Van Dijk", "Oranje", "De Vries", "Zuiderzee", "Bakker", "Noordkade", "Molenaar", "Delta"),
    "en": (
        "Harrow",
        "Kestrel",
        "Bridgewater",
        "Northgate",
        "Ashford",
        "Sterling",
        "Redwood",
        "Summit",
        "Lakeside",
        "Fairfield",
        "Blackstone",
        "Oakridge",
    ),
}
_TRADES = {
    "de": ("Logistik", "Metallbau", "Elektrotechnik", "Verpackung", "IT-Service", "Industriebedarf", "Gebäudetechnik"),
    "fr": ("Industrie", "Emballages", "Services", "Logistique", "Informatique", "Équipements", "Maintenance"),
    "es": ("Logística", "Suministros", "Ingeniería", "Embalajes", "Sistemas", "Servicios Industriales"),
    "nl": ("Logistiek", "Techniek", "Verpakkingen", "Installatie", "ICT", "Groothandel"),
    "en": (
        "Logistics",
        "Engineering",
        "Packaging",
        "Supplies",
        "IT Services",
        "Facilities",
        "Components",
        "Industrial",
    ),
}
_FIRST = {
    "de": ("Anna", "Jonas", "Katrin", "Lukas", "Sabine", "Thomas"),
    "fr": ("Camille", "Julien", "Sophie", "Nicolas", "Claire", "Mathieu"),
    "es": ("Lucía", "Javier", "Marta", "Pablo", "Elena", "Sergio"),
    "nl": ("Sanne", "Daan", "Lotte", "Bram", "Eva", "Joost"),
    "en": ("Emma", "James", "Olivia", "Daniel", "Grace", "Michael"),
}
_LAST = {
    "de": ("Schneider", "Fischer", "Wagner", "Becker", "Hoffmann"),
    "fr": ("Martin", "Bernard", "Petit", "Durand", "Laurent"),
    "es": ("Fernández", "López", "Martínez", "Sánchez", "Romero"),
    "nl": ("Jansen", "de Boer", "Visser", "Smit", "Mulder"),
    "en": ("Smith", "Taylor", "Brown", "Wilson", "Clarke"),
}


def slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@dataclass(frozen=True, slots=True)
class Account:
    """Where a payment goes: IBAN + BIC, or (US) account number + ABA routing number."""

    number: str  # IBAN electronic form, or the US account number
    code: str  # BIC or ABA routing number
    bank: str
    country: str

    @property
    def is_iban(self) -> bool:
        return self.country != "US"


@dataclass(frozen=True, slots=True)
class Contact:
    name: str
    email: str


@dataclass(frozen=True, slots=True)
class Vendor:
    vendor_id: str
    name: str  # legal name as printed, with suffix
    country: str
    vat_id: str | None
    street: str
    postcode: str
    city: str
    domain: str
    phone: str
    account: Account
    contacts: tuple[Contact, ...]
    payment_terms: int  # days
    since: str  # ISO date the vendor was approved
    trade: str
    previous_accounts: tuple[Account, ...] = field(default=())
    bank_changed: str | None = None  # ISO date of the last approved bank change
    # the last change of the phone on file: (ISO date, change reference or None, the number before)
    phone_changed: tuple[str, str | None, str] | None = None

    @property
    def c(self) -> Country:
        return COUNTRIES[self.country]


def _vat_id(rng: np.random.Generator, country: str) -> str | None:
    if country == "US":
        return None
    prefix, digits, suffix = {
        "DE": ("DE", 9, ""),
        "AT": ("ATU", 8, ""),
        "FR": ("FR", 11, ""),
        "ES": ("ESB", 8, ""),
        "NL": ("NL", 9, "B01"),
        "GB": ("GB", 9, ""),
        "IE": ("IE", 7, "T"),
    }.get(country, ("", 0, ""))
    if country == "CH":
        return f"CHE-{_digits(rng, 3)}.{_digits(rng, 3)}.{_digits(rng, 3)} MWST"
    return prefix + _digits(rng, digits) + suffix


def new_account(rng: np.random.Generator, country: str, bank: Bank | None = None) -> Account:
    """A fresh account at one of the country's banks, with valid check digits."""
    c = COUNTRIES[country]
    b = bank or c.banks[int(rng.integers(len(c.banks)))]
    if country == "US":
        return Account(_digits(rng, int(rng.integers(8, 13))).lstrip("0") or "7", make_aba(b.code), b.name, country)
    if country == "DE":
        bban = b.code + _digits(rng, 10)
    elif country == "AT":
        bban = b.code + _digits(rng, 11)
    elif country == "CH":
        bban = b.code + _digits(rng, 12)
    elif country == "FR":
        branch, acct = _digits(rng, 5), _digits(rng, 11)
        bban = b.code + branch + acct + _fr_rib_key(b.code, branch, acct)
    elif country == "ES":
        branch, acct = _digits(rng, 4), _digits(rng, 10)
        bban = b.code + branch + _es_dc(b.code, branch, acct) + acct
    elif country == "NL":
        bban = b.code + _digits(rng, 10)
    else:  # GB, IE: bank letters + sort code (in Bank.code) + 8-digit account
        bban = b.code + _digits(rng, 8)
    return Account(make_iban(country, bban), b.bic, b.name, country)


def _phone(rng: np.random.Generator, c: Country) -> str:
    if c.code == "US":
        return f"+1 ({int(rng.integers(201, 990))}) {int(rng.integers(200, 999))}-{_digits(rng, 4)}"
    return f"{c.phone_prefix} {int(rng.integers(20, 99))} {_digits(rng, 3)} {_digits(rng, 4)}"


def other_phone(rng: np.random.Generator, v: Vendor) -> str:
    """A number in the vendor's country format that is not the one on file."""
    while (p := _phone(rng, v.c)) == v.phone:
        pass
    return p


def make_vendor(
    rng: np.random.Generator, vendor_id: str, *, country: str | None = None, approved_from: int = 2015
) -> Vendor:
    code = country or str(rng.choice(list(COUNTRY_WEIGHTS), p=list(COUNTRY_WEIGHTS.values())))
    c = COUNTRIES[code]
    lang = c.language
    stem = str(rng.choice(_STEMS[lang]))
    trade = str(rng.choice(_TRADES[lang]))
    suffix = str(rng.choice(c.suffixes))
    name = f"{stem} {trade} {suffix}"
    postcode, city = c.cities[int(rng.integers(len(c.cities)))]
    domain = f"{slug(stem)}-{slug(trade).split('-')[0]}.{c.tld}"
    contacts = []
    for role in ("accounts", "billing"):
        first, last = str(rng.choice(_FIRST[lang])), str(rng.choice(_LAST[lang]))
        personal = f"{slug(first)}.{slug(last)}@{domain}"
        contacts.append(Contact(f"{first} {last}", personal if role == "accounts" else f"{role}@{domain}"))
    year = int(rng.integers(approved_from, 2024))
    return Vendor(
        vendor_id=vendor_id,
        name=name,
        country=code,
        vat_id=_vat_id(rng, code),
        street=f"{str(rng.choice(c.streets))} {int(rng.integers(1, 180))}",
        postcode=postcode,
        city=city,
        domain=domain,
        phone=_phone(rng, c),
        account=new_account(rng, code),
        contacts=tuple(contacts),
        payment_terms=int(rng.choice([14, 30, 30, 45, 60])),
        since=f"{year}-{int(rng.integers(1, 13)):02d}-15",
        trade=trade,
    )


def with_new_account(v: Vendor, account: Account, changed: str) -> Vendor:
    """The vendor after an approved bank change on ``changed``."""
    return replace(v, account=account, previous_accounts=v.previous_accounts + (v.account,), bank_changed=changed)


# --- the buying company (one group, several entities) -----------------------------------


@dataclass(frozen=True, slots=True)
class Buyer:
    entity: str
    country: str
    street: str
    postcode: str
    city: str
    domain: str
    threshold: int  # single-approver limit, major units of the entity currency
    currency: str


BUYERS: tuple[Buyer, ...] = (
    Buyer(
        "Meridian Components GmbH", "DE", "Werkstraße 12", "70565", "Stuttgart", "meridian-components.com", 10000, "EUR"
    ),
    Buyer("Meridian Components Ltd", "GB", "Kingsway 40", "WC2B 6TD", "London", "meridian-components.com", 8000, "GBP"),
    Buyer(
        "Meridian Components Inc.",
        "US",
        "500 Boylston Street",
        "02116",
        "Boston, MA",
        "meridian-components.com",
        12000,
        "USD",
    ),
    Buyer(
        "Meridian Components SAS", "FR", "12 rue de Rivoli", "75004", "Paris", "meridian-components.com", 10000, "EUR"
    ),
)
EXECUTIVES = (
    ("Helena Brandt", "Chief Financial Officer"),
    ("Marcus Leclerc", "Chief Executive Officer"),
    ("Priya Raman", "Group Treasurer"),
)
AP_STAFF = (("Tom Becker", "tom.becker"), ("Laura Janssen", "laura.janssen"), ("Ines Moreau", "ines.moreau"))


def buyer_for(rng: np.random.Generator, vendor: Vendor) -> Buyer:
    """The group entity a vendor most likely bills (same currency area), sometimes another."""
    same = [b for b in BUYERS if b.currency == vendor.c.currency]
    pool = same if same and rng.random() < 0.8 else list(BUYERS)
    return pool[int(rng.integers(len(pool)))]


LOOKALIKE_SWAPS = (("m", "rn"), ("l", "1"), ("o", "0"), ("i", "l"), ("w", "vv"), ("e", "3"))


def lookalike_domain(domain: str, rng: np.random.Generator) -> str:
    """A domain that reads like ``domain``: a swapped letter, a hyphen, another TLD or an added word."""
    name, _, tld = domain.partition(".")
    kind = int(rng.integers(4))
    if kind == 0:
        swaps = [(a, b) for a, b in LOOKALIKE_SWAPS if a in name]
        if swaps:
            a, b = swaps[int(rng.integers(len(swaps)))]
            i = name.index(a)
            return f"{name[:i]}{b}{name[i + len(a) :]}.{tld}"
    if kind == 1 and "-" in name:
        return f"{name.replace('-', '', 1)}.{tld}"
    if kind == 2:
        return f"{name}.{str(rng.choice(['com', 'net', 'eu', 'co']))}" if tld != "com" else f"{name}.net"
    return f"{name}-{str(rng.choice(['billing', 'payments', 'invoices', 'finance']))}.{tld}"
