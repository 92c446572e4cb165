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
    """The variables without owner (or in ``blockers``) that ``graphs`` depend on."""
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
    """All Apply nodes the ``outputs`` depend on, in dependency order."""
    return io_toposort([], outputs)


def applys_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Apply]:
    """The Apply nodes on paths from ``ins`` to ``outs`` (stopping at ``ins``)."""
    return io_toposort(ins, outs)


def vars_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """The variables on paths from ``ins`` to ``outs``, ``ins`` and orphans included."""
    return ancestors(outs, blockers=set(ins))


def variables(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """Every variable of the subgraph between ``ins`` and ``outs``, in DFS order."""
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
    """Owner-less variables reached from ``outs`` that are not in ``ins`` (e.g. constants)."""
    ins = list(ins)
    s = set(ins)
    return [v for v in vars_between(ins, outs) if v.owner is None and v not in s]


def walk(
    nodes: Iterable[object], expand: Callable[[object], Iterable[object]]
) -> list[object]:
    """Generic breadth-first walk: every item reachable through ``expand``, once."""
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
