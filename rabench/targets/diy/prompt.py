"""The one plain prompt every DIY model is asked, and its version.

Why a pinned hash: the prompt version goes into run.json, and two runs with the
same version must have asked the same question. Editing the file without adding
a new version (``plain-v2.txt``) fails loudly here instead of silently changing
what a published number means.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

PROMPT_VERSION = "plain-v1"
# sha256 of rabench/targets/prompts/<PROMPT_VERSION>.txt; bump the version to change the text.
PROMPT_SHA256 = "1a142d2d1249c06d70b724a0873b7d347b4d3596735cd7e8dd603aabcd0c37e6"


@cache
def prompt_text(version: str = PROMPT_VERSION) -> str:
    """The prompt's text, checked against its pinned hash."""
    raw = resources.files("rabench.targets").joinpath("prompts", f"{version}.txt").read_bytes()
    if version == PROMPT_VERSION and hashlib.sha256(raw).hexdigest() != PROMPT_SHA256:
        raise RuntimeError(
            f"prompt {version}.txt changed without a new version: add prompts/plain-vN.txt "
            "and bump PROMPT_VERSION / PROMPT_SHA256 instead"
        )
    return raw.decode("utf-8")
