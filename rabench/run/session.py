"""One ``rabench run`` from start to finish: lock, plan, targets, run.json, lanes, summary.

Why a separate module from the loop: everything here happens once per run
(files, refusals, target lifecycle), everything in ``runner`` happens once per
call; keeping them apart keeps the hot path small and this part readable.

Library use (tests and ``rabench bench`` do this)::

    summary = run(RunOptions(suite_dir="cases/sample", target_ids=["null"], out=Path("runs/x")))

``targets=`` may pass ready Target objects instead of ids (in-process fakes).
"""

from __future__ import annotations

import math
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import msgspec

from rabench.errors import UserError
from rabench.prepare.cache import PrepCache
from rabench.prepare.image import PREP_VERSION
from rabench.run import config as cfg
from rabench.run.adaptive import AdaptiveGate
from rabench.run.batch import BATCHES, BatchRun, check_batch_targets
from rabench.run.breaker import Breaker
from rabench.run.budget import Budget
from rabench.run.dryrun import TargetEstimate, estimate_run
from rabench.run.limits import ProviderGate
from rabench.run.lock import LOCK, RunLock
from rabench.run.manifest import RUN_JSON, check_resume, new_manifest, read_manifest, write_manifest
from rabench.run.outcomes import OUTCOMES, OutcomeWriter, scan_costs, scan_done
from rabench.run.plan import plan_suite
from rabench.run.progress import Progress, TargetCounters
from rabench.run.respcache import ResponseCache
from rabench.run.retry import RetryPolicy
from rabench.run.runner import RunContext, TargetRun, run_targets
from rabench.targets.base import Target
from rabench.targets.diy.target import DiyTarget
from rabench.targets.registry import make_target, provider_of

if TYPE_CHECKING:
    from rabench.contracts import RunManifest
    from rabench.run.outcomes import UnitKey
    from rabench.run.plan import SuitePlan


@dataclass
class RunOptions:
    out: Path
    suite_dir: str | None = None  # None on resume: taken from run.json
    target_ids: list[str] = field(default_factory=list)  # empty on resume: taken from run.json
    repetitions: int | None = None  # None: 1, or run.json's on resume
    resume: bool = False
    config: cfg.TargetsConfig = field(default_factory=cfg.TargetsConfig)
    rpm: dict[str, float] = field(default_factory=dict)
    concurrency: dict[str, float] = field(default_factory=dict)
    timeout_s: float | None = None  # None: config [defaults] timeout_s, else 180
    seed: int | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    cache_root: Path | None = None
    progress: str = "auto"
    progress_interval: float = 10.0
    max_cost: float | None = None  # USD over the whole run folder (--max-cost); None: no cap
    response_cache: Path | None = None  # SQLite file of the response cache (--cache-responses); None: off
    adaptive: bool = False  # adaptive concurrency per provider (--adaptive-concurrency)
    batch: bool = False  # DIY targets through their provider's batch API (--batch)
    batch_poll_s: float = 5.0  # first interval between polls of a batch (grows to 60 s)


@dataclass
class RunSummary:
    run_dir: Path
    statuses: dict[str, dict[str, int]]  # target -> status -> count (this session)
    units_total: int
    units_before: int  # finished in earlier sessions (resume)
    elapsed_s: float
    prepared: int  # files prepared (decoded) in this session
    max_in_flight: dict[str, int]  # provider -> highest number of calls in flight seen
    budget_stop: str | None = None  # the one line naming the cap that stopped the run, if one did
    not_started: int = 0  # units a spending cap kept from starting (a resume runs them)
    cached: int = 0  # outcomes written from the response cache
    adaptive: dict[str, str] = field(default_factory=dict)  # provider -> how its adaptive limit moved
    batch_expired: int = 0  # units a batch expired before answering (a resume submits them again)


def provider_for(target: Target) -> str:
    try:
        return provider_of(target.info.id)
    except UserError:
        if target.info.provider:
            return target.info.provider
        raise


def check_options(options: RunOptions) -> None:
    """Refuse impossible values with one line before anything is created (never a silent default)."""
    if options.repetitions is not None and options.repetitions < 1:
        raise UserError(f"--repeat {options.repetitions}: must be at least 1")
    if options.timeout_s is not None and not (math.isfinite(options.timeout_s) and options.timeout_s > 0):
        raise UserError(f"--timeout {options.timeout_s:g}: must be a number of seconds above 0")
    if not (math.isfinite(options.progress_interval) and options.progress_interval > 0):
        raise UserError(f"--log-every {options.progress_interval:g}: must be a number of seconds above 0")
    for provider, value in options.concurrency.items():
        if value < 1 or value != int(value):
            raise UserError(f"--concurrency {provider}={value:g}: must be a whole number, at least 1")
    for provider, value in options.rpm.items():
        if value < 0 or not math.isfinite(value):
            raise UserError(f"--rpm {provider}={value:g}: must be a number >= 0 (0 = no limit)")
    if not (math.isfinite(options.batch_poll_s) and options.batch_poll_s > 0):
        raise UserError(f"--batch-poll {options.batch_poll_s:g}: must be a number of seconds above 0")
    if options.max_cost is not None and not (math.isfinite(options.max_cost) and options.max_cost >= 0):
        raise UserError(f"--max-cost {options.max_cost:g}: must be a number of USD >= 0")


def target_caps(config: cfg.TargetsConfig) -> dict[str, float]:
    """``[targets."ID"] max_cost`` from targets.toml: target id -> USD."""
    return {tid: float(t.max_cost) for tid, t in config.targets.items() if t.max_cost is not None}


def make_budget(options: RunOptions, targets: list[Target], out: Path) -> Budget | None:
    """The run's spending caps, with the costs already recorded in ``out`` (resume); None: no cap.

    A cap over a target whose calls have no known price could not stop it: refused."""
    caps = {tid: cap for tid, cap in target_caps(options.config).items() if tid in {t.info.id for t in targets}}
    if options.max_cost is None and not caps:
        return None
    for t in targets:
        capped = options.max_cost is not None or t.info.id in caps
        if capped and t.info.kind == "diy" and t.info.settings.get("price_input_per_mtok") is None:
            raise UserError(
                f"{t.info.id} has no list price (cost unknown): a spending cap cannot bound it; "
                'add its price (docs/targets.md, "Cost") or run it without a cap'
            )
    budget = Budget(total=options.max_cost, per_target=caps)
    for tid, cost in scan_costs(out / OUTCOMES):
        budget.record_earlier(tid, cost)
    return budget


def open_responses(path: Path) -> ResponseCache:
    try:
        return ResponseCache(path)
    except (sqlite3.Error, OSError) as exc:
        raise UserError(f"--cache-responses {path}: cannot open the response cache: {exc}") from None


def _new_dirs(path: Path) -> list[Path]:
    """The folders ``path.mkdir(parents=True)`` would create, deepest first."""
    made: list[Path] = []
    p = path.absolute()
    while not p.exists() and p != p.parent:
        made.append(p)
        p = p.parent
    return made


def _only_lock(out: Path) -> bool:
    try:
        return all(p.name == LOCK for p in out.iterdir())
    except OSError:
        return False


def run(options: RunOptions, targets: list[Target] | None = None) -> RunSummary:
    """Run (or resume) into ``options.out``. A run that fails before writing ``run.json``
    leaves nothing behind: no folder holding only ``lock``."""
    check_options(options)
    out = Path(options.out)
    made = _new_dirs(out)
    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out)
    try:
        lock.acquire()
        try:
            return _run_locked(options, out, targets)
        except BaseException:
            if _only_lock(out):  # nothing to resume: remove the lock while it is still held
                (out / LOCK).unlink(missing_ok=True)
            raise
        finally:
            lock.release()
    finally:
        for d in made:  # only folders this call created, and only if left empty
            try:
                d.rmdir()
            except OSError:
                break


def _suite_and_targets(
    options: RunOptions, old: RunManifest | None, targets: list[Target] | None
) -> tuple[str, list[Target]]:
    """The suite folder and targets of a run: from the options, else from the run being resumed."""
    suite_dir = options.suite_dir or (old.suite_dir if old else None)
    if not suite_dir:
        raise UserError("no suite: give --suite DIR")
    if targets is None:
        ids = options.target_ids or ([t.id for t in old.targets] if old else [])
        if not ids:
            raise UserError("no target: give --target ID (e.g. --target self)")
        if len(set(ids)) != len(ids):
            raise UserError(f"a target is named twice: {ids}")
        config = cfg.with_overrides(options.config, options.rpm, options.concurrency)
        targets = [make_target(tid, config) for tid in ids]
    return suite_dir, targets


def dry_run(options: RunOptions, targets: list[Target] | None = None) -> list[TargetEstimate]:
    """What ``run(options)`` would cost per target (``rabench.run.dryrun``); sends nothing,
    opens no target. On ``resume`` only the units missing from the run folder are counted."""
    check_options(options)
    out = Path(options.out)
    old = read_manifest(out) if options.resume else None
    suite_dir, targets = _suite_and_targets(options, old, targets)
    repetitions = options.repetitions if options.repetitions is not None else (old.repetitions if old else 1)
    done = scan_done(out / OUTCOMES) if old is not None else set()
    return estimate_run(plan_suite(suite_dir), targets, repetitions, done)


def _run_locked(options: RunOptions, out: Path, targets: list[Target] | None) -> RunSummary:
    """The run itself; the caller holds the lock."""
    old = read_manifest(out) if options.resume else None
    if old is None and ((out / RUN_JSON).exists() or (out / OUTCOMES).exists()):
        raise UserError(f"{out}: already holds a run; add --resume to finish it, or choose another --out")
    suite_dir, targets = _suite_and_targets(options, old, targets)
    repetitions = options.repetitions if options.repetitions is not None else (old.repetitions if old else 1)
    from rabench.suites.registry import suite_of

    return suite_of(suite_dir).run(options, out, suite_dir, targets, repetitions, old)


def run_receipt(
    options: RunOptions, out: Path, suite_dir: str, targets: list[Target], repetitions: int, old: RunManifest | None
) -> RunSummary:
    """A receipt suite's run (``rabench.suites.receipt``): planned, then streamed through the lanes."""
    plan = plan_suite(suite_dir)
    return anyio.run(_run_async, options, out, plan, targets, repetitions, old, suite_dir)


def run_ap_suite(
    options: RunOptions, out: Path, suite_dir: str, targets: list[Target], repetitions: int, old: RunManifest | None
) -> RunSummary:
    from rabench.run.ap_run import run_ap

    t0 = time.monotonic()
    providers = {t.info.id: provider_for(t) for t in targets}
    manifest, statuses, before = anyio.run(run_ap, options, out, suite_dir, targets, repetitions, old, providers)
    n_cases = sum(1 for _ in _ap_ids(suite_dir))
    return RunSummary(
        run_dir=out,
        statuses={k: dict(v) for k, v in statuses.items()},
        units_total=n_cases * repetitions * len(targets),
        units_before=before,
        elapsed_s=time.monotonic() - t0,
        prepared=0,
        max_in_flight={},
    )


def _ap_ids(suite_dir: str) -> list[str]:
    from rabench.cases.ap.manifest import open_ap_suite

    return [lc.case.id for lc in open_ap_suite(suite_dir).cases()]


async def _run_async(
    options: RunOptions,
    out: Path,
    plan: SuitePlan,
    targets: list[Target],
    repetitions: int,
    old: RunManifest | None,
    suite_dir: str | Path,
) -> RunSummary:
    t0 = time.monotonic()
    config = options.config
    timeout_s = options.timeout_s if options.timeout_s is not None else cfg.default_timeout(config)
    providers = {t.info.id: provider_for(t) for t in targets}
    gates = {
        name: (AdaptiveGate if options.adaptive else ProviderGate)(
            name, cfg.provider_limits(config, name, options.rpm, options.concurrency)
        )
        for name in sorted(set(providers.values()))
    }
    opened: list[Target] = []
    responses: ResponseCache | None = None
    try:
        for t in targets:
            try:
                await t.open()
            except UserError:
                raise
            except Exception as exc:
                raise UserError(f"target {t.info.id}: cannot start: {exc}") from None
            opened.append(t)
        if options.batch:
            if options.max_cost is not None or options.response_cache is not None or options.adaptive:
                raise UserError("--batch: not with --max-cost, --cache-responses or --adaptive-concurrency")
            check_batch_targets(targets)
        manifest = new_manifest(
            run_id=out.name,
            suite_dir=str(suite_dir),
            suite_name=plan.suite.header.name,
            suite_kind=plan.suite.header.suite,
            manifest_sha256=plan.suite.manifest_sha256,
            targets=[t.info for t in targets],
            repetitions=repetitions,
            seed=options.seed if options.seed is not None else (old.seed if old else 0),
            price_date=cfg.price_date(config),
            timeout_s=timeout_s,
            settings={
                "max_retries": options.policy.max_retries,
                "prep_version": PREP_VERSION,
                **({"batch": True} if options.batch else {}),
            },
        )
        done: set[UnitKey] = set()
        if old is not None:
            check_resume(old, manifest)
            manifest = msgspec.structs.replace(old, finished_at=None)
            done = scan_done(out / OUTCOMES)
        budget = make_budget(options, targets, out)
        if options.response_cache is not None:
            responses = open_responses(options.response_cache)
        write_manifest(out, manifest)

        counters = {}
        for t in targets:
            tid = t.info.id
            previous = sum(1 for k in done if k[1] == tid)
            counters[tid] = TargetCounters(tid, plan.count * repetitions, previous)
            gate = gates[providers[tid]]
            if options.adaptive and isinstance(gate, AdaptiveGate):
                counters[tid].gate = gate
        with OutcomeWriter(out / OUTCOMES) as writer:
            ctx = RunContext(
                run_id=manifest.run_id,
                plan=plan,
                repetitions=repetitions,
                writer=writer,
                cache=PrepCache(options.cache_root),
                timeout_s=timeout_s,
                policy=options.policy,
                done=done,
                budget=budget,
                responses=responses,
                breakers={name: Breaker(name) for name in gates},  # issue 32: circuit breaker per provider
            )
            runs = [TargetRun(ctx, t, gates[providers[t.info.id]], counters[t.info.id]) for t in targets]
            batches = (
                [
                    BatchRun(ctx, t, counters[t.info.id], out / BATCHES, poll_s=options.batch_poll_s)
                    for t in targets
                    if isinstance(t, DiyTarget)
                ]
                if options.batch
                else []
            )
            with Progress(list(counters.values()), options.progress, interval=options.progress_interval):
                if batches:
                    async with anyio.create_task_group() as tg:
                        for b in batches:
                            tg.start_soon(b.run)
                else:
                    await run_targets(ctx, runs)
        stop = budget.message() if budget is not None else None
        expired = sum(b.expired for b in batches)
        if stop is None and not expired:  # a run a cap stopped is not finished: a resume completes it
            manifest.finished_at = time.time()
            write_manifest(out, manifest)
        return RunSummary(
            run_dir=out,
            statuses={tid: dict(c.statuses) for tid, c in counters.items()},
            units_total=plan.count * repetitions * len(targets),
            units_before=len(done),
            elapsed_s=time.monotonic() - t0,
            prepared=ctx.cache.stats.prepared,
            max_in_flight={name: g.max_in_flight for name, g in gates.items()},
            budget_stop=stop,
            not_started=budget.refused() if budget is not None else 0,
            cached=responses.hits if responses is not None else 0,
            adaptive={name: g.describe() for name, g in gates.items() if isinstance(g, AdaptiveGate)},
            batch_expired=expired,
        )
    finally:
        if responses is not None:
            responses.close()
        with anyio.CancelScope(shield=True):
            for t in opened:
                try:
                    await t.close()
                except Exception:
                    pass
            for g in gates.values():
                await g.aclose()
