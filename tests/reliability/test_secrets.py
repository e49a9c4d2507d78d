"""API keys come from the environment only and never reach an artefact.

A whole ``rabench run`` (then ``rabench score`` and ``rabench targets check``)
uses one recognisable fake key for every provider, against servers on loopback
that fail in every way a real provider does: 401 and 403 quoting the key back
(as some providers do), 503 until the runner gives up, malformed bodies,
unreadable answers, connection resets, and a hostile OpenAI-compatible server
that echoes every request header into its answers and error bodies. Then every
file the run, the scorer and the CLI wrote, and everything they printed, is
searched for the key (whole, and its distinctive tail). It must not appear.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from aiohttp import web

from relhostile import receipt_png
from relrun import ROOT, child_env, outcomes, rabench_cmd, run_measured, write_suite
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile

pytestmark = pytest.mark.slow  # one run, one score and one live check in subprocesses: ~10-20 s

KEY = "sk-test-SECRET-1234567890"
TAIL = "SECRET-1234567890"
CONFIG_KEY = "sk-test-CONFIGFILE-0987654321"
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_COMPATIBLE_API_KEY", "ECHO_API_KEY")
FAST = Latency(ms=1)
MODELS = {
    "ok-model": ModelProfile(latency=FAST),
    "auth-model": ModelProfile(latency=FAST, mix={"401": 1.0}, echo_key=True),
    "forbidden-model": ModelProfile(latency=FAST, mix={"403": 1.0}, echo_key=True),
    "server-model": ModelProfile(latency=FAST, mix={"503": 1.0}, retry_after="0"),
    "broken-model": ModelProfile(latency=FAST, mix={"malformed": 1.0}),
    "unreadable-model": ModelProfile(latency=FAST, mix={"unreadable": 1.0}),
    "reset-model": ModelProfile(latency=FAST, script=["reset", "reset"], retry_after="0"),
}
TARGETS = {
    "diy:openai:ok-model": "ok",
    "diy:openai:auth-model": "error",
    "diy:anthropic:forbidden-model": "error",
    "diy:gemini:server-model": "error",
    "diy:openai-compatible:broken-model": "invalid_output",
    "diy:openai-compatible:unreadable-model": "invalid_output",
    "diy:openai:reset-model": "ok",
    "diy:echo:echo-model": "ok",
    "diy:echo:echo-error-model": "error",
    "diy:echo:echo-garbage-model": "invalid_output",
}


class EchoServer:
    """A hostile OpenAI-compatible server: it puts the request's headers into whatever it answers."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.port = 0
        self.seen_auth: list[str] = []

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        headers = dict(request.headers)
        self.seen_auth.append(headers.get("Authorization", ""))
        model = body.get("model")
        if model == "echo-error-model":
            return web.Response(status=400, text=f"bad request; you sent {headers}")
        answer = {
            "merchant": headers.get("Authorization", ""),
            "total": 8.5,
            "currency": "USD",
            "risk": 0.2,
            "reasons": [f"request headers were {headers}", f"key {headers.get('Authorization', '')[7:]}"],
        }
        text = json.dumps(answer) if model == "echo-model" else f"not json at all, but {headers}"
        return web.json_response(
            {
                "id": "x",
                "object": "chat.completion",
                "model": model,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10},
            }
        )

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def __enter__(self) -> EchoServer:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture(scope="module")
def secret_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("secrets")
    suite = write_suite(tmp / "suite", [(f"c{i}", f"r{i}.png", receipt_png(i), "image/png") for i in range(3)])
    profile = Profile(seed=3, models=MODELS)
    logs: list[Path] = []
    with BackgroundFakeProvider(profile) as fake, EchoServer() as echo:
        config = tmp / "targets.toml"
        config.write_text(
            "[defaults]\ntimeout_s = 20\n"
            '[providers.echo]\nwire = "openai-compatible"\n'
            f'base_url = "http://127.0.0.1:{echo.port}/v1"\napi_key_env = "ECHO_API_KEY"\ncheck_model = false\n'
        )
        env = child_env({**fake.env(), **{var: KEY for var in KEY_VARS}})
        steps = {
            "run": rabench_cmd(
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp / "run"),
                "--config",
                str(config),
                "--progress",
                "plain",
                "--log-every",
                "0.2",
                "--cache",
                str(tmp / "cache"),
                *[a for t in TARGETS for a in ("--target", t)],
            ),
            "score": rabench_cmd("score", str(tmp / "run"), "--out", str(tmp / "report")),
            "check": rabench_cmd(
                "targets",
                "check",
                "--config",
                str(config),
                "--target",
                "diy:openai:auth-model",
                "--target",
                "diy:echo:echo-error-model",
                "--target",
                "diy:echo:echo-model",
            ),
        }
        done = {}
        for name, cmd in steps.items():
            out, err = tmp / f"{name}.stdout", tmp / f"{name}.stderr"
            done[name] = run_measured(cmd, env=env, cwd=ROOT, timeout_s=120, stdout_path=out, stderr_path=err)
            logs += [out, err]
        sent = [r.headers for r in fake.requests]
        echo_auth = list(echo.seen_auth)
    return tmp, done, logs, sent, echo_auth


def _artefacts(tmp: Path) -> list[Path]:
    files = [p for p in tmp.rglob("*") if p.is_file() and "suite" not in p.parts]
    return files


def test_the_run_exercised_every_failure(secret_run):
    tmp, done, _, sent, echo_auth = secret_run
    # targets whose every call failed make the run exit 1, each named in its own line on stderr
    assert done["run"].rc == 1, done["run"].stderr[-2000:]
    failed = [t for t, s in TARGETS.items() if s == "error"]
    named = [line.split(": ")[1] for line in done["run"].stderr.splitlines() if line.startswith("rabench: diy:")]
    assert sorted(named) == sorted(failed), named
    statuses = {}
    for o in outcomes(tmp / "run"):
        statuses.setdefault(o.target, set()).add(o.status)
    assert statuses == {t: {s} for t, s in TARGETS.items()}
    # the key really went out, in each provider's own header, so there was something to leak
    assert any(h.get("authorization") == f"Bearer {KEY}" for h in sent)
    assert any(h.get("x-api-key") == KEY for h in sent)
    assert any(h.get("x-goog-api-key") == KEY for h in sent)
    assert echo_auth and all(a == f"Bearer {KEY}" for a in echo_auth)


def test_no_artefact_or_output_contains_the_key(secret_run):
    tmp, done, logs, _, _ = secret_run
    assert done["score"].rc == 0, done["score"].stderr[-2000:]
    assert (tmp / "report" / "rows.json").is_file() and (tmp / "report" / "report.md").is_file()
    files = _artefacts(tmp)
    names = {p.name for p in files}
    assert {
        "outcomes.jsonl",
        "run.json",
        "rows.json",
        "report.md",
        "run.stdout",
        "run.stderr",
        "check.stdout",
        "score.stdout",
    } <= names
    leaks = [str(p.relative_to(tmp)) for p in files if TAIL.encode() in p.read_bytes()]
    assert leaks == []


def test_failures_still_say_what_went_wrong(secret_run):
    tmp, done, _, _, _ = secret_run
    by = {}
    for o in outcomes(tmp / "run"):
        by.setdefault(o.target, o)
    assert "401" in by["diy:openai:auth-model"].error and "***" in by["diy:openai:auth-model"].error
    assert "403" in by["diy:anthropic:forbidden-model"].error
    assert by["diy:gemini:server-model"].attempts == 4
    assert by["diy:openai:reset-model"].attempts == 3
    assert "400" in by["diy:echo:echo-error-model"].error
    assert "check" in done and done["check"].rc in (0, 1)  # the live check ran and reported, without a traceback
    assert "Traceback" not in done["check"].stderr + done["run"].stderr


def test_a_key_written_in_the_config_file_is_never_used(tmp_path):
    """Keys come from the environment only: one put in bench/targets.toml is not sent anywhere."""
    suite = write_suite(tmp_path / "suite", [("c0", "r0.png", receipt_png(0), "image/png")])
    config = tmp_path / "targets.toml"
    config.write_text(f'[providers.openai]\napi_key = "{CONFIG_KEY}"\napi_key_env = "RABENCH_TEST_UNSET_KEY"\n')
    with BackgroundFakeProvider(Profile(models={"gpt-5": ModelProfile(latency=FAST)})) as fake:
        env = child_env(fake.env())
        done = run_measured(
            rabench_cmd(
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp_path / "run"),
                "--config",
                str(config),
                "--target",
                "diy:openai:gpt-5",
                "--progress",
                "none",
                "--cache",
                str(tmp_path / "cache"),
            ),
            env=env,
            cwd=ROOT,
            timeout_s=60,
            stdout_path=tmp_path / "o.txt",
            stderr_path=tmp_path / "e.txt",
        )
        sent = [r.headers for r in fake.requests]
    if done.rc == 0:  # ran without a key: the fake refused it, and never saw the config file's key
        assert [o.status for o in outcomes(tmp_path / "run")] == ["error"]
        assert all(CONFIG_KEY not in json.dumps(h) for h in sent)
    else:  # or refused to start for want of a key, in one line
        assert done.rc == 2 and "Traceback" not in done.stderr
    for p in tmp_path.rglob("*"):
        if p.is_file() and p.name != "targets.toml":
            assert CONFIG_KEY.encode() not in p.read_bytes(), p
