"""``rabench load`` with a DIY target: the connection pool follows --concurrency (not the config's
8), and time spent waiting for a slot is reported apart from the call latency."""

from __future__ import annotations

import msgspec
from diyfakes import KEYS

from rabench.cli.main import main
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile


def test_load_pool_follows_concurrency_and_slot_wait_is_separate(tmp_path, monkeypatch, capsys):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "targets.toml"
    config.write_text("[defaults]\nconcurrency = 2\n")  # the config says 2; the flag says 16
    profile = Profile(default=ModelProfile(latency=Latency(ms=60)))
    with BackgroundFakeProvider(profile) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        assert main(["load", "--target", "diy:openai:gpt-5", "--concurrency", "16", "--calls", "64",
                     "--config", str(config), "--json", "--cache", str(tmp_path / "cache")]) == 0
        peers = {r.peer for r in fake.requests}
    summary = msgspec.json.decode(capsys.readouterr().out)
    assert summary["statuses"] == {"ok": 64}
    assert len(peers) == 16  # 16 sockets: every call in flight had its own connection
    assert summary["p50_s"] < 0.5  # no queueing for a socket inside the client
    assert summary["wait_max_s"] < 0.05  # as many workers as slots: nobody waited for one

    with BackgroundFakeProvider(profile) as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        assert main(["load", "--target", "diy:openai:gpt-5", "--concurrency", "4", "--calls", "8",
                     "--rpm", "240", "--config", str(config), "--cache", str(tmp_path / "cache")]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("waiting for a slot"))
    assert "p95" in line and not line.endswith("max 0.0 ms")  # 4 a second: later calls waited
