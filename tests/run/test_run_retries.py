"""Exactly transport failures are retried, at most 3 times, Retry-After honoured; timeouts cut hung calls."""

import time

import anyio
import pytest

from rabench.contracts import Usage, Verdict
from rabench.run.outcomes import read_outcomes
from rabench.run.retry import RetryDecision, RetryPolicy, decide
from rabench.targets.base import TargetFailure, TransportFailure
from runfakes import FAST_RETRY, FakeTarget, HttpTarget, LoopbackServer, run_fake
from runsuite import make_suite


def _outcomes(run_dir):
    return {o.case_id: o for o in read_outcomes(run_dir / "outcomes.jsonl")}


def test_decision_retries_only_transport_failures_and_caps_retry_after():
    policy = RetryPolicy(retry_after_cap_s=10)
    assert decide(TransportFailure("x", status=503), policy) == RetryDecision(True, None, "HTTP 503")
    assert decide(TransportFailure("x", status=429, retry_after=2.5), policy).wait_s == 2.5
    assert decide(TransportFailure("x", status=429, retry_after=999), policy).wait_s == 10
    for exc in (TargetFailure("refusal", "no"), TargetFailure("invalid_output", "?"), ValueError("v"), TimeoutError()):
        assert decide(exc, policy).retry is False


def test_each_kind_of_failure_gets_its_status_and_attempt_count(tmp_path):
    suite = make_suite(tmp_path / "s", 7)
    spent = Usage(model="m", input_tokens=10, output_tokens=5, cost_usd=0.01)

    def behaviour(request, attempt):
        cid = request.case_id
        if cid == "c00000":
            return Verdict(risk=0.2, usage=spent)
        if cid == "c00001":  # flaky: two 503s then an answer
            if attempt <= 2:
                raise TransportFailure("HTTP 503", status=503)
            return Verdict(risk=0.9)
        if cid == "c00002":  # always overloaded
            raise TransportFailure("HTTP 529 overloaded", status=529)
        if cid == "c00003":
            raise TargetFailure("refusal", "I can't help with that", usage=spent)
        if cid == "c00004":
            raise TargetFailure("invalid_output", "not JSON: {oops")
        if cid == "c00005":
            raise KeyError("crash inside the target")
        raise TargetFailure("error", "HTTP 400 bad request")

    t = FakeTarget(behaviour=behaviour)
    run_fake(suite, tmp_path / "r", [t])
    o = _outcomes(tmp_path / "r")
    got = {cid: (x.status, x.attempts) for cid, x in o.items()}
    assert got == {
        "c00000": ("ok", 1),
        "c00001": ("ok", 3),
        "c00002": ("error", 4),
        "c00003": ("refusal", 1),
        "c00004": ("invalid_output", 1),
        "c00005": ("error", 1),
        "c00006": ("error", 1),
    }
    assert t.attempts[("c00002", 0)] == 4  # the target really saw 4 calls, not more
    assert "after 4 attempts" in o["c00002"].error and "529" in o["c00002"].error
    assert o["c00000"].usage == spent and o["c00003"].usage == spent  # usage copied, also on failure
    assert "KeyError" in o["c00005"].error and "\n" not in o["c00005"].error
    assert o["c00001"].verdict.risk == 0.9


def test_retry_after_from_a_real_http_server_is_honoured(tmp_path):
    suite = make_suite(tmp_path / "s", 2)

    def handler(body, hit):
        if body["case_id"] == "c00000" and hit <= 2:
            return 429, {"Retry-After": "0.3"}, {"error": "slow down"}
        if body["case_id"] == "c00001":
            return 400, {}, {"error": "bad image"}
        return 200, {}, {"risk": 0.5}

    with LoopbackServer(handler) as server:
        run_fake(suite, tmp_path / "r", [HttpTarget(server.url)], policy=FAST_RETRY)
        hits = dict(server.hits)
    o = _outcomes(tmp_path / "r")
    assert (o["c00000"].status, o["c00000"].attempts) == ("ok", 3)
    assert (o["c00001"].status, o["c00001"].attempts) == ("error", 1)  # 400 is not retried
    assert hits == {"c00000": 3, "c00001": 1}


def test_retry_after_wait_is_measured_between_attempts(tmp_path):
    suite = make_suite(tmp_path / "s", 1)

    def behaviour(request, attempt):
        if attempt <= 2:
            raise TransportFailure("HTTP 429", status=429, retry_after=0.25)
        return Verdict()

    t = FakeTarget(behaviour=behaviour)
    run_fake(suite, tmp_path / "r", [t])
    starts = [s for _, _, s, _ in t.calls]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert len(gaps) == 2 and all(0.24 <= g < 3.0 for g in gaps), gaps


def test_a_hung_attempt_is_cut_at_the_timeout_and_not_retried(tmp_path):
    suite = make_suite(tmp_path / "s", 3)

    async def behaviour(request, attempt):
        if request.case_id == "c00001":
            await anyio.sleep(3600)
        return Verdict()

    t = FakeTarget(behaviour=behaviour)
    t0 = time.monotonic()
    run_fake(suite, tmp_path / "r", [t], timeout_s=0.3)
    assert time.monotonic() - t0 < 20  # not an hour
    o = _outcomes(tmp_path / "r")
    assert (o["c00001"].status, o["c00001"].attempts) == ("timeout", 1)
    assert 0.29 <= o["c00001"].latency_s < 3.0
    assert "0.3 s" in o["c00001"].error
    assert {o["c00000"].status, o["c00002"].status} == {"ok"}


def test_a_backing_off_call_does_not_hold_the_providers_slot(tmp_path):
    suite = make_suite(tmp_path / "s", 2)

    def behaviour(request, attempt):
        if request.case_id == "c00000" and attempt == 1:
            raise TransportFailure("HTTP 429", status=429, retry_after=0.5)
        return Verdict()

    t = FakeTarget(behaviour=behaviour)
    run_fake(suite, tmp_path / "r", [t], concurrency=1)
    o = _outcomes(tmp_path / "r")
    # with one slot, c00001 could only finish first if c00000's backoff left the slot free
    assert o["c00001"].finished_at < o["c00000"].finished_at
    assert o["c00000"].attempts == 2


@pytest.mark.parametrize("retries", [0, 1])
def test_fewer_retries_when_asked(tmp_path, retries):
    suite = make_suite(tmp_path / "s", 1)

    def behaviour(request, attempt):
        raise TransportFailure("connection reset")

    t = FakeTarget(behaviour=behaviour)
    run_fake(suite, tmp_path / "r", [t], policy=RetryPolicy(max_retries=retries, wait_initial_s=0.01, wait_jitter_s=0))
    o = _outcomes(tmp_path / "r")["c00000"]
    assert (o.status, o.attempts) == ("error", retries + 1)


def test_a_timeout_error_raised_by_the_target_itself_is_an_error_not_our_timeout(tmp_path):
    suite = make_suite(tmp_path / "s", 1)

    def behaviour(request, attempt):
        raise TimeoutError("socket read timed out")

    run_fake(suite, tmp_path / "r", [FakeTarget(behaviour=behaviour)], timeout_s=30)
    o = _outcomes(tmp_path / "r")["c00000"]
    assert (o.status, o.attempts) == ("error", 1) and "socket read timed out" in o.error
