"""What the synthetic receipts are about: locales, currencies, merchants, products.

Why fixed tables instead of a faker library: the suite must be byte-identical
for a seed across machines, and every string must be printable in the DejaVu
fonts and PDF core fonts (Latin-1). Breadth matters more than size: 10 locales,
8 currencies (JPY zero-decimal; ``1.234,56`` and ``1'234.50`` styles), 4
languages, 8 layouts, 43 merchants (Malaysian GST receipts since issue 13).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Currency:
    code: str
    symbol: str
    decimals: int
    symbol_after: bool = False


@dataclass(frozen=True, slots=True)
class Locale:
    """A country's printing conventions: language, money format, date formats, tax regime."""

    key: str
    language: str  # en | de | fr | es
    currency: Currency
    thousands: str
    decimal: str
    date_formats: tuple[str, ...]  # strftime patterns (month names filled in by ``format_date``)
    tax_rates: tuple[float, ...]  # percent
    tax_inclusive: bool  # VAT included in item prices (EU/UK/JP) or added on top (US/CA)
    tax_label: str
    city: tuple[str, ...]
    streets: tuple[str, ...]
    postcode: str  # pattern: 9 = digit, A = letter


USD = Currency("USD", "$", 2)
CAD = Currency("CAD", "$", 2)
EUR = Currency("EUR", "€", 2, symbol_after=True)
GBP = Currency("GBP", "£", 2)
JPY = Currency("JPY", "¥", 0)
CHF = Currency("CHF", "CHF", 2)
AUD = Currency("AUD", "$", 2)
MYR = Currency("MYR", "RM", 2)  # many Malaysian tills print "$" or nothing (see till.Template.symbol)

LOCALES: dict[str, Locale] = {
    "us": Locale(
        "us",
        "en",
        USD,
        ",",
        ".",
        ("%m/%d/%Y", "%m/%d/%y", "%b %d, %Y"),
        (7.25, 8.875, 6.0, 8.25),
        False,
        "Sales Tax",
        ("Austin TX", "Portland OR", "Chicago IL", "Denver CO"),
        ("Main St", "Oak Ave", "5th Street", "Lakeview Blvd"),
        "99999",
    ),
    "ca": Locale(
        "ca",
        "en",
        CAD,
        ",",
        ".",
        ("%Y-%m-%d", "%d/%m/%Y"),
        (13.0, 5.0),
        False,
        "HST",
        ("Toronto ON", "Ottawa ON", "Halifax NS"),
        ("King St W", "Bank St", "Spring Garden Rd"),
        "A9A 9A9",
    ),
    "gb": Locale(
        "gb",
        "en",
        GBP,
        ",",
        ".",
        ("%d/%m/%Y", "%d %b %Y", "%d/%m/%y"),
        (20.0,),
        True,
        "VAT",
        ("London", "Leeds", "Bristol", "Glasgow"),
        ("High Street", "Station Road", "Church Lane"),
        "AA9 9AA",
    ),
    "au": Locale(
        "au",
        "en",
        AUD,
        ",",
        ".",
        ("%d/%m/%Y", "%d %b %Y"),
        (10.0,),
        True,
        "GST",
        ("Sydney NSW", "Melbourne VIC"),
        ("George St", "Collins St"),
        "9999",
    ),
    "de": Locale(
        "de",
        "de",
        EUR,
        ".",
        ",",
        ("%d.%m.%Y", "%d.%m.%y", "%d. %B %Y"),
        (19.0, 7.0),
        True,
        "MwSt.",
        ("Berlin", "München", "Hamburg", "Köln"),
        ("Hauptstraße", "Bahnhofstraße", "Gartenweg"),
        "99999",
    ),
    "ch": Locale(
        "ch",
        "de",
        CHF,
        "'",
        ".",
        ("%d.%m.%Y", "%d.%m.%y"),
        (8.1, 2.6),
        True,
        "MWST",
        ("Zürich", "Bern", "Basel"),
        ("Bahnhofstrasse", "Marktgasse"),
        "9999",
    ),
    "fr": Locale(
        "fr",
        "fr",
        EUR,
        " ",
        ",",
        ("%d/%m/%Y", "%d/%m/%y", "%d %B %Y"),
        (20.0, 10.0, 5.5),
        True,
        "TVA",
        ("Paris", "Lyon", "Marseille", "Lille"),
        ("rue de la Paix", "avenue Jean Jaurès", "rue Victor Hugo"),
        "99999",
    ),
    "es": Locale(
        "es",
        "es",
        EUR,
        ".",
        ",",
        ("%d/%m/%Y", "%d-%m-%Y", "%d/%m/%y"),
        (21.0, 10.0),
        True,
        "IVA",
        ("Madrid", "Barcelona", "Valencia", "Sevilla"),
        ("Calle Mayor", "Gran Vía", "Avenida del Puerto"),
        "99999",
    ),
    "jp": Locale(
        "jp",
        "en",
        JPY,
        ",",
        ".",
        ("%Y/%m/%d", "%Y-%m-%d"),
        (10.0, 8.0),
        True,
        "Tax",
        ("Tokyo", "Osaka", "Kyoto"),
        ("Shibuya 2-21-1", "Namba 5-1-60", "Shijo-dori 80"),
        "999-9999",
    ),
    # Malaysia in the GST years (6 %, April 2015 to May 2018); addresses come from ``till.malaysian_address``.
    "my": Locale(
        "my",
        "en",
        MYR,
        ",",
        ".",
        ("%d/%m/%Y", "%d-%m-%Y", "%d/%m/%y", "%d %b %Y", "%d-%m-%y"),
        (6.0,),
        False,
        "GST",
        ("JOHOR BAHRU",),
        ("JALAN BESAR",),
        "99999",
    ),
}
# Receipt dates: 2024-2025, except where a locale's tax regime fixes the years (Malaysian GST).
DATE_RANGES: dict[str, tuple[tuple[int, int, int], int]] = {"my": ((2015, 4, 1), 1156)}
DEFAULT_DATES: tuple[tuple[int, int, int], int] = ((2024, 1, 1), 730)

MONTHS = {
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    "de": (
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ),
    "fr": (
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),
    "es": ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"),
}

# Printed words per language.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "subtotal": "SUBTOTAL",
        "total": "TOTAL",
        "tip": "Tip",
        "service": "Service charge",
        "discount": "Discount",
        "date": "Date",
        "receipt": "Receipt No.",
        "card": "Card",
        "cash": "Cash",
        "change": "Change",
        "thanks": "Thank you for your visit!",
        "incl": "incl.",
        "qty": "Qty",
        "order": "Order",
        "nights": "nights",
        "room": "Room",
        "fuel": "Fuel",
        "distance": "Distance",
        "time": "Time",
        "table": "Table",
        "server": "Server",
        "paid": "Paid",
        "net": "Net",
    },
    "de": {
        "subtotal": "ZWISCHENSUMME",
        "total": "SUMME",
        "tip": "Trinkgeld",
        "service": "Bedienung",
        "discount": "Rabatt",
        "date": "Datum",
        "receipt": "Beleg-Nr.",
        "card": "Karte",
        "cash": "Bar",
        "change": "Rückgeld",
        "thanks": "Vielen Dank für Ihren Einkauf!",
        "incl": "enth.",
        "qty": "Menge",
        "order": "Bestellung",
        "nights": "Nächte",
        "room": "Zimmer",
        "fuel": "Kraftstoff",
        "distance": "Strecke",
        "time": "Zeit",
        "table": "Tisch",
        "server": "Bedienung",
        "paid": "Bezahlt",
        "net": "Netto",
    },
    "fr": {
        "subtotal": "SOUS-TOTAL",
        "total": "TOTAL",
        "tip": "Pourboire",
        "service": "Service",
        "discount": "Remise",
        "date": "Date",
        "receipt": "Ticket n°",
        "card": "Carte",
        "cash": "Espèces",
        "change": "Rendu",
        "thanks": "Merci de votre visite !",
        "incl": "dont",
        "qty": "Qté",
        "order": "Commande",
        "nights": "nuits",
        "room": "Chambre",
        "fuel": "Carburant",
        "distance": "Distance",
        "time": "Durée",
        "table": "Table",
        "server": "Serveur",
        "paid": "Payé",
        "net": "HT",
    },
    "es": {
        "subtotal": "SUBTOTAL",
        "total": "TOTAL",
        "tip": "Propina",
        "service": "Servicio",
        "discount": "Descuento",
        "date": "Fecha",
        "receipt": "Ticket nº",
        "card": "Tarjeta",
        "cash": "Efectivo",
        "change": "Cambio",
        "thanks": "¡Gracias por su visita!",
        "incl": "incl.",
        "qty": "Cant.",
        "order": "Pedido",
        "nights": "noches",
        "room": "Habitación",
        "fuel": "Combustible",
        "distance": "Distancia",
        "time": "Tiempo",
        "table": "Mesa",
        "server": "Camarero",
        "paid": "Pagado",
        "net": "Base",
    },
}

LAYOUTS: tuple[str, ...] = (
    "thermal",
    "supermarket",
    "restaurant",
    "fuel",
    "hotel",
    "taxi",
    "pharmacy",
    "ecommerce",
)


@dataclass(frozen=True, slots=True)
class Merchant:
    name: str
    layout: str
    locale: str


MERCHANTS: tuple[Merchant, ...] = (
    Merchant("Corner Deli & Grocery", "thermal", "us"),
    Merchant("Bean There Coffee", "thermal", "us"),
    Merchant("Bäckerei Lindner", "thermal", "de"),
    Merchant("Café du Marché", "thermal", "fr"),
    Merchant("Kissa Komorebi", "thermal", "jp"),
    Merchant("FreshWay Supermarket", "supermarket", "us"),
    Merchant("Marktkauf Nord", "supermarket", "de"),
    Merchant("Hypermarché Soleil", "supermarket", "fr"),
    Merchant("Mercado Central", "supermarket", "es"),
    Merchant("Greenleaf Foods", "supermarket", "gb"),
    Merchant("Migrosa Quartier", "supermarket", "ch"),
    Merchant("Trattoria Da Luca", "restaurant", "gb"),
    Merchant("The Copper Kettle", "restaurant", "us"),
    Merchant("Brasserie Le Zinc", "restaurant", "fr"),
    Merchant("Zum Goldenen Hirsch", "restaurant", "de"),
    Merchant("Taberna El Olivo", "restaurant", "es"),
    Merchant("Maple Leaf Bistro", "restaurant", "ca"),
    Merchant("Harbour Fuel", "fuel", "au"),
    Merchant("QuickGas Station 114", "fuel", "us"),
    Merchant("Aral Tankstelle Süd", "fuel", "de"),
    Merchant("Station Total Énergie", "fuel", "fr"),
    Merchant("Hotel Alpenblick", "hotel", "ch"),
    Merchant("Grand Hotel Riverside", "hotel", "gb"),
    Merchant("Hôtel des Arts", "hotel", "fr"),
    Merchant("Sakura Business Hotel", "hotel", "jp"),
    Merchant("CityCab Ltd", "taxi", "gb"),
    Merchant("Yellow Star Taxi", "taxi", "us"),
    Merchant("Taxi Madrid 24h", "taxi", "es"),
    Merchant("Apotheke am Markt", "pharmacy", "de"),
    Merchant("Farmacia San Roque", "pharmacy", "es"),
    Merchant("Wellcare Pharmacy", "pharmacy", "ca"),
    Merchant("Pharmacie Centrale", "pharmacy", "fr"),
    Merchant("Northwind Online Store", "ecommerce", "us"),
    Merchant("Technikhaus Direkt", "ecommerce", "de"),
    Merchant("Papeterie en Ligne", "ecommerce", "fr"),
    Merchant("Outback Outdoor Gear", "ecommerce", "au"),
    Merchant("Tokyo Camera Depot", "ecommerce", "jp"),
    Merchant("KOPITIAM WARISAN JAYA SDN BHD", "thermal", "my"),
    Merchant("RESTORAN SRI MELATI MAJU", "thermal", "my"),
    Merchant("PASARAYA BESTARI MART SDN BHD", "supermarket", "my"),
    Merchant("MEGA JIMAT TRADING SDN BHD", "supermarket", "my"),
    Merchant("RESTORAN SELERA TOMYAM SDN BHD", "restaurant", "my"),
    Merchant("FARMASI SENTOSA SDN BHD", "pharmacy", "my"),
)

# Products per layout and language: (name, typical unit price in EUR-ish units).
_P = tuple[tuple[str, float], ...]
PRODUCTS: dict[str, dict[str, _P]] = {
    "thermal": {
        "en": (
            ("Flat White", 3.6),
            ("Blueberry Muffin", 2.9),
            ("Bagel w/ Cream Cheese", 3.4),
            ("Iced Tea", 2.5),
            ("Turkey Sandwich", 6.9),
            ("Chips", 1.5),
            ("Espresso", 2.2),
            ("Croissant", 2.4),
            ("Water 0.5L", 1.2),
        ),
        "de": (
            ("Laugenbrezel", 0.95),
            ("Roggenbrot 750g", 3.8),
            ("Kaffee groß", 3.2),
            ("Apfelstrudel", 2.9),
            ("Brötchen", 0.45),
            ("Käsekuchen", 3.1),
            ("Milchkaffee", 3.5),
        ),
        "fr": (
            ("Café crème", 2.8),
            ("Pain au chocolat", 1.4),
            ("Baguette tradition", 1.3),
            ("Jus d'orange", 3.5),
            ("Croque-monsieur", 6.5),
            ("Tarte citron", 3.9),
        ),
        "es": (("Café con leche", 1.8), ("Tostada", 2.2), ("Zumo natural", 3.0), ("Croissant", 1.6)),
    },
    "supermarket": {
        "en": (
            ("Whole Milk 1gal", 3.89),
            ("Bananas", 0.59),
            ("Eggs Large 12ct", 4.29),
            ("Sourdough Bread", 4.99),
            ("Cheddar 8oz", 3.79),
            ("Chicken Breast", 8.49),
            ("Apples Gala", 1.99),
            ("Pasta 1lb", 1.49),
            ("Tomato Sauce", 2.29),
            ("Orange Juice", 4.59),
            ("Greek Yogurt", 1.25),
            ("Coffee Beans", 9.99),
            ("Paper Towels", 6.49),
            ("Dish Soap", 3.29),
            ("Rice 2lb", 2.99),
            ("Butter", 4.49),
            ("Onions", 1.29),
            ("Carrots 2lb", 1.89),
            ("Spinach", 2.99),
            ("Cereal", 4.79),
        ),
        "de": (
            ("Vollmilch 1L", 1.19),
            ("Bananen", 1.69),
            ("Eier 10 Stk", 2.99),
            ("Bauernbrot", 2.79),
            ("Gouda jung", 2.49),
            ("Hähnchenbrust", 6.99),
            ("Äpfel Elstar", 2.49),
            ("Spaghetti", 0.99),
            ("Tomaten passiert", 0.89),
            ("Orangensaft", 1.99),
            ("Joghurt Natur", 0.69),
            ("Kaffee Bohnen", 7.99),
            ("Küchenrolle", 2.49),
            ("Spülmittel", 1.29),
            ("Butter", 2.29),
            ("Zwiebeln 1kg", 1.49),
            ("Karotten", 0.99),
            ("Mineralwasser", 0.49),
            ("Bio Joghurt mild", 0.35),
        ),
        "fr": (
            ("Lait demi-écrémé", 1.09),
            ("Bananes", 1.79),
            ("Oeufs x12", 3.49),
            ("Pain de mie", 1.99),
            ("Comté 200g", 4.29),
            ("Poulet fermier", 9.99),
            ("Pommes Golden", 2.29),
            ("Pâtes", 1.19),
            ("Yaourt nature", 1.89),
            ("Jus de pomme", 2.19),
            ("Beurre doux", 2.69),
            ("Café moulu", 4.49),
            ("Lessive", 8.99),
            ("Carottes", 1.29),
            ("Eau minérale", 0.59),
        ),
        "es": (
            ("Leche entera", 0.99),
            ("Plátanos", 1.89),
            ("Huevos docena", 2.69),
            ("Pan de barra", 0.89),
            ("Queso manchego", 5.49),
            ("Pollo entero", 6.99),
            ("Manzanas", 1.99),
            ("Arroz 1kg", 1.29),
            ("Aceite de oliva", 8.99),
            ("Tomates", 2.19),
            ("Yogur natural", 1.49),
            ("Café molido", 3.99),
        ),
    },
    "restaurant": {
        "en": (
            ("Caesar Salad", 11.5),
            ("Margherita Pizza", 14.0),
            ("Fish & Chips", 16.5),
            ("Steak Frites", 24.0),
            ("Glass House Red", 7.5),
            ("Sparkling Water", 3.5),
            ("Tiramisu", 7.0),
            ("Burger Deluxe", 15.5),
            ("Soup of the Day", 6.5),
            ("IPA Pint", 6.8),
        ),
        "de": (
            ("Wiener Schnitzel", 18.9),
            ("Rinderroulade", 21.5),
            ("Apfelschorle 0,4", 3.9),
            ("Weißbier 0,5", 4.6),
            ("Käsespätzle", 13.9),
            ("Salatteller", 9.8),
            ("Kaiserschmarrn", 8.5),
        ),
        "fr": (
            ("Entrecôte frites", 23.0),
            ("Salade niçoise", 14.5),
            ("Verre de Bordeaux", 6.0),
            ("Crème brûlée", 7.5),
            ("Soupe à l'oignon", 8.5),
            ("Carafe d'eau", 0.0),
            ("Magret de canard", 22.0),
        ),
        "es": (
            ("Paella mixta", 16.5),
            ("Tortilla española", 7.5),
            ("Caña", 2.5),
            ("Croquetas", 8.0),
            ("Pulpo a la gallega", 17.0),
            ("Flan casero", 4.5),
            ("Vino tinto", 3.5),
        ),
    },
    "pharmacy": {
        "en": (
            ("Ibuprofen 200mg 50ct", 7.49),
            ("Vitamin D3", 9.99),
            ("Allergy Relief", 12.99),
            ("Bandages", 4.29),
            ("Cough Syrup", 8.79),
            ("Sunscreen SPF50", 11.49),
            ("Toothpaste", 3.99),
        ),
        "de": (
            ("Ibuprofen 400 akut", 4.95),
            ("Nasenspray", 3.98),
            ("Magnesium 300", 8.45),
            ("Pflaster", 2.95),
            ("Hustensaft", 7.9),
            ("Sonnencreme LSF 50", 12.95),
        ),
        "fr": (
            ("Doliprane 1000mg", 2.18),
            ("Sérum physiologique", 3.5),
            ("Vitamine C", 6.9),
            ("Pansements", 3.2),
            ("Sirop toux", 7.4),
        ),
        "es": (
            ("Paracetamol 1g", 2.5),
            ("Ibuprofeno 600", 3.2),
            ("Crema solar", 14.9),
            ("Tiritas", 3.1),
            ("Vitamina C", 7.5),
        ),
    },
    "ecommerce": {
        "en": (
            ("USB-C Cable 2m", 12.99),
            ("Wireless Mouse", 24.99),
            ("Notebook A5 3-pack", 9.49),
            ("Headlamp 300lm", 34.95),
            ("Water Bottle 1L", 19.9),
            ("SD Card 128GB", 21.99),
            ("Camera Strap", 15.0),
            ("Lens Cloth", 4.5),
        ),
        "de": (
            ("HDMI-Kabel 2m", 9.99),
            ("Tastatur kabellos", 39.9),
            ("Powerbank 10000mAh", 24.95),
            ("Druckerpapier A4", 5.49),
            ("Webcam HD", 44.0),
        ),
        "fr": (
            ("Stylos gel x10", 8.9),
            ("Cahier 96 pages", 2.95),
            ("Classeur A4", 4.5),
            ("Agenda 2025", 14.9),
            ("Feutres couleur", 11.9),
        ),
        "es": (("Funda móvil", 12.99), ("Cargador USB", 15.99)),
    },
}

# Sold by weight (printed "0,845 kg x 1,69") in about 60 % of purchases.
WEIGHED = frozenset(
    {
        "Bananas",
        "Apples Gala",
        "Onions",
        "Bananen",
        "Äpfel Elstar",
        "Bananes",
        "Pommes Golden",
        "Carottes",
        "Plátanos",
        "Manzanas",
        "Tomates",
    }
)

# Products a locale's shops sell in place of the language's list (Malaysia: English and Malay names).
LOCAL_PRODUCTS: dict[tuple[str, str], _P] = {
    ("my", "thermal"): (
        ("NASI LEMAK BIASA", 4.5),
        ("TEH TARIK", 2.2),
        ("KOPI O AIS", 2.0),
        ("ROTI CANAI", 1.5),
        ("MEE GORENG MAMAK", 6.5),
        ("MILO AIS", 3.0),
        ("NASI GORENG KAMPUNG", 7.0),
        ("AIR SIRAP", 1.8),
        ("ROTI BAKAR KAYA", 2.5),
        ("TELUR SEPARUH MASAK", 2.6),
    ),
    ("my", "supermarket"): (
        ("ROTI PUTIH 400G", 3.2),
        ("SUSU SEGAR 1L", 7.5),
        ("TELUR AYAM GRED A 10S", 5.8),
        ("BERAS WANGI 5KG", 26.9),
        ("MINYAK MASAK 2KG", 12.5),
        ("GULA PASIR 1KG", 2.85),
        ("AIR MINERAL 1.5L", 1.9),
        ("MEE SEGERA 5S", 4.2),
        ("SABUN BASUH 2KG", 15.9),
        ("TISU MUKA 4S", 8.9),
        ("BAWANG MERAH 500G", 3.4),
        ("YOGURT ASLI 140G", 2.1),
        ("PLASTIC BAG", 0.2),
        ("SPAN PENCUCI 3S", 2.3),
    ),
    ("my", "restaurant"): (
        ("CLAYPOT TAUHU", 18.9),
        ("NASI PUTIH", 2.0),
        ("TOM YAM CAMPUR", 25.0),
        ("KANGKUNG BELACAN", 12.9),
        ("AYAM GORENG BEREMPAH", 15.9),
        ("TEH O AIS LIMAU", 3.5),
        ("IKAN SIAKAP STIM LIMAU", 38.0),
        ("SOTONG GORENG TEPUNG", 22.0),
    ),
    ("my", "pharmacy"): (
        ("PARACETAMOL 500MG 10S", 3.5),
        ("VITAMIN C 1000MG 30S", 29.9),
        ("PLASTER 10S", 2.9),
        ("UBAT BATUK 120ML", 9.8),
        ("HAND SANITIZER 500ML", 12.9),
        ("FACE MASK 50S", 15.0),
    ),
}

MERCHANT_WORDS = ("Corner", "Market", "Grand", "City", "Express", "Central", "Golden", "Royal", "Star", "Park")
