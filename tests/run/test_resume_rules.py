"""Issue 32 defect 3: resume as docs/running.md says: limits, timeout and retries may change;
what may not change is named in one line; --repeat 2 blames the repetitions, not the target."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from rabench.cli.main import main
from rabench.errors import UserError
from rabench.run.manifest import check_resume, read_manifest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("resume") / "r"
    rc = main(
        ["run", "--suite", str(ROOT / "cases/sample"), "--target", "null", "--out", str(out), "--progress", "none"]
    )
    assert rc == 0
    return out


def test_resume_repeat_2_names_repetitions_in_one_line(finished, capsys):
    rc = main(["run", "--resume", "--out", str(finished), "--repeat", "2", "--progress", "none"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1
    assert "repetitions differs (run.json has 1, now 2)" in err
    assert "may not change: suite, targets, repetitions, seed" in err


def test_limits_timeout_and_retries_may_change(finished):
    old = read_manifest(finished)
    t = old.targets[0]
    t2 = msgspec.structs.replace(t, settings={**t.settings, "concurrency": 64, "rpm": 10})
    new = msgspec.structs.replace(old, targets=[t2], timeout_s=5.0, settings={**old.settings, "max_retries": 0})
    check_resume(old, new)  # no refusal


def test_other_target_setting_is_refused_naming_the_key(finished):
    old = read_manifest(finished)
    t2 = msgspec.structs.replace(old.targets[0], settings={**old.targets[0].settings, "temperature": 0.7})
    with pytest.raises(UserError) as e:
        check_resume(old, msgspec.structs.replace(old, targets=[t2]))
    assert "target null setting temperature differs" in str(e.value)
    assert "{" not in str(e.value)  # a value, not two whole dicts
