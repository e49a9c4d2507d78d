"""Read what the runner wrote (run.json + outcomes.jsonl) and the suite's labels.

Why a separate stage: the scorer must refuse mismatched inputs with one clear
line (runs of different suites, a target scored twice, outcomes for cases the
suite doesn't have) before any statistic is computed, and every later module
can then work on plain arrays indexed by case.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from pathlib import Path

import msgspec
import numpy as np

from rabench.cases.manifest import open_suite
from rabench.contracts import Case, Outcome, RunManifest, TargetInfo
from rabench.contracts.case import id_key
from rabench.contracts.outcome import decode_outcome_v1
from rabench.contracts.files import read_run_manifest
from rabench.errors import UserError

_outcome_decoder = msgspec.json.Decoder(Outcome)
OutcomeDecode = Callable[[memoryview], Outcome]


def _decode_v2(line: memoryview) -> Outcome:
    return _outcome_decoder.decode(line)


def outcome_decoder(manifest: RunManifest) -> OutcomeDecode:
    """How to read the run's outcome lines: as its contracts version wrote them (a version-1
    line keeps an AP answer in ``ap_verdict``: ``decode_outcome_v1`` moves it to ``verdict``).
    Module-level functions, not a Decoder's bound method: an OutcomeLines is sent to Ray workers
    by pickle, and a msgspec Decoder does not pickle."""
    return decode_outcome_v1 if manifest.contracts_version == 1 else _decode_v2


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
    outcomes: OutcomeLines
    case: np.ndarray  # int32 case index of each outcome
    # True for a stand-in: a case with no outcome at all counts as one failed run
    # (every target is scored on the same cases), but it was never a call.
    missing: np.ndarray | None = None
    # asked through its provider's batch API (``rabench run --batch``, run.json settings):
    # no per-call latency, cost at the batch price
    batch: bool = False

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
            raise UserError(
                f"{reader.manifest}: case id {case.id} appears twice"
                + (f" (as {other}, ignoring case)" if other != case.id else "")
            )
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


class OutcomeLines:
    """One target's outcomes, in (case, repetition) order, decoded from ``outcomes.jsonl`` on demand.

    Why not a list of Outcome: a decoded Outcome with its verdict is about 1.8 KB of
    small objects, its JSON line about 600 bytes (issue 19: 931 MB at 300k outcomes).
    This keeps the file's bytes (shared by the run's targets) and where each line
    starts and ends; ``oc = outcomes[i]`` and iteration decode lines one at a time.
    Stand-ins for cases without an outcome (``with_missing_cases``) are kept as objects.
    """

    __slots__ = ("_data", "_start", "_end", "_extra", "_decode")

    def __init__(
        self,
        data: memoryview,
        start: np.ndarray,
        end: np.ndarray,
        extra: dict[int, Outcome],
        decode: OutcomeDecode = _decode_v2,
    ):
        self._decode = decode
        self._data = data
        self._start = start  # int64 byte offsets; -1 for a stand-in (in ``extra``)
        self._end = end
        self._extra = extra

    def __len__(self) -> int:
        return len(self._start)

    def __getitem__(self, i: int | np.integer[Any]) -> Outcome:
        k = int(i)
        if k < 0:
            k += len(self._start)
        s = int(self._start[k])  # IndexError past the end
        if s < 0:
            return self._extra[k]
        return self._decode(self._data[s : int(self._end[k])])

    def __iter__(self) -> Iterator[Outcome]:
        for k in range(len(self._start)):
            yield self[k]


def read_outcomes(
    run_dir: Path, manifest: RunManifest, cases: CaseTable
) -> dict[str, tuple[OutcomeLines, np.ndarray, np.ndarray]]:
    """Outcomes per target, sorted by (case, repetition), with the case index and repetition
    of each; a later line for the same (case, target, repetition) replaces an earlier one
    (a resumed run may re-record a call).

    Every line is decoded (and checked) once here, one at a time; only its offsets,
    case and repetition are kept (``OutcomeLines``)."""
    path = run_dir / "outcomes.jsonl"
    if not path.is_file():
        raise UserError(f"{run_dir}: no outcomes.jsonl here")
    known = sorted({t.id for t in manifest.targets})
    target_index = {t: i for i, t in enumerate(known)}
    data = path.read_bytes()
    view = memoryview(data)
    size = len(data)
    index = cases.index
    decode = outcome_decoder(manifest)
    starts = array("q")  # byte offsets of each kept outcome's line
    ends = array("q")
    tgt = array("q")
    case = array("q")
    rep = array("q")
    wrong: str | None = None  # the first outcome naming a case or target the run does not have
    k = 0
    lineno = 0
    s = 0
    while s < size:
        e = data.find(b"\n", s)
        if e < 0:
            e = size
        lineno += 1
        raw = view[s:e]
        try:
            oc = decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            if not bytes(raw).strip():
                s = e + 1
                continue  # a blank line
            if e == size:  # the last line, with no newline after it
                raise UserError(
                    f"{path}:{lineno}: the last line is cut off (the run stopped while writing "
                    f"it); `rabench run --out {run_dir} --resume` repairs it and runs what is missing"
                ) from None
            raise UserError(f"{path}:{lineno}: {str(exc).replace('`', '')}") from None
        k += 1
        ci = index.get(oc.case_id)
        ti = target_index.get(oc.target)
        if ci is None or ti is None:
            if wrong is None:  # reported after every line decoded: a bad line comes first
                wrong = (
                    f"{path}: outcome {k}: case {oc.case_id} is not in the run's suite"
                    if ci is None
                    else f"{path}: outcome {k}: target {oc.target} is not listed in run.json"
                )
        else:
            starts.append(s)
            ends.append(e)
            tgt.append(ti)
            case.append(ci)
            rep.append(oc.repetition)
        s = e + 1
    if wrong is not None:
        raise UserError(wrong)
    line = np.arange(len(starts), dtype=np.int64)  # file order: a later line wins
    start_arr = np.frombuffer(starts, dtype=np.int64)
    end_arr = np.frombuffer(ends, dtype=np.int64)
    t_arr = np.frombuffer(tgt, dtype=np.int64)
    c_arr = np.frombuffer(case, dtype=np.int64)
    r_arr = np.frombuffer(rep, dtype=np.int64)
    order = np.lexsort((line, r_arr, c_arr, t_arr))  # by target, case, repetition, then line
    t_s, c_s, r_s = t_arr[order], c_arr[order], r_arr[order]
    last = np.ones(len(order), dtype=bool)  # the last line of each (target, case, repetition)
    if len(order):
        last[:-1] = (t_s[1:] != t_s[:-1]) | (c_s[1:] != c_s[:-1]) | (r_s[1:] != r_s[:-1])
    sel = line[order[last]]
    t_sel, c_sel, r_sel = t_s[last], c_s[last], r_s[last]
    per_target: dict[str, tuple[OutcomeLines, np.ndarray, np.ndarray]] = {}
    for ti, tid in enumerate(known):
        pick = t_sel == ti
        mine = sel[pick]
        per_target[tid] = (OutcomeLines(view, start_arr[mine], end_arr[mine], {}, decode), c_sel[pick], r_sel[pick])
    return per_target


MISSING_ERROR = "no outcome recorded for this case (counted as a failed run)"


def with_missing_cases(
    outcomes: OutcomeLines, case_of: np.ndarray, reps: np.ndarray, cases: CaseTable, run_id: str, target: str
) -> tuple[OutcomeLines, np.ndarray, np.ndarray]:
    """Outcomes sorted by (case, repetition), plus one failed stand-in run for every
    case of the suite the target has no outcome for; also the case index of each.

    Why: "Every target gets the same cases" and a case "counts once, with the share
    of its runs that succeeded" — a case left unanswered (an unfinished run) must not
    drop out of the target's rows, or a target that skips hard cases would be scored
    on an easier set. The stand-in has no verdict, so it gets every field wrong, no
    risk, no check, no proof. It is marked ``missing`` so operations (over calls
    actually made) leave it out.
    """
    n = len(outcomes)
    answered = np.zeros(cases.n, dtype=bool)
    answered[case_of] = True
    absent = np.flatnonzero(~answered)
    all_case = np.concatenate((case_of, absent))
    all_rep = np.concatenate((reps, np.zeros(len(absent), dtype=np.int64)))
    order = np.lexsort((all_rep, all_case))
    missing = order >= n
    start = np.concatenate((outcomes._start, np.full(len(absent), -1, dtype=np.int64)))[order]
    end = np.concatenate((outcomes._end, np.full(len(absent), -1, dtype=np.int64)))[order]
    extra = {
        int(pos): Outcome(
            run_id=run_id,
            case_id=cases.cases[int(all_case[order[pos]])].id,
            target=target,
            repetition=0,
            status="error",
            attempts=0,
            error=MISSING_ERROR,
        )
        for pos in np.flatnonzero(missing)
    }
    return (
        OutcomeLines(outcomes._data, start, end, extra, outcomes._decode),
        missing,
        all_case[order].astype(np.int32),
    )


def runs_of_one_suite(run_dirs: list[str]) -> tuple[list[Path], list[RunManifest], Path]:
    """The run folders, their manifests and the suite folder they ran on; one line when no run
    is given, the runs used different suites, or one run is given twice (receipt and ap scorers)."""
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
    return dirs, manifests, suite_dir


def check_suite_unchanged(suite_dir: Path, sha: str, first: RunManifest) -> None:
    """The suite on disk is the one the runs used (its manifest's sha256 as run.json recorded)."""
    if sha != first.manifest_sha256:
        raise UserError(
            f"{suite_dir}: the suite's manifest changed since the run (sha256 {sha[:12]}, "
            f"run.json says {first.manifest_sha256[:12]}); re-run or restore the suite"
        )


def load_runs(run_dirs: list[str]) -> ScoreInput:
    """Load one or more runs of the same suite; refuse anything else with one line."""
    dirs, manifests, suite_dir = runs_of_one_suite(run_dirs)
    cases, suite_name, sha = load_cases(str(suite_dir))
    check_suite_unchanged(suite_dir, sha, manifests[0])
    targets: list[TargetRuns] = []
    seen: dict[str, Path] = {}
    for d, m in zip(dirs, manifests):
        per_target = read_outcomes(d, m, cases)
        for info in m.targets:
            if info.id in seen:
                raise UserError(f"target {info.id} is in both {seen[info.id]} and {d}; score them separately")
            seen[info.id] = d
            ocs, missing, case_idx = with_missing_cases(*per_target[info.id], cases, m.run_id, info.id)
            targets.append(
                TargetRuns(
                    info=info,
                    run_id=m.run_id,
                    outcomes=ocs,
                    case=case_idx,
                    missing=missing,
                    batch=bool(m.settings.get("batch")) and info.kind == "diy",
                )
            )
    targets.sort(key=lambda t: t.id)
    return ScoreInput(
        manifests=manifests,
        suite_name=suite_name,
        manifest_sha256=sha,
        cases=cases,
        targets=targets,
        suite_dir=suite_dir,
    )
