"""``runs/ID/run.json``: what was run, and the refusal of a resume that would mix two runs.

Why refuse: outcomes from two different suites, target versions, repetition
counts or timeouts in one file would be scored as one run and mean nothing.
Limits (rpm, concurrency) and the progress style may change on resume: they do
not change any outcome.
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from rabench import __version__
from rabench.contracts import RunManifest, TargetInfo
from rabench.contracts.files import decode_run_manifest
from rabench.errors import UserError

RUN_JSON = "run.json"


@functools.cache
def git_commit() -> str | None:
    """The rabench checkout's commit, if it is a git checkout (else None).

    Asked of ``git`` once per process, at its first run (a subprocess per run cost about 1 ms of
    the run's CPU and more of its wall time): a process keeps running the code it imported
    whatever the checkout moves to later, so its later runs record the same commit."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and len(commit) == 40 else None


def new_manifest(
    *,
    run_id: str,
    suite_dir: str,
    suite_name: str,
    suite_kind: str,
    manifest_sha256: str,
    targets: list[TargetInfo],
    repetitions: int,
    seed: int,
    price_date: str | None,
    timeout_s: float,
    settings: dict[str, Any],
) -> RunManifest:
    return RunManifest(
        run_id=run_id,
        suite_dir=suite_dir,
        suite_name=suite_name,
        suite_kind=suite_kind,
        manifest_sha256=manifest_sha256,
        targets=targets,
        repetitions=repetitions,
        seed=seed,
        rabench_version=__version__,
        git_commit=git_commit(),
        price_date=price_date,
        timeout_s=timeout_s,
        started_at=time.time(),
        settings=settings,
    )


def read_manifest(run_dir: Path) -> RunManifest:
    path = run_dir / RUN_JSON
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{run_dir}: no {RUN_JSON}; nothing to resume (drop --resume to start a run)") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return decode_run_manifest(data, str(path))


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Atomic: a reader sees the old or the new run.json, never half of one."""
    data = msgspec.json.format(msgspec.json.encode(manifest), indent=2) + b"\n"
    fd, tmp = tempfile.mkstemp(dir=run_dir, prefix=".run.json.", suffix=".tmp")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, run_dir / RUN_JSON)


LIMIT_SETTINGS = frozenset({"concurrency", "rpm", "timeout_s"})  # target settings a resume may change
FIXED = "suite, targets, repetitions, seed"  # what a resume may not change (docs/running.md)


def check_resume(old: RunManifest, new: RunManifest) -> None:
    """Refuse, with one line naming the first difference, unless ``new`` continues ``old``.

    Limits (concurrency, rpm), the timeout and the retry count may change; the suite, the targets
    (id, model, prompt, settings other than limits), the repetitions and the seed may not."""

    def differs(what: str, a: object, b: object) -> None:
        if a != b:
            raise UserError(
                f"cannot resume {old.run_id}: {what} differs (run.json has {a!r}, now {b!r}); "
                f"on --resume only these may not change: {FIXED}"
            )

    differs("suite manifest sha256", old.manifest_sha256, new.manifest_sha256)
    differs("suite name", old.suite_name, new.suite_name)
    differs("repetitions", old.repetitions, new.repetitions)
    differs("seed", old.seed, new.seed)
    differs("targets", [t.id for t in old.targets], [t.id for t in new.targets])
    for a, b in zip(old.targets, new.targets):
        da = {k: v for k, v in msgspec.to_builtins(a).items() if k != "settings"}
        db = {k: v for k, v in msgspec.to_builtins(b).items() if k != "settings"}
        for key in sorted(set(da) | set(db)):
            differs(f"target {a.id} {key}", da.get(key), db.get(key))
        sa, sb = a.settings or {}, b.settings or {}
        for key in sorted((set(sa) | set(sb)) - LIMIT_SETTINGS):
            differs(f"target {a.id} setting {key}", sa.get(key), sb.get(key))
    keep = {k: v for k, v in old.settings.items() if k != "max_retries"}
    differs("settings", keep, {k: v for k, v in new.settings.items() if k != "max_retries"})
    differs("contracts version", old.contracts_version, new.contracts_version)
