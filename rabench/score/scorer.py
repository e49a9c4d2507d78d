"""score_runs: from runs/ID folders to every row, finding and the rows.json file.

The whole scorer in one call, for the CLI, the benchmark and tests:
load (refusing mismatches) -> per-run facts -> per-task rows -> findings.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from rabench.contracts import CONTRACTS_VERSION, Row
from rabench.contracts.details import DetailsFile
from rabench.errors import UserError
from rabench.score import output
from rabench.score.details import details
from rabench.score.findings import Finding, findings, pick_reference
from rabench.score.load import ScoreInput, load_runs
from rabench.score.reduce import run_facts, runs_per_case
from rabench.score.rows import MIN_STRATUM, N_BOOT
from rabench.score.strata import tag_masks
from rabench.score.tasks import (
    TaskContext,
    authenticity,
    checks,
    decisions,
    duplicates,
    evidence,
    extraction,
    operations,
)

TASK_MODULES = (extraction, checks, authenticity, duplicates, decisions, evidence, operations)


@dataclass
class ScoreResult:
    doc: output.RowsFile
    timings: dict[str, float] = field(default_factory=dict)
    details: DetailsFile | None = None  # details.json: curves, latency samples, worst misses
    inp: ScoreInput | None = None  # what was scored: cases.json (the report's per-case viewer) reads it

    @property
    def rows(self) -> list[Row]:
        return self.doc.rows

    @property
    def findings(self) -> list[Finding]:
        return self.doc.findings


def score_input(
    inp: ScoreInput, *, with_details: bool = True, ray_address: str | None = None, reference: str | None = None
) -> ScoreResult:
    """``ray_address``: the task modules' rows (the bootstraps) computed as Ray tasks on that
    cluster (``rabench.cluster.ray_score``); the rows are the same, so rows.json is byte-identical."""
    timings: dict[str, float] = {}
    import numba

    from rabench.score.kernels import choose_threads

    numba.set_num_threads(choose_threads())
    tags = tag_masks(inp.cases)
    rows: list[Row] = []
    facts_by_target = {}
    contexts = []
    for target in inp.targets:
        t0 = time.perf_counter()
        facts = facts_by_target[target.id] = run_facts(target, inp.cases)
        timings["facts"] = timings.get("facts", 0.0) + time.perf_counter() - t0
        ctx = TaskContext(
            target=target, cases=inp.cases, facts=facts, tags=tags, runs=runs_per_case(facts, inp.cases.n)
        )
        if ray_address is not None:
            contexts.append(ctx)
            continue
        for module in TASK_MODULES:
            t0 = time.perf_counter()
            rows.extend(module.rows(ctx))
            name = module.__name__.rsplit(".", 1)[-1]
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - t0
    if ray_address is not None:
        from rabench.cluster.ray_score import rows_on_ray

        t0 = time.perf_counter()
        rows = rows_on_ray(ray_address, contexts, TASK_MODULES)
        timings["rows_on_ray"] = time.perf_counter() - t0
    rows.sort(key=output.sort_key)
    named = list(dict.fromkeys(t.id for m in inp.manifests for t in m.targets))  # the run's order
    ref = pick_reference(named, {t.id: t.info.kind for t in inp.targets}, reference)
    found = findings(rows, inp.targets, ref, named)
    header = output.Header(
        format=output.FORMAT,
        spec=output.SPEC,
        contracts_version=CONTRACTS_VERSION,
        scorer_version=output.SCORER_VERSION,
        suite_name=inp.suite_name,
        suite_manifest_sha256=inp.manifest_sha256,
        runs=sorted(
            (
                output.RunRef(
                    run_id=m.run_id,
                    targets=sorted(t.id for t in m.targets),
                    repetitions=m.repetitions,
                    price_date=m.price_date,
                )
                for m in inp.manifests
            ),
            key=lambda r: r.run_id,
        ),
        targets=[t.info for t in inp.targets],
        bootstrap_resamples=N_BOOT,
        min_stratum_cases=MIN_STRATUM,
        reference=ref if len(named) > 1 else None,
        named=named,
    )
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # Pillow's warnings about a thumbnail's file are not the user's business
        warnings.filterwarnings("ignore", module="PIL")
        extra = details(inp, facts_by_target) if with_details else None
    timings["details"] = time.perf_counter() - t0
    return ScoreResult(
        doc=output.RowsFile(header=header, rows=rows, findings=found),
        timings=timings,
        details=extra,
        inp=inp if with_details else None,
    )


def score_runs(run_dirs: list[str], ray_address: str | None = None, reference: str | None = None) -> ScoreResult:
    """The rows of runs of one suite, scored as the suite's kind says (``rabench.suites``)."""
    from rabench.suites.registry import DEFAULT_KIND, get_suite

    kind = _suite_kind(run_dirs[0]) if run_dirs else DEFAULT_KIND
    return get_suite(kind).score(run_dirs, ray_address, reference)


def score_ap_runs(run_dirs: list[str], ray_address: str | None = None, reference: str | None = None) -> ScoreResult:
    """An ap suite's rows (docs/methodology-ap.md; ``rabench.suites.ap``)."""
    t0 = time.perf_counter()
    if ray_address is not None:
        raise UserError("--executor ray: scores receipt suites only; score an ap suite in-process")
    from rabench.score.tasks.ap_score import load_ap_runs, score_ap

    inp, ap_cases = load_ap_runs(run_dirs)
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    doc = score_ap(inp, ap_cases, reference)
    return ScoreResult(doc=doc, timings={"load": load_s, "ap": time.perf_counter() - t0})


def score_receipt_runs(
    run_dirs: list[str], ray_address: str | None = None, reference: str | None = None
) -> ScoreResult:
    """A receipt suite's rows (docs/methodology.md; ``rabench.suites.receipt``)."""
    t0 = time.perf_counter()
    inp = load_runs(run_dirs)
    load_s = time.perf_counter() - t0
    result = score_input(inp, ray_address=ray_address, reference=reference)
    result.timings = {"load": load_s, **result.timings}
    return result


def _suite_kind(run_dir: str) -> str:
    from rabench.score.load import read_manifest

    return read_manifest(Path(run_dir)).suite_kind


def write_outputs(result: ScoreResult, out_dir: str | Path) -> tuple[Path, Path]:
    from rabench.report.markdown import render

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows_path = out / "rows.json"
    rows_path.write_bytes(output.encode(result.doc))
    md_path = out / "report.md"
    md_path.write_text(render(result.doc), encoding="utf-8")
    if result.details is not None:
        (out / "details.json").write_bytes(msgspec.json.encode(result.details) + b"\n")
    if result.inp is not None:
        from rabench.report import casedata

        casedata.write(result.inp, out)
    return rows_path, md_path
