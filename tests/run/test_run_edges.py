"""Fail-loud edges of `rabench run`, `rabench score` and bench/targets.toml (issue 15).

Every bad input is one line and exit 2, never a silent default: a misspelt config key,
an impossible flag value, a symlink loop, a receipt file that changed after it was
hashed, a torn outcomes line, a manifest line with a key written twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rabench.cli.main import main
from rabench.run.config import (
    ProviderTable,
    SelfSection,
    TargetsConfig,
    load_targets_config,
    provider_limits,
)
from rabench.run.outcomes import read_outcomes
from runsuite import make_suite, tiny_jpeg

ROOT = Path(__file__).resolve().parents[2]


def _argv(suite, out, tmp_path, *extra):
    return [
        "run",
        "--suite",
        str(suite),
        "--out",
        str(out),
        "--progress",
        "none",
        "--cache",
        str(tmp_path / "cache"),
        *extra,
    ]


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# --- targets.toml: typed, unknown keys refused with the nearest valid one -------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("[defaults]\nconcurency = 2\n", "[defaults] unknown key 'concurency' (did you mean concurrency?)"),
        ("[providers.openai]\nrpn = 10\n", "[providers.openai] unknown key 'rpn' (did you mean rpm?)"),
        (
            '[providers.openai]\napi_key = "sk-x"\n',
            "[providers.openai] unknown key 'api_key' (did you mean api_key_env?)",
        ),
        ("[self]\nworker = 2\n", "[self] unknown key 'worker' (did you mean workers?)"),
        ("[defualts]\nrpm = 1\n", "unknown table or key 'defualts' (did you mean defaults?)"),
        ('[bench]\ntarget = ["self"]\n', "[bench] unknown key 'target' (did you mean targets?)"),
        (
            '[providers.self]\nbase_url = "http://x"\n',
            "[providers.self] unknown key 'base_url' (only concurrency and rpm apply to the built-in self provider)",
        ),
        ("[providers.opneai]\nrpm = 5\n", "[providers.opneai] is not a provider rabench knows (did you mean openai?)"),
        ("[providers.openai]\nconcurrency = 0\n", "[providers.openai] concurrency: Expected int >= 1"),
        ("[providers.openai]\nrpm = -1\n", "[providers.openai] rpm: Expected float >= 0.0"),
        ("[defaults]\ntimeout_s = 0\n", "[defaults] timeout_s: Expected float > 0"),
        ('[defaults]\nconcurrency = "8"\n', "[defaults] concurrency: Expected int, got str"),
        ('[self]\npool = "fork"\n', "[self] pool: Invalid enum value 'fork'"),
        ('[defaults]\nprice_date = "29/11/2026"\n', "price_date '29/11/2026' is not a YYYY-MM-DD date"),
        ("providers = 3\n", "providers must be a table"),
    ],
)
def test_a_bad_targets_config_is_one_line_naming_the_key(tmp_path, capsys, text, expected):
    config = tmp_path / "targets.toml"
    config.write_text(text)
    suite = make_suite(tmp_path / "s", 1)
    assert main(_argv(suite, tmp_path / "r", tmp_path, "--target", "null", "--config", str(config))) == 2
    err = _one_line_error(capsys)
    assert expected in err and str(config) in err, err
    assert not (tmp_path / "r").exists()


def test_the_projects_own_config_and_documented_keys_load(tmp_path):
    typed = load_targets_config(ROOT / "bench" / "targets.toml")
    assert typed.defaults.price_date == "2026-11-29" and "self" in (typed.bench.targets or [])
    assert provider_limits(typed, "self").concurrency == 4
    config = tmp_path / "all.toml"
    config.write_text(
        '[defaults]\ntimeout_s = 30\nconcurrency = 4\nrpm = 0\nprice_date = 2026-11-29\nprice_file = "p.toml"\n'
        '[self]\nworkers = 2\npool = "thread"\nocr_max_side = 1280\ntoday = "2025-01-01"\n'
        'max_age_days = 365\nrisk_model = "m.json"\nduplicate_store = "d.sqlite"\ncost_per_check_usd = 0.01\n'
        "pack_price_usd = 49.0\npack_checks = 100\n"
        '[providers.mine]\nwire = "openai-compatible"\nbase_url = "http://127.0.0.1:1/v1"\n'
        'api_key_env = ""\nkey_required = false\nmax_output_tokens = 100\nmax_tokens_field = "max_tokens"\n'
        'temperature = 0.0\nimage_detail = "low"\nanthropic_version = "2023-06-01"\nstrip_prefix = false\n'
        'check_model = false\nprice_models = { "m" = "openai/gpt-5" }\ncheck_models = ["m"]\n'
        "connect_timeout_s = 5\nconcurrency = 2\nrpm = 60\n"
        '[bench]\ntargets = ["self"]\n'
    )
    typed = load_targets_config(config)
    assert typed.defaults.price_date == "2026-11-29"  # a TOML date reads as the same text
    assert typed.providers["mine"].rpm == 60


def test_the_config_struct_lists_every_key_its_readers_take():
    """A key added to the DIY settings or the engine's [self] docs must be added here too."""
    from rabench.targets.diy.config import ProviderSettings

    assert set(ProviderTable.__struct_fields__) == set(ProviderSettings.__struct_fields__) - {"name"}
    engine_doc = (ROOT / "docs" / "engine.md").read_text()
    paragraph = engine_doc[engine_doc.index("Config (`[self]`") :].split("\n\n")[0]
    documented = set(re.findall(r"`([a-z_]+)` \(", paragraph)) | {"workers", "pool"}
    assert documented and documented <= set(SelfSection.__struct_fields__), documented
    assert set(TargetsConfig.__struct_fields__) == {"defaults", "providers", "self", "bench", "targets", "executor"}


# --- impossible flag values ------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra,expected",
    [
        (["--repeat", "0"], "--repeat 0: must be at least 1"),
        (["--repeat", "-2"], "--repeat -2: must be at least 1"),
        (["--timeout", "0"], "--timeout 0: must be a number of seconds above 0"),
        (["--timeout", "-5"], "--timeout -5: must be a number of seconds above 0"),
        (["--timeout", "nan"], "--timeout nan: must be a number of seconds above 0"),
        (["--concurrency", "null=0"], "--concurrency null=0: must be a whole number, at least 1"),
        (["--concurrency", "null=2.5"], "--concurrency null=2.5: must be a whole number, at least 1"),
        (["--concurrency", "null=-1"], "must be a finite number >= 0"),
        (["--rpm", "null=-10"], "must be a finite number >= 0"),
        (["--log-every", "0"], "--log-every 0: must be a number of seconds above 0"),
    ],
)
def test_impossible_flag_values_are_refused(tmp_path, capsys, extra, expected):
    suite = make_suite(tmp_path / "s", 2)
    assert main(_argv(suite, tmp_path / "runs" / "x", tmp_path, "--target", "null", *extra)) == 2
    assert expected in _one_line_error(capsys)
    assert not (tmp_path / "runs").exists()


def test_a_failed_run_leaves_no_folder_holding_only_its_lock(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 2)
    out = tmp_path / "runs" / "new"
    assert main(_argv(suite, out, tmp_path, "--target", "nosuch")) == 2  # fails after taking the lock
    assert "unknown target" in _one_line_error(capsys)
    assert not (tmp_path / "runs").exists()
    existing = tmp_path / "mine"
    existing.mkdir()
    assert main(_argv(tmp_path / "nope", existing, tmp_path, "--target", "null")) == 2
    capsys.readouterr()
    assert existing.is_dir() and list(existing.iterdir()) == []  # the user's folder stays, without a lock


def test_a_run_that_wrote_outcomes_keeps_its_folder_to_resume(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 2)
    out = tmp_path / "r"
    assert main(_argv(suite, out, tmp_path, "--target", "null")) == 0
    assert main(_argv(suite, out, tmp_path, "--target", "null")) == 2  # refused: already holds a run
    capsys.readouterr()
    assert {p.name for p in out.iterdir()} >= {"run.json", "outcomes.jsonl"}


# --- symlink loops, changed files, torn lines, duplicate keys --------------------------------


def test_a_symlink_loop_in_a_suite_is_one_line_from_run(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 2)
    lines = (suite / "manifest.jsonl").read_text().splitlines()
    case = json.loads(lines[2])
    case["file"] = "loop1"
    lines[2] = json.dumps(case)
    (suite / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    os.symlink("loop2", suite / "loop1")
    os.symlink("loop1", suite / "loop2")
    assert main(_argv(suite, tmp_path / "r", tmp_path, "--target", "null")) == 2
    assert "manifest.jsonl:3: case c00001: file loop1 runs through a symlink loop" in _one_line_error(capsys)
    assert not (tmp_path / "r").exists()


def test_a_symlink_loop_in_an_import_source_is_one_line(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.jpg").write_bytes(tiny_jpeg(1))
    os.symlink("l2", src / "l1")
    os.symlink("l1", src / "l2")
    (src / "labels.csv").write_text("file,total\na.jpg,1\nl1,2\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rabench",
            "cases",
            "import",
            "--format",
            "folder",
            str(src),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, proc.stderr
    # one line naming the row (a bad row like any other), then the import's summary line
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr and len(lines) == 2, proc.stderr
    assert lines[0].startswith("labels.csv:3: receipt l1: file l1 runs through a symlink loop")
    assert "symlink loop" in proc.stderr


def test_a_receipt_replaced_after_it_was_cached_is_an_error_outcome(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 2)
    assert main(_argv(suite, tmp_path / "r1", tmp_path, "--target", "null")) == 0
    (suite / "f1.jpg").write_bytes(tiny_jpeg(99))  # same name, other pixels; manifest unchanged
    assert main(_argv(suite, tmp_path / "r2", tmp_path, "--target", "null")) == 0
    capsys.readouterr()
    by = {o.case_id: o for o in read_outcomes(tmp_path / "r2" / "outcomes.jsonl")}
    assert by["c00000"].status == "ok"
    assert by["c00001"].status == "error" and by["c00001"].attempts == 0
    sha = hashlib.sha256(tiny_jpeg(1)).hexdigest()
    assert re.fullmatch(
        rf"cannot prepare f1\.jpg: the file's sha256 [0-9a-f]{{12}}\.\.\. does not match "
        rf"the manifest's {sha[:12]}\.\.\. .*",
        by["c00001"].error,
    ), by["c00001"].error


def test_score_of_a_torn_run_says_resume_repairs_it(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 3)
    out = tmp_path / "r"
    assert main(_argv(suite, out, tmp_path, "--target", "null")) == 0
    data = (out / "outcomes.jsonl").read_bytes()
    (out / "outcomes.jsonl").write_bytes(data[:-40])  # the last write torn by a crash
    capsys.readouterr()
    assert main(["score", str(out), "--out", str(tmp_path / "score")]) == 2
    err = _one_line_error(capsys)
    assert "outcomes.jsonl:3: the last line is cut off" in err and f"rabench run --out {out} --resume" in err
    assert main(_argv(suite, out, tmp_path, "--resume")) == 0
    assert main(["score", str(out), "--out", str(tmp_path / "score")]) == 0


def test_a_manifest_line_with_a_key_written_twice_is_refused(tmp_path, capsys):
    suite = make_suite(tmp_path / "s", 2)
    lines = (suite / "manifest.jsonl").read_text().splitlines()
    # the label says "genuine", then "fake": msgspec alone would keep the last without a word
    lines[2] = lines[2].replace(
        '"authenticity":{"verdict":"genuine"', '"authenticity":{"verdict":"genuine","verdict":"fake"', 1
    )
    assert '"verdict":"fake"' in lines[2]
    (suite / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    expected = 'manifest.jsonl:3: case c00001: key "verdict" appears twice in one object'
    assert main(["cases", "validate", str(suite)]) == 2
    assert expected in capsys.readouterr().err
    assert main(_argv(suite, tmp_path / "r", tmp_path, "--target", "null")) == 2
    assert expected in _one_line_error(capsys)


# --- an original replaced during a run ----------------------------------------------------------


class _Replacing:
    """Replaces case c00000's original at its first check; records what each unit was given."""

    def __init__(self, suite: Path, reads_original: bool):
        from rabench.contracts import TargetInfo

        if not reads_original:
            self.reads_original = False  # as DIY and null targets say (rabench.targets.base.Target)
        self.info = TargetInfo(id="replacing", kind="other", provider="replacing")
        self.suite = suite
        self.seen: list[tuple[str, int, str]] = []

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def reset(self, repetition: int) -> None: ...

    async def check(self, request):
        from rabench.contracts import Verdict

        if request.case_id == "c00000" and not self.seen:
            (self.suite / "f0.jpg").write_bytes(tiny_jpeg(99))  # same name, other pixels
        self.seen.append((request.case_id, request.repetition, request.prepared.name))
        return Verdict()


def _run_replacing(tmp_path, reads_original: bool, monkeypatch):
    from rabench.prepare import cache as prep_cache
    from rabench.run.session import RunOptions, run

    suite = make_suite(tmp_path / "s", 3)
    assert main(_argv(suite, tmp_path / "warm", tmp_path, "--target", "null")) == 0  # prepared on disk
    stats = []
    signature = prep_cache.file_signature
    monkeypatch.setattr(prep_cache, "file_signature", lambda path: stats.append(path) or signature(path))
    target = _Replacing(suite, reads_original)
    run(
        RunOptions(
            out=tmp_path / "r",
            suite_dir=str(suite),
            repetitions=4,
            cache_root=tmp_path / "cache",
            progress="none",
            concurrency={"replacing": 1},
        ),
        targets=[target],
    )
    by = {(o.case_id, o.repetition): o for o in read_outcomes(tmp_path / "r" / "outcomes.jsonl")}
    return target, by, stats


def test_a_target_reading_the_original_gets_a_stat_per_unit_and_a_replaced_file_is_refused(tmp_path, monkeypatch):
    target, by, stats = _run_replacing(tmp_path, True, monkeypatch)
    assert len(stats) >= 12  # every unit's lookup (and the hashing, again after the replacement)
    assert by[("c00000", 0)].status == "ok"
    for rep in (1, 2, 3):  # replaced after the first unit: refused, never analysed
        assert by[("c00000", rep)].status == "error" and "does not match the manifest's" in by[("c00000", rep)].error
    assert all(by[(c, r)].status == "ok" for c in ("c00001", "c00002") for r in range(4))


def test_a_target_reading_only_the_prepared_image_gets_the_manifests_image_with_a_stat_per_case(tmp_path, monkeypatch):
    target, by, stats = _run_replacing(tmp_path, False, monkeypatch)
    # one lookup per case (its first unit: hashed, so a changed file before the run is still refused),
    # not one per unit; its repetitions are sent the image of the bytes hashed, the manifest's
    assert len(stats) == 3 * 2  # per case: the lookup that finds it not yet hashed, then the hashing
    assert all(o.status == "ok" for o in by.values()) and len(by) == 12
    sha0 = hashlib.sha256(tiny_jpeg(0)).hexdigest()
    assert {name for cid, _, name in target.seen if cid == "c00000"} == {f"{sha0}.v{_prep_version()}.jpg"}


def _prep_version() -> int:
    from rabench.prepare.image import PREP_VERSION

    return PREP_VERSION
