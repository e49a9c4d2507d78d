"""``rabench fake-provider``: serve the fake model provider until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import msgspec

from rabench.errors import UserError


async def _serve(args: argparse.Namespace) -> None:
    from rabench.fakeprovider import FakeProvider, load_profile, load_suite_labels

    profile = load_profile(args.profile)
    if args.seed is not None:
        profile = msgspec.structs.replace(profile, seed=args.seed)
    labels = {}
    if args.suite:
        if not (Path(args.suite) / "manifest.jsonl").is_file():
            raise UserError(f"--suite {args.suite}: no manifest.jsonl there")
        labels = await asyncio.to_thread(load_suite_labels, Path(args.suite))
    # nothing reads a served fake's request log: keeping it would grow without end over a long load run
    fake = FakeProvider(profile, labels=labels, host=args.host, port=args.port, record=False)
    try:
        await fake.start()
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    print(
        f"fake provider on {fake.url} (profile {profile.name}, seed {profile.seed}, "
        f"{len(labels)} labelled images); point targets at it with:",
        flush=True,
    )
    for name, value in fake.env().items():
        print(f"  export {name}={value}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await fake.stop()


def _run(args: argparse.Namespace) -> int:
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        print("fake provider stopped", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fake-provider",
        help="Serve a fake model provider (OpenAI, Anthropic, Gemini wire formats) for tests and load runs.",
        description="Serve OpenAI Chat Completions (/v1/chat/completions), Anthropic Messages "
        "(/v1/messages) and Gemini generateContent (/v1beta/models/MODEL:generateContent) on one port, "
        "answering each request with a behaviour scripted by PROFILE: right / wrong / unreadable answers, "
        "refusals, a different model, malformed JSON, connection resets, hangs, 429 with Retry-After, "
        "5xx, with a latency distribution. Built-in profiles: healthy, flaky (429, 503, then an answer), "
        "slow (30 s per answer), chaos (a weighted mix); or a TOML file (docs/targets.md). Point DIY "
        "targets at it with the RABENCH_<PROVIDER>_BASE_URL variables it prints. Ctrl-C stops it.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (0 = any free port; default 8765)")
    p.add_argument("--profile", default="healthy", help="built-in profile name or TOML file (default healthy)")
    p.add_argument("--suite", help="suite folder: right answers are read from its labels")
    p.add_argument("--seed", type=int, help="override the profile's seed")
    p.set_defaults(func=_run)
