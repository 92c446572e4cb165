"""Iterative, deterministic graph walks.

Every walk visits inputs in their listed order, so results depend only on the
graph, never on hashing or memory addresses.  None recurses.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> g = Generic(); a = g("a"); out = g("out")
>>> node = Apply(Op(), [a], [out])
>>> [str(v) for v in graph_inputs([out])]
['a']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from theon.graph.basic import Apply, Variable

__all__ = [
    "ancestors",
    "applys_between",
    "graph_inputs",
    "io_toposort",
    "orphans_between",
    "toposort",
    "variables",
    "vars_between",
]


def ancestors(
    graphs: Iterable[Variable], blockers: Collection[Variable] | None = None
) -> list[Variable]:
    """All variables the ``graphs`` depend on, themselves included, in DFS preorder.

    The walk stops at ``blockers`` (which are included but not expanded).

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in ancestors([add(x, y)])]
    ['add.0', 'x', 'y']
    """
    blockers = blockers or ()
    seen: set[Variable] = set()
    out: list[Variable] = []
    stack = list(reversed(list(graphs)))
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        out.append(v)
        owner = v.owner
        if owner is not None and v not in blockers:
            stack.extend(reversed(owner.inputs))
    return out


def graph_inputs(
    graphs: Iterable[Variable], blockers: Collection[Variable] | None = None
) -> list[Variable]:
    """The variables without owner (or in ``blockers``) that ``graphs`` depend on.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in graph_inputs([add(x, add(y, 1.0))])]
    ['x', 'y', '1.0']
    """
    blockers = blockers or ()
    return [v for v in ancestors(graphs, blockers) if v.owner is None or v in blockers]


def io_toposort(
    inputs: Iterable[Variable],
    outputs: Iterable[Variable],
    orderings: dict[Apply, list[Apply]] | None = None,
) -> list[Apply]:
    """The Apply nodes between ``inputs`` and ``outputs``, each after its dependencies.

    ``orderings`` maps a node to extra nodes that must run before it.  The order
    is a post-order DFS from the outputs in their given order, so it is
    deterministic.

    >>> from theon.scalar import exp, float64, neg
    >>> x = float64("x")
    >>> y = exp(neg(x))
    >>> [str(n.op) for n in io_toposort([x], [y])]
    ['neg', 'exp']
    """
    input_set = set(inputs)
    orderings = orderings or {}
    order: list[Apply] = []
    done: set[Apply] = set()
    visiting: set[Apply] = set()
    stack: list[tuple[Apply, bool]] = []
    for o in reversed(list(outputs)):
        if o.owner is not None and o not in input_set:
            stack.append((o.owner, False))
    while stack:
        node, expanded = stack.pop()
        if expanded:
            visiting.discard(node)
            if node not in done:
                done.add(node)
                order.append(node)
            continue
        if node in done:
            continue
        if node in visiting:
            raise ValueError(f"the graph has a cycle through {node}")
        visiting.add(node)
        stack.append((node, True))
        deps: list[Apply] = []
        for i in node.inputs:
            if i.owner is not None and i not in input_set:
                deps.append(i.owner)
        deps.extend(orderings.get(node, ()))
        for d in reversed(deps):
            if d not in done:
                if d in visiting:
                    raise ValueError(f"the graph has a cycle through {d}")
                stack.append((d, False))
    return order


def toposort(outputs: Sequence[Variable]) -> list[Apply]:
    """All Apply nodes the ``outputs`` depend on, in dependency order.

    >>> from theon.scalar import exp, float64, neg
    >>> y = exp(neg(float64("x")))
    >>> [str(n.op) for n in toposort([y])]
    ['neg', 'exp']
    """
    return io_toposort([], outputs)


def applys_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Apply]:
    """The Apply nodes on paths from ``ins`` to ``outs`` (stopping at ``ins``).

    >>> from theon.scalar import exp, float64, neg
    >>> x = float64("x")
    >>> z = neg(x)
    >>> [str(n.op) for n in applys_between([z], [exp(z)])]
    ['exp']
    """
    return io_toposort(ins, outs)


def vars_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """The variables on paths from ``ins`` to ``outs``, ``ins`` and orphans included.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in vars_between([x], [add(x, y)])]
    ['add.0', 'x', 'y']
    """
    return ancestors(outs, blockers=set(ins))


def variables(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """Every variable of the subgraph between ``ins`` and ``outs``, in DFS order.

    >>> from theon.scalar import float64, neg
    >>> x = float64("x")
    >>> [str(v) for v in variables([x], [neg(x)])]
    ['neg.0', 'x']
    """
    ins = list(ins)
    out = vars_between(ins, outs)
    seen = set(out)
    # outputs of multi-output nodes that are not themselves on a path still belong
    for v in list(out):
        if v.owner is not None and v not in ins:
            for o in v.owner.outputs:
                if o not in seen:
                    seen.add(o)
                    out.append(o)
    return out


def orphans_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """Owner-less variables reached from ``outs`` that are not in ``ins`` (e.g. constants).

    >>> from theon.scalar import add, float64
    >>> x = float64("x")
    >>> [str(v) for v in orphans_between([x], [add(x, 2.0)])]
    ['2.0']
    """
    ins = list(ins)
    s = set(ins)
    return [v for v in vars_between(ins, outs) if v.owner is None and v not in s]


def walk(
    nodes: Iterable[object], expand: Callable[[object], Iterable[object]]
) -> list[object]:
    """Generic breadth-first walk: every item reachable through ``expand``, once.

    >>> walk([1], lambda n: [n + 1] if n < 4 else [])
    [1, 2, 3, 4]
    """
    seen: set[int] = set()
    out: list[object] = []
    queue = list(nodes)
    i = 0
    while i < len(queue):
        n = queue[i]
        i += 1
        if id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        queue.extend(expand(n))
    return out
