"""A case whose lineage/after names another starts only after that one finished, under concurrency."""

import random

import anyio

from rabench.contracts import Verdict
from rabench.run.outcomes import read_outcomes
from runfakes import FakeTarget, run_fake
from runsuite import make_suite


def _jitter_sleep(seed):
    rng = random.Random(seed)

    async def behaviour(request, attempt):
        await anyio.sleep(rng.random() * 0.01)
        return Verdict()

    return behaviour


def test_dependants_start_after_their_dependencies_finish_in_every_repetition(tmp_path):
    n = 60
    deps = {i: [i - 1] for i in range(10, 20)}  # a chain c10 <- c11 <- ... <- c19
    deps.update({30: [2, 5], 31: [30]})  # several `after` ids
    lineage = {40 + k: k for k in range(10)}  # duplicates of c0..c9
    # dependants listed *before* what they depend on: the plan must reorder
    order = [31, 30] + [i for i in range(n) if i not in (30, 31)]
    suite = make_suite(tmp_path / "s", n, deps=deps, lineage=lineage, order=order)
    t = FakeTarget(behaviour=_jitter_sleep(1))
    summary = run_fake(suite, tmp_path / "r", [t], repetitions=3, concurrency=16)

    assert summary.statuses == {"fake": {"ok": n * 3}}
    assert t.max_active > 4  # really concurrent
    assert t.resets == [0, 1, 2]
    start = {(c, r): s for c, r, s, _ in t.calls}
    end = {(c, r): e for c, r, _, e in t.calls}
    edges = [(i, j) for i, js in deps.items() for j in js] + [(i, j) for i, j in lineage.items()]
    for rep in range(3):
        for i, j in edges:
            a, b = f"c{i:05d}", f"c{j:05d}"
            assert start[(a, rep)] >= end[(b, rep)], f"{a} started before {b} finished (rep {rep})"
    outcomes = read_outcomes(tmp_path / "r" / "outcomes.jsonl")
    assert sorted((o.case_id, o.repetition) for o in outcomes) == sorted(start)


def test_a_failed_dependency_still_releases_its_dependants(tmp_path):
    suite = make_suite(tmp_path / "s", 4, deps={1: [0], 2: [1]})

    def behaviour(request, attempt):
        if request.case_id == "c00000":
            raise RuntimeError("boom")
        return Verdict()

    t = FakeTarget(behaviour=behaviour)
    summary = run_fake(suite, tmp_path / "r", [t])
    assert summary.statuses == {"fake": {"error": 1, "ok": 3}}


def test_memory_target_runs_repetitions_in_sequence_with_a_reset_before_each(tmp_path):
    suite = make_suite(tmp_path / "s", 30)
    seen_reps_order = []

    async def behaviour(request, attempt):
        seen_reps_order.append(request.repetition)
        await anyio.sleep(0.001)
        return Verdict()

    t = FakeTarget(behaviour=behaviour, memory=True)
    run_fake(suite, tmp_path / "r", [t], repetitions=3, concurrency=8)
    assert seen_reps_order == sorted(seen_reps_order)  # rep 1 never starts before rep 0 ends
    assert t.resets == [0, 1, 2]
    assert t.opened and t.closed
