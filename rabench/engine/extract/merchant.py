"""The merchant: the name a receipt prints in its header.

Why its own module: the header mixes the name with titles ("TAX INVOICE"),
addresses, phone and registration lines and, on scans, handwritten notes; and
OCR glues words ("TAXINVOICE/ADJUSTMENTNOTE", "MR.D.I.Y.SDN BHD") or splits a
legal name over two rows ("POPULAR BOOK" / "CO. (M) SDN BHD", "FARMASI
SENTOSA SDN" / "BHD"). The merchant is the tallest of the first header rows
that is not a title, address, phone or number line (a little preference for
rows nearer the top), joined with a row that only carries the rest of its
legal name, with the spaces OCR dropped around dots and brackets put back.
"""

from __future__ import annotations

import re

from rabench.engine.extract.layout import Row
from rabench.engine.extract.vocab import fold, unglue

_HEADER_SKIP = re.compile(
    r"(?<![a-z])(receipt|tax invoice|invoice|rechnung|quittung|kassenbon|facture|factura|ticket|"
    r"welcome|willkommen|bienvenue|bienvenido|order confirmation|confirmation|folio|bill|www|http|"
    r"recu|beleg|purchase|your trip|your order|order details|details|payment|paiement|zahlung|"
    r"tel|phone|fax|email|e-mail|vat|ust|siret|abn|gst|date|datum|fecha|copy|duplicate|"
    r"thank|merci|danke|gracias|cash sale|cash receipt|simplified|adjustment note)(?![a-z])|@|領収|レシート"
    r"|taxinvoice|invoice(?=no|#|:)|tax\s?invoice|receipt(?=no|#)"
    r"|^\W*(table|tbl|tisch|mesa|server|cashier|host|order|check|chk|to ?go|take ?out|dine ?in|carry ?out)(?![a-z])|^\W*name\s*:"
    r"|(?<![a-z])(svrck|descript\w*|qty|quan|artikel|bezeichnung)(?![a-z])"
)
# A North American "City, ST 12345" line (also as OCR glues it: "Brooklyn,Ny", "Harrison,NJ07029")
_CITY_STATE = re.compile(r"^[A-Za-z .'-]{3,},\s?[A-Z][A-Za-z](?:\s?\d{5}(?:-\d{4})?)?\s*$")
# Street and building words, in the languages receipts print addresses in.
_STREET = re.compile(
    r"(?<![a-z])(st|rd|ave|avenue|street|road|lane|blvd|boulevard|strasse|str|weg|gasse|platz|rue|calle|"
    r"avenida|via|piazza|plaza|straat|laan|chemin|place|allee|jalan|jln|lorong|lot|floor|flr|level|suite|"
    r"unit|blk|block|kawasan|taman|wisma|rua|ul|ulica|vej|gatan|gata|katu|sokak|cad|cd)(?![a-z])"
    r"|stra(ss|ß)e(?![a-z])|^\s*no[.,\s]*\d"
)
# The tail of a legal name printed on a row of its own ("BHD", "CO. (M) SDN BHD", "GmbH & Co. KG").
_FORM_ONLY = re.compile(
    r"^[\s(]*(co\.?|company|corp\.?|\(m\)|sdn\.?|bhd\.?|s/b|plt|ltd\.?|limited|llc|inc\.?|gmbh|ag|kg|e\.k\.|"
    r"sarl|sas|s\.a\.?|s\.l\.?|spa|s\.p\.a\.|srl|bv|nv|pty|pte|oy|ab|as|aps|kft|&|and|[,.()\s])+$",
    re.I,
)
# A company registration number printed after the name ("99 SPEED MART S/B (519537-X)",
# "AEON CO. (M) BHD. (126926-H)", "(LLP0007299-LGN)"): not part of the name.
# Also with letters OCR read into the digits ("(1393S6X)"), or unbracketed after the legal form
# ("KING'S CONFECTIONERY S/B 273500-U (GKJ)", "Muster GmbH HRB 12345").
_BRACKETED_REG = re.compile(r"[(（]\s*(?=(?:[A-Z-]*\d){4})[A-Z]{0,4}\d[\dA-Z]{2,10}[\s-]*[A-Z]{0,4}\s*[)）]\.?", re.I)
_TAIL_REG = re.compile(r"(?<=[A-Za-z.)/])\s+(?:hrb?\s*)?\d{4,}[-\s]?[A-Z]?(?:\s*\([A-Z]{2,5}\))?\s*$", re.I)
# A legal form: the row that carries it is the company's legal name (the one a receipt must print),
# preferred to a brand or branch line above or below it.
_LEGAL_FORM = re.compile(
    r"(?<![a-z])(sdn\.?\s?bhd|bhd|s/b|plt|gmbh|ltd|limited|llc|inc|corp|pty|pte|sarl|sas|s\.a\.|s\.l\.|s\.p\.a\.|"
    r"spa|srl|s\.r\.l\.|b\.v\.|bv|n\.v\.|e\.k\.|ohg|kg|ag|tbk|oy|ab)\.?(?![a-z])",
    re.I,
)
_DANGLING = re.compile(r"(?<![a-z])(sdn|pte|pty|co|&|and|gmbh\s*&\s*co)\.?\s*$", re.I)


def _drop_reg(text: str) -> str:
    """The name without its registration number (a bare number only right after a legal form:
    "Berlin 10115" keeps its postcode and stays an address line)."""
    text = _BRACKETED_REG.sub(" ", text)
    m = _TAIL_REG.search(text)
    if m and _LEGAL_FORM.search(text[: m.start()]):
        text = text[: m.start()]
    return text


def tidy_name(text: str) -> str:
    """Put back the spaces OCR drops: after "MR." before a word, between "D.I.Y." and "SDN",
    around brackets ("Centre(M)Sdn" -> "Centre (M) Sdn"); full-width brackets to ASCII."""
    t = text.replace("（", "(").replace("）", ")")
    t = _drop_reg(t)
    if " " not in t.strip() and len(re.findall(r"[a-z][A-Z]", t)) >= 2:
        t = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", t)  # "GerbangAlafRestaurantsSdnBhd": words OCR ran together
    t = re.sub(r"(?<=[A-Z]{2})0(?=[A-Z.]|\b)", "O", t)  # OCR's zero inside a word: "AEONC0." -> "AEONCO."
    t = re.sub(r"SDNBHD\b", "SDN BHD", t)  # "(TAMANDAYA)SDNBHD"
    t = re.sub(r"(?<=[A-Za-z]{3})(?=SDN[.\s]?BHD)", " ", t)  # "HOLDINGSSDN.BHD"
    t = re.sub(r"(?<=[A-Z]{4})(SDN BHD|BHD|PLT)$", r" \1", t)  # "MYHAPPYPHARMACYPLT"
    t = re.sub(r"(?<=[a-z]{3})(GmbH|Ltd|Inc|LLC)\b", r" \1", t)  # "MarktGmbH"
    t = re.sub(r"(?<=[A-Za-z]{2})\.(?=[A-Za-z]{2})", ". ", t)  # "Sdn.Bhd" -> "Sdn. Bhd"
    t = re.sub(r"(?<=[A-Za-z]{2})\.(?=[A-Za-z]\.)", ". ", t)  # "MR.D.I.Y." -> "MR. D.I.Y."
    t = re.sub(r"(?<=\.[A-Za-z])\.(?=[A-Za-z]{2,})", ". ", t)  # "D.I.Y.SDN" -> "D.I.Y. SDN"
    t = re.sub(r"(?<=[A-Za-z0-9.])\((?=[A-Za-z])", " (", t)
    t = re.sub(r"\)(?=[A-Za-z])", ") ", t)
    return re.sub(r"\s{2,}", " ", t).strip(" *-=#")


def _is_name_row(row: Row) -> bool:
    text = _drop_reg(row.text).strip()
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    s = fold(text)
    if letters < 3 or digits > letters or _HEADER_SKIP.search(s) or _HEADER_SKIP.search(unglue(s)):
        return False
    if _CITY_STATE.match(text):
        return False
    if (
        re.search(r"\d{4,}", text)
        or _STREET.search(s)
        or (re.search(r"^\s*\d+[a-z]?[ ,]", text, re.I) and not _LEGAL_FORM.search(text))
    ):  # "99 SPEED MART S/B" is a name
        return False  # an address or a number line
    if re.fullmatch(r"[A-Za-z0-9]{4,10}", text) and digits >= 2:
        return False  # "A05032": a code or a number written on the scan, not a name
    if text == text.lower() and not any(ch.isdigit() for ch in text) and len(text.split()) >= 2 and letters > 8:
        return False  # all lower case words: a note written on the scan, not a printed name
    return True


def merchant_name(rows: list[Row], first_amount_row: int) -> tuple[str | None, int | None]:
    """(merchant, its row) from the header rows above the first amount."""
    limit = min(len(rows), max(1, min(first_amount_row, 6)))
    candidates: list[tuple[float, int]] = []
    for i, row in enumerate(rows[:limit]):
        if not _is_name_row(row) or _FORM_ONLY.match(row.text):
            continue
        score = (row.height or 10.0) * (1.0 - 0.15 * len(candidates))
        if _LEGAL_FORM.search(_drop_reg(row.text)):
            score *= 2.0  # the legal name, not the brand or branch printed with it
        candidates.append((score, i))
    if not candidates:
        return None, None
    _, i = max(candidates, key=lambda c: (c[0], -c[1]))
    text = " ".join(s.text for s in rows[i].segments)
    nxt = rows[i + 1].text.strip() if i + 1 < len(rows) else ""
    if nxt and (_FORM_ONLY.match(nxt) or (_DANGLING.search(text) and _is_name_row(rows[i + 1]))):
        text = f"{text} {nxt}"  # "POPULAR BOOK" + "CO. (M) SDN BHD", "FARMASI SENTOSA SDN" + "BHD"
    form = _LEGAL_FORM.search(_drop_reg(text))
    head = text[: form.start()].split() if form else []
    if form and i > 0 and len(head) == 1 and len(head[0]) <= 12:
        above = rows[i - 1]
        alike = not (above.height and rows[i].height) or abs(above.height - rows[i].height) <= 0.2 * rows[i].height
        # a longer first word ("WESTERNEASTERN" + "STATIONERY SDN.BHD"): only in the same (upper) case
        alike = alike and (len(head[0]) <= 8 or (above.text.isupper() and text.isupper()))
        if alike and _is_name_row(above) and not _LEGAL_FORM.search(above.text) and not _FORM_ONLY.match(above.text):
            # a legal name wrapped over two rows: "RESTORAN SELERA" + "TOMYAM SDN BHD"
            text = f"{above.text.strip()} {text}"
    return tidy_name(text), i
