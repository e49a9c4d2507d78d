"""Error policy: which replies the runner may retry, which are recorded, and key scrubbing."""

from __future__ import annotations

import email.utils

import pytest

from rabench.targets.base import TargetFailure, TransportFailure
from rabench.targets.diy.errors import (
    Decision,
    classify_status,
    model_matches,
    parse_retry_after,
    raise_for,
    scrub,
)


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504, 529])
def test_transport_statuses_are_retried(status):
    d = classify_status(status, {}, "busy")
    assert d.action == "retry" and d.status == status


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422])
def test_client_errors_are_recorded_with_the_provider_message(status):
    d = classify_status(status, {}, "invalid_request_error: image too large")
    assert d.action == "error"
    assert "image too large" in d.message and str(status) in d.message


def test_retry_after_seconds_and_http_date():
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("0.25") == 0.25
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    for bad in (None, "", "soon", "-3", "inf"):
        assert parse_retry_after(bad) is None


def test_retry_after_header_reaches_the_transport_failure():
    d = classify_status(429, {"Retry-After": "12"}, "slow down")
    with pytest.raises(TransportFailure) as info:
        raise_for(d)
    assert info.value.status == 429 and info.value.retry_after == 12.0


def test_decisions_raise_the_runner_exceptions():
    with pytest.raises(TargetFailure) as info:
        raise_for(Decision("refusal", "no"))
    assert info.value.status == "refusal"
    raise_for(Decision("ok"))  # no exception


def test_keys_are_scrubbed_even_when_the_provider_echoes_them():
    key = "my-very-secret-key-123"
    msg = classify_status(401, {}, f"Incorrect API key provided: {key}", secrets=[key]).message
    assert key not in msg and "***" in msg
    # key shapes we don't hold are scrubbed too
    for leaked in ("sk-proj-abcdefghijklmnop", "AIzaSyA1234567890abcdefghijkl", "Bearer abcdefghijk123"):
        assert leaked not in scrub(f"echo {leaked} here")


@pytest.mark.parametrize(
    "pinned,answered,ok",
    [
        ("gpt-5", "gpt-5", True),
        ("gpt-4o", "gpt-4o-2024-08-06", True),
        ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929", True),
        ("gemini-2.5-flash", "models/gemini-2.5-flash", True),
        ("gpt-5", None, True),
        ("gpt-5", "gpt-5-mini", False),
        ("gpt-5", "gpt-4o", False),
        ("claude-sonnet-4-5", "claude-haiku-4-5-20251001", False),
        ("gpt-5", "gpt-5-2025", False),
    ],
)
def test_pinned_model_check(pinned, answered, ok):
    assert model_matches(pinned, answered) is ok


def test_gateway_ids_match_the_providers_own_ids():
    assert model_matches("openai/gpt-5", "openai/gpt-5", strip_prefix=True)
    assert model_matches("openai/gpt-5", "gpt-5-2025-08-07", strip_prefix=True)
    assert model_matches("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5-20250929", strip_prefix=True)
    assert not model_matches("openai/gpt-5", "openai/gpt-5-mini", strip_prefix=True)
