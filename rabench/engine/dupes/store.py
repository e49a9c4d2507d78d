"""Duplicate stores: one small protocol, an in-memory backend (the benchmark's) and SQLite (real use).

Why candidates by key: a match (other than an exact one) needs at least two of
date / total / receipt number / item amounts to agree (match.py), so every
possible match shares the file hash, the receipt number, the date or the total
with the new receipt. Backends only have to return those candidates; the
decision is the same pure function everywhere, so a later backend (e.g. Redis
for a fleet) is a new candidate query, not a new rule.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Protocol

from rabench.engine.dupes.fingerprint import FINGERPRINT_VERSION, Fingerprint
from rabench.engine.dupes.match import Match, best, decide

MAX_CANDIDATES = 5000


class DuplicateStore(Protocol):
    def lookup_and_add(self, fp: Fingerprint, ref: str) -> Match | None:
        """The best match among earlier submissions (other than ``ref`` itself), then remember ``fp``."""
        ...


def _choose(fp: Fingerprint, ref: str, candidates: list[tuple[str, Fingerprint]]) -> Match | None:
    found = [m for r, old in candidates if r != ref for m in [decide(fp, old, r)] if m is not None]
    return best(found)


class MemoryStore:
    """In-process store; the benchmark makes a new one per repetition (spec: empty per repetition)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._all: list[tuple[str, Fingerprint]] = []
        self._by: dict[tuple[str, object], list[int]] = {}

    def __len__(self) -> int:
        return len(self._all)

    @staticmethod
    def _keys(fp: Fingerprint) -> list[tuple[str, object]]:
        keys: list[tuple[str, object]] = [("sha256", fp.sha256)]
        if fp.pixels:
            keys.append(("pixels", fp.pixels))
        keys += [(k, v) for k in ("receipt_number", "date", "total") if (v := getattr(fp, k)) is not None]
        return keys

    def lookup_and_add(self, fp: Fingerprint, ref: str) -> Match | None:
        with self._lock:
            idx: set[int] = set()
            for key in self._keys(fp):
                idx.update(self._by.get(key, ())[-MAX_CANDIDATES:])
            match = _choose(fp, ref, [self._all[i] for i in sorted(idx)])
            self._all.append((ref, fp))
            for key in self._keys(fp):
                self._by.setdefault(key, []).append(len(self._all) - 1)
            return match


_SCHEMA = """
CREATE TABLE IF NOT EXISTS fingerprints (
  id INTEGER PRIMARY KEY,
  ref TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  phash INTEGER NOT NULL,           -- signed 64-bit view of the unsigned hash
  merchant TEXT NOT NULL,
  date TEXT,
  total INTEGER,
  subtotal INTEGER,
  tax_total INTEGER,
  receipt_number TEXT,
  items TEXT NOT NULL,              -- JSON list of cents
  version INTEGER NOT NULL,
  added_at REAL NOT NULL,
  pixels TEXT NOT NULL DEFAULT ''   -- sha256 of the decoded image (fingerprint version 2)
);
CREATE INDEX IF NOT EXISTS fp_sha ON fingerprints(sha256);
CREATE INDEX IF NOT EXISTS fp_px ON fingerprints(pixels);
CREATE INDEX IF NOT EXISTS fp_rn ON fingerprints(receipt_number);
CREATE INDEX IF NOT EXISTS fp_date ON fingerprints(date);
CREATE INDEX IF NOT EXISTS fp_total ON fingerprints(total);
"""
_COLS = "ref, sha256, phash, merchant, date, total, subtotal, tax_total, receipt_number, items, version, pixels"


def _signed(u: int) -> int:
    return u - (1 << 64) if u >= (1 << 63) else u


def _unsigned(s: int) -> int:
    return s + (1 << 64) if s < 0 else s


class SqliteStore:
    """Persistent store in one SQLite file (WAL; safe for several processes on one machine)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        cols = {r[1] for r in self._db.execute("PRAGMA table_info(fingerprints)")}
        if cols and "pixels" not in cols:  # a store written by fingerprint version 1
            self._db.execute("ALTER TABLE fingerprints ADD COLUMN pixels TEXT NOT NULL DEFAULT ''")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM fingerprints").fetchone()[0]

    def lookup_and_add(self, fp: Fingerprint, ref: str) -> Match | None:
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")  # serialise lookup+add across processes
            try:
                conds, args = ["sha256 = ?"], [fp.sha256]
                if fp.pixels:
                    conds.append("pixels = ?")
                    args.append(fp.pixels)
                for col in ("receipt_number", "date", "total"):
                    v = getattr(fp, col)
                    if v is not None:
                        conds.append(f"{col} = ?")
                        args.append(v)
                rows = db.execute(
                    f"SELECT {_COLS} FROM fingerprints WHERE version = ? AND ({' OR '.join(conds)}) "
                    f"ORDER BY id DESC LIMIT {MAX_CANDIDATES}",
                    [FINGERPRINT_VERSION, *args],
                ).fetchall()
                match = _choose(fp, ref, [(r[0], _row_fp(r)) for r in rows])
                db.execute(
                    f"INSERT INTO fingerprints ({_COLS}, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        ref,
                        fp.sha256,
                        _signed(fp.phash),
                        fp.merchant,
                        fp.date,
                        fp.total,
                        fp.subtotal,
                        fp.tax_total,
                        fp.receipt_number,
                        json.dumps(list(fp.items)),
                        fp.version,
                        fp.pixels,
                        time.time(),
                    ),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return match


def _row_fp(r: tuple) -> Fingerprint:
    return Fingerprint(
        sha256=r[1],
        phash=_unsigned(r[2]),
        merchant=r[3],
        date=r[4],
        total=r[5],
        subtotal=r[6],
        tax_total=r[7],
        receipt_number=r[8],
        items=tuple(json.loads(r[9])),
        version=r[10],
        pixels=r[11],
    )
