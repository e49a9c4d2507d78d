"""The plan: which cases, in which order, and which cases others wait for.

Why a separate pass: a run should refuse a broken suite in the first second,
not after an hour of calls, and the runner must know which cases are named by
``lineage.of`` / ``after`` so that only those get a "finished" event. The
pre-scan keeps ids and dependency edges (a few dozen bytes a case), never cases
or images, so a 20,000-case suite costs a couple of megabytes.

Order: manifest order, except that a case whose dependency comes later in the
file is held back until that dependency has been emitted (a stable
topological order). Given the same manifest the order is always the same.
Units are (case, target, repetition); within one (target, repetition) the
runner starts a dependant only after its dependencies finished (any status).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rabench.cases.manifest import LoadedCase, SuiteReader, open_suite
from rabench.contracts.case import id_key
from rabench.errors import UserError

VALIDATE_HINT = "(rabench cases validate lists every problem)"


@dataclass(frozen=True, slots=True)
class SuitePlan:
    suite: SuiteReader
    count: int
    needed: frozenset[str]  # ids some other case depends on
    in_order: bool  # manifest order already puts dependencies first

    def cases(self) -> Iterator[LoadedCase]:
        """Stream the cases, dependencies first; holds back only out-of-order dependants."""
        if self.in_order:
            yield from self.suite
            return
        emitted: set[str] = set()
        parked: dict[str, list[LoadedCase]] = {}

        def missing(lc: LoadedCase) -> str | None:
            for dep in lc.case.depends_on():
                if dep not in emitted:
                    return dep
            return None

        for lc in self.suite:
            dep = missing(lc)
            if dep is not None:
                parked.setdefault(dep, []).append(lc)
                continue
            ready = [lc]
            while ready:
                cur = ready.pop()
                yield cur
                if cur.case.id in self.needed:
                    emitted.add(cur.case.id)
                    for waiting in reversed(parked.pop(cur.case.id, [])):
                        dep = missing(waiting)
                        if dep is None:
                            ready.append(waiting)
                        else:
                            parked.setdefault(dep, []).append(waiting)
        if parked:  # cannot happen after the pre-scan's cycle check
            raise UserError(f"{self.suite.manifest}: unresolved dependencies {sorted(parked)[:3]}")


def plan_suite(root: str) -> SuitePlan:
    """Open and pre-scan a suite: one-line UserError on the first problem."""
    suite = open_suite(root)
    where = suite.manifest
    seen: dict[str, int] = {}
    keys: dict[str, str] = {}  # id_key -> id: ids equal ignoring case are duplicates
    edges: dict[str, list[str]] = {}
    in_order = True
    count = 0
    for lc in suite.cases(check_keys=True):  # one-line UserError for an undecodable line
        case = lc.case
        count += 1
        if case.id in seen:
            raise UserError(
                f"{where}:{lc.line}: case {case.id}: duplicate id (first on line {seen[case.id]}) {VALIDATE_HINT}"
            )
        other = keys.setdefault(id_key(case.id), case.id)
        if other != case.id:
            raise UserError(
                f"{where}:{lc.line}: case {case.id}: duplicate id: same as {other} on line "
                f"{seen[other]} ignoring case {VALIDATE_HINT}"
            )
        seen[case.id] = lc.line
        if not lc.path.is_file():
            raise UserError(f"{where}:{lc.line}: case {case.id}: file {case.file} not found {VALIDATE_HINT}")
        deps = case.depends_on()
        if deps:
            edges[case.id] = deps
            if any(d not in seen for d in deps):
                in_order = False
    if count == 0:
        raise UserError(f"{where}: the suite has no cases")
    needed: set[str] = set()
    for cid, deps in edges.items():
        for dep in deps:
            if dep == cid:
                raise UserError(f"{where}:{seen[cid]}: case {cid}: depends on itself {VALIDATE_HINT}")
            if dep not in seen:
                raise UserError(f"{where}:{seen[cid]}: case {cid}: depends on unknown case {dep} {VALIDATE_HINT}")
            needed.add(dep)
    if not in_order:
        _refuse_cycles(edges, seen, str(where))
    return SuitePlan(suite=suite, count=count, needed=frozenset(needed), in_order=in_order)


def _refuse_cycles(edges: dict[str, list[str]], line_of: dict[str, int], where: str) -> None:
    """Kahn's algorithm over the dependency subgraph; a leftover node lies on a cycle."""
    nodes = set(edges)
    for deps in edges.values():
        nodes.update(deps)
    indegree = {n: 0 for n in nodes}
    users: dict[str, list[str]] = {}
    for cid, deps in edges.items():
        for dep in set(deps):
            indegree[cid] += 1
            users.setdefault(dep, []).append(cid)
    queue = [n for n, d in indegree.items() if d == 0]
    while queue:
        n = queue.pop()
        for u in users.get(n, []):
            indegree[u] -= 1
            if indegree[u] == 0:
                queue.append(u)
    stuck = sorted((n for n, d in indegree.items() if d > 0), key=lambda n: line_of[n])
    if stuck:
        raise UserError(f"{where}:{line_of[stuck[0]]}: case {stuck[0]}: dependency cycle {VALIDATE_HINT}")
