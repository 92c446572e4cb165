"""Iterative, deterministic graph walks.

Results depend only on the graph, never on hashing or memory addresses, and no
walk recurses.  The walks whose order user code reads (:func:`ancestors`,
:func:`graph_inputs`, :func:`vars_between` and the walks built on them) return
PyTensor 2.38's orders (those of PyTensor since pymc-devs/pytensor#1596, which PyMC
reads: it seeds its random generators in ``graph_inputs`` order): a depth-first
preorder that takes the roots from the last given to the first and each node's inputs
from the *last* to the first.  Theano's orders, where a node's inputs are taken from
the first to the last, are those of Theano's paths (``theon.gof.graph.inputs``,
``ancestors``, ``variables``, ``vars_between``: :mod:`theon.compat.theano_graph`),
built on :func:`preorder`.  Each docstring states its order.  The topological sorts
order independent nodes their own way.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> g = Generic(); a = g("a"); out = g("out")
>>> node = Apply(Op(), [a], [out])
>>> [str(v) for v in graph_inputs([out])]
['a']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from theon.graph.basic import Apply, Constant, Variable

__all__ = [
    "ancestors",
    "apply_ancestors",
    "apply_depends_on",
    "applys_between",
    "dfs_toposort",
    "explicit_graph_inputs",
    "general_toposort",
    "get_var_by_name",
    "graph_inputs",
    "io_toposort",
    "orphans_between",
    "preorder",
    "toposort",
    "toposort_with_orderings",
    "truncated_graph_inputs",
    "variable_ancestors",
    "variable_depends_on",
    "variables",
    "vars_between",
    "walk",
    "walk_toposort",
]

T = TypeVar("T", bound=Hashable)


def preorder(
    graphs: Iterable[Variable],
    blockers: Collection[Variable] | None = None,
    *,
    last_root_first: bool = True,
    last_input_first: bool = True,
) -> list[Variable]:
    """``graphs`` and every variable they depend on, once each, in a depth-first preorder.

    One stack: the roots are pushed as given and each visited variable's owner's inputs
    are pushed as they stand, so the last root and a node's last input are taken first
    (PyTensor's order, the default).  ``last_root_first=False`` takes the roots from the
    first to the last, ``last_input_first=False`` a node's inputs from the first to the
    last (Theano's ``ancestors`` is ``last_input_first=False``; both ``False`` is
    theon's order of a function's implicit inputs).  A variable is marked when it is
    taken, not when it is pushed.  The walk stops at ``blockers``: each is listed, its
    owner's inputs are not pushed.

    >>> from theon.scalar import add, exp, float64
    >>> u, v = float64("u"), float64("v")
    >>> w = exp(u)
    >>> [str(x) for x in preorder([add(add(u, v), w)])]
    ['add.0', 'exp.0', 'u', 'add.0', 'v']
    >>> [str(x) for x in preorder([add(add(u, v), w)], last_input_first=False)]
    ['add.0', 'add.0', 'u', 'v', 'exp.0']
    """
    # a set: PyMC passes a list of thousands of blockers (``v in list`` per variable
    # made the walk quadratic)
    blocked = (blockers if isinstance(blockers, (set, frozenset))
               else set(blockers) if blockers else ())
    seen: set[Variable] = set()
    out: list[Variable] = []
    stack = list(graphs)
    if not last_root_first:
        stack.reverse()
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        out.append(v)
        owner = v.owner
        if owner is not None and v not in blocked:
            stack.extend(owner.inputs if last_input_first else reversed(owner.inputs))
    return out


def ancestors(
    graphs: Iterable[Variable],
    blockers: Collection[Variable] | None = None,
    *,
    in_root_order: bool = False,
) -> list[Variable]:
    """All variables the ``graphs`` depend on, themselves included, in PyTensor's order.

    PyTensor 2.38's order (the default of :func:`preorder`): a depth-first preorder that
    takes the roots from the *last* given to the first, and a node's inputs from the
    last to the first.  So ``ancestors([x, y, z])`` of three leaves is ``[z, y, x]``,
    and ``ancestors([add(x, y)])`` is ``[add.0, y, x]`` (Theano's is ``[add.0, x, y]``:
    ``theon.gof.graph.ancestors``).  With ``in_root_order`` the roots and each node's
    inputs are taken from the first to the last instead (theon's order of a function's
    implicit inputs, which is Theano's too).  The walk stops at ``blockers`` (which are
    included but not expanded).

    >>> from theon.scalar import add, float64
    >>> x, y, z = float64("x"), float64("y"), float64("z")
    >>> [str(v) for v in ancestors([add(x, y)])]
    ['add.0', 'y', 'x']
    >>> [str(v) for v in ancestors([x, y, z])]
    ['z', 'y', 'x']
    >>> [str(v) for v in ancestors([add(x, y), z], in_root_order=True)]
    ['add.0', 'x', 'y', 'z']
    """
    if in_root_order:
        return preorder(graphs, blockers, last_root_first=False, last_input_first=False)
    return preorder(graphs, blockers)


def variable_ancestors(
    graphs: Iterable[Variable], blockers: Collection[Variable] | None = None
) -> list[Variable]:
    """:func:`ancestors` (PyTensor's other name for it).

    >>> from theon.scalar import float64, neg
    >>> x = float64("x")
    >>> [str(v) for v in variable_ancestors([neg(x)])]
    ['neg.0', 'x']
    """
    return preorder(graphs, blockers)


def graph_inputs(
    graphs: Iterable[Variable],
    blockers: Collection[Variable] | None = None,
    *,
    in_root_order: bool = False,
) -> list[Variable]:
    """The variables without owner (or in ``blockers``) that ``graphs`` depend on.

    In the order of :func:`ancestors` (PyTensor's ``graph_inputs``):
    ``graph_inputs([x, y, z])`` of three leaves is ``[z, y, x]``, and a node's inputs
    come last first.  Unlike PyTensor's, a blocker that has an owner is listed too (it
    is an input of the graph cut there).

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in graph_inputs([add(x, add(y, 1.0))])]
    ['1.0', 'y', 'x']
    >>> [str(v) for v in graph_inputs([add(x, 1.0), y])]
    ['y', '1.0', 'x']
    """
    blocked = set(blockers) if blockers else set()
    return [
        v for v in ancestors(graphs, blocked, in_root_order=in_root_order)
        if v.owner is None or v in blocked
    ]


def io_toposort(
    inputs: Iterable[Variable],
    outputs: Iterable[Variable],
    orderings: dict[Apply, list[Apply]] | None = None,
) -> list[Apply]:
    """The Apply nodes between ``inputs`` and ``outputs``, each after its dependencies.

    ``orderings`` maps a node to extra nodes that must run before it.  The order
    is a post-order DFS from the outputs in their given order, so it is
    deterministic; nodes that do not depend on each other are in theon's own
    order, which need not be Theano's or PyTensor's (any topological order is valid).

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


def dfs_toposort(outputs: Sequence[Variable]) -> list[Apply]:
    """``io_toposort(inputs, outputs)`` for a graph whose inputs have no owner.

    The same depth-first post-order (inputs left to right, outputs in order), with
    one iterator per node instead of pushing every dependency.

    >>> from theon.scalar import exp, float64, neg
    >>> [str(n.op) for n in dfs_toposort([exp(neg(float64("x")))])]
    ['neg', 'exp']
    """
    order: list[Apply] = []
    done: set[Apply] = set()
    for o in outputs:
        root = o.owner
        if root is None or root in done:
            continue
        path = {root}
        stack = [(root, iter(root.inputs))]
        while stack:
            node, it = stack[-1]
            for v in it:
                d = v.owner
                if d is not None and d not in done:
                    if d in path:
                        raise ValueError(f"the graph has a cycle through {d}")
                    path.add(d)
                    stack.append((d, iter(d.inputs)))
                    break
            else:
                stack.pop()
                path.discard(node)
                done.add(node)
                order.append(node)
    return order


def toposort(
    outputs: Iterable[Variable], blockers: Iterable[Variable] | None = None
) -> list[Apply]:
    """All Apply nodes the ``outputs`` depend on, in dependency order, not looking past
    ``blockers`` (whose owners are left out).

    Independent nodes come in theon's own order (see :func:`io_toposort`).

    >>> from theon.scalar import exp, float64, neg
    >>> x = float64("x")
    >>> y = exp(neg(x))
    >>> [str(n.op) for n in toposort([y])]
    ['neg', 'exp']
    >>> [str(n.op) for n in toposort([y], blockers=[y.owner.inputs[0]])]
    ['exp']
    """
    return io_toposort(blockers or [], list(outputs))


def general_toposort(
    outputs: Iterable[T],
    deps: Callable[[T], Iterable[T] | None],
    **kwargs: Any,
) -> list[T]:
    """Every item reachable from ``outputs`` through ``deps``, each after its ``deps``.

    A depth-first post-order (``outputs`` in their order, each item's dependencies
    in theirs); a cycle raises ``ValueError``.  PyTensor's caching arguments
    (``compute_deps_cache``, ``deps_cache``, ``clients``) are accepted and unused.

    >>> deps = {"c": ["a", "b"], "b": ["a"], "a": []}
    >>> general_toposort(["c"], lambda k: deps[k])
    ['a', 'b', 'c']
    """
    order: list[T] = []
    done: set[T] = set()
    on_path: set[T] = set()
    for root in outputs:
        if root in done:
            continue
        on_path.add(root)
        stack: list[tuple[T, Any]] = [(root, iter(deps(root) or ()))]
        while stack:
            item, it = stack[-1]
            for d in it:
                if d in done:
                    continue
                if d in on_path:
                    raise ValueError(f"general_toposort: a cycle through {d!r}")
                on_path.add(d)
                stack.append((d, iter(deps(d) or ())))
                break
            else:
                stack.pop()
                on_path.discard(item)
                done.add(item)
                order.append(item)
    return order


def walk_toposort(graphs: Iterable[T], deps: Callable[[T], Iterable[T] | None]) -> list[T]:
    """:func:`general_toposort` without its caching arguments (PyTensor's name).

    >>> walk_toposort(["c"], {"c": ["a", "b"], "b": ["a"], "a": []}.get)
    ['a', 'b', 'c']
    """
    return general_toposort(graphs, deps)


def toposort_with_orderings(
    graphs: Iterable[Variable],
    *,
    blockers: Iterable[Variable] | None = None,
    orderings: dict[Apply, list[Apply]] | None = None,
) -> list[Apply]:
    """:func:`io_toposort` from ``blockers`` to ``graphs``, with ``orderings``'s extra
    dependencies (a node maps to the nodes that must run before it).

    >>> from theon.scalar import exp, float64, neg
    >>> x, y = float64("x"), float64("y")
    >>> a, b = exp(x), neg(y)
    >>> [str(n.op) for n in toposort_with_orderings([a, b], orderings={a.owner: [b.owner]})]
    ['neg', 'exp']
    """
    return io_toposort(blockers or [], list(graphs), orderings)


def get_var_by_name(graphs: Iterable[Variable], target_var_id: str) -> tuple[Variable, ...]:
    """The variables of ``graphs`` whose ``name`` or ``auto_name`` is ``target_var_id``,
    inner graphs (an Op's ``inner_outputs``) included, in breadth-first order.

    >>> from theon.scalar import exp, float64
    >>> x = float64("x")
    >>> get_var_by_name([exp(x)], "x") == (x,), get_var_by_name([exp(x)], "z")
    (True, ())
    """
    def expand(v: Variable) -> list[Variable]:
        owner = v.owner
        if owner is None:
            return []
        inner: list[Variable] = list(getattr(owner.op, "inner_outputs", None) or ())
        return [*owner.inputs, *inner]

    return tuple(
        v for v in walk(graphs, expand)
        if v.name == target_var_id or v.auto_name == target_var_id
    )


def apply_ancestors(
    graphs: Iterable[Variable], blockers: Collection[Variable] | None = None
) -> list[Apply]:
    """The owners of :func:`ancestors` of ``graphs`` (each once, in that order).

    As PyTensor's, a blocker's owner is listed too (the blocker is one of the
    ancestors); only the nodes behind it are not.

    >>> from theon.scalar import exp, float64, neg
    >>> [str(n.op) for n in apply_ancestors([exp(neg(float64("x")))])]
    ['exp', 'neg']
    """
    out: dict[Apply, None] = {}
    for v in ancestors(graphs, blockers):
        if v.owner is not None:
            out[v.owner] = None
    return list(out)


def variable_depends_on(
    variable: Variable, depends_on: Variable | Iterable[Variable]
) -> bool:
    """Whether ``variable`` is, or is computed from, one of ``depends_on``.

    >>> from theon.scalar import exp, float64
    >>> x, y = float64("x"), float64("y")
    >>> variable_depends_on(exp(x), x), variable_depends_on(exp(x), [y])
    (True, False)
    """
    targets = {depends_on} if isinstance(depends_on, Variable) else set(depends_on)
    return any(v in targets for v in ancestors([variable]))


def apply_depends_on(apply: Apply, depends_on: Apply | Iterable[Apply]) -> bool:
    """Whether ``apply`` is, or reads the result of, one of the nodes ``depends_on``.

    >>> from theon.scalar import exp, float64, neg
    >>> y = exp(neg(float64("x")))
    >>> apply_depends_on(y.owner, y.owner.inputs[0].owner), apply_depends_on(
    ...     y.owner.inputs[0].owner, y.owner)
    (True, False)
    """
    targets = {depends_on} if isinstance(depends_on, Apply) else set(depends_on)
    if apply in targets:
        return True
    return any(v.owner in targets for v in ancestors(apply.inputs) if v.owner is not None)


def _is_shared(v: Variable) -> bool:
    # duck-typed: SharedVariable lives in theon.compile, a layer above this one
    return v.owner is None and callable(getattr(v, "get_value", None))


def explicit_graph_inputs(graph: Variable | Iterable[Variable]) -> list[Variable]:
    """The inputs of ``graph`` a function must be given: :func:`graph_inputs` without
    constants and shared variables.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in explicit_graph_inputs(add(x, add(y, 1.0)))]
    ['y', 'x']
    """
    graphs = [graph] if isinstance(graph, Variable) else list(graph)
    return [v for v in graph_inputs(graphs) if not isinstance(v, Constant) and not _is_shared(v)]


def truncated_graph_inputs(
    outputs: Sequence[Variable], ancestors_to_include: Iterable[Variable] | None = None
) -> list[Variable]:
    """The variables closest to ``outputs`` that compute them without depending on any of
    ``ancestors_to_include`` (those reached are listed themselves).

    Each output that depends on none of ``ancestors_to_include`` is listed as is;
    otherwise the walk goes through its owner's inputs (last output first, each node's
    last input first, as PyTensor's), listing every variable it reaches that is one of
    ``ancestors_to_include`` or depends on none of them.  Together they suffice to
    compute ``outputs``.

    >>> from theon.scalar import add, exp, float64, mul
    >>> x, y = float64("x"), float64("y")
    >>> o1 = add(x, y)
    >>> o3 = exp(mul(o1, 2.0))
    >>> [str(v) for v in truncated_graph_inputs([o3])]
    ['exp.0']
    >>> [str(v) for v in truncated_graph_inputs([o3], [o1])]
    ['2.0', 'add.0']
    >>> [str(v) for v in truncated_graph_inputs([o3], [x])]
    ['2.0', 'y', 'x']
    """
    include = set(ancestors_to_include or ())
    # which variables depend on one of ``include`` (memoized; iterative post-order)
    depends: dict[Variable, bool] = {}

    def dep(root: Variable) -> bool:
        stack = [root]
        while stack:
            v = stack[-1]
            if v in depends:
                stack.pop()
                continue
            if v in include:
                depends[v] = True
                stack.pop()
                continue
            owner = v.owner
            if owner is None:
                depends[v] = False
                stack.pop()
                continue
            todo = [i for i in owner.inputs if i not in depends]
            if todo:
                stack.extend(todo)
                continue
            depends[v] = any(depends[i] for i in owner.inputs)
            stack.pop()
        return depends[root]

    out: list[Variable] = []
    seen: set[Variable] = set()
    stack = list(outputs)
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in include or not dep(v):
            out.append(v)
        else:
            assert v.owner is not None  # (it depends on something, through its owner)
            stack.extend(v.owner.inputs)
    return out


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
    """The variables on paths from ``ins`` to ``outs``, ``ins``, orphans and the other
    outputs of the nodes on the way included, in PyTensor 2.38's order.

    A depth-first preorder (:func:`walk` with ``bfs=False``) from ``outs``, the last
    first, that at each variable computed by a node (and not in ``ins``) pushes the
    node's inputs, then its outputs: so the node's outputs are taken last first, then
    its inputs last first.  Theano's order (``variables``) and Aesara's (a breadth-first
    ``vars_between``) are in :mod:`theon.compat.theano_graph`.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in vars_between([x], [add(x, y)])]
    ['add.0', 'y', 'x']
    """
    in_set = set(ins)

    def expand(v: Variable) -> list[Variable] | None:
        owner = v.owner
        if owner is None or v in in_set:
            return None
        return [*owner.inputs, *owner.outputs]

    return walk(outs, expand, bfs=False)


def variables(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """:func:`vars_between` (Theano's name; Theano's own order is
    ``theon.gof.graph.variables``).

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in variables([x], [add(x, y)])]
    ['add.0', 'y', 'x']
    """
    return vars_between(ins, outs)


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
    nodes: Iterable[Any], expand: Callable[[Any], Iterable[Any] | None],
    bfs: bool = True, return_children: bool = False,
) -> list[Any]:
    """Every item reachable from ``nodes`` through ``expand``, once (by identity).

    Breadth-first by default: a queue of ``nodes`` in their order, each item's
    ``expand`` appended at the back.  With ``bfs=False`` the items are taken from the
    back instead (depth-first; the last of ``nodes`` first), as PyTensor's ``walk``.
    With ``return_children`` each entry is ``(item, expand(item))``.

    >>> walk([1], lambda n: [n + 1] if n < 4 else [])
    [1, 2, 3, 4]
    >>> walk([10, 20], lambda n: [n + 1] if n % 10 == 0 else None, bfs=False)
    [20, 21, 10, 11]
    >>> walk([1], lambda n: [n + 1] if n < 2 else None, return_children=True)
    [(1, [2]), (2, None)]
    """
    seen: set[int] = set()
    out: list[Any] = []
    items = deque(nodes)
    take = items.popleft if bfs else items.pop
    while items:
        n = take()
        if id(n) in seen:
            continue
        seen.add(id(n))
        more = expand(n)
        out.append((n, more) if return_children else n)
        if more:
            items.extend(more)
    return out
