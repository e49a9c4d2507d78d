"""The Redis duplicate store: the same matches as MemoryStore, atomic across processes, one
namespace per run and repetition (a real redis-server on loopback, started by rabench's helper)."""

from __future__ import annotations

import multiprocessing as mp
import random
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import redis

from rabench.cases.transforms import load_image
from rabench.cluster.redis_proc import start_redis
from rabench.contracts import Fields, LineItem
from rabench.engine.dupes import Fingerprint, Match, MemoryStore, make_fingerprint
from rabench.engine.dupes.redis_store import RedisStore, namespace
from rabench.run.plan import plan_suite

SAMPLE = Path(__file__).resolve().parents[2] / "cases" / "sample"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with start_redis() as url:
        yield url


def _sample_fingerprints() -> list[tuple[str, Fingerprint]]:
    """The committed sample suite in plan order, fingerprinted from its files and what its labels say."""
    out = []
    for lc in plan_suite(str(SAMPLE)).cases():
        label = lc.case.label
        data = lc.read_bytes()
        fields = Fields(
            merchant=label.merchant,
            date=label.date,
            subtotal=label.subtotal,
            tax_total=label.tax_total,
            total=label.total,
            receipt_number=label.receipt_number,
        )
        items = [LineItem(description=i.description, total=i.total) for i in label.line_items or []]
        out.append((lc.case.id, make_fingerprint(data, load_image(data, lc.case.media_type), fields, items)))
    return out


def _same_matches(entries: list[tuple[str, Fingerprint]], store: RedisStore) -> list[Match | None]:
    memory = MemoryStore()
    got = []
    for ref, fp in entries:
        expected, actual = memory.lookup_and_add(fp, ref), store.lookup_and_add(fp, ref)
        assert actual == expected, ref
        got.append(actual)
    assert len(store) == len(memory) == len(entries)
    return got


def test_same_matches_as_memory_case_by_case_on_the_sample_suite(redis_url):
    entries = _sample_fingerprints()
    store, again_store = RedisStore(redis_url, "sample", 0), RedisStore(redis_url, "sample", 1)
    try:
        first = _same_matches(entries, store)
        # the suite's transformed copies are found (not a comparison of two empty answers)
        lineage = {lc.case.id for lc in plan_suite(str(SAMPLE)).cases() if lc.case.lineage is not None}
        assert lineage and {r for (r, _), m in zip(entries, first) if m is not None} >= lineage
        # the whole suite submitted a second time: every case is now an exact match of itself
        again = [(f"{ref}-again", fp) for ref, fp in entries]
        second = _same_matches(entries + again, again_store)
        assert all(m is not None and m.kind == "exact" for m in second[len(entries) :])
    finally:
        store.clear()
        again_store.clear()


def test_same_matches_as_memory_on_many_look_alikes(redis_url):
    """Random fingerprints from a small space of dates, totals and numbers: many share keys."""
    rng = random.Random(5)
    entries = []
    for i in range(400):
        base = rng.randrange(60)
        entries.append(
            (
                f"r{i}",
                Fingerprint(
                    sha256=f"{rng.randrange(300):064x}",
                    phash=rng.getrandbits(64) if rng.random() < 0.5 else base * 977,
                    merchant=rng.choice(["corner market", "corner market ", "bean there", "grand hotel"]),
                    date=rng.choice([None, "2024-05-10", "2024-05-11"]),
                    total=rng.choice([None, 4250, 4250, 999]),
                    receipt_number=rng.choice([None, f"n{base % 7}"]),
                    items=tuple(sorted(rng.sample([100, 250, 4250, 700], 2))),
                ),
            )
        )
    store = RedisStore(redis_url, "lookalikes", 0)
    try:
        matches = _same_matches(entries, store)
        assert {m.kind for m in matches if m is not None} >= {"exact", "text"}
    finally:
        store.clear()


def test_namespaces_are_per_run_and_repetition_and_clear_empties_only_its_own(redis_url):
    fp = Fingerprint(sha256="ab" * 32, phash=7, merchant="m", date="2024-01-01", total=100)
    a0, a1, b0 = RedisStore(redis_url, "run-a", 0), RedisStore(redis_url, "run-a", 1), RedisStore(redis_url, "run-b", 0)
    assert a0.lookup_and_add(fp, "x") is None
    assert a1.lookup_and_add(fp, "x2") is None and b0.lookup_and_add(fp, "x3") is None  # empty elsewhere
    assert a0.lookup_and_add(fp, "y") == Match("x", "exact", 1.0, a0.lookup_and_add(fp, "z").detail)  # type: ignore[union-attr]
    assert a0.clear() > 0 and len(a0) == 0 and a0.lookup_and_add(fp, "w") is None
    assert len(a1) == 1 and len(b0) == 1
    keys = redis.Redis.from_url(redis_url).keys("*")
    assert keys and all(k.decode().startswith(("rabench:{run-a}:", "rabench:{run-b}:")) for k in keys)
    assert namespace("run-a", 0) == "rabench:{run-a}:0:"
    for s in (a0, a1, b0):
        s.clear()
    assert redis.Redis.from_url(redis_url).dbsize() == 0


# --- several processes adding look-alikes at once -------------------------------------------

PURCHASES = 12
COPIES_PER_WORKER = 3
WORKERS = 4


def _copy(purchase: int, worker: int, copy: int) -> Fingerprint:
    """A re-submission of one purchase: another file (sha256), same content; all share the date."""
    return Fingerprint(
        sha256=f"{purchase:016x}{worker:016x}{copy:032x}",
        phash=purchase * 0x9E3779B97F4A7C15 % (1 << 64),
        merchant="corner market",
        date="2024-05-10",
        total=1000 + purchase,
        receipt_number=f"n{purchase}",
        items=(500, 500 + purchase),
    )


def _worker(url: str, worker: int, start: mp.synchronize.Barrier, out: mp.Queue) -> None:
    store = RedisStore(url, "race", 0)
    units = [(p, c) for p in range(PURCHASES) for c in range(COPIES_PER_WORKER)]
    random.Random(worker).shuffle(units)
    start.wait()
    results = []
    for p, c in units:
        m = store.lookup_and_add(_copy(p, worker, c), f"p{p}-w{worker}-c{c}")
        results.append((f"p{p}-w{worker}-c{c}", None if m is None else msgspec.to_builtins(m)))
    out.put((results, store.retries))


def test_processes_adding_look_alikes_at_once_see_each_other_as_one_process_would(redis_url):
    ctx = mp.get_context("spawn")
    start, out = ctx.Barrier(WORKERS), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(redis_url, w, start, out)) for w in range(WORKERS)]
    for p in procs:
        p.start()
    got: dict[str, dict | None] = {}
    retries = 0
    for _ in procs:
        results, r = out.get(timeout=120)
        got.update(results)
        retries += r
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    store = RedisStore(redis_url, "race", 0)
    try:
        assert len(got) == len(store) == PURCHASES * COPIES_PER_WORKER * WORKERS
        # each purchase is new exactly once across all workers; every other copy matches an earlier one of it
        for p in range(PURCHASES):
            mine = {ref: m for ref, m in got.items() if ref.startswith(f"p{p}-")}
            assert sum(m is None for m in mine.values()) == 1, p
            assert all(m["ref"].startswith(f"p{p}-") for m in mine.values() if m is not None)
        # replaying the adds in the order Redis committed them, in one MemoryStore, gives every answer
        client = redis.Redis.from_url(redis_url)
        committed = sorted(
            (int(i), msgspec.msgpack.decode(b, type=tuple[str, Fingerprint]))
            for i, b in client.hgetall(namespace("race", 0) + "fp").items()
        )
        memory = MemoryStore()
        for _, (ref, fp) in committed:
            m = memory.lookup_and_add(fp, ref)
            assert got[ref] == (None if m is None else msgspec.to_builtins(m)), ref
        # they did race: answers name submissions of other workers
        assert any(m is not None and m["ref"].split("-")[1] != ref.split("-")[1] for ref, m in got.items())
        print(f"commits refused and looked again: {retries}")
    finally:
        store.clear()


# --- selected by [self] duplicate_store = "redis://..." ------------------------------------


@pytest.mark.parametrize(
    "url,expected",
    [
        ("redis://127.0.0.1:notaport/0", "is not a redis://host:port/db URL"),
        ("redis:///0", "names no host"),
        ("redis://127.0.0.1:6379/zero", "the database after the port must be a number"),
        ("http://127.0.0.1:6379/0", "is not a redis:// or rediss:// URL"),
    ],
)
def test_a_bad_redis_url_is_one_line_and_exit_2(tmp_path, capsys, url, expected):
    from rabench.cli.main import main

    config = tmp_path / "targets.toml"
    config.write_text(f'[self]\nduplicate_store = "{url}"\n')
    argv = [
        "run",
        "--suite",
        str(SAMPLE),
        "--out",
        str(tmp_path / "r"),
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
        "--target",
        "null",
        "--config",
        str(config),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "[self]: duplicate_store" in err and expected in err, err


def test_self_target_uses_redis_per_repetition_and_cleans_up(redis_url, ocr_pool):
    import asyncio

    from rabench.contracts.targets_config import parse_targets_config
    from rabench.engine.target import SelfTarget

    client = redis.Redis.from_url(redis_url)
    target = SelfTarget("self", parse_targets_config({"self": {"duplicate_store": redis_url}}), pool=ocr_pool)
    asyncio.run(target.open())
    prefix = f"rabench:{{{target.store_namespace}}}:"
    fp = Fingerprint(sha256="cd" * 32, phash=1, merchant="m", date="2024-02-02", total=5)
    store = target._store
    assert isinstance(store, RedisStore) and store.prefix == prefix + "0:"
    assert store.lookup_and_add(fp, "a") is None and store.lookup_and_add(fp, "b") is not None
    asyncio.run(target.reset(1))  # the spec's empty backend for the next repetition; rep 0 is gone
    assert target._store.prefix == prefix + "1:" and not client.keys(prefix + "0:*")
    assert target._store.lookup_and_add(fp, "a") is None
    asyncio.run(target.close())
    assert not client.keys(prefix + "*")
    # another target instance (another run) has its own namespace
    assert SelfTarget("self", parse_targets_config({}), pool=ocr_pool).store_namespace != target.store_namespace


def test_an_unreachable_redis_is_one_clear_error(ocr_pool):
    import asyncio

    from rabench.cluster.redis_proc import free_port
    from rabench.contracts.targets_config import parse_targets_config
    from rabench.engine.target import SelfTarget
    from rabench.errors import UserError

    url = f"redis://127.0.0.1:{free_port()}/0"
    target = SelfTarget("self", parse_targets_config({"self": {"duplicate_store": url}}), pool=ocr_pool)
    with pytest.raises(UserError, match=r"\[self\] duplicate_store redis://127.0.0.1:\d+/0: cannot reach Redis"):
        asyncio.run(target.open())


@pytest.mark.slow
def test_the_engine_gives_the_same_verdicts_with_redis_as_in_memory_on_the_sample_suite(redis_url, ocr_pool):
    """The sample's copies, look-alikes and what they copy or look like, in plan order, each analysed
    once (real OCR), then judged by a self target on each store (a subset: OCR is the cost)."""
    import asyncio

    from rabench.contracts.targets_config import parse_targets_config
    from rabench.engine.pipeline import analyse
    from rabench.engine.target import SelfTarget

    memory = SelfTarget("self", parse_targets_config({"self": {"today": "2025-01-10"}}), pool=ocr_pool)
    on_redis = SelfTarget(
        "self", parse_targets_config({"self": {"today": "2025-01-10", "duplicate_store": redis_url}}), pool=ocr_pool
    )

    async def both() -> list[tuple[str, bool | None]]:
        seen = []
        for t in (memory, on_redis):
            await t.open()
            await t.reset(0)
        try:
            cases = list(plan_suite(str(SAMPLE)).cases())
            related = {lc.case.id for lc in cases if lc.case.lineage or lc.case.after}
            related |= {lc.case.lineage.of for lc in cases if lc.case.lineage} | {
                a for lc in cases for a in lc.case.after
            }
            for lc in (lc for lc in cases if lc.case.id in related):
                analysis = await ocr_pool.submit(
                    analyse, str(lc.path), lc.case.media_type, None, memory._settings, lc.case.submitted_at
                )
                expected, actual = memory.verdict(analysis, lc.case.id), on_redis.verdict(analysis, lc.case.id)
                assert actual == expected, lc.case.id
                seen.append((lc.case.id, actual.seen_before))
        finally:
            for t in (memory, on_redis):
                await t.close()
        return seen

    seen = asyncio.run(both())
    assert len(seen) == 14 and sum(bool(s) for _, s in seen) >= 3  # the suite's copies were recognised
    assert not redis.Redis.from_url(redis_url).keys(f"rabench:{{{on_redis.store_namespace}}}:*")
