"""Running targets on an ``ap`` suite: each case is a bundle, each answer an APVerdict.

Why a loop of its own beside ``rabench.run.runner``: the receipt runner plans single files
with duplicate lineages and look-alike ordering; an AP case is self-contained (everything a
target needs is in its bundle, so there is no order between cases). What is shared is what
matters: the provider gates, the one call path with its timeout and retries
(``execute.call_target``), the outcomes writer (append-only, resumable), run.json and its
resume check, the preparation cache (invoice images prepared like receipts).

Not supported here (one line, exit 2, from ``check_ap_options``): --batch, --max-cost,
--cache-responses, --adaptive-concurrency. The progress display is a summary at the end.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import msgspec

from rabench.cases.ap.manifest import LoadedAPCase, open_ap_suite
from rabench.contracts import APVerdict, Outcome, RunManifest
from rabench.errors import UserError
from rabench.prepare.cache import PrepCache
from rabench.prepare.image import PREP_VERSION, PreparationError
from rabench.run import config as cfg
from rabench.run.execute import CallResult, call_target
from rabench.run.limits import ProviderGate
from rabench.run.manifest import check_resume, new_manifest, write_manifest
from rabench.run.outcomes import OutcomeWriter, scan_done
from rabench.targets.ap_request import APInput, APRequest
from rabench.targets.base import Target

if TYPE_CHECKING:
    from rabench.run.retry import RetryPolicy
    from rabench.run.session import RunOptions

OUTCOMES = "outcomes.jsonl"
IMAGE_TYPES = ("application/pdf", "image/png", "image/jpeg")
IMAGE_ROLES = ("invoice", "credit_note")


def check_ap_options(options: RunOptions) -> None:
    for flag, attr in (
        ("--batch", "batch"),
        ("--max-cost", "max_cost"),
        ("--cache-responses", "response_cache"),
        ("--adaptive-concurrency", "adaptive"),
    ):
        value = getattr(options, attr, None)
        if value not in (None, False):
            raise UserError(f"{flag}: not supported on an ap suite yet")


async def build_request(lc: LoadedAPCase, rep: int, cache: PrepCache) -> APRequest:
    """The bundle as a target gets it: every document, invoice images prepared."""
    docs: list[APInput] = []
    for doc in lc.case.documents:
        path = lc.paths[doc.name]
        prepared = prepared_type = None
        if doc.role in IMAGE_ROLES and doc.media_type in IMAGE_TYPES:
            pf = await cache.get(path, doc.sha256, doc.media_type)
            prepared, prepared_type = pf.path, pf.media_type
        docs.append(
            APInput(
                name=doc.name,
                role=doc.role,
                media_type=doc.media_type,
                path=path,
                prepared=prepared,
                prepared_media_type=prepared_type,
            )
        )
    first = next((d for d in docs if d.prepared is not None), docs[0])
    return APRequest(
        case_id=lc.case.id,
        original=first.path,
        media_type=first.media_type,
        prepared=first.prepared or first.path,
        prepared_media_type=first.prepared_media_type or first.media_type,
        repetition=rep,
        submitted_at=lc.case.submitted_at,
        documents=tuple(docs),
    )


async def _one(
    target: Target,
    lc: LoadedAPCase,
    rep: int,
    gate: ProviderGate,
    cache: PrepCache,
    writer: OutcomeWriter,
    run_id: str,
    timeout_s: float,
    policy: RetryPolicy,
    statuses: Counter[str],
) -> None:
    try:
        request = await build_request(lc, rep, cache)
    except PreparationError as exc:
        result = CallResult("error", 0, None, error=f"cannot prepare a document of {lc.case.id}: {exc}")
    else:
        result = await call_target(target, request, gate, timeout_s=timeout_s, policy=policy)
        if result.status == "ok" and not isinstance(result.verdict, APVerdict):  # e.g. a receipt-only target
            result = CallResult(
                "invalid_output",
                result.attempts,
                result.latency_s,
                usage=result.usage,
                error="the target answered a receipt Verdict, not an APVerdict",
            )
    writer.write(
        Outcome(
            run_id=run_id,
            case_id=lc.case.id,
            target=target.info.id,
            repetition=rep,
            status=result.status,  # type: ignore[arg-type]
            attempts=result.attempts,
            latency_s=result.latency_s,
            verdict=result.verdict,
            error=result.error,
            usage=result.usage,
            finished_at=time.time(),
        )
    )
    statuses[result.status] += 1


async def _target(
    target: Target,
    cases: list[LoadedAPCase],
    repetitions: int,
    gate: ProviderGate,
    cache: PrepCache,
    writer: OutcomeWriter,
    run_id: str,
    timeout_s: float,
    policy: RetryPolicy,
    done: set[tuple[str, str, int]],
    statuses: Counter[str],
) -> None:
    tid = target.info.id
    for rep in range(repetitions):
        await target.reset(rep)
        todo = [lc for lc in cases if (lc.case.id, tid, rep) not in done]
        it = iter(todo)

        async def worker() -> None:
            for lc in it:  # a shared iterator: each case goes to one worker
                await _one(target, lc, rep, gate, cache, writer, run_id, timeout_s, policy, statuses)

        n = max(1, min(len(todo), int(gate.limits.concurrency) + 2))
        async with anyio.create_task_group() as tg:
            for _ in range(n):
                tg.start_soon(worker)


async def run_ap(
    options: RunOptions,
    out: Path,
    suite_dir: str | Path,
    targets: list[Target],
    repetitions: int,
    old: RunManifest | None,
    provider_of: dict[str, str],
) -> tuple[RunManifest, dict[str, Counter[str]], int]:
    """Run (or resume) every target on every case and repetition; returns the manifest, the
    statuses of this session per target and the units finished before it."""
    check_ap_options(options)
    reader = open_ap_suite(suite_dir)
    cases = list(reader.cases(check_keys=True))
    config = options.config
    timeout_s = options.timeout_s if options.timeout_s is not None else cfg.default_timeout(config)
    rpm, conc = options.rpm, options.concurrency
    gates = {
        name: ProviderGate(name, cfg.provider_limits(config, name, rpm, conc))
        for name in sorted(set(provider_of.values()))
    }
    opened: list[Target] = []
    try:
        for t in targets:
            try:
                await t.open()
            except UserError:
                raise
            except Exception as exc:
                raise UserError(f"target {t.info.id}: cannot start: {exc}") from None
            opened.append(t)
        seed = options.seed
        manifest = new_manifest(
            run_id=out.name,
            suite_dir=str(suite_dir),
            suite_name=reader.header.name,
            suite_kind=reader.header.suite,
            manifest_sha256=reader.manifest_sha256,
            targets=[t.info for t in targets],
            repetitions=repetitions,
            seed=seed if seed is not None else (old.seed if old else 0),
            price_date=cfg.price_date(config),
            timeout_s=timeout_s,
            settings={"max_retries": options.policy.max_retries, "prep_version": PREP_VERSION},
        )
        done: set[tuple[str, str, int]] = set()
        if old is not None:
            check_resume(old, manifest)
            manifest = msgspec.structs.replace(old, finished_at=None)
            done = scan_done(out / OUTCOMES)
        write_manifest(out, manifest)
        statuses = {t.info.id: Counter[str]() for t in targets}
        cache = PrepCache(options.cache_root)
        with OutcomeWriter(out / OUTCOMES) as writer:
            async with anyio.create_task_group() as tg:
                for t in targets:
                    tg.start_soon(
                        _target,
                        t,
                        cases,
                        repetitions,
                        gates[provider_of[t.info.id]],
                        cache,
                        writer,
                        manifest.run_id,
                        timeout_s,
                        options.policy,
                        done,
                        statuses[t.info.id],
                    )
        manifest.finished_at = time.time()
        write_manifest(out, manifest)
        return manifest, statuses, len(done)
    finally:
        for t in opened:
            await t.close()
        for g in gates.values():  # a gate shared across processes holds a connection
            close = getattr(g, "aclose", None)
            if close is not None:
                await close()
