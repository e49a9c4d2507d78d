"""The layers of rabench hold: no module imports from a higher layer, and no two modules import
each other (no import cycle among rabench modules). Imports are read with ``ast``, so function-level
imports count too; imports under ``if TYPE_CHECKING:`` are allowed to point anywhere (they never run).

The layer order, lowest first (a module may import its own layer and any lower one). This list is
the one place the order is defined; docs/architecture.md shows it."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rabench"

LAYERS: list[set[str]] = [
    {"rabench", "errors", "logistic", "numba_cache", "contracts", "data"},  # ground floor
    {"prepare"},  # images and manifests read once at the edge
    {"cases"},  # suites on disk: synth, forge, importers, validation
    {"engine"},  # the `self` auditor; takes its worker pool from the caller
    {"cluster"},  # worker pools (threads, processes, Ray) that run engine work
    {"targets", "fakeprovider"},  # what a run asks: self, providers, diy; a fake provider for tests
    {"run"},  # the run life cycle
    {"score"},  # outcomes to rows
    {"report"},  # rows to markdown and html
    {"suites"},  # suite kinds as plug-ins: each names its own cases, run, score and report parts
    {"cli", "__main__"},  # commands
]

# KNOWN EXCEPTIONS (issue 29): imports that still run against the layers or close a cycle, being
# removed by the branches of issue 29. The coordinator empties this list after merging them; an
# entry that no longer occurs fails the test, so the list cannot outlive its reason.
KNOWN: set[tuple[str, str]] = {
    ("rabench.cases.forge.edits", "rabench.engine.ocr"),
    ("rabench.cases.forge.locate", "rabench.engine.ocr"),
    ("rabench.cases.forge.ocr_cache", "rabench.engine.ocr"),
    ("rabench.engine.ap.documents", "rabench.targets.ap_request"),
    ("rabench.engine.ap.engine", "rabench.targets.ap_request"),
    ("rabench.engine.extract.reading_survey", "rabench.score.normalise"),
    ("rabench.engine.target", "rabench.cluster.ray_pool"),
    ("rabench.engine.target", "rabench.targets.ap_request"),
    ("rabench.engine.target", "rabench.targets.base"),
    ("rabench.score.scorer", "rabench.report"),
    ("rabench.score.scorer", "rabench.report.casedata"),  # write_outputs belongs in report/
    ("rabench.score.scorer", "rabench.report.markdown"),
    # the suite plug-ins still reach their audit and generate code through the CLI modules
    ("rabench.suites.ap", "rabench.cli.cases_audit"),
    ("rabench.suites.ap", "rabench.cli.cases_generate"),
    ("rabench.suites.receipt", "rabench.cli.cases_audit"),
    ("rabench.suites.receipt", "rabench.cli.cases_generate"),
}


def _modules() -> dict[str, Path]:
    mods = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                skip.update(id(n) for n in ast.walk(sub))
    return skip


def _imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the rabench modules it imports (not its own ancestor packages, which Python loads first)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for mod, path in mods.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                names = [src] + [f"{src}.{a.name}" for a in node.names]
            for name in names:
                if name in mods and name != mod and not mod.startswith(name + "."):
                    edges[mod].add(name)
    return edges


# Modules that sit on another floor than their package: the suite registry is the plug-in seam
# every stage looks a kind up in (it names no suite and imports its plug-ins by string, lazily),
# so it and the protocol it returns sit beside cases/ (it reads the manifest header); the plug-ins sit on top.
FLOOR_OF = {"rabench.suites": 2, "rabench.suites.registry": 2, "rabench.suites.base": 2}  # beside cases/


def _layer(mod: str) -> int:
    if mod in FLOOR_OF:
        return FLOOR_OF[mod]
    head = mod.split(".")[1] if "." in mod else mod
    for i, names in enumerate(LAYERS):
        if head in names:
            return i
    raise AssertionError(f"{mod}: its package {head!r} is in no layer of tests/test_layers.py")


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _violations() -> set[tuple[str, str]]:
    edges = _imports(_modules())
    found = {(a, b) for a, bs in edges.items() for b in bs if _layer(b) > _layer(a)}
    for comp in _cycles(edges):
        members = set(comp)
        found |= {(a, b) for a in comp for b in edges[a] if b in members}
    return found


def test_no_import_runs_against_the_layers_or_closes_a_cycle():
    found = _violations()
    new = sorted(found - KNOWN)
    gone = sorted(KNOWN - found)
    assert not new, "imports against the layer order or in a cycle:\n" + "\n".join(f"  {a} -> {b}" for a, b in new)
    assert not gone, "known exceptions that no longer occur (drop them from KNOWN):\n" + "\n".join(
        f"  {a} -> {b}" for a, b in gone
    )


def test_the_check_sees_an_up_import_and_a_cycle(tmp_path):
    # The checker itself: a hand-made up-import and a two-module cycle are found.
    edges = {
        "rabench.engine.x": {"rabench.score.y"},
        "rabench.cases.a": {"rabench.cases.b"},
        "rabench.cases.b": {"rabench.cases.a"},
    }
    assert _layer("rabench.score.y") > _layer("rabench.engine.x")
    assert _cycles(edges) == [["rabench.cases.a", "rabench.cases.b"]]
