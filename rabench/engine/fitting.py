"""Fit the risk model on a suite's ``dev`` split (``rabench engine fit``).

Why its own runner instead of ``rabench run``: fitting needs every case's raw
signals, not just the Verdict, and must never see the test split. It prepares
files through the same prepared-image cache as the runner (so visual signals
match what a run sees), analyses them in the engine's worker pool in
parallel, then replays the duplicate network in dependency order (originals
before their transforms), exactly as a run would. Labels are read here, and
only here, to fit; the target never sees them.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from rabench.cases.manifest import LoadedCase, open_suite
from rabench.contracts import TargetsConfig
from rabench.engine import risk as risk_mod
from rabench.engine.ocr import ProcessWorkerPool, WorkerPool
from rabench.engine.pipeline import AnalysisSettings, UnreadableFile, analyse
from rabench.engine.signals import Signal
from rabench.engine.target import SelfTarget
from rabench.errors import UserError


class CaseResult(msgspec.Struct):
    case_id: str
    is_base: bool
    is_fake: bool
    signals: list[Signal] = []
    error: str | None = None
    verdict: Any = None
    seconds: float = 0.0


def suite_split(meta: dict[str, Any]) -> str | None:
    split = meta.get("split")
    return str(split) if split is not None else None


def refuse_test_split(root: str | Path) -> tuple[Any, str | None]:
    suite = open_suite(root)
    split = suite_split(suite.header.meta)
    if split == "test":
        raise UserError(f"{root}: this suite's header says split=test; the risk model is fitted on the dev split only")
    return suite, split


def _ordered(cases: Iterable[LoadedCase]) -> list[LoadedCase]:
    """Dependency order (lineage/after first), stable in manifest order."""
    cases = list(cases)
    by_id = {lc.case.id: lc for lc in cases}
    done: set[str] = set()
    out: list[LoadedCase] = []

    def visit(lc: LoadedCase, stack: set[str]) -> None:
        cid = lc.case.id
        if cid in done or cid in stack:
            return
        stack.add(cid)
        for dep in lc.case.depends_on():
            if dep in by_id:
                visit(by_id[dep], stack)
        stack.discard(cid)
        done.add(cid)
        out.append(lc)

    for lc in cases:
        visit(lc, set())
    return out


async def run_suite(
    root: str | Path,
    *,
    pool: WorkerPool,
    settings: AnalysisSettings = AnalysisSettings(),
    cache_root: Path | None = None,
    limit: int | None = None,
    progress: bool = True,
) -> list[CaseResult]:
    """Every case's signals and Verdict (duplicate network replayed in order)."""
    from rabench.prepare.cache import PrepCache
    from rabench.prepare.image import PreparationError

    suite = open_suite(root)
    cases = _ordered(suite)
    if limit is not None:
        cases = cases[:limit]
    cache = PrepCache(cache_root)
    sem = asyncio.Semaphore(pool.workers * 2)
    target = SelfTarget("self", TargetsConfig(), pool=pool)
    await target.reset(0)
    start = time.monotonic()
    finished = 0

    async def one(lc: LoadedCase) -> tuple[Any, float]:
        nonlocal finished
        async with sem:
            t = time.monotonic()
            try:
                prepared = await cache.get(lc.path, lc.case.sha256, lc.case.media_type)
                prep_path: str | None = str(prepared.path)
            except PreparationError:
                prep_path = None
            try:
                result: Any = await pool.submit(
                    analyse, str(lc.path), lc.case.media_type, prep_path, settings, lc.case.submitted_at
                )
            except UnreadableFile as exc:
                result = exc
            except Exception as exc:  # an engine bug: record it, keep going
                cause = exc.__cause__
                detail = getattr(cause, "tb", "") if cause is not None else ""
                result = UnreadableFile(f"engine error: {type(exc).__name__}: {exc}{detail}")
            finished += 1
            if progress and finished % 25 == 0:
                rate = finished / max(1e-9, time.monotonic() - start)
                print(f"  {finished}/{len(cases)} analysed, {rate:.2f} receipts/s", file=sys.stderr)
            return result, time.monotonic() - t

    analyses = await asyncio.gather(*(one(lc) for lc in cases))
    out: list[CaseResult] = []
    for lc, (analysis, seconds) in zip(cases, analyses):
        label = lc.case.label
        base = CaseResult(lc.case.id, lc.case.is_base, label.is_fake, seconds=seconds)
        if isinstance(analysis, UnreadableFile):
            base.error = str(analysis)
        else:
            verdict = target.verdict(analysis, lc.case.id)
            base.verdict = verdict
            base.signals = list(analysis.signals) + [
                _dup_signal(r) for r in verdict.reasons if r.proof_type == "duplicate_match"
            ]
        out.append(base)
    return out


def _dup_signal(reason: Any) -> Signal:
    return Signal("dupes.match", "proof", reason.text, proof_type="duplicate_match")


def fit_from_results(
    results: list[CaseResult], *, suite: str, split: str | None, seed: Any, l2: float, command: str
) -> risk_mod.RiskModel:
    rows = [r for r in results if r.is_base and r.error is None]
    if len(rows) < 10 or len({r.is_fake for r in rows}) < 2:
        raise UserError(f"{suite}: need at least 10 readable base cases with both genuine and fake to fit")
    return risk_mod.fit(
        [r.signals for r in rows],
        [int(r.is_fake) for r in rows],
        l2=l2,
        suite=suite,
        split=split or "unknown",
        seed=int(seed) if isinstance(seed, int) or (isinstance(seed, str) and seed.isdigit()) else None,
        command=command,
    )


def reuse_results(path: Path, roots: list[str | Path]) -> list[CaseResult]:
    """The per-case results an earlier fit wrote with ``--results`` for these same suites, in the
    same order: refitting (another penalty, another feature set) without running the engine again.
    Refused unless every suite's cases, their labels and their order match the file."""
    try:
        results = [msgspec.json.decode(line, type=CaseResult) for line in path.read_bytes().splitlines() if line]
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise UserError(f"{path}: not a results file written by `engine fit --results`: {exc}") from None
    at = 0
    for root in roots:
        cases = list(open_suite(root))
        part = results[at : at + len(cases)]
        want = {lc.case.id: (lc.case.is_base, lc.case.label.is_fake) for lc in cases}
        got = {r.case_id: (r.is_base, r.is_fake) for r in part}
        if len(part) != len(cases) or got != want:
            raise UserError(
                f"{path}: its cases {at}-{at + len(cases) - 1} are not the cases of {root} "
                "(give the suites in the order of the fit that wrote it)"
            )
        at += len(cases)
    if at != len(results):
        raise UserError(f"{path}: {len(results) - at} more cases than the suites given")
    return results


def fit_suite(
    roots: str | Path | list[str | Path],
    *,
    out: Path | None,
    workers: int | None = None,
    l2: float = 1.0,
    cache_root: Path | None = None,
    results_out: Path | None = None,
    reuse: Path | None = None,
    command: str = "",
) -> tuple[risk_mod.RiskModel, Path]:
    """Fit on one suite or on a mix of several (e.g. synthetic dev + real dev + forgeries of it).

    Each suite is run on its own (its own duplicate network, as a run would); the base cases
    of all of them are pooled for the fit. Any suite whose header says split=test is refused
    before anything runs. With ``reuse``, the signals come from an earlier fit's ``--results``
    file instead of a new run of the engine (same suites, same order, checked).
    """
    paths = [roots] if isinstance(roots, (str, Path)) else list(roots)
    if not paths:
        raise UserError("engine fit: give at least one --suite")
    if reuse is not None and results_out is not None:
        raise UserError("engine fit: give --results or --reuse, not both")
    suites = [refuse_test_split(root) for root in paths]
    results: list[CaseResult] = []
    if reuse is not None:
        results = reuse_results(reuse, paths)
    else:
        pool = ProcessWorkerPool(workers)
        try:
            for root in paths:
                results.extend(asyncio.run(run_suite(root, pool=pool, cache_root=cache_root)))
        finally:
            pool.close()
    if results_out is not None:
        results_out.parent.mkdir(parents=True, exist_ok=True)
        with results_out.open("wb") as fh:
            for r in results:
                fh.write(msgspec.json.encode(r) + b"\n")
    names = [suite.header.name for suite, _ in suites]
    splits = [split or "unknown" for _, split in suites]
    seeds = [suite.header.meta.get("seed") for suite, _ in suites]
    model = fit_from_results(
        results,
        suite=" + ".join(names),
        split="+".join(dict.fromkeys(splits)),
        seed=seeds[0] if len(seeds) == 1 else None,
        l2=l2,
        command=command,
    )
    if len(paths) > 1:
        model = msgspec.structs.replace(
            model,
            notes="suites: " + "; ".join(f"{n} (split={sp}, seed={sd})" for n, sp, sd in zip(names, splits, seeds)),
        )
    return model, risk_mod.save_model(model, out)
