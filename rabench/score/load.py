"""Read what the runner wrote (run.json + outcomes.jsonl) and the suite's labels.

Why a separate stage: the scorer must refuse mismatched inputs with one clear
line (runs of different suites, a target scored twice, outcomes for cases the
suite doesn't have) before any statistic is computed, and every later module
can then work on plain arrays indexed by case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from pathlib import Path

import msgspec
import numpy as np

from rabench.cases.manifest import open_suite
from rabench.contracts import Case, Outcome, RunManifest, TargetInfo
from rabench.contracts.case import id_key
from rabench.contracts.files import read_run_manifest
from rabench.errors import UserError

_outcome_decoder = msgspec.json.Decoder(Outcome)


@dataclass(slots=True)
class CaseTable:
    """Every case of the suite, in manifest order, with label facts as arrays."""

    cases: list[Case]
    index: dict[str, int]
    is_base: np.ndarray  # no lineage
    is_fake: np.ndarray
    has_after: np.ndarray  # base case that must run after a look-alike: a hard negative
    adds_up: np.ndarray  # int8: -1 not labelled, 0 doesn't add up, 1 adds up
    # Tags every case has unless it carries the dimension itself: the suite's domain
    # (``suite_domain``), so a generated or imported suite has its domain stratum.
    implied_tags: dict[str, str] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.cases)


@dataclass(slots=True)
class TargetRuns:
    """One target's calls: outcomes sorted by (case, repetition), one per pair."""

    info: TargetInfo
    run_id: str
    outcomes: list[Outcome]
    case: np.ndarray  # int32 case index of each outcome
    # True for a stand-in: a case with no outcome at all counts as one failed run
    # (every target is scored on the same cases), but it was never a call.
    missing: np.ndarray | None = None

    @property
    def id(self) -> str:
        return self.info.id


@dataclass(slots=True)
class ScoreInput:
    manifests: list[RunManifest]
    suite_name: str
    manifest_sha256: str
    cases: CaseTable
    targets: list[TargetRuns]
    suite_dir: Path | None = None  # where the case files are (report thumbnails)


def read_manifest(run_dir: Path) -> RunManifest:
    path = run_dir / "run.json"
    if not path.is_file():
        raise UserError(f"{run_dir}: no run.json here (is this a runs/ID folder?)")
    return read_run_manifest(path)


def suite_domain(meta: dict[str, Any]) -> str | None:
    """``real`` or ``synthetic`` from a suite header's meta, for cases without a ``domain`` tag.

    Generated suites record their ``generator``, imported ones their ``importer``;
    a suite made from another records the other's header meta (``from_meta``, as
    ``rabench cases forge`` writes it, or ``source``). Anything else: unknown (no stratum).
    """
    if "generator" in meta:
        return "synthetic"
    if "importer" in meta:
        return "real"
    source = meta.get("from_meta", meta.get("source"))
    return suite_domain(source) if isinstance(source, dict) else None


def load_cases(suite_dir: str) -> tuple[CaseTable, str, str]:
    reader = open_suite(suite_dir)
    cases = [lc.case for lc in reader.cases(check_keys=True)]
    index: dict[str, int] = {}
    keys: dict[str, str] = {}
    for i, case in enumerate(cases):
        other = keys.setdefault(id_key(case.id), case.id)
        if case.id in index or other != case.id:
            raise UserError(f"{reader.manifest}: case id {case.id} appears twice"
                            + (f" (as {other}, ignoring case)" if other != case.id else ""))
        index[case.id] = i
    is_base = np.array([c.lineage is None for c in cases], dtype=bool)
    table = CaseTable(
        cases=cases,
        index=index,
        is_base=is_base,
        is_fake=np.array([c.label.is_fake for c in cases], dtype=bool),
        has_after=np.array([bool(c.after) for c in cases], dtype=bool) & is_base,
        adds_up=np.array(
            [-1 if not isinstance(c.label.adds_up, bool) else int(c.label.adds_up) for c in cases],
            dtype=np.int8,
        ),
    )
    domain = suite_domain(reader.header.meta)
    if domain is not None:
        table.implied_tags["domain"] = domain
    return table, reader.header.name, reader.manifest_sha256


def read_outcomes(run_dir: Path, manifest: RunManifest, cases: CaseTable) -> dict[str, list[Outcome]]:
    """Outcomes per target; a later line for the same (case, target, repetition)
    replaces an earlier one (a resumed run may re-record a call)."""
    path = run_dir / "outcomes.jsonl"
    if not path.is_file():
        raise UserError(f"{run_dir}: no outcomes.jsonl here")
    known = {t.id for t in manifest.targets}
    data = path.read_bytes()
    try:
        decoded = _outcome_decoder.decode_lines(data)  # fast path: the whole file at once
    except (msgspec.ValidationError, msgspec.DecodeError):
        decoded = None
    if decoded is None:  # find the bad line and say which
        lines = data.splitlines()
        for lineno, raw in enumerate(lines, start=1):
            if raw.strip():
                try:
                    _outcome_decoder.decode(raw)
                except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                    if lineno == len(lines) and not data.endswith(b"\n"):
                        raise UserError(
                            f"{path}:{lineno}: the last line is cut off (the run stopped while writing "
                            f"it); `rabench run --out {run_dir} --resume` repairs it and runs what is missing"
                        ) from None
                    raise UserError(f"{path}:{lineno}: {str(exc).replace('`', '')}") from None
        raise UserError(f"{path}: not valid JSON lines")
    latest: dict[tuple[str, str, int], Outcome] = {}
    for k, oc in enumerate(decoded, start=1):
        if oc.case_id not in cases.index:
            raise UserError(f"{path}: outcome {k}: case {oc.case_id} is not in the run's suite")
        if oc.target not in known:
            raise UserError(f"{path}: outcome {k}: target {oc.target} is not listed in run.json")
        latest[(oc.target, oc.case_id, oc.repetition)] = oc
    per_target: dict[str, list[Outcome]] = {t: [] for t in known}
    for (target, _, _), oc in latest.items():
        per_target[target].append(oc)
    return per_target


MISSING_ERROR = "no outcome recorded for this case (counted as a failed run)"


def with_missing_cases(outcomes: list[Outcome], cases: CaseTable, run_id: str, target: str
                       ) -> tuple[list[Outcome], np.ndarray]:
    """Outcomes sorted by (case, repetition), plus one failed stand-in run for every
    case of the suite the target has no outcome for.

    Why: "Every target gets the same cases" and a case "counts once, with the share
    of its runs that succeeded" — a case left unanswered (an unfinished run) must not
    drop out of the target's rows, or a target that skips hard cases would be scored
    on an easier set. The stand-in has no verdict, so it gets every field wrong, no
    risk, no check, no proof. It is marked ``missing`` so operations (over calls
    actually made) leave it out.
    """
    answered = np.zeros(cases.n, dtype=bool)
    for oc in outcomes:
        answered[cases.index[oc.case_id]] = True
    stand_ins = [
        Outcome(run_id=run_id, case_id=cases.cases[i].id, target=target, repetition=0,
                status="error", attempts=0, error=MISSING_ERROR)
        for i in np.flatnonzero(~answered)
    ]
    tagged = [(o, False) for o in outcomes] + [(o, True) for o in stand_ins]
    tagged.sort(key=lambda t: (cases.index[t[0].case_id], t[0].repetition))
    return [o for o, _ in tagged], np.fromiter((m for _, m in tagged), dtype=bool, count=len(tagged))


def load_runs(run_dirs: list[str]) -> ScoreInput:
    """Load one or more runs of the same suite; refuse anything else with one line."""
    if not run_dirs:
        raise UserError("give at least one run folder (runs/ID)")
    dirs = [Path(d) for d in run_dirs]
    manifests = [read_manifest(d) for d in dirs]
    first = manifests[0]
    for d, m in zip(dirs[1:], manifests[1:]):
        if m.manifest_sha256 != first.manifest_sha256:
            raise UserError(
                f"{d}: this run used a different suite ({m.suite_name}, manifest "
                f"{m.manifest_sha256[:12]}) than {dirs[0]} ({first.suite_name}, "
                f"{first.manifest_sha256[:12]}); score runs of one suite together"
            )
    if len({m.run_id for m in manifests}) != len(manifests):
        raise UserError("the same run was given twice")
    suite_dir = Path(first.suite_dir)
    if not suite_dir.is_absolute() and not suite_dir.exists():
        # run.json may store the suite relative to the project; try beside runs/ too.
        alt = dirs[0].resolve().parent.parent / suite_dir
        suite_dir = alt if alt.exists() else suite_dir
    cases, suite_name, sha = load_cases(str(suite_dir))
    if sha != first.manifest_sha256:
        raise UserError(
            f"{suite_dir}: the suite's manifest changed since the run (sha256 {sha[:12]}, "
            f"run.json says {first.manifest_sha256[:12]}); re-run or restore the suite"
        )
    targets: list[TargetRuns] = []
    seen: dict[str, Path] = {}
    for d, m in zip(dirs, manifests):
        per_target = read_outcomes(d, m, cases)
        for info in m.targets:
            if info.id in seen:
                raise UserError(
                    f"target {info.id} is in both {seen[info.id]} and {d}; score them separately"
                )
            seen[info.id] = d
            ocs, missing = with_missing_cases(per_target[info.id], cases, m.run_id, info.id)
            case_idx = np.fromiter((cases.index[o.case_id] for o in ocs), dtype=np.int32, count=len(ocs))
            targets.append(TargetRuns(info=info, run_id=m.run_id, outcomes=ocs, case=case_idx,
                                      missing=missing))
    targets.sort(key=lambda t: t.id)
    return ScoreInput(
        manifests=manifests, suite_name=suite_name, manifest_sha256=sha, cases=cases, targets=targets,
        suite_dir=suite_dir,
    )
