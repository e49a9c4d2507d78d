"""Which country a receipt was printed in, from what it prints: a small weighted vote.

Why: the OCR has no glyph for most currency signs (``€``, ``£``, ``₹``...) and
``$`` is shared by a dozen currencies (Malaysian tills print it for ringgit),
so the currency often rests on *where* the receipt is from; and a tax rate can
only be judged against the country that charged it. Each cue below votes for
one or more countries (ISO 3166 alpha-2) with a weight; a cue counts once
however often it is printed. Weights follow one scale:

* 4-5 — identifies the country on its own: a registration or tax number in
  the country's format, a company form only it uses (``SDN BHD``, ``Pte Ltd``,
  ``Pty Ltd``), the country's name, its international dialling code, a postcode
  with its state (``NSW 2000``, ``CA 94103``, Canadian ``M5V 2T6``);
* 2-3 — points at it: a state or city name, a tax only it levies (``HST``,
  ``SST``, ``KDV``), a tax word with one of its rates (``GST 6%``), a UK postcode;
* 0.3-1.5 — shared or generic: ``VAT``, ``GST``, ``GmbH``, ``Ltd``, street words,
  the language of the labels.

``country_scores`` sums the votes; ``currency.read_currency`` turns them into a
currency and the set of countries a tax rate may be judged against.
"""

from __future__ import annotations

import re
import unicodedata

from rabench.engine.extract.vocab import fold

Votes = dict[str, float]


def _words(*names: str) -> str:
    """An alternation of folded words/phrases with letter boundaries."""
    alt = "|".join(sorted((re.escape(n).replace(r"\ ", r"[\s.-]*") for n in names), key=len, reverse=True))
    return r"(?<![a-z])(?:" + alt + r")(?![a-z])"


_GST = r"(?:(?<![a-z])|(?<=[abd-hj-rt-z]))gst"  # also glued ("TOTALGST", "SR=GST"), never CGST/SGST/IGST

# (pattern, votes, matched against: "f" folded lowercase text | "r" raw text | "p" a place name, in any
# case, in the text with accents stripped: full weight on an address line (one with a postcode-like
# number, or the line after one), a fifth elsewhere — "China Wok", "Singapore noodles" and "Canada
# Dry" are not addresses; OCR glue is allowed after a capitalised name ("BristolBS1 4DJ"), not inside
# an upper-case word ("ESSENTIAL" is not Essen))
_CUES: list[tuple[str, Votes, str]] = [
    # --- Malaysia
    (r"sdn\.?\s*b[a-z]{1,2}(?![a-z])|(?<![a-z])bhd(?![a-z])", {"MY": 5}, "f"),  # OCR: "SDN BND", "TRADINGSDN BHD"
    (_words("malaysia"), {"MY": 4}, "p"),
    (_words("ringgit"), {"MY": 4}, "f"),
    (
        _words(
            "selangor",
            "johor",
            "kedah",
            "kelantan",
            "melaka",
            "malacca",
            "negeri sembilan",
            "pahang",
            "perak",
            "perlis",
            "pulau pinang",
            "penang",
            "sabah",
            "sarawak",
            "terengganu",
            "kuala lumpur",
            "putrajaya",
            "labuan",
            "wilayah persekutuan",
        ),
        {"MY": 3},
        "p",
    ),
    (
        _words(
            "petaling jaya",
            "shah alam",
            "subang jaya",
            "klang",
            "puchong",
            "kajang",
            "cheras",
            "seri kembangan",
            "rawang",
            "johor bahru",
            "seremban",
            "ipoh",
            "kota kinabalu",
            "kuching",
            "bangsar",
            "ampang",
            "damansara",
            "setia alam",
            "bangi",
            "semenyih",
            "sungai buloh",
            "kepong",
            "skudai",
            "batu pahat",
            "kluang",
            "alor setar",
            "kota bharu",
            "kuantan",
            "butterworth",
            "bukit mertajam",
            "senai",
            "nilai",
            "cyberjaya",
            "sri petaling",
            "bukit jalil",
            "kota damansara",
            "mont kiara",
            "setapak",
            "wangsa maju",
        ),
        {"MY": 2.5},
        "p",
    ),
    (
        _words("jalan", "jln", "taman", "tmn", "lorong", "persiaran", "lebuhraya", "kampung", "kedai"),
        {"MY": 1.5, "ID": 0.5, "SG": 0.3},
        "f",
    ),
    (r"(?<![a-z])(?:s\.?s\.?t|sst)(?![a-z])", {"MY": 3}, "f"),
    # "GST" glued to the word before ("TOTALGST", not CGST/SGST/IGST)
    # (upper case: "Gst 2" or a bare "Gst" on a US bill is the number of guests)
    (
        r"(?:(?<![A-Za-z])|(?<=[A-BD-HJ-RT-Z]))GST(?![A-Za-z])(?!\s?\d{1,3}(?![\d.,%]|\s?%))",
        {"MY": 1, "SG": 1, "AU": 1, "NZ": 1, "CA": 1, "IN": 0.3},
        "r",
    ),
    (r"(?<![a-z])gst[^\n]{0,25}?(?<![\d.,])00\d{2}\s?\d{4}\s?\d{4}(?!\d)", {"MY": 4}, "f"),  # GST ID 0001 2345 6789
    (r"(?<![\w-])\d{5,7}\s?-\s?[A-Z](?![\w-])", {"MY": 1.5}, "r"),  # company no. 789417-W ...
    (r"(?:\(|(?i:co|reg|company)[^\n]{0,12}?)\d{5,7}\s?-\s?[A-Z](?![\w-])", {"MY": 1.5}, "r"),  # ... (789417-W)
    (r"\+\s?60(?!\d)", {"MY": 4}, "r"),
    (r"(?<![\d-])0\d{1,2}-\d{3,4}\s?\d{4}(?![\d-])", {"MY": 1, "AE": 0.5}, "r"),  # 03-2110 2833; Dubai 04-7059680
    # --- Singapore
    (_words("singapore", "singapura"), {"SG": 4}, "p"),
    (r"(?i:singapore)\s*\d{6}(?!\d)|(?<![A-Za-z])S\s?\(\d{6}\)", {"SG": 3}, "r"),
    (r"(?<![a-z])pte\.?\s*ltd", {"SG": 5}, "f"),
    (r"(?<![A-Za-z0-9])(?:M[0-9]-?\d{7}-?[0-9A-Z]|M9\d{7}[A-Z]|(?:19|20)\d{7}[A-Z])(?![A-Za-z0-9])", {"SG": 2}, "r"),
    (r"(?<![a-z])(?:gst|co\.?)\s*reg(?:istration)?\.?\s*(?:no|number)", {"SG": 1, "MY": 0.5}, "f"),
    (r"(?<![a-z])uen(?![a-z])", {"SG": 2}, "f"),
    (
        _words(
            "orchard road",
            "orchard rd",
            "jurong",
            "tampines",
            "ang mo kio",
            "bukit timah",
            "toa payoh",
            "bedok",
            "changi",
            "sentosa",
            "marina bay",
            "bukit batok",
            "yishun",
            "punggol",
            "sengkang",
            "clementi",
        ),
        {"SG": 2},
        "p",
    ),
    (r"\+\s?65(?!\d)", {"SG": 4}, "r"),
    # --- Australia / New Zealand
    (_words("australia"), {"AU": 4}, "p"),
    (r"(?<![a-z(])pty\.?\s*(?:ltd|limited)", {"AU": 5}, "f"),
    (r"(?<![a-z])a\.?b\.?n\.?[\s:#]*\d{2}\s?\d{3}\s?\d{3}\s?\d{3}(?!\d)", {"AU": 5}, "f"),
    (r"(?<![a-z])abn(?![a-z])", {"AU": 3}, "f"),
    (r"(?<![A-Za-z])(?:NSW|VIC|QLD|SA|WA|TAS|ACT|NT)\.?,?\s+\d{4}(?!\d)", {"AU": 4}, "r"),
    (r"(?<![A-Za-z])(?:NSW|QLD)(?![A-Za-z])", {"AU": 2}, "r"),
    (
        _words(
            "sydney",
            "melbourne",
            "brisbane",
            "adelaide",
            "canberra",
            "hobart",
            "gold coast",
            "parramatta",
            "new south wales",
            "queensland",
            "western australia",
            "tasmania",
        ),
        {"AU": 2},
        "p",
    ),
    (_words("eftpos"), {"AU": 1.5, "NZ": 1.5}, "f"),
    (r"\+\s?61(?!\d)", {"AU": 4}, "r"),
    (_words("new zealand", "aotearoa"), {"NZ": 4}, "p"),
    (
        _words("auckland", "wellington", "christchurch", "dunedin", "queenstown", "tauranga", "rotorua"),
        {"NZ": 2.5},
        "p",
    ),
    (r"\+\s?64(?!\d)", {"NZ": 4}, "r"),
    # --- Canada / United States
    (_words("canada"), {"CA": 4}, "p"),
    (
        _words(
            "ontario",
            "quebec",
            "british columbia",
            "alberta",
            "manitoba",
            "saskatchewan",
            "nova scotia",
            "new brunswick",
            "newfoundland",
            "toronto",
            "montreal",
            "vancouver",
            "calgary",
            "ottawa",
            "edmonton",
            "winnipeg",
            "halifax",
            "mississauga",
        ),
        {"CA": 2.5},
        "p",
    ),
    (
        r"(?<![A-Za-z0-9])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ -]?\d[ABCEGHJ-NPRSTV-Z]\d(?![A-Za-z0-9])",
        {"CA": 2},
        "r",
    ),
    (
        r"(?<![A-Za-z0-9])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ -]\d[ABCEGHJ-NPRSTV-Z]\d(?![A-Za-z0-9])",
        {"CA": 2},
        "r",
    ),
    (r"(?<![a-z])(?:hst|qst|tps|tvq|gst/hst)(?![a-z])", {"CA": 3}, "f"),
    (r"(?<![a-z])pst(?![a-z])", {"CA": 1.5}, "f"),
    (r"(?<!\d)\d{9}\s?RT\s?\d{4}(?!\d)", {"CA": 5}, "r"),
    (_words("usa", "united states", "u.s.a"), {"US": 4}, "p"),
    (
        r"(?<![A-Za-z])(?:A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|S[CD]|"
        r"T[NX]|UT|V[TA]|W[AVIY])[\s.,]*\d{5}(?:-\d{4})?(?!\d)",
        {"US": 4},
        "r",
    ),  # also "ALBANY.NY12205"
    (
        r"(?<![a-z])(?:alabama|alaska|arizona|arkansas|california|colorado|connecticut|delaware|florida|georgia|"
        r"hawaii|idaho|illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|"
        r"minnesota|mississippi|missouri|montana|nebraska|nevada|new hampshire|new jersey|new mexico|new york|"
        r"north carolina|north dakota|ohio|oklahoma|oregon|pennsylvania|rhode island|south carolina|south dakota|"
        r"tennessee|texas|utah|vermont|virginia|washington|west virginia|wisconsin|wyoming)[\s.,]*\d{5}(?:-\d{4})?(?!\d)",
        {"US": 4},
        "f",
    ),  # "Honolulu, Hawaii 96815"
    (
        _words(
            "new york",
            "los angeles",
            "chicago",
            "houston",
            "san francisco",
            "seattle",
            "boston",
            "las vegas",
            "miami",
            "atlanta",
            "dallas",
            "austin",
            "denver",
            "phoenix",
            "philadelphia",
            "san diego",
            "nashville",
            "orlando",
            "san jose",
            "brooklyn",
            "manhattan",
            "honolulu",
            "new orleans",
            "california",
            "texas",
            "florida",
            "illinois",
            "massachusetts",
            "pennsylvania",
            "new jersey",
            "arizona",
        ),
        {"US": 2},
        "p",
    ),
    (r"(?<![a-z])sales\s*tax", {"US": 2.5, "CA": 0.5}, "f"),
    (r"(?<![a-z])(?:suggested\s+(?:tip|gratuity)|tip\s+guide)", {"US": 1.5, "CA": 0.3}, "f"),
    (r"(?<![a-z])l\.?l\.?c(?![a-z])", {"US": 1, "AE": 0.5}, "f"),
    (r"\+\s?1[\s(-]+\d{3}", {"US": 1.5, "CA": 0.5}, "r"),
    (
        r"(?<!\d)\(\d{3}\)\s?\d{3}[-. ]\d{4}(?!\d)|(?<![\d-])\d{3}[-.]\d{3}[-.]\d{4}(?![\d-])",
        {"US": 1.5, "CA": 0.5},
        "r",
    ),
    # --- United Kingdom / Ireland
    (_words("united kingdom", "england", "scotland", "wales", "great britain"), {"GB": 4}, "p"),
    (r"(?<![A-Za-z])UK(?![A-Za-z])", {"GB": 2}, "r"),
    (
        r"(?<![A-Z0-9])(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?)\s?\d[A-Z]{2}(?![A-Za-z0-9])",
        {"GB": 3},
        "r",
    ),  # "BristolBS1 4DJ"
    (
        _words(
            "manchester",
            "birmingham",
            "leeds",
            "glasgow",
            "edinburgh",
            "liverpool",
            "bristol",
            "sheffield",
            "cardiff",
            "belfast",
            "nottingham",
            "leicester",
            "brighton",
            "london",
        ),
        {"GB": 2},
        "p",
    ),
    (r"(?<![A-Za-z])GB\s?\d{3}\s?\d{4}\s?\d{2}(?!\d)", {"GB": 5}, "r"),
    (r"(?<![a-z])plc(?![a-z])", {"GB": 2}, "f"),
    (r"(?<![a-z])(?:ltd|limited)(?![a-z])", {"GB": 0.7, "IE": 0.3, "NZ": 0.2, "HK": 0.2}, "f"),
    (r"(?<![a-z])vat(?![a-z])", {"GB": 1, "IE": 0.5, "ZA": 0.5, "AE": 0.5, "PH": 0.5, "TH": 0.3}, "f"),
    (r"\+\s?44(?!\d)", {"GB": 4}, "r"),
    (_words("ireland", "eire", "dublin", "cork", "galway", "limerick"), {"IE": 3}, "p"),
    (r"(?<![A-Za-z])IE\s?\d{7}[A-Z]{1,2}(?![A-Za-z0-9])", {"IE": 5}, "r"),
    (r"\+\s?353(?!\d)", {"IE": 4}, "r"),
    # --- German-speaking countries
    (_words("deutschland", "germany"), {"DE": 4}, "p"),
    (r"(?<![A-Za-z])DE\s?\d{9}(?!\d)", {"DE": 5}, "r"),
    (
        _words(
            "berlin",
            "hamburg",
            "munchen",
            "muenchen",
            "koln",
            "koeln",
            "frankfurt",
            "stuttgart",
            "dusseldorf",
            "duesseldorf",
            "dortmund",
            "essen",
            "leipzig",
            "bremen",
            "dresden",
            "hannover",
            "nurnberg",
            "nuernberg",
            "bonn",
            "mannheim",
            "karlsruhe",
            "augsburg",
            "wiesbaden",
            "freiburg",
            "heidelberg",
        ),
        {"DE": 2.5},
        "p",
    ),
    (r"(?<![a-z])(?:tse|tse-signatur|girocard|ec-karte|pfand|e\.\s?k\.)(?![a-z])", {"DE": 2.5}, "f"),
    (r"(?<![a-z])(?:ust-?id|st\.?-?nr|steuer-?nr|steuernummer)", {"DE": 2.5, "AT": 0.5}, "f"),
    (r"mwst(?![a-z])|(?<![a-z])ust(?![a-z])", {"DE": 1.5, "AT": 1, "CH": 1}, "f"),
    (r"(?<![a-z])gmbh(?![a-z])", {"DE": 2, "AT": 1, "CH": 1}, "f"),
    (r"(?<![a-z])(?:strasse|str\.)", {"DE": 1, "AT": 0.5, "CH": 0.5}, "f"),
    (r"\+\s?49(?!\d)", {"DE": 4}, "r"),
    (
        _words("osterreich", "oesterreich", "austria", "wien", "graz", "linz", "salzburg", "innsbruck", "klagenfurt"),
        {"AT": 3},
        "p",
    ),
    (r"(?<![A-Za-z])ATU\s?\d{8}(?!\d)|(?<![a-z])kassen-?id(?![a-z])", {"AT": 4}, "r"),
    (r"\+\s?43(?!\d)", {"AT": 4}, "r"),
    (
        _words(
            "schweiz",
            "suisse",
            "svizzera",
            "switzerland",
            "zurich",
            "bern",
            "basel",
            "geneve",
            "geneva",
            "genf",
            "lausanne",
            "luzern",
            "lucerne",
            "winterthur",
            "st. gallen",
            "lugano",
        ),
        {"CH": 3},
        "p",
    ),
    (r"(?<![A-Za-z])CHE[-\s]?\d{3}\.?\d{3}\.?\d{3}(?!\d)", {"CH": 5}, "r"),
    (r"(?<![A-Za-z])MWST(?![A-Za-z])", {"CH": 0.5}, "r"),
    (r"\+\s?41(?!\d)", {"CH": 4}, "r"),
    # --- France, Benelux
    (
        _words(
            "france", "paris", "lyon", "marseille", "toulouse", "nantes", "strasbourg", "montpellier", "lille", "rennes"
        ),
        {"FR": 3},
        "p",
    ),
    (r"(?<![a-z])(?:siret|siren|naf|code ape|rcs|sarl|eurl)(?![a-z])", {"FR": 4}, "f"),
    (r"(?<![A-Za-z])FR\s?[0-9A-Z]{2}\s?\d{9}(?!\d)", {"FR": 5}, "r"),
    (r"tva(?![a-z])", {"FR": 1.5, "BE": 0.7, "LU": 0.5, "CH": 0.5, "MA": 0.5}, "f"),
    (r"\+\s?33(?!\d)", {"FR": 4}, "r"),
    (
        _words(
            "belgique",
            "belgie",
            "belgium",
            "bruxelles",
            "brussel",
            "brussels",
            "antwerpen",
            "anvers",
            "liege",
            "brugge",
        ),
        {"BE": 3},
        "p",
    ),
    (r"(?<![A-Za-z])BE\s?0\d{3}\.?\d{3}\.?\d{3}(?!\d)", {"BE": 5}, "r"),
    (r"\+\s?32(?!\d)", {"BE": 4}, "r"),
    (
        _words("nederland", "netherlands", "amsterdam", "rotterdam", "den haag", "utrecht", "eindhoven", "groningen"),
        {"NL": 3},
        "p",
    ),
    (r"(?<![a-z])kvk(?![a-z])|(?<![A-Za-z])NL\d{9}B\d{2}(?!\d)", {"NL": 4}, "f"),
    (r"(?<![a-z])btw(?![a-z])", {"NL": 1.5, "BE": 1}, "f"),
    (r"\+\s?31(?!\d)", {"NL": 4}, "r"),
    (_words("luxembourg"), {"LU": 3}, "p"),
    (r"\+\s?352(?!\d)", {"LU": 4}, "r"),
    # --- Southern Europe
    (
        _words(
            "espana", "spain", "madrid", "barcelona", "sevilla", "zaragoza", "malaga", "bilbao", "alicante", "granada"
        ),
        {"ES": 3},
        "p",
    ),
    (r"(?<![a-z])(?:igic|s\.l\.u?\.)(?![a-z])", {"ES": 4}, "f"),
    (r"(?<![a-z])(?:cif|nif)(?![a-z])", {"ES": 2, "PT": 1}, "f"),
    (r"(?<![a-z])i\.?v\.?a(?![a-z])", {"ES": 1, "IT": 1, "PT": 0.7, "MX": 0.7}, "f"),
    (r"\+\s?34(?!\d)", {"ES": 4}, "r"),
    (
        _words("italia", "italy", "torino", "firenze", "venezia", "bologna", "genova", "palermo", "verona"),
        {"IT": 3},
        "p",
    ),
    (r"(?<![a-z])(?:p\.\s?iva|partita\s+iva|s\.r\.l\.|s\.p\.a\.|documento commerciale|codice fiscale)", {"IT": 4}, "f"),
    (r"\+\s?39(?!\d)", {"IT": 4}, "r"),
    (_words("portugal", "lisboa", "braga", "coimbra", "funchal"), {"PT": 3}, "p"),
    (_words("contribuinte", "nipc"), {"PT": 3}, "f"),
    (r"(?<![a-z])lda\.?(?![a-z])", {"PT": 2}, "f"),
    (r"\+\s?351(?!\d)", {"PT": 4}, "r"),
    (_words("suomi", "finland", "helsinki", "espoo", "tampere", "turku", "oulu"), {"FI": 3}, "p"),
    (_words("alv", "y-tunnus"), {"FI": 3}, "f"),
    (r"\+\s?358(?!\d)", {"FI": 4}, "r"),
    (_words("greece", "hellas", "ellada", "athens", "athina", "thessaloniki"), {"GR": 3}, "p"),
    (_words("fpa"), {"GR": 3}, "f"),
    (r"φπα|\+\s?30(?!\d)", {"GR": 4}, "r"),
    # --- Nordics, Central Europe
    (_words("sverige", "sweden", "stockholm", "goteborg", "gothenburg", "malmo", "uppsala"), {"SE": 3}, "p"),
    (_words("kvitto"), {"SE": 3}, "f"),
    (r"(?<![a-z])moms(?![a-z])", {"SE": 2, "DK": 2}, "f"),
    (r"(?<![a-z])org\.?\s?nr", {"SE": 2, "NO": 1}, "f"),
    (r"\+\s?46(?!\d)", {"SE": 4}, "r"),
    (_words("norge", "norway", "oslo", "bergen", "trondheim", "stavanger"), {"NO": 3}, "p"),
    (_words("mva", "foretaksregisteret"), {"NO": 3}, "f"),
    (r"\+\s?47(?!\d)", {"NO": 4}, "r"),
    (_words("danmark", "denmark", "kobenhavn", "copenhagen", "aarhus", "odense", "aalborg"), {"DK": 3}, "p"),
    (_words("cvr"), {"DK": 3}, "f"),
    (r"\+\s?45(?!\d)", {"DK": 4}, "r"),
    (_words("polska", "poland", "warszawa", "warsaw", "krakow", "wroclaw", "poznan", "gdansk", "lodz"), {"PL": 3}, "p"),
    (_words("ptu", "paragon fiskalny", "sp. z o.o."), {"PL": 3}, "f"),
    (r"(?<![a-z])nip(?![a-z])", {"PL": 2}, "f"),
    (r"\+\s?48(?!\d)", {"PL": 4}, "r"),
    (_words("ceska republika", "czech", "czechia", "praha", "prague", "brno", "ostrava", "plzen"), {"CZ": 3}, "p"),
    (_words("dph", "uctenka", "s.r.o."), {"CZ": 3}, "f"),
    (r"(?<![a-z])(?:dic|ico)(?![a-z])", {"CZ": 1.5}, "f"),
    (r"\+\s?420(?!\d)", {"CZ": 4}, "r"),
    (_words("magyarorszag", "hungary", "budapest", "debrecen", "szeged"), {"HU": 3}, "p"),
    (_words("afa", "kft", "adoszam", "nyugta"), {"HU": 3}, "f"),
    (r"\+\s?36(?!\d)", {"HU": 4}, "r"),
    # --- Asia
    (
        r"〒\s?\d{3}-?\d{4}|株式会社|有限会社|\(株\)|（株）|消費税|税込|内税|外税|領収書|東京都|北海道|大阪府|京都府",
        {"JP": 4},
        "r",
    ),
    (_words("japan", "tokyo", "osaka", "kyoto", "yokohama", "nagoya", "sapporo", "fukuoka"), {"JP": 3}, "p"),
    (r"\+\s?81(?!\d)", {"JP": 4}, "r"),
    (r"增值税|发票|税号|统一社会信用代码|人民币|北京|上海|广州|深圳", {"CN": 3}, "r"),
    (_words("china", "beijing", "shanghai", "guangzhou", "shenzhen"), {"CN": 2.5}, "p"),
    (r"有限公司", {"CN": 1.5, "HK": 1, "TW": 1, "MY": 0.3, "SG": 0.3}, "r"),
    (r"\+\s?86(?!\d)", {"CN": 4}, "r"),
    (r"香港|九龍|九龙", {"HK": 4}, "r"),
    (
        _words("hong kong", "kowloon", "tsim sha tsui", "causeway bay", "mong kok", "wan chai", "sha tin"),
        {"HK": 3},
        "p",
    ),
    (r"\+\s?852(?!\d)", {"HK": 4}, "r"),
    (r"台灣|臺灣|台北|臺北|高雄|台中|統一編號|統一發票|統編|營業稅", {"TW": 4}, "r"),
    (_words("taiwan", "taipei", "kaohsiung", "taichung"), {"TW": 3}, "p"),
    (r"\+\s?886(?!\d)", {"TW": 4}, "r"),
    (r"대한민국|한국|서울|부산|사업자|부가세|부가가치세|주식회사|\(주\)", {"KR": 4}, "r"),
    (_words("korea", "seoul", "busan"), {"KR": 3}, "p"),
    (r"\+\s?82(?!\d)", {"KR": 4}, "r"),
    (
        _words(
            "india",
            "maharashtra",
            "karnataka",
            "tamil nadu",
            "kerala",
            "gujarat",
            "rajasthan",
            "uttar pradesh",
            "west bengal",
            "telangana",
            "andhra pradesh",
            "haryana",
            "mumbai",
            "new delhi",
            "bangalore",
            "bengaluru",
            "chennai",
            "kolkata",
            "hyderabad",
            "pune",
            "ahmedabad",
            "jaipur",
            "gurgaon",
            "gurugram",
            "noida",
            "navi mumbai",
            "thane",
            "andheri",
            "bandra",
            "powai",
            "juhu",
            "goregaon",
            "borivali",
            "koramangala",
            "indiranagar",
            "whitefield",
            "connaught place",
            "secunderabad",
        ),
        {"IN": 3},
        "p",
    ),
    (r"(?<![a-z])(?:gstin|cgst|sgst|igst|utgst|fssai|pvt\.?\s*ltd|private\s+limited)(?![a-z])", {"IN": 4}, "f"),
    (r"(?<![A-Z0-9])\d{2}[A-Z]{5}\d{4}[A-Z][A-Z\d]Z[A-Z\d](?![A-Z0-9])", {"IN": 5}, "r"),
    (r"(?<![a-z])(?:vat|tin|cst)[^\n]{0,12}?(?<!\d)\d{11}[vc]?(?![\da-z])", {"IN": 3}, "f"),  # VAT TIN 27840289613V
    (r"\+\s?91(?!\d)", {"IN": 4}, "r"),
    (
        _words(
            "indonesia",
            "jakarta",
            "surabaya",
            "bandung",
            "medan",
            "bali",
            "denpasar",
            "yogyakarta",
            "semarang",
            "tangerang",
            "bekasi",
        ),
        {"ID": 3},
        "p",
    ),
    (_words("npwp", "ppn", "pb1", "tbk", "kembalian"), {"ID": 3}, "f"),
    # Indonesian till words Malaysian receipts do not print ("Kembali 1.500" is the change; Malay says "Baki")
    (
        r"(?<![a-z])kembali\s*:?\s*(?:rp\.?)?\s*\d|(?<![a-z])(?:total belanja|harga jual|struk|kasir|total item)(?![a-z])",
        {"ID": 2},
        "f",
    ),
    (r"(?<![A-Za-z])Jl\.?\s|(?<![A-Za-z])PT\.?\s+[A-Z]", {"ID": 1.5}, "r"),
    (r"\+\s?62(?!\d)", {"ID": 4}, "r"),
    (r"[\u0E00-\u0E7F]{3,}", {"TH": 4}, "r"),
    (_words("thailand", "bangkok", "chiang mai", "phuket", "pattaya"), {"TH": 3}, "p"),
    (r"\+\s?66(?!\d)", {"TH": 4}, "r"),
    (_words("philippines", "manila", "makati", "quezon city", "cebu", "davao", "taguig", "pasig"), {"PH": 3}, "p"),
    (_words("vatable", "vat-exempt", "vat exempt sale", "zero-rated sale"), {"PH": 3}, "f"),
    (r"(?<![a-z])tin\s*[:#]?\s*\d{3}-\d{3}-\d{3}", {"PH": 4}, "f"),
    (r"\+\s?63(?!\d)", {"PH": 4}, "r"),
    (_words("viet nam", "vietnam", "hanoi", "ha noi", "ho chi minh", "da nang", "saigon", "sai gon"), {"VN": 3}, "p"),
    (r"(?<![A-Za-z])MST(?![A-Za-z])", {"VN": 2}, "r"),
    (r"\+\s?84(?!\d)", {"VN": 4}, "r"),
    # --- Americas, Africa, Middle East
    (r"(?<![Nn][Ee][Ww] )mexico", {"MX": 4}, "p"),
    (_words("cdmx", "ciudad de mexico", "guadalajara", "monterrey", "cancun", "puebla", "tijuana"), {"MX": 3}, "p"),
    (r"(?<![a-z])(?:rfc|cfdi|s\.?\s?a\.?\s+de\s+c\.?\s?v\.?)(?![a-z])", {"MX": 4}, "f"),
    (r"\+\s?52(?!\d)", {"MX": 4}, "r"),
    (
        _words(
            "brasil",
            "sao paulo",
            "rio de janeiro",
            "brasilia",
            "belo horizonte",
            "curitiba",
            "porto alegre",
            "recife",
            "fortaleza",
        ),
        {"BR": 3},
        "p",
    ),
    (_words("cnpj", "cpf", "ltda", "cupom fiscal", "nota fiscal", "nfc-e"), {"BR": 3}, "f"),
    (r"\+\s?55(?!\d)", {"BR": 4}, "r"),
    (_words("south africa", "johannesburg", "cape town", "durban", "pretoria", "sandton", "gqeberha"), {"ZA": 3}, "p"),
    (
        r"\(pty\)\s*(?:ltd|limited)|(?<![a-z])vat\s*(?:reg(?:istration)?\.?\s*)?(?:no|number|#)?\.?\s*[:\-]?\s*4\d{9}(?!\d)",
        {"ZA": 5},
        "f",
    ),
    (r"\+\s?27(?!\d)", {"ZA": 4}, "r"),
    (_words("uae", "united arab emirates", "dubai", "abu dhabi", "sharjah", "ajman"), {"AE": 3}, "p"),
    (r"(?<![A-Za-z])TRN(?![A-Za-z])", {"AE": 2.5}, "r"),
    (r"\+\s?971(?!\d)", {"AE": 4}, "r"),
    (_words("turkiye", "istanbul", "ankara", "izmir", "antalya", "bursa"), {"TR": 3}, "p"),
    (_words("kdv", "vergi dairesi"), {"TR": 3}, "f"),
    (r"\+\s?90(?!\d)", {"TR": 4}, "r"),
    (_words("maroc", "morocco", "casablanca", "marrakech", "tanger", "agadir", "meknes"), {"MA": 3}, "p"),
    (r"(?<![a-z])ice\s*:?\s*\d{15}(?!\d)", {"MA": 4}, "f"),
    (r"\+\s?212(?!\d)", {"MA": 4}, "r"),
]
# A web or mail address under a country's own domain ("marcopierrewhite.ie/dawson", "www.cafe.de",
# "info@bistro.co.uk") points at that country; ".com" and the like point nowhere. Only an address
# that shows it is one (www., http, an @ before it or a path after it): "St.Ca" is not a domain.
_TLD_COUNTRY = {
    "ie": "IE",
    "de": "DE",
    "fr": "FR",
    "it": "IT",
    "es": "ES",
    "nl": "NL",
    "be": "BE",
    "at": "AT",
    "ch": "CH",
    "pt": "PT",
    "uk": "GB",
    "au": "AU",
    "nz": "NZ",
    "ca": "CA",
    "my": "MY",
    "sg": "SG",
    "in": "IN",
    "ae": "AE",
    "jp": "JP",
    "kr": "KR",
    "hk": "HK",
    "ph": "PH",
    "th": "TH",
    "mx": "MX",
    "br": "BR",
    "se": "SE",
    "no": "NO",
    "dk": "DK",
    "fi": "FI",
    "pl": "PL",
    "cz": "CZ",
    "za": "ZA",
    "tr": "TR",
    "gr": "GR",
}
_CUES += [
    (
        r"(?:(?:www\.|https?://|@)[a-z0-9-]+(?:\.[a-z0-9-]+)*\." + tld + r"(?![a-z0-9])"
        r"|(?<![a-z0-9.])[a-z0-9-]{3,}(?:\.(?:com?|org|net))?\." + tld + r"/)",
        {country: 3},
        "f",
    )
    for tld, country in _TLD_COUNTRY.items()
]


def _place_pattern(p: str) -> str:
    if p.startswith("(?<![a-z])(?:") and p.endswith(")(?![a-z])"):
        p = p[len("(?<![a-z])(?:") : -len(")(?![a-z])")]
    return r"(?<![A-Za-z])(?i:" + p + ")"


_COMPILED = [(re.compile(_place_pattern(p) if on == "p" else p), votes, on) for p, votes, on in _CUES]


def _deaccent(text: str) -> str:
    """Accents stripped, case kept ("München" -> "Munchen")."""
    text = text.replace("ß", "ss").replace("ẞ", "SS")
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def _place_in(rx: re.Pattern[str], line: str) -> bool:
    for m in rx.finditer(line):
        after = line[m.end() : m.end() + 1]
        if after.isalpha() and (after.islower() or m.group(0).isupper()):
            continue  # inside a longer word
        return True
    return False


# A tax word printed with a rate on the same line: the rate says which of the word's countries.
_TAX_RATE_CUES: list[tuple[str, dict[float, Votes]]] = [
    (
        _GST + r"(?![a-z])",
        {
            6: {"MY": 3},
            7: {"SG": 3},
            8: {"SG": 3},
            9: {"SG": 3},
            10: {"AU": 3},
            15: {"NZ": 3},
            12.5: {"NZ": 3},
            5: {"CA": 2, "IN": 0.5},
        },
    ),
    (r"(?<![a-z])(?:sst|service\s+tax|sales\s+tax)(?![a-z])", {6: {"MY": 1}, 8: {"MY": 1}}),
    (
        r"(?<![a-z])vat(?![a-z])",
        {
            20: {"GB": 2.5},
            17.5: {"GB": 2.5},
            12.5: {"GB": 1},
            15: {"ZA": 2.5},
            14: {"ZA": 1},
            12: {"PH": 2.5},
            7: {"TH": 2.5},
            5: {"AE": 1.5, "GB": 0.5},
            23: {"IE": 2},
            13.5: {"IE": 2.5},
            11: {"ID": 2},
        },
    ),
    (
        r"mwst(?![a-z])|(?<![a-z])ust(?![a-z])",
        {
            19: {"DE": 2.5},
            7: {"DE": 1.5},
            16: {"DE": 1.5},
            5: {"DE": 1},
            20: {"AT": 2.5},
            10: {"AT": 2},
            13: {"AT": 2},
            8.1: {"CH": 3},
            2.6: {"CH": 3},
            7.7: {"CH": 3},
            2.5: {"CH": 3},
            3.8: {"CH": 3},
            3.7: {"CH": 3},
            8: {"CH": 2},
        },
    ),
    (
        r"tva(?![a-z])",
        {
            20: {"FR": 2},
            10: {"FR": 1.5, "MA": 0.3},
            5.5: {"FR": 2.5},
            2.1: {"FR": 2.5},
            21: {"BE": 2},
            12: {"BE": 1},
            6: {"BE": 1},
            17: {"LU": 2},
            8.1: {"CH": 3},
            2.6: {"CH": 3},
            7.7: {"CH": 3},
            14: {"MA": 1},
        },
    ),
    (
        r"(?<![a-z])i\.?v\.?a(?![a-z])",
        {
            21: {"ES": 2},
            10: {"ES": 1, "IT": 1},
            4: {"ES": 1, "IT": 1},
            22: {"IT": 2.5},
            5: {"IT": 1},
            23: {"PT": 2},
            13: {"PT": 1.5},
            6: {"PT": 1.5},
            16: {"MX": 2.5},
            8: {"MX": 1},
        },
    ),
    (r"(?<![a-z])btw(?![a-z])", {21: {"NL": 1, "BE": 1}, 9: {"NL": 2.5}, 12: {"BE": 2}, 6: {"BE": 1, "NL": 1}}),
]
_TAX_RATE_RX = [(re.compile(p), rates) for p, rates in _TAX_RATE_CUES]
# A postcode-like number: 3-6 digits standing alone (not an amount, a time or part of a date).
_POSTCODE = re.compile(r"(?<![\d.,:/])\d{3,6}(?![\d]|[.,:/]\d)")
# ... or, where addresses print no postcode (Hong Kong, Vietnam, Ireland before Eircode), a street or
# building word beside a house or shop number: "SHOP 12, 1/F, HARBOUR CITY", "12 LE LOI, QUAN 1"
_STREET_WORDS = (
    "road|rd|street|avenue|ave|lane|boulevard|blvd|floor|flr|shop|unit|suite|building|bldg|plaza|centre|"
    "center|mall|tower|arcade|quan|phuong|duong|soi|thanon"
)  # before or after the number
_STREET_FIRST = "jalan|jln|strasse|str|rue|via|calle|avenida"  # only before it
_STREET_NUMBER = re.compile(
    rf"(?i)(?<![A-Za-z])(?:{_STREET_WORDS}|{_STREET_FIRST})(?![A-Za-z]).*\d|\d.*(?<![A-Za-z])(?:{_STREET_WORDS})(?![A-Za-z])"
    r"|(?<![\dA-Za-z])[GgLl1-9]\d?/F(?![A-Za-z])"
)
PLACE_ELSEWHERE = 0.2  # below COUNTRY_NARROWS (currency.py) even for a country name (4)
_RATE = re.compile(r"(?<![\d.,])(\d{1,2}(?:[.,]\d{1,3})?)\s?%")

# The labels' language (vocab.detect_language) is the weakest cue.
LANGUAGE_VOTES: dict[str, Votes] = {
    "de": {"DE": 1, "AT": 0.4, "CH": 0.4},
    "fr": {"FR": 1, "BE": 0.4, "CH": 0.3, "CA": 0.3, "LU": 0.2, "MA": 0.2},
    "es": {"ES": 1, "MX": 0.5},
    "it": {"IT": 1, "CH": 0.2},
    "nl": {"NL": 1, "BE": 0.5},
    "pt": {"PT": 1, "BR": 1},
    "ja": {"JP": 3},
    "ko": {"KR": 3},
    "zh": {"CN": 1, "TW": 0.7, "HK": 0.7},
    "sv": {"SE": 1},
    "no": {"NO": 1},
    "da": {"DK": 1},
    "pl": {"PL": 1},
    "cs": {"CZ": 1},
}


def _add(scores: dict[str, float], votes: Votes) -> None:
    for country, w in votes.items():
        scores[country] = scores.get(country, 0.0) + w


def country_scores(text: str) -> dict[str, float]:
    """Votes per country (ISO 3166 alpha-2) from the receipt's printed text; empty when nothing points anywhere.
    The language of the labels votes too (``LANGUAGE_VOTES``), added by the caller, which knows it."""
    folded = fold(text)
    lines = folded.splitlines()
    plain = _deaccent(text).splitlines()
    address = [bool(_POSTCODE.search(line) or _STREET_NUMBER.search(line)) for line in plain]
    scores: dict[str, float] = {}
    for rx, votes, on in _COMPILED:
        if on != "p":
            if rx.search(folded if on == "f" else text):
                _add(scores, votes)
            continue
        hits = [i for i, line in enumerate(plain) if _place_in(rx, line)]
        if hits:
            full = any(address[i] or (i > 0 and address[i - 1]) for i in hits)
            _add(scores, {c: w if full else w * PLACE_ELSEWHERE for c, w in votes.items()})
    seen: set[tuple[int, float]] = set()
    for line in lines:
        rates = [float(m.group(1).replace(",", ".")) for m in _RATE.finditer(line)]
        if not rates:
            continue
        for k, (rx, table) in enumerate(_TAX_RATE_RX):
            if not rx.search(line):
                continue
            for rate in rates:
                for known, votes in table.items():
                    if abs(rate - known) < 0.01 and (k, known) not in seen:
                        seen.add((k, known))
                        _add(scores, votes)
    return scores
