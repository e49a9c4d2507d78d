"""Every runtime dependency in pyproject.toml is imported by the package (issue 15).

A dependency nobody imports is weight and supply-chain risk for nothing: orjson was declared
while every JSON file rabench reads or writes went through msgspec (faster on these paths and
typed), so it was dropped rather than used in a second, parallel JSON layer.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower() for dep in project["dependencies"]}


def _imported_top_level() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "rabench").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_every_declared_dependency_is_imported():
    dists_of = md.packages_distributions()  # import name -> distributions providing it
    imported = {d.lower() for name in _imported_top_level() for d in dists_of.get(name, [])}
    unused = sorted(_declared() - imported)
    assert not unused, f"declared in pyproject.toml, imported nowhere in rabench/: {unused}"
