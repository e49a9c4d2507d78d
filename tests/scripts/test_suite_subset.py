"""scripts/suite-subset.py: the id split docs/engine.md uses for the real dev receipts."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from rabench.cases.validate import validate_suite

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "suite-subset.py"


def _suite(root: Path, ids: list[str]) -> None:
    (root / "files").mkdir(parents=True)
    head = {"type": "suite_header", "suite": "receipt", "name": "import/sroie/x", "contracts_version": 1, "meta": {}}
    lines = [json.dumps(head)]
    for i in ids:
        data = f"receipt {i}".encode()
        (root / "files" / f"{i}.jpg").write_bytes(data)
        lines.append(
            json.dumps(
                {
                    "id": i,
                    "file": f"files/{i}.jpg",
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "media_type": "image/jpeg",
                    "label": {"authenticity": {"verdict": "genuine"}},
                }
            )
        )
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n")


def test_keeps_the_ids_in_the_range_and_the_result_validates(tmp_path):
    _suite(tmp_path / "src", ["000", "244", "245", "508"])
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "src"), str(tmp_path / "a"), "0", "245"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    kept = [json.loads(x)["id"] for x in (tmp_path / "a" / "manifest.jsonl").read_text().splitlines()[1:]]
    assert kept == ["000", "244"]
    assert sorted(p.name for p in (tmp_path / "a" / "files").iterdir()) == ["000.jpg", "244.jpg"]
    assert validate_suite(tmp_path / "a") == (2, [])
    again = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "src"), str(tmp_path / "a"), "0", "245"],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 2 and "already exists" in again.stderr


def test_a_case_file_outside_the_suite_is_refused_not_copied(tmp_path):
    """Before: the script joined OUT / file for any file the manifest named ("../x" included)."""
    _suite(tmp_path / "src", ["000", "001"])
    (tmp_path / "secret.jpg").write_bytes(b"secret")
    manifest = tmp_path / "src" / "manifest.jsonl"
    lines = manifest.read_text().splitlines()
    case = json.loads(lines[2])
    case["file"], case["sha256"] = "../secret.jpg", hashlib.sha256(b"secret").hexdigest()
    manifest.write_text("\n".join([*lines[:2], json.dumps(case)]) + "\n")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "src"), str(tmp_path / "a"), "0", "9"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "escapes the suite folder" in run.stderr, run.stderr
    assert "\n" not in run.stderr.strip() and not (tmp_path / "a").exists()
