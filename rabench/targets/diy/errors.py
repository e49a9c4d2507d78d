"""Classify a provider's reply once, into a frozen decision, then raise from it.

Why a decision struct: what a status or a reply *means* (retry? record as error,
refusal, invalid output?) is policy the spec fixes ("Transport failures ... are
retried; nothing else is retried"), and it is easier to test and to read as a
pure function from (status, headers, body) to a value than as a tangle of
``raise`` statements in each client. The mechanism (the runner's retry loop)
never looks inside; the clients never retry.

Secrets: every message that leaves this module goes through ``scrub`` so that a
key echoed by a provider ("Incorrect API key provided: sk-...") never reaches an
outcome, a log or run.json.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Iterable, Mapping
from typing import Literal

import msgspec

from rabench.contracts import Usage
from rabench.targets.base import TargetFailure, TransportFailure

Action = Literal["retry", "error", "refusal", "invalid_output", "ok"]
MAX_MESSAGE_CHARS = 2000
TRANSPORT_STATUSES = frozenset({408, 429})
# Shapes of well-known API keys, scrubbed even when we don't hold the key itself.
_KEY_PATTERNS = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|vck_[A-Za-z0-9_\-]{8,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-]{8,})"
)


class Decision(msgspec.Struct, frozen=True):
    """What one reply means. ``message`` is already scrubbed and truncated."""

    action: Action
    message: str = ""
    status: int | None = None
    retry_after: float | None = None


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove every secret (and anything shaped like an API key) from ``text``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _KEY_PATTERNS.sub("***", text)


def truncate(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Keep the start of a long text, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more chars]"


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds (fractions accepted) or an HTTP-date.

    A date in the past gives 0; anything unreadable gives None (use backoff).
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        parsed = None
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if parsed is None or parsed.tzinfo is None:
            return None
        current = time.time() if now is None else now
        return max(0.0, parsed.timestamp() - current)
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return None
    return seconds


def classify_status(status: int, headers: Mapping[str, str], message: str, secrets: Iterable[str] = ()) -> Decision:
    """A non-2xx HTTP status -> retry (408, 429, 5xx) or error (everything else)."""
    text = truncate(scrub(message.strip() or f"HTTP {status}", secrets))
    if status in TRANSPORT_STATUSES or status >= 500:
        return Decision(
            "retry",
            f"HTTP {status}: {text}",
            status=status,
            retry_after=parse_retry_after(headers.get("Retry-After")),
        )
    return Decision("error", f"HTTP {status}: {text}", status=status)


def model_matches(pinned: str, answered: str | None, *, strip_prefix: bool = False) -> bool:
    """Is ``answered`` the pinned model? (docs/targets.md, "Pinned models").

    Equal ids match. So does a dated snapshot of the pinned alias
    (``gpt-4o`` -> ``gpt-4o-2024-08-06``, ``claude-sonnet-4-5`` ->
    ``claude-sonnet-4-5-20250929``), which OpenAI and Anthropic document as what
    an alias resolves to. ``models/`` (Gemini) and, for the gateway, the
    ``provider/`` prefix are ignored. A missing model id can't be checked and is
    accepted. Anything else is a different model: no silent fallback.
    """
    if not answered or answered == pinned:
        return True

    def norm(model: str) -> str:
        model = model.strip().removeprefix("models/")
        if strip_prefix:  # gateway: "anthropic/claude-sonnet-4.5" may answer "claude-sonnet-4-5-..."
            model = model.split("/", 1)[-1].replace(".", "-")
        return model.lower()

    p, a = norm(pinned), norm(answered)
    if a == p:
        return True
    if a.startswith(p + "-"):
        suffix = a[len(p) + 1 :]
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}|\d{8}", suffix))
    return False


def raise_for(decision: Decision, usage: Usage | None = None) -> None:
    """Turn a decision into the exception the runner expects (no-op for ``ok``)."""
    if decision.action == "ok":
        return
    if decision.action == "retry":
        raise TransportFailure(decision.message, status=decision.status, retry_after=decision.retry_after)
    raise TargetFailure(decision.action, decision.message, usage=usage)
