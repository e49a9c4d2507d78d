"""``resolve_in_suite``: the quick path (one ``lstat`` a part, issue 19) gives what a full
``Path.resolve`` gives, for every layout a suite folder can hold, and the suite's streaming
pass still names the line and case of a bad path."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from rabench.cases import manifest as suite_manifest
from rabench.cases.manifest import SymlinkLoop, open_suite, resolve_in_suite
from rabench.contracts import Authenticity, Case, ReceiptLabel, SuiteHeader
from rabench.errors import UserError


def _reference(root: Path, rel: str) -> Path | None:
    """The resolution before the quick path (commit 3b06d21): resolve, then stay inside."""
    if not rel or rel.startswith(("/", "\\")) or os.path.isabs(rel) or "\\" in rel or "\x00" in rel:
        return None
    candidate = (root / rel).resolve()
    try:
        candidate.relative_to(root.resolve())
    except ValueError:
        return None
    return candidate


@pytest.fixture()
def layout(tmp_path: Path) -> tuple[Path, list[str]]:
    """A suite folder with plain files, nested folders, links inside and out, and odd names."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(b"x")
    real = tmp_path / "real-suite"
    (real / "sub" / "deeper").mkdir(parents=True)
    for name in ("a.png", "sub/b.png", "sub/deeper/c.png", "with space.png", "ünï.png"):
        (real / name).write_bytes(b"x")
    (real / "link-in.png").symlink_to(real / "a.png")
    (real / "rel-link-in.png").symlink_to("sub/b.png")
    (real / "link-out.png").symlink_to(outside / "secret.png")
    (real / "dir-link").symlink_to(real / "sub")
    (real / "dir-link-out").symlink_to(outside)
    (real / "dangling.png").symlink_to(real / "nowhere.png")
    (real / "sub" / "up-link.png").symlink_to("../a.png")
    suite = tmp_path / "suite-link"  # the suite opened through a symlinked folder
    suite.symlink_to(real)
    rels = [
        "a.png",
        "sub/b.png",
        "sub/deeper/c.png",
        "with space.png",
        "ünï.png",
        "missing.png",
        "sub/missing.png",
        "nodir/x.png",
        "a.png/x",
        "link-in.png",
        "rel-link-in.png",
        "link-out.png",
        "dir-link/b.png",
        "dir-link-out/secret.png",
        "dangling.png",
        "sub/up-link.png",
        "../outside/secret.png",
        "sub/../a.png",
        "./a.png",
        "sub/./b.png",
        "sub//b.png",
        "sub/",
        "..",
        ".",
        "sub",
        "/etc/passwd",
        "a\\b.png",
        "",
    ]
    return suite, rels


@pytest.mark.parametrize("through_link", [False, True])
def test_the_quick_path_resolves_as_path_resolve_does(layout: tuple[Path, list[str]], through_link: bool) -> None:
    suite, rels = layout
    root = suite if through_link else suite.resolve()
    root_real = root.resolve()
    for rel in rels:
        expected = _reference(root, rel)
        assert resolve_in_suite(root, rel, root_real) == expected, rel
        assert resolve_in_suite(root, rel) == expected, rel  # without root_real: the full path only


def test_plain_files_take_the_quick_path(layout: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    suite, _ = layout
    root_real = suite.resolve()
    calls: list[str] = []
    real_resolve = Path.resolve

    def counting(self: Path, strict: bool = False) -> Path:
        calls.append(str(self))
        return real_resolve(self, strict)

    monkeypatch.setattr(Path, "resolve", counting)
    assert resolve_in_suite(suite, "sub/deeper/c.png", root_real) == root_real / "sub" / "deeper" / "c.png"
    assert calls == []
    assert resolve_in_suite(suite, "link-in.png", root_real) == root_real / "a.png"  # a link: resolved in full
    assert len(calls) == 1


def test_a_symlink_loop_is_still_one_line(tmp_path: Path) -> None:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    with pytest.raises(SymlinkLoop, match="loop1 runs through a symlink loop"):
        resolve_in_suite(tmp_path, "loop1", tmp_path.resolve())


def _suite(root: Path, files: list[str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    label = ReceiptLabel(authenticity=Authenticity(verdict="genuine"), total=1.0)
    lines = [msgspec.json.encode(SuiteHeader(suite="receipt", name="t"))]
    for i, name in enumerate(files):
        lines.append(
            msgspec.json.encode(Case(id=f"c{i}", file=name, media_type="image/png", sha256="0" * 64, label=label))
        )
    (root / "manifest.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def test_the_streaming_pass_names_the_line_and_case_of_a_path_out(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.png").write_bytes(b"x")
    (tmp_path / "s" / "out.png").symlink_to(tmp_path / "elsewhere.png")
    _suite(tmp_path / "s", ["a.png", "out.png"])
    cases = open_suite(tmp_path / "s").cases()
    first = next(cases)
    assert first.path == (tmp_path / "s" / "a.png").resolve() and first.line == 2
    with pytest.raises(UserError) as err:
        next(cases)
    assert str(err.value) == f"{tmp_path / 's' / 'manifest.jsonl'}:3: case c1: file out.png escapes the suite folder"


def test_a_root_of_slash_takes_the_full_path() -> None:
    assert suite_manifest._plain_path("/", "etc") is None
