"""Copying graphs, substituting variables, and comparing graphs structurally.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> g = Generic(); op = Op()
>>> a = g("a"); out = g("out"); _ = Apply(op, [a], [out])
>>> [new_a], [new_out] = clone([a], [out])
>>> new_out.owner.inputs[0] is new_a, new_a is a
(True, False)
>>> equal_computations([out], [new_out], [a], [new_a])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.traversal import ancestors, io_toposort, orphans_between
from theon.graph.vectorize import vectorize_graph

__all__ = [
    "clone",
    "clone_get_equiv",
    "clone_replace",
    "copy_nodes",
    "equal_computations",
    "graph_replace",
    "is_same_graph",
    "vectorize_graph",
]


def clone_get_equiv(
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool = True,
    memo: dict[Any, Any] | None = None,
) -> dict[Any, Any]:
    """Map every variable and Apply between ``inputs`` and ``outputs`` to a copy.

    Entries already in ``memo`` are kept, which is how a substitution is given.
    Inputs are cloned when ``copy_inputs``; orphans (constants and owner-less
    variables not listed as inputs) when ``copy_orphans``.

    >>> from theon.scalar import float64, neg
    >>> x = float64("x")
    >>> y = neg(x)
    >>> equiv = clone_get_equiv([x], [y])
    >>> equiv[y] is y, str(equiv[y].owner.op)
    (False, 'neg')
    """
    equiv: dict[Any, Any] = {} if memo is None else memo
    for i in inputs:
        if i not in equiv:
            equiv[i] = i.clone() if copy_inputs else i
    for o in orphans_between(inputs, outputs):
        if o not in equiv:
            equiv[o] = o.clone() if copy_orphans else o
    for node in io_toposort(inputs, outputs):
        if node in equiv:
            continue
        new_inputs = [equiv.get(i, i) for i in node.inputs]
        new_node = node.clone_with_new_inputs(new_inputs, strict=False)
        equiv[node] = new_node
        for old, new in zip(node.outputs, new_node.outputs):
            if old not in equiv:
                new.name = old.name
                equiv[old] = new
    return equiv


def copy_nodes(
    root: Apply, equiv: dict[Any, Any], input_set: set[Variable], copy_orphans: bool = True
) -> list[Apply]:
    """Copies of ``root`` and its ancestors not in ``equiv``, dependencies first.

    Walks like :func:`~theon.graph.traversal.io_toposort` (stopping at ``input_set``),
    copies each node onto the copies of its inputs, and records every copy in
    ``equiv``; owner-less variables met on the way (constants) are copied too, unless
    ``copy_orphans`` is false.
    """
    order: list[Apply] = []
    visiting: set[Apply] = set()
    stack: list[tuple[Apply, bool]] = [(root, False)]
    while stack:
        n, expanded = stack.pop()
        if expanded:
            visiting.discard(n)
            if n in equiv:
                continue
            new_inputs = []
            same_types = True
            for v in n.inputs:
                nv = equiv.get(v)
                if nv is None:
                    nv = equiv[v] = v.clone() if copy_orphans else v
                if nv.type is not v.type:
                    same_types = False
                new_inputs.append(nv)
            if same_types:  # what clone_with_new_inputs does then, without re-checking
                cp = n.clone()
                cp.inputs = new_inputs
            else:
                cp = n.clone_with_new_inputs(new_inputs, strict=False)
            equiv[n] = cp
            for old, new in zip(n.outputs, cp.outputs):
                if old not in equiv:
                    new.name = old.name
                    equiv[old] = new
            order.append(cp)
            continue
        if n in equiv:
            continue
        if n in visiting:
            raise ValueError(f"the graph has a cycle through {n}")
        visiting.add(n)
        stack.append((n, True))
        for v in reversed(n.inputs):
            o = v.owner
            if o is not None and v not in input_set and v not in equiv and o not in equiv:
                if o in visiting:
                    raise ValueError(f"the graph has a cycle through {o}")
                stack.append((o, False))
    return order


def clone(
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool = True,
) -> tuple[list[Variable], list[Variable]]:
    """Copy the graph between ``inputs`` and ``outputs``; return the new inputs and outputs.

    >>> from theon.scalar import float64, neg
    >>> x = float64("x")
    >>> [x2], [y2] = clone([x], [neg(x)])
    >>> y2.owner.inputs[0] is x2, x2 is x
    (True, False)
    """
    equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_orphans)
    return [equiv[i] for i in inputs], [equiv.get(o, o) for o in outputs]


def clone_replace(
    output: Variable | Sequence[Variable],
    replace: Mapping[Variable, Variable] | Iterable[tuple[Variable, Variable]] | None = None,
    *,
    memo: dict[Any, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Copy ``output``'s graph with each key of ``replace`` substituted by its value.

    The user's graph is left untouched.  Returns a Variable or a list, like ``output``.
    Calls that share a ``memo`` dict share their copies: a node copied by an earlier
    call is reused, not copied again (a second copy of a random draw would be a
    second draw).

    >>> from theon.scalar import add, float64
    >>> x, y, z = float64("x"), float64("y"), float64("z")
    >>> str(clone_replace(add(x, y), {y: z}).owner.inputs[1])
    'z'
    """
    pairs = list(replace.items() if isinstance(replace, Mapping) else (replace or []))
    single = isinstance(output, Variable)
    outputs: list[Variable] = [output] if isinstance(output, Variable) else list(output)
    from theon.graph.traversal import graph_inputs

    if memo is None:
        memo = {}
    for old, new in pairs:
        if not isinstance(old, Variable):
            raise TypeError(f"clone_replace: key {old!r} is not a Variable")
        if isinstance(new, Variable) and old.type != new.type:
            new = old.type.filter_variable(new)
        memo[old] = new
    # walk the graph as cut by the replaced variables
    ins = graph_inputs(outputs, blockers=set(memo))
    for i in ins:
        memo.setdefault(i, i)
    equiv = clone_get_equiv(ins, outputs, copy_inputs=False, copy_orphans=False, memo=memo)
    res = [equiv.get(o, o) for o in outputs]
    return res[0] if single else res


def _replacement_pairs(
    replace: Mapping[Variable, Variable] | Iterable[tuple[Variable, Variable]] | None,
) -> dict[Variable, Variable]:
    """``{old: new}`` with each ``new`` converted to ``old``'s type (``TypeError`` if it
    cannot be)."""
    pairs = list(replace.items() if isinstance(replace, Mapping) else (replace or []))
    out: dict[Variable, Variable] = {}
    for old, new in pairs:
        if not isinstance(old, Variable):
            raise TypeError(f"graph_replace: key {old!r} is not a Variable")
        if not isinstance(new, Variable):
            raise TypeError(f"graph_replace: the replacement of {old} is {new!r}, not a Variable")
        if old.type != new.type:
            new = old.type.filter_variable(new)
        out[old] = new
    return out


def graph_replace(
    outputs: Variable | Sequence[Variable],
    replace: Mapping[Variable, Variable] | Iterable[tuple[Variable, Variable]] | None = None,
    *,
    strict: bool = True,
) -> Any:
    """``outputs`` with each key of ``replace`` substituted by its value, copying only the
    nodes that depend on a replaced variable (the rest of the graph is shared, unlike
    :func:`clone_replace`).

    With ``strict``, a key that ``outputs`` do not depend on (or only through another
    replaced variable) raises ``ValueError``.  Returns a Variable or a list, like
    ``outputs``; the user's graph is left untouched.

    >>> from theon.scalar import add, exp, float64
    >>> x, y, z = float64("x"), float64("y"), float64("z")
    >>> e = exp(x)
    >>> out = graph_replace(add(e, y), {y: z})
    >>> out.owner.inputs[0] is e, str(out.owner.inputs[1])
    (True, 'z')
    >>> graph_replace(e, {z: y})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: graph_replace: some replacements were not used (...): {z: y}
    """
    pairs = _replacement_pairs(replace)
    single = isinstance(outputs, Variable)
    outs: list[Variable] = [outputs] if isinstance(outputs, Variable) else list(outputs)
    memo: dict[Variable, Variable] = dict(pairs)
    used: set[Variable] = set()
    # the nodes between the outputs and the replaced variables, dependencies first
    for v in ancestors(outs, blockers=pairs):
        if v in pairs:
            used.add(v)
    if strict and len(used) != len(pairs):
        unused = {k: v for k, v in pairs.items() if k not in used}
        raise ValueError(
            "graph_replace: some replacements were not used (the outputs do not depend on "
            f"them): {{{', '.join(f'{k}: {v}' for k, v in unused.items())}}}"
        )
    for node in io_toposort(list(pairs), outs):
        new_inputs = [memo.get(i, i) for i in node.inputs]
        if all(a is b for a, b in zip(new_inputs, node.inputs)):
            continue
        new_node = node.clone_with_new_inputs(new_inputs, strict=False)
        for old, new in zip(node.outputs, new_node.outputs):
            new.name = old.name
            memo[old] = new
    res = [memo.get(o, o) for o in outs]
    return res[0] if single else res


def equal_computations(
    xs: Sequence[Variable],
    ys: Sequence[Variable],
    in_xs: Sequence[Variable] | None = None,
    in_ys: Sequence[Variable] | None = None,
) -> bool:
    """Whether ``xs`` and ``ys`` compute the same thing (same ops on matching inputs).

    ``in_xs[i]`` and ``in_ys[i]`` are taken as equal.  Constants are equal when
    their signatures are; other owner-less variables only when identical.

    >>> from theon.scalar import exp, float64
    >>> x = float64("x")
    >>> equal_computations([exp(x)], [exp(x)]), equal_computations([exp(x)], [x])
    (True, False)
    """
    if len(xs) != len(ys):
        return False
    in_xs = list(in_xs or [])
    in_ys = list(in_ys or [])
    if len(in_xs) != len(in_ys):
        return False
    pairs: dict[Variable, Variable] = dict(zip(in_xs, in_ys))
    stack = list(zip(xs, ys))
    seen_nodes: dict[Apply, Apply] = {}
    while stack:
        x, y = stack.pop()
        if x in pairs:
            if pairs[x] is not y:
                return False
            continue
        if y in in_ys and x not in in_xs:
            return False
        if x.type != y.type:
            return False
        if x.owner is None or y.owner is None:
            if x.owner is not None or y.owner is not None:
                return False
            if isinstance(x, Constant) and isinstance(y, Constant):
                if x.signature() != y.signature():
                    return False
            elif x is not y:
                return False
            pairs[x] = y
            continue
        if x.index != y.index:
            return False
        nx, ny = x.owner, y.owner
        if nx in seen_nodes:
            if seen_nodes[nx] is not ny:
                return False
            pairs[x] = y
            continue
        if nx.op != ny.op or len(nx.inputs) != len(ny.inputs):
            return False
        seen_nodes[nx] = ny
        pairs[x] = y
        stack.extend(zip(nx.inputs, ny.inputs))
    return True


def is_same_graph(
    var1: Variable, var2: Variable, givens: Mapping[Variable, Variable] | None = None
) -> bool:
    """Whether ``var1`` and ``var2`` compute the same thing with the same graph
    (Theano's ``gof.graph.is_same_graph``): ``x * (y * z)`` is not ``(x * y) * z``.

    ``givens`` substitutes variables in both graphs before they are compared, like
    the ``givens`` of ``theon.function``.

    >>> from theon.scalar import add, float64
    >>> x, y, z = float64("x"), float64("y"), float64("z")
    >>> is_same_graph(add(x, y), add(x, y)), is_same_graph(add(x, y), add(x, z))
    (True, False)
    >>> is_same_graph(add(x, y), add(x, z), givens={z: y})
    True
    """
    if givens:
        pairs = dict(givens)
        var1, var2 = clone_replace([var1, var2], pairs)
    return equal_computations([var1], [var2])
