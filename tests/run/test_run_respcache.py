"""The response cache (``rabench run --cache-responses``): hit, miss, invalidation on the prompt
version, only new units called when a suite grows, repetitions kept apart, and the scorer leaving
cached answers out of latency and cost."""

from __future__ import annotations

import math

import msgspec
from runfakes import FAST_RETRY
from runsuite import make_suite

from rabench.cli.main import main
from rabench.contracts import Fields, TargetInfo, Usage, Verdict
from rabench.run.outcomes import read_outcomes, scan_costs
from rabench.run.respcache import ResponseCache, cache_key, target_part
from rabench.run.session import RunOptions, run
from rabench.score.load import load_runs
from rabench.score.reduce import run_facts


class ModelTarget:
    """A target asking a pinned model a versioned prompt (what the cache applies to); counts calls."""

    def __init__(self, prompt_version: str = "plain-v1", temperature: float | None = None):
        self.info = TargetInfo(
            id="diy:fake:m1",
            kind="diy",
            provider="fake",
            model="m1",
            prompt_version=prompt_version,
            settings={"temperature": temperature, "concurrency": 4, "price_date": "x"},
        )
        self.calls: list[tuple[str, int]] = []

    async def open(self) -> None: ...

    async def reset(self, repetition: int) -> None: ...

    async def close(self) -> None: ...

    async def check(self, request):
        self.calls.append((request.case_id, request.repetition))
        return Verdict(
            fields=Fields(total=float(len(self.calls))),
            risk=0.25,
            usage=Usage(model="m1", input_tokens=10, output_tokens=5, cost_usd=0.01),
        )


def _run(tmp_path, suite, name, target, db, repetitions=1):
    out = tmp_path / name
    summary = run(
        RunOptions(
            out=out,
            suite_dir=str(suite),
            repetitions=repetitions,
            timeout_s=10,
            policy=FAST_RETRY,
            cache_root=tmp_path / "prep",
            progress="none",
            response_cache=db,
        ),
        targets=[target],
    )
    return summary, {(o.case_id, o.repetition): o for o in read_outcomes(out / "outcomes.jsonl")}


def test_key_covers_provider_model_prompt_image_params_and_repetition_only():
    base = ModelTarget().info
    k = target_part(base)
    assert cache_key(k, "a" * 64, 0) == cache_key(target_part(ModelTarget().info), "a" * 64, 0)
    assert cache_key(k, "a" * 64, 0) != cache_key(k, "b" * 64, 0)  # another prepared image
    assert cache_key(k, "a" * 64, 0) != cache_key(k, "a" * 64, 1)  # another repetition
    for other in (
        ModelTarget("plain-v2").info,
        ModelTarget(temperature=0.5).info,
        msgspec.structs.replace(base, model="m2"),
        msgspec.structs.replace(base, provider="p2"),
    ):
        assert target_part(other) != k
    # pool sizes and prices change no request: same key
    same = msgspec.structs.replace(base, settings={**base.settings, "concurrency": 64, "price_date": "y"})
    assert target_part(same) == k


def test_hit_miss_and_invalidation_on_prompt_version(tmp_path):
    suite = make_suite(tmp_path / "suite", 6)
    db = tmp_path / "responses.sqlite"
    first = ModelTarget()
    s1, o1 = _run(tmp_path, suite, "r1", first, db)
    assert len(first.calls) == 6 and s1.cached == 0
    assert not any(o.cached for o in o1.values())

    again = ModelTarget()  # a new run of the same target: every answer from the cache
    s2, o2 = _run(tmp_path, suite, "r2", again, db)
    assert again.calls == [] and s2.cached == 6
    for key, o in o2.items():
        assert o.cached and o.status == "ok" and o.attempts == 0 and o.latency_s is None
        assert o.verdict == o1[key].verdict  # the very answer given in the first run
    assert scan_costs(tmp_path / "r2" / "outcomes.jsonl") == []  # nothing spent by this run

    v2 = ModelTarget("plain-v2")  # a new prompt version asks again
    s3, o3 = _run(tmp_path, suite, "r3", v2, db)
    assert len(v2.calls) == 6 and s3.cached == 0 and not any(o.cached for o in o3.values())

    bigger = make_suite(tmp_path / "suite2", 8)  # same images for c0-c5, two new cases
    grown = ModelTarget()
    s4, _ = _run(tmp_path, bigger, "r4", grown, db)
    assert sorted(grown.calls) == [("c00006", 0), ("c00007", 0)] and s4.cached == 6


def test_repetitions_are_asked_separately_and_failures_are_not_stored(tmp_path):
    suite = make_suite(tmp_path / "suite", 3)
    db = tmp_path / "responses.sqlite"

    class Flaky(ModelTarget):
        async def check(self, request):
            if request.case_id == "c00001":
                from rabench.targets.base import TargetFailure

                self.calls.append((request.case_id, request.repetition))
                raise TargetFailure("refusal", "no")
            return await super().check(request)

    t = Flaky()
    _run(tmp_path, suite, "r1", t, db, repetitions=2)
    assert len(t.calls) == 6  # 3 cases x 2 repetitions, none shared
    t2 = Flaky()
    _, o2 = _run(tmp_path, suite, "r2", t2, db, repetitions=2)
    assert sorted(t2.calls) == [("c00001", 0), ("c00001", 1)]  # the refusals are asked again
    assert o2[("c00000", 0)].verdict != o2[("c00000", 1)].verdict  # each repetition its own answer
    with ResponseCache(db) as rc:
        assert rc._db.execute("SELECT count(*) FROM responses").fetchone()[0] == 4


def test_scorer_leaves_cached_answers_out_of_latency_and_cost(tmp_path):
    suite = make_suite(tmp_path / "suite", 4)
    db = tmp_path / "responses.sqlite"
    _run(tmp_path, suite, "r1", ModelTarget(), db)
    _run(tmp_path, suite, "r2", ModelTarget(), db)
    for name, measured in (("r1", True), ("r2", False)):
        loaded = load_runs([str(tmp_path / name)])
        facts = run_facts(loaded.targets[0], loaded.cases)
        assert all(math.isnan(x) != measured for x in facts.latency)
        assert all(math.isnan(x) != measured for x in facts.cost)
        assert all(r == 1.0 for r in facts.readable)  # the answers themselves are scored
    # the latency rows of the run answered wholly from the cache say why they have no value
    from rabench.score.scorer import score_runs
    from rabench.score.tasks.operations import NOT_MEASURED_CACHED, not_measured_reason

    for name, note in (("r1", ""), ("r2", NOT_MEASURED_CACHED)):
        rows = [
            r for r in score_runs([str(tmp_path / name)]).rows if r.metric.startswith("latency_") and r.stratum == "all"
        ]
        assert len(rows) == 3 and all(r.note == note for r in rows)
        assert all((r.value is None) == bool(note) and (not_measured_reason(r) is None) != bool(note) for r in rows)


def test_cli_flag_and_unopenable_cache_is_one_line(tmp_path, capsys):
    suite = make_suite(tmp_path / "suite", 2)
    (tmp_path / "blocker").write_text("a file, not a folder")
    code = main(
        [
            "run",
            "--suite",
            str(suite),
            "--out",
            str(tmp_path / "r"),
            "--target",
            "null",
            "--progress",
            "none",
            "--cache",
            str(tmp_path / "prep"),
            "--cache-responses",
            str(tmp_path / "blocker" / "x.sqlite"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot open the response cache" in err[0]
    assert not (tmp_path / "r").exists()
