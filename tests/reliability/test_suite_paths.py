"""A suite cannot make ``rabench run`` read outside its folder.

The file outside is a named pipe: opening it for reading would block, so a run
that so much as opened it would hang and be killed by the timeout here, while
a run that refuses the manifest exits at once. The pipe is also what a DIY
target would upload if the path were followed, so the fake provider must see
no request at all: the refusal comes before the first call.
"""

from __future__ import annotations

import os

import pytest

from relhostile import receipt_png
from relrun import ROOT, child_env, rabench_cmd, run_measured, write_suite
from rabench.fakeprovider import BackgroundFakeProvider, Latency, ModelProfile, Profile

ESCAPES = {
    "dotdot": "../outside.png",
    "nested_dotdot": "sub/../../outside.png",
    "absolute": None,  # filled in with the pipe's absolute path
    "symlink": "link.png",
}


@pytest.mark.parametrize("how", sorted(ESCAPES))
def test_manifest_path_outside_the_suite_is_refused_without_reading_it(tmp_path, how):
    outside = tmp_path / "outside.png"
    os.mkfifo(outside)
    suite = write_suite(tmp_path / "suite", [("good", "good.png", receipt_png(0), "image/png")])
    (suite / "sub").mkdir()
    (suite / "link.png").symlink_to(outside)
    rel = ESCAPES[how] or str(outside)
    # the hostile case claims the sha256 of an honest file, so only the path check can stop it
    line = (
        b'{"id":"evil","file":"%s","sha256":"%s","media_type":"image/png",'
        b'"label":{"suite":"receipt","authenticity":{"verdict":"genuine"}}}\n' % (rel.encode(), b"0" * 64)
    )
    with open(suite / "manifest.jsonl", "ab") as fh:
        fh.write(line)
    with BackgroundFakeProvider(Profile(default=ModelProfile(latency=Latency(ms=1)))) as fake:
        env = child_env({**fake.env(), "OPENAI_COMPATIBLE_API_KEY": "sk-test-paths-000000"})
        done = run_measured(
            rabench_cmd(
                "run",
                "--suite",
                str(suite),
                "--out",
                str(tmp_path / "run"),
                "--progress",
                "none",
                "--target",
                "diy:openai-compatible:m",
                "--cache",
                str(tmp_path / "cache"),
            ),
            env=env,
            cwd=ROOT,
            timeout_s=30,
            stdout_path=tmp_path / "o.txt",
            stderr_path=tmp_path / "e.txt",
        )
        requests = len(fake.requests)
    assert done.elapsed_s < 30  # did not block on the pipe
    assert done.rc == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "manifest.jsonl:3: case evil: file" in lines[0]
    assert "escapes the suite folder" in lines[0]
    assert requests == 0
    assert not (tmp_path / "run" / "outcomes.jsonl").exists() or not (tmp_path / "run" / "outcomes.jsonl").read_bytes()
