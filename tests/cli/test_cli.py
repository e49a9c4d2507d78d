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
    assert "invalid choice" in proc.stderr and "Traceback" not in proc.stderr


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
