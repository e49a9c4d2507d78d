"""The ``self`` target: Receipt Audit's engine, in process.

``check`` sends the per-file work (``pipeline.analyse``) to a worker pool
sized to the cores, then, on the event loop, asks the duplicate network
whether this receipt was submitted before, scores risk from every signal and
writes the Verdict. Reasons are ordered most specific first: proofs, then
checks, file facts, plausibility, opinions; within a kind, stronger and
field-specific signals first, so a reviewer's first three reasons name what
is wrong and where (``@field`` tags).

The duplicate network is a ``MemoryStore`` emptied by ``reset(repetition)``,
as the spec requires ("an empty in-memory backend that lives for one
repetition"); ``[self] duplicate_store = "path.sqlite"`` in the config selects
the persistent SQLite store for real use, ``"redis://host:port/db"`` the Redis store
(``dupes/redis_store.py``: one namespace per target instance and repetition, emptied by
``reset`` and deleted by ``close``).

Config (``bench/targets.toml``): ``[self] workers`` (default: cores),
``ocr_max_side``, ``today`` (ISO date for plausibility), ``cost_per_check_usd``
(fallback when the price table has no ``[self]`` pack), ``risk_model`` (path).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import msgspec

from rabench.contracts import Answer, APVerdict, Capabilities, TargetInfo, TargetsConfig, Usage, Verdict
from rabench.contracts.prices import self_cost_per_check
from rabench.engine import risk as risk_mod
from rabench.engine.ocr import OcrSettings, ProcessWorkerPool, ThreadWorkerPool, WorkerPool
from rabench.engine.pipeline import Analysis, AnalyserCrash, AnalysisSettings, UnreadableFile, analyse
from rabench.engine.signals import Signal
from rabench.errors import UserError
from rabench.targets.ap_request import APRequest
from rabench.targets.base import CheckRequest, TargetFailure

KIND_ORDER = {"proof": 0, "check": 1, "file_fact": 2, "plausibility": 3, "opinion": 4}
MAX_REASONS = 12


def order_signals(signals: list[Signal]) -> list[Signal]:
    """Most specific first: by kind, then field-specific before general, then strength."""
    indexed = list(enumerate(signals))
    indexed.sort(key=lambda p: (KIND_ORDER.get(p[1].kind, 9), 0 if p[1].fields else 1, -p[1].value, p[0]))
    return [s for _, s in indexed]


def cost_per_check(config: TargetsConfig) -> float | None:
    """List price of the smallest credit pack per check (price table, ``[self]`` overrides),
    else ``[self] cost_per_check_usd``; a broken price table is an error, never None."""
    return self_cost_per_check(config)


def _make_store(config: TargetsConfig, namespace: str, repetition: int) -> Any:
    location = config.self.duplicate_store
    try:
        from rabench.engine import dupes
    except ImportError:  # the duplicate network is not built in this checkout
        return None
    if location and "://" in location:  # a redis:// URL (checked when the config was read)
        return _redis_store(location, namespace, repetition)
    return dupes.SqliteStore(Path(location)) if location else dupes.MemoryStore()


def _redis_store(url: str, namespace: str, repetition: int) -> Any:
    """An emptied Redis namespace for this target's repetition; an unreachable server is a UserError."""
    import redis

    from rabench.engine.dupes.redis_store import RedisStore

    store = RedisStore(url, namespace, repetition)
    try:
        store.ping()
        store.clear()
    except redis.RedisError as exc:
        store.close()
        raise UserError(f"[self] duplicate_store {url}: cannot reach Redis ({exc})") from None
    return store


def _drop_store(store: Any) -> None:
    """Close a store; a Redis namespace is deleted first (it lived for one repetition)."""
    clear = getattr(store, "clear", None)
    if clear is not None:
        clear()
    close = getattr(store, "close", None)
    if close is not None:
        close()


class SelfTarget:
    def __init__(
        self,
        target_id: str,
        config: TargetsConfig,
        *,
        pool: WorkerPool | None = None,
        store_namespace: str | None = None,
    ):
        section = config.self
        # A Redis duplicate store's keys are ``rabench:{<namespace>}:<rep>:``: unique per target
        # instance unless given, so two runs sharing one Redis never see (or clear) each other.
        self.store_namespace = store_namespace or uuid.uuid4().hex[:16]
        self._repetition = 0
        self._config = config
        self._section = section
        self._pool = pool
        self._own_pool = pool is None
        self._settings = AnalysisSettings(
            today=section.today,
            max_age_days=section.max_age_days if section.max_age_days is not None else AnalysisSettings().max_age_days,
        )
        self._ocr = OcrSettings(max_side=section.ocr_max_side or OcrSettings().max_side)
        model_path = section.risk_model
        self.model = risk_mod.load_model(Path(model_path) if model_path else None)
        self._cost = cost_per_check(config)
        self._store: Any = None
        self.info = TargetInfo(
            id=target_id,
            kind="self",
            capabilities=Capabilities(checks=True, memory=True, proofs=True),
            settings={
                "risk_model": {"split": self.model.split, "seed": self.model.seed, "suite": self.model.suite},
                "ocr_max_side": self._ocr.max_side,
            },
        )

    async def open(self) -> None:
        if self._pool is None:
            workers = self._section.workers
            executor = self._config.executor
            if executor.kind == "ray" and executor.address:  # the analysis on Ray actors (rabench/run/executor.py)
                from rabench.cluster.ray_pool import RayWorkerPool

                self._pool = RayWorkerPool(executor.address, self._ocr)
            elif self._section.pool == "thread":
                self._pool = ThreadWorkerPool(workers, self._ocr)
            else:
                self._pool = ProcessWorkerPool(workers, self._ocr)
        self._store = _make_store(self._config, self.store_namespace, self._repetition)

    async def reset(self, repetition: int) -> None:
        """A fresh, empty duplicate network for every repetition (spec, "Who and what")."""
        location = self._section.duplicate_store
        if location and "://" in location:
            _drop_store(self._store)
        else:
            close = getattr(self._store, "close", None)
            if close is not None and not location:
                close()
        self._repetition = repetition
        self._store = _make_store(self._config, self.store_namespace, repetition)

    async def close(self) -> None:
        location = self._section.duplicate_store
        if location and "://" in location:
            _drop_store(self._store)
            self._store = None
        else:
            close = getattr(self._store, "close", None)
            if close is not None:
                close()
        if self._pool is not None and self._own_pool:
            self._pool.close()
            self._pool = None

    async def check(self, request: CheckRequest) -> Answer:
        if self._pool is None:
            await self.open()
        assert self._pool is not None
        if isinstance(request, APRequest):  # an ap suite: the AP engine over the bundle
            return await self._check_ap(request)
        prepared = str(request.prepared) if request.prepared and Path(request.prepared).is_file() else None
        try:
            analysis: Analysis = await self._pool.submit(
                analyse,
                str(request.original),
                request.media_type,
                prepared,
                self._settings,
                request.submitted_at,
            )
        except (UnreadableFile, AnalyserCrash) as exc:
            raise TargetFailure("error", f"{Path(request.original).name}: {exc}") from None
        except FileNotFoundError as exc:
            raise TargetFailure("error", f"{Path(request.original).name}: file not found: {exc}") from None
        except Exception as exc:  # an engine bug on this file must not end the run
            raise TargetFailure(
                "error", f"{Path(request.original).name}: engine error: {type(exc).__name__}: {exc}"
            ) from None
        return self.verdict(analysis, request.case_id)

    async def _check_ap(self, request: APRequest) -> APVerdict:
        from rabench.engine.ap.engine import analyse_bundle, pool_reader

        assert self._pool is not None
        try:
            verdict = await analyse_bundle(request, pool_reader(self._pool))
        except Exception as exc:  # an engine bug on one bundle must not end the run
            raise TargetFailure("error", f"{request.case_id}: AP engine error: {type(exc).__name__}: {exc}") from None
        return (
            msgspec.structs.replace(verdict, usage=Usage(model=None, cost_usd=self._cost, model_cost_usd=0.0))
            if self._cost is not None
            else verdict
        )

    def verdict(self, analysis: Analysis, ref: str) -> Verdict:
        """Turn one file's analysis into a Verdict (duplicate lookup + risk + reasons)."""
        signals = list(analysis.signals)
        seen_before = False
        match_kind = None
        match_of = None
        if self._store is not None and analysis.fingerprint is not None:
            from rabench.engine import dupes

            match = self._store.lookup_and_add(analysis.fingerprint, ref)
            if match is not None:
                seen_before = True
                match_kind = getattr(match, "kind", None) or getattr(match, "match_kind", None)
                match_of = getattr(match, "ref", None) or getattr(match, "of", None)
                signals.append(dupes.duplicate_signal(match))
        ordered = order_signals(signals)
        ex = analysis.extraction
        return Verdict(
            fields=ex.fields,
            line_items=list(ex.line_items),
            checks=[analysis.check],
            risk=risk_mod.risk(self.model, ordered),
            reasons=[s.to_reason() for s in ordered if s.reason][:MAX_REASONS],
            seen_before=seen_before if self._store is not None else None,
            match_kind=match_kind,
            match_of=match_of,
            usage=Usage(model=None, cost_usd=self._cost, model_cost_usd=0.0),
            diagnostics=list(analysis.problems),
        )


def make_self_target(target_id: str, config: TargetsConfig) -> SelfTarget:
    return SelfTarget(target_id, config)
