"""The response cache: a model's answer to one prepared image, kept across runs (opt-in).

Why: a study grows (more cases, one more target); re-asking every model about every
receipt it already answered costs money and time and changes nothing. With
``rabench run --cache-responses`` a unit whose question was already answered is
written from the cache instead, marked ``cached: true`` in its outcome, and the
scorer leaves it out of the latency and cost rows (nothing was measured or paid).

Key: sha256 over (provider, model, prompt version, sha256 of the prepared image's
bytes, the request parameters, repetition). The request parameters are the target's
recorded settings minus those that change no request (key variable names, pool
sizes, prices). The repetition is in the key so that ``--repeat 3`` still asks three
times: the n-th repetition reuses the n-th stored answer, never the first one thrice.
Only ``ok`` answers are stored: an error, a timeout or a refusal is asked again.

Only targets that ask a pinned model a versioned prompt (``TargetInfo.model`` and
``prompt_version`` set: the DIY targets) are cached; ``self`` and ``null`` never are.

Storage: one SQLite file (default ``$RABENCH_CACHE/responses.sqlite``, else
``.cache/responses.sqlite``), WAL mode, one row per answer; a lookup is one indexed
SELECT (tens of microseconds), so the cache never needs to be "warmed".
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import msgspec

from rabench.contracts import TargetInfo, Usage, Verdict

# Settings that change no request: left out of the key.
NOT_REQUEST = frozenset(
    {
        "api_key_env",
        "concurrency",
        "rpm",
        "price_key",
        "price_input_per_mtok",
        "price_output_per_mtok",
        "price_date",
        "connect_timeout_s",
    }
)


def default_path() -> Path:
    env = os.environ.get("RABENCH_CACHE")
    return Path(env) / "responses.sqlite" if env else Path(".cache") / "responses.sqlite"


def cacheable(info: TargetInfo) -> bool:
    return bool(info.model) and bool(info.prompt_version)


def target_part(info: TargetInfo) -> bytes:
    """The target's share of the key: provider, model, prompt version, request parameters."""
    params = {k: v for k, v in sorted(info.settings.items()) if k not in NOT_REQUEST}
    return msgspec.json.encode([info.provider, info.model, info.prompt_version, params])


def cache_key(target: bytes, image_sha256: str, repetition: int) -> str:
    h = hashlib.sha256(target)
    h.update(f"|{image_sha256}|{repetition}".encode())
    return h.hexdigest()


class Cached(msgspec.Struct, frozen=True):
    verdict: Verdict
    usage: Usage | None = None


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Cached).decode


class ResponseCache:
    """``get(key)`` / ``put(key, verdict, usage)`` over one SQLite file; ``image_sha256(path)``
    hashes a prepared image's bytes once per file and process."""

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")  # two runs may share the file
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, answer BLOB NOT NULL, stored_at REAL NOT NULL)"
        )
        self._hashes: OrderedDict[str, str] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.stored = 0

    def image_sha256(self, path: Path) -> str:
        key = str(path)
        sha = self._hashes.get(key)
        if sha is None:
            with open(path, "rb") as fh:
                sha = hashlib.file_digest(fh, "sha256").hexdigest()
            self._hashes[key] = sha
            if len(self._hashes) > 65536:
                self._hashes.popitem(last=False)
        return sha

    def get(self, key: str) -> Cached | None:
        row = self._db.execute("SELECT answer FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        try:
            found = _decode(row[0])
        except (msgspec.ValidationError, msgspec.DecodeError):  # written by another contracts version
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, key: str, verdict: Verdict, usage: Usage | None) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, answer, stored_at) VALUES (?, ?, ?)",
            (key, _encode(Cached(verdict=verdict, usage=usage)), time.time()),
        )
        self.stored += 1

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
