"""The five task families and their variants (with shares): what each case of a suite is.

Shares are allocated exactly per family (largest remainder, as the receipt plan does), so
every variant, fraud and benign twin alike, is present at every size and seed.
"""

from __future__ import annotations

from collections.abc import Callable

from rabench.cases.ap.common import World
from rabench.cases.ap.fam_campaign import CAMPAIGN_VARIANTS, campaign
from rabench.cases.ap.fam_documents import EXTRACTION_VARIANTS, MATCH_VARIANTS, extraction, three_way_match
from rabench.cases.ap.fam_inbox import INBOX_VARIANTS, inbox_bec
from rabench.cases.ap.fam_ledger import LEDGER_VARIANTS, duplicate_bank_change
from rabench.contracts.ap import APLabel

Builder = Callable[[World, str], APLabel]

FAMILY_BUILDERS: dict[str, tuple[Builder, dict[str, float]]] = {
    "extraction": (extraction, EXTRACTION_VARIANTS),
    "three_way_match": (three_way_match, MATCH_VARIANTS),
    "duplicate_bank_change": (duplicate_bank_change, LEDGER_VARIANTS),
    "inbox_bec": (inbox_bec, INBOX_VARIANTS),
    "campaign": (campaign, CAMPAIGN_VARIANTS),
}
