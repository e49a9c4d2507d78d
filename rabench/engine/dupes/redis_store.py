"""The duplicate network on Redis, for work spread over processes or machines.

Same contract as ``MemoryStore`` (store.py): the backend returns candidates by key (file hash,
pixel hash, receipt number, date, total; the last ``MAX_CANDIDATES`` per key, oldest first), the
decision is the shared pure function (match.py). Only the candidate query is Redis-specific.

Atomic across processes without re-writing the decision in Lua: optimistic concurrency in two
scripts. ``_LOOKUP`` reads the candidates and the length of every key list this fingerprint
touches; when there are none it adds the fingerprint right away (one round trip: most receipts
share no key with anything earlier). Otherwise the caller decides in Python and ``_COMMIT`` adds
the fingerprint only if none of those lists grew meanwhile, else the caller looks again. A
fingerprint can only match one it shares a key with, so an unchanged set of lists means the
lookup saw exactly what a single process would have seen at the moment of the add: the result is
the single-process order of the commits, whatever the number of workers.

Namespaced per run and repetition: every key starts ``rabench:{<run_id>}:<rep>:`` (the braces are
a Redis Cluster hash tag: one run's keys share a slot, as multi-key scripts require). ``clear()``
empties the namespace, the spec's "empty backend that lives for one repetition"; keys also carry
a TTL renewed on every add, so a run killed before its clean-up does not leave them forever.
"""

from __future__ import annotations

import threading
from typing import Any

import msgspec
import redis

from rabench.engine.dupes.fingerprint import Fingerprint
from rabench.engine.dupes.match import Match
from rabench.engine.dupes.store import MAX_CANDIDATES, _choose

KEY_TTL_MS = 7 * 24 * 3600 * 1000  # renewed on every add; only matters for a run that died
MAX_RETRIES = 1000  # look-again attempts when other workers keep adding to the same keys

# KEYS[1] = fingerprint hash (id -> blob), KEYS[2] = id counter, KEYS[3..] = index lists.
# ARGV[1] = candidates per key, ARGV[2] = blob to add, ARGV[3] = TTL in ms.
_ADD = """
local function add()
  local id = redis.call('INCR', KEYS[2])
  redis.call('HSET', KEYS[1], id, ARGV[2])
  for i = 3, #KEYS do
    redis.call('RPUSH', KEYS[i], id)
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
"""

_LOOKUP = (
    _ADD
    + """
local seen, ids, lens = {}, {}, {}
for i = 3, #KEYS do
  local n = redis.call('LLEN', KEYS[i])
  lens[#lens + 1] = n
  if n > 0 then
    for _, id in ipairs(redis.call('LRANGE', KEYS[i], -tonumber(ARGV[1]), -1)) do
      if not seen[id] then
        seen[id] = true
        ids[#ids + 1] = tonumber(id)
      end
    end
  end
end
if #ids == 0 then
  add()
  return {1}
end
table.sort(ids)
local blobs = {}
for start = 1, #ids, 1000 do
  local chunk = {}
  for j = start, math.min(start + 999, #ids) do chunk[#chunk + 1] = ids[j] end
  for _, blob in ipairs(redis.call('HMGET', KEYS[1], unpack(chunk))) do blobs[#blobs + 1] = blob end
end
return {0, lens, blobs}
"""
)

# ARGV[4..] = the list lengths the lookup saw, one per index list.
_COMMIT = (
    _ADD
    + """
for i = 3, #KEYS do
  if redis.call('LLEN', KEYS[i]) ~= tonumber(ARGV[i + 1]) then return 0 end
end
add()
return 1
"""
)

_ENTRY = msgspec.msgpack.Encoder()
_DECODE = msgspec.msgpack.Decoder(tuple[str, Fingerprint])


def namespace(run_id: str, repetition: int) -> str:
    """The key prefix of one run's repetition."""
    return f"rabench:{{{run_id}}}:{repetition}:"


def index_keys(prefix: str, fp: Fingerprint) -> list[str]:
    """The lists this fingerprint is filed under (the keys MemoryStore files it under)."""
    keys = [f"{prefix}i:sha256:{fp.sha256}"]
    if fp.pixels:
        keys.append(f"{prefix}i:pixels:{fp.pixels}")
    keys += [f"{prefix}i:{k}:{v}" for k in ("receipt_number", "date", "total") if (v := getattr(fp, k)) is not None]
    return keys


class RedisStore:
    """A ``DuplicateStore`` in one Redis namespace (``rabench:{run_id}:<rep>:``)."""

    def __init__(self, url: str, run_id: str, repetition: int, *, client: redis.Redis | None = None) -> None:
        self.url = url
        self.prefix = namespace(run_id, repetition)
        self._own_client = client is None
        self._client: redis.Redis = client if client is not None else redis.Redis.from_url(url)
        self._lookup = self._client.register_script(_LOOKUP)
        self._commit = self._client.register_script(_COMMIT)
        self._lock = threading.Lock()
        self.retries = 0  # commits refused because another worker added to the same keys first

    def ping(self) -> None:
        """Raise ``redis.RedisError`` when the server cannot be reached."""
        self._client.ping()

    def lookup_and_add(self, fp: Fingerprint, ref: str) -> Match | None:
        keys = [self.prefix + "fp", self.prefix + "seq", *index_keys(self.prefix, fp)]
        blob = _ENTRY.encode((ref, fp))
        for _ in range(MAX_RETRIES):
            reply: list[Any] = self._lookup(keys=keys, args=[MAX_CANDIDATES, blob, KEY_TTL_MS])
            if reply[0] == 1:
                return None
            lens, blobs = reply[1], reply[2]
            candidates = [_DECODE.decode(b) for b in blobs if b is not None]
            match = _choose(fp, ref, candidates)
            if self._commit(keys=keys, args=[MAX_CANDIDATES, blob, KEY_TTL_MS, *lens]) == 1:
                return match
            with self._lock:
                self.retries += 1
        raise RuntimeError(f"duplicate store {self.url}: {ref} could not be added after {MAX_RETRIES} attempts")

    def __len__(self) -> int:
        return int(self._client.hlen(self.prefix + "fp"))

    def clear(self) -> int:
        """Delete every key of this namespace; the number deleted."""
        deleted = 0
        batch: list[bytes] = []
        for key in self._client.scan_iter(match=_glob_escape(self.prefix) + "*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                deleted += int(self._client.unlink(*batch))
                batch = []
        if batch:
            deleted += int(self._client.unlink(*batch))
        return deleted

    def close(self) -> None:
        if self._own_client:
            self._client.close()


def _glob_escape(text: str) -> str:
    """``text`` as a literal in a SCAN MATCH pattern (run ids may hold ``[``, ``*``, ``?``)."""
    return "".join("\\" + c if c in "\\*?[]" else c for c in text)
