"""No import circle spans two top-level packages of theon.

The import graph is read with the same :mod:`ast` scan as the layer test (function-level
imports included, ``TYPE_CHECKING`` blocks excluded). Its strongly connected components
are the import circles; a circle inside one package (``theon.tensor.basic`` and
``theon.tensor.math`` importing each other) is allowed, one that joins two packages
(``theon.graph`` and ``theon.compile``) is not: it would make the two one unit.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_layers import ROOT, imports_of, module_name


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the theon modules it imports (names resolved to existing modules)."""
    paths = sorted((root / "theon").rglob("*.py"))
    modules = {module_name(p, root) for p in paths}
    graph: dict[str, set[str]] = {}
    for p in paths:
        me = module_name(p, root)
        deps: set[str] = set()
        for target, _line in imports_of(p, root):
            # ``from theon.x import name`` names a module or a package's attribute
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules and target != me:
                deps.add(target)
        graph[me] = deps
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def package_of(module: str) -> str:
    """``theon.graph.basic`` -> ``theon.graph``; ``theon`` itself is its own package."""
    return ".".join(module.split(".")[:2])


def test_strongly_connected_finds_a_circle() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(g) == [["a", "b", "c"]]


def test_no_import_circle_spans_two_packages() -> None:
    wide = [c for c in strongly_connected(import_graph(ROOT))
            if len({package_of(m) for m in c}) > 1]
    assert not wide, "import circles across packages:\n" + "\n".join(
        f"  {len(c)} modules in {sorted({package_of(m) for m in c})}: {c}" for c in wide
    )
