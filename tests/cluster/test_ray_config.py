"""``[executor]`` and ``--executor``/``--address``: strict, one line, exit 2, before any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rabench.cluster.redis_proc import free_port
from rabench.contracts.targets_config import parse_targets_config
from rabench.errors import UserError
from rabench.run.executor import with_executor

SAMPLE = Path(__file__).resolve().parents[2] / "cases" / "sample"


def test_the_executor_table_reads_kind_and_address():
    config = parse_targets_config({"executor": {"kind": "ray", "address": "10.0.0.4:6380"}})
    assert (config.executor.kind, config.executor.address) == ("ray", "10.0.0.4:6380")
    assert parse_targets_config({}).executor.kind == "in-process"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"kind": "ray"}, "[executor]: kind = 'ray' needs address = 'host:port' (the Ray head)"),
        ({"kind": "ray", "address": "head"}, "[executor]: address 'head' is not host:port"),
        ({"kind": "ray", "address": "head:99999"}, "[executor]: address 'head:99999' is not host:port"),
        ({"kind": "dask"}, "[executor] kind: Invalid enum value 'dask'"),
        ({"adress": "head:1"}, "[executor] unknown key 'adress' (did you mean address?)"),
        ({"address": "head:1"}, "[executor]: address applies to kind = 'ray' only"),
    ],
)
def test_a_bad_executor_table_is_one_line(table, message):
    with pytest.raises(UserError) as err:
        parse_targets_config({"executor": table}, "t.toml")
    assert str(err.value) == f"t.toml: {message}"


def test_the_command_line_overrides_the_table():
    config = parse_targets_config({"executor": {"kind": "ray", "address": "a:1"}})
    assert with_executor(config, None, "b:2").executor.address == "b:2"
    assert with_executor(config, "in-process", None).executor.address is None
    with pytest.raises(UserError, match="--address needs --executor ray"):
        with_executor(parse_targets_config({}), None, "b:2")
    with pytest.raises(UserError, match="not host:port"):
        with_executor(parse_targets_config({}), "ray", "b")


def test_a_head_nobody_listens_on_is_one_line_and_exit_2(tmp_path):
    port = free_port()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rabench",
            "run",
            "--suite",
            str(SAMPLE),
            "--target",
            "self",
            "--out",
            str(tmp_path / "run"),
            "--executor",
            "ray",
            "--address",
            f"127.0.0.1:{port}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"rabench: --executor ray: cannot connect to the Ray cluster at 127.0.0.1:{port}: Connection refused"
    ]
    assert not (tmp_path / "run").exists()
