"""Scoring runs of an ``ap`` suite: load (the receipt loader's refusals), per-run facts, the
rows of docs/methodology-ap.md, the shared operations rows, findings, rows.json.

Why beside the receipt scorer rather than inside it: an AP case is a bundle with its own
label (``APCase``), so the case table and per-run facts differ; everything after them — row
builders, kernels, strata rule, findings, the rows.json contract — is the receipt scorer's.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np

from rabench.cases.ap.manifest import open_ap_suite
from rabench.contracts import CONTRACTS_VERSION, Case, Row
from rabench.contracts.case import id_key
from rabench.errors import UserError
from rabench.score import output
from rabench.score.findings import findings
from rabench.score.load import (
    CaseTable,
    ScoreInput,
    TargetRuns,
    check_suite_unchanged,
    read_outcomes,
    runs_of_one_suite,
    suite_domain,
    with_missing_cases,
)
from rabench.score.rows import ALL, MIN_STRATUM, N_BOOT
from rabench.score.tasks import TaskContext, ap_decision, operations
from rabench.score.tasks.ap_facts import APCaseTable, ap_facts
from rabench.score.tasks.ap_tasks import calibration_rows, extraction_rows, findings_rows

SCORER_VERSION = "ap-1"  # docs/methodology-ap.md, "Revisions"
SPEC = "rabench AP methodology (docs/methodology-ap.md)"


def load_ap_cases(suite_dir: str) -> tuple[APCaseTable, str, str]:
    reader = open_ap_suite(suite_dir)
    cases = [lc.case for lc in reader.cases(check_keys=True)]
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        j = seen.setdefault(id_key(case.id), i)
        if j != i:
            raise UserError(f"{reader.root}: case id {case.id} appears twice (as {cases[j].id}, ignoring case)")
    table = APCaseTable.of(cases)
    domain = suite_domain(reader.header.meta)
    if domain is not None:
        table.implied_tags["domain"] = domain
    return table, reader.header.name, reader.manifest_sha256


def strata_masks(cases: APCaseTable) -> dict[str, np.ndarray]:
    """``dimension=value`` -> mask: case tags, then the label-derived groups (family,
    difficulty, outcome, benign twins), which win over a tag of the same name."""
    names: dict[str, set[int]] = {}
    for i, case in enumerate(cases.cases):
        for dim, value in {**cases.implied_tags, **case.tags}.items():
            names.setdefault(f"{dim}={value}", set()).add(i)
    derived: dict[str, set[int]] = {}
    for i, case in enumerate(cases.cases):
        lab = case.label
        for name in (f"family={lab.family}", f"difficulty={lab.difficulty}", f"outcome={lab.outcome}"):
            derived.setdefault(name, set()).add(i)
        if lab.benign_twin:
            derived.setdefault("benign_twin=true", set()).add(i)
    dims = {name.split("=", 1)[0] for name in derived}
    names = {k: v for k, v in names.items() if k.split("=", 1)[0] not in dims}
    names.update(derived)
    out: dict[str, np.ndarray] = {}
    for name in sorted(names):
        mask = np.zeros(cases.n, dtype=bool)
        mask[sorted(names[name])] = True
        out[name] = mask
    return out


def load_ap_runs(run_dirs: list[str]) -> tuple[ScoreInput, APCaseTable]:
    """The receipt loader's rules (one suite, each run once, each target once, outcomes only
    for the suite's cases and the run's targets; a missing case = one failed run)."""
    dirs, manifests, suite_dir = runs_of_one_suite(run_dirs)
    ap_cases, suite_name, sha = load_ap_cases(str(suite_dir))
    check_suite_unchanged(suite_dir, sha, manifests[0])
    # The outcome reader needs only ids and the index: the AP cases stand in for receipt cases.
    shim = CaseTable(
        cases=cast(list[Case], ap_cases.cases),
        index=ap_cases.index,
        is_base=np.ones(ap_cases.n, dtype=bool),
        is_fake=ap_cases.fraud,
        has_after=np.zeros(ap_cases.n, dtype=bool),
        adds_up=np.full(ap_cases.n, -1, dtype=np.int8),
    )
    targets: list[TargetRuns] = []
    seen: dict[str, Path] = {}
    for d, m in zip(dirs, manifests):
        per_target = read_outcomes(d, m, shim)
        for info in m.targets:
            if info.id in seen:
                raise UserError(f"target {info.id} is in both {seen[info.id]} and {d}; score them separately")
            seen[info.id] = d
            ocs, missing, case_idx = with_missing_cases(*per_target[info.id], shim, m.run_id, info.id)
            targets.append(TargetRuns(info=info, run_id=m.run_id, outcomes=ocs, case=case_idx, missing=missing))
    targets.sort(key=lambda t: t.id)
    inp = ScoreInput(
        manifests=manifests,
        suite_name=suite_name,
        manifest_sha256=sha,
        cases=shim,
        targets=targets,
        suite_dir=suite_dir,
    )
    return inp, ap_cases


def ap_rows(target: TargetRuns, cases: APCaseTable, tags: dict[str, np.ndarray]) -> list[Row]:
    facts = ap_facts(target, cases)
    every = np.ones(cases.n, dtype=bool)
    strata = [(ALL, every), *((k, m) for k, m in tags.items() if int(m.sum()) >= MIN_STRATUM)]
    rows: list[Row] = []
    rows += extraction_rows(target.id, facts, cases, strata)
    rows += ap_decision.rows(target.id, facts, cases, strata)
    rows += findings_rows(target.id, facts, cases, strata)
    rows += calibration_rows(target.id, facts, cases, strata)
    ctx = TaskContext(
        target=target,
        cases=cast(CaseTable, None),
        facts=facts.base,
        tags=tags,
        runs=np.bincount(facts.case, minlength=cases.n),
    )
    rows += operations.rows(ctx)
    return rows


def score_ap(inp: ScoreInput, ap_cases: APCaseTable, reference: str | None = None) -> output.RowsFile:
    tags = strata_masks(ap_cases)
    rows: list[Row] = []
    for target in inp.targets:
        rows.extend(ap_rows(target, ap_cases, tags))
    rows.sort(key=output.sort_key)
    header = output.Header(
        format=output.FORMAT,
        spec=SPEC,
        contracts_version=CONTRACTS_VERSION,
        scorer_version=SCORER_VERSION,
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
    )
    return output.RowsFile(header=header, rows=rows, findings=findings(rows, inp.targets, reference))
