"""The CLI explains itself and keeps its exit-code promises."""

import argparse
import subprocess
import sys

import pytest

from rabench.cli.main import build_parser, main


def _all_commands():
    """Every (sub)command path registered, e.g. ["cases", "validate"]."""
    out = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out.append(path + [name])
                    walk(sub, path + [name])

    walk(build_parser(), [])
    return out


def test_core_commands_are_registered():
    names = {" ".join(p) for p in _all_commands()}
    assert {"schema", "cases", "cases validate"} <= names


@pytest.mark.parametrize("path", _all_commands(), ids=lambda p: " ".join(p))
def test_every_command_has_help_that_explains(path, capsys):
    with pytest.raises(SystemExit) as info:
        main(path + ["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: rabench " + " ".join(path))
    assert len(out.split()) > 12  # a description, not just a usage line


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: rabench" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error():
    proc = subprocess.run([sys.executable, "-m", "rabench", "frobnicate"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "unknown command 'frobnicate'" in proc.stderr and "Traceback" not in proc.stderr


def test_a_mistyped_command_names_the_closest(capsys):
    with pytest.raises(SystemExit) as info:
        main(["scroe", "x"])
    assert info.value.code == 2
    assert "did you mean 'score'?" in capsys.readouterr().err


def _leaf_parsers():
    out = []

    def walk(parser, path):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and path:
            out.append((path, parser))
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, path + [name])

    walk(build_parser(), [])
    return out


def _typo(flag: str) -> str:
    """Swap two letters in the middle of the flag's name: --repeat -> --repaet."""
    body = flag[2:]
    i = max(1, len(body) // 2)
    while i < len(body) - 1 and body[i] == body[i - 1]:
        i += 1
    return "--" + body[: i - 1] + body[i] + body[i - 1] + body[i + 1 :]


def test_run_repaet_suggests_repeat_in_one_line(capsys):
    """Issue 32, defect 7: `--repaet` printed the top-level usage without a suggestion."""
    with pytest.raises(SystemExit) as info:
        main(["run", "--suite", "cases/sample", "--repaet", "2"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "rabench run: error: unrecognized argument: --repaet (did you mean --repeat?) (see rabench run --help)"
    ]


@pytest.mark.parametrize("path,parser", _leaf_parsers(), ids=lambda p: " ".join(p) if isinstance(p, list) else "")
def test_every_command_suggests_its_own_flag_for_a_typo(path, parser, capsys):
    flags = sorted((s for s in parser._option_string_actions if s.startswith("--") and s != "--help"), key=len)
    if not flags:
        pytest.skip("no long flags")
    flag = flags[-1]
    typo = _typo(flag)
    assert typo != flag
    with pytest.raises(SystemExit) as info:
        main(path + [typo])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"unrecognized argument: {typo} (did you mean {flag}?)" in err


def test_version_names_the_runner_and_the_spec(capsys):
    from rabench import __version__
    from rabench.score.output import SPEC

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"rabench {__version__} (the runner; implements the benchmark spec {SPEC})"
    assert "RA-Bench 0.2.0" in out


def test_schema_prints_every_contract(capsys):
    import json

    assert main(["schema"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["contracts"]) == {
        "case",
        "ap_case",
        "suite_header",
        "verdict",
        "outcome",
        "run",
        "row",
        "rows",
        "details",
        "cases",
        "track",
        "targets_config",
        "price_table",
    }
    assert "Verdict" in doc["$defs"] and "Reason" in doc["$defs"]
    assert main(["schema", "nope"]) == 2


def test_bench_targets_is_a_deprecated_alias_of_repeated_target(tmp_path, capsys):
    missing = str(tmp_path / "missing")  # --real fails fast, after the targets are read
    assert main(["bench", "--targets", "null", "--real", missing]) == 2
    assert 'rabench bench: --targets "a b" is deprecated' in capsys.readouterr().err
    assert main(["bench", "--target", "null", "--real", missing]) == 2
    assert "deprecated" not in capsys.readouterr().err


def test_load_concurrency_is_spelled_as_in_run(capsys):
    """Issue 32, defect 7: `--concurrency openai=4` in run, `4` in load; now PROVIDER=N in both."""
    assert main(["load", "--target", "null", "--concurrency", "null=4", "--calls", "20", "--json"]) == 0
    out = capsys.readouterr()
    assert "deprecated" not in out.err and '"concurrency": 4' in out.out.replace(":4", ": 4")
    assert main(["load", "--target", "null", "--concurrency", "4", "--calls", "20"]) == 0
    assert "rabench load: --concurrency 4 is deprecated" in capsys.readouterr().err
    assert main(["load", "--target", "null", "--concurrency", "openai=4", "--calls", "20"]) == 2
    assert "the target's provider is null" in capsys.readouterr().err
