"""Lazy schedules: which nodes of a graph run under which branch of a conditional.

A node of an Op with ``lazy_conditional = True`` (``ifelse``; the contract is
:func:`theon.graph.op.lazy_branches`) needs only the values of the branch its
condition selects.  Every node gets a *context*: the path of branches under
which it must run, ``()`` for "always", ``((cond_node, True),)`` for "only when
that conditional takes its then-branch", and so on for nested conditionals.
A node's context is the longest common prefix of the contexts of its uses:

- a graph output is used always (``()``);
- a node in context ``c`` uses its inputs in ``c``; a lazy conditional in ``c``
  uses its condition in ``c``, its then-values in ``c + ((node, True),)`` and its
  else-values in ``c + ((node, False),)``;
- an ordering constraint of the graph (``fgraph.orderings()``: a reader of a
  value runs before the node that overwrites it) counts as a use, unless the two
  nodes sit in the two branches of one conditional (they never both run).

So computation needed by both branches, or elsewhere, runs before the
conditional, and each branch runs exactly what only it needs.  The schedule is
a tree of blocks: a block is a list of nodes and :class:`Branch` steps, each
Branch holding the blocks of its two branches.  Its flat ``order`` (each
conditional's then-block, then its else-block, then the conditional) is a
topological order of the graph, and every run of the program follows a
subsequence of it, so a value dead after position ``k`` of ``order`` is dead
on every path: linkers compute liveness on ``order`` as usual.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> from theon.graph.fg import FunctionGraph
>>> class Pick(Op):
...     lazy_conditional = True
...     def make_node(self, c, a, b):
...         return Apply(self, [c, a, b], [Generic()()])
>>> class F(Op):
...     def make_node(self, x):
...         return Apply(self, [x], [Generic()()])
>>> c, x = Generic()("c"), Generic()("x")
>>> out = Pick()(c, F()(x), F()(x))
>>> s = lazy_schedule(FunctionGraph([c, x], [out], clone=False))
>>> [type(n.op).__name__ for n in s.order], len(s.steps[0].then_steps)
(['F', 'F', 'Pick'], 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from theon.graph.basic import Apply, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import lazy_branches

__all__ = ["Branch", "Context", "Schedule", "has_lazy_nodes", "lazy_schedule", "node_contexts"]

#: The branches under which a node runs, outermost first: ``(conditional node, taken)`` pairs.
Context = tuple[tuple[Apply, bool], ...]


@dataclass(eq=False)
class Branch:
    """A lazy conditional in a schedule, with the blocks of its two branches.

    ``then_start`` and ``else_start`` are the positions in :attr:`Schedule.order`
    where the nodes of each block begin; the conditional itself follows the else-block.
    """

    node: Apply
    then_steps: list[Apply | Branch] = field(default_factory=list)
    else_steps: list[Apply | Branch] = field(default_factory=list)
    then_start: int = 0
    else_start: int = 0


@dataclass(eq=False)
class Schedule:
    """A lazy schedule: the top block of steps, the flat node order, each node's context."""

    steps: list[Apply | Branch]
    order: list[Apply]
    contexts: dict[Apply, Context]


def has_lazy_nodes(order: list[Apply]) -> bool:
    """Whether any node is a lazy conditional (cheap: one attribute read per node)."""
    return any(n.op.lazy_conditional for n in order)


def _common(a: Context, b: Context) -> Context:
    """The longest common prefix of two contexts."""
    if a is b or a == b:
        return a
    k = 0
    for x, y in zip(a, b):
        if x != y:
            break
        k += 1
    return a[:k]


def _exclusive(a: Context, b: Context) -> bool:
    """Whether the two contexts lie in the two branches of one conditional."""
    for x, y in zip(a, b):
        if x != y:
            return x[0] is y[0]
    return False


def node_contexts(
    fgraph: FunctionGraph, order: list[Apply] | None = None, max_depth: int | None = None
) -> tuple[dict[Apply, Context], set[Apply]]:
    """Each node's context, and the conditionals run lazily (see the module doc).

    ``order`` is a topological order respecting ``fgraph.orderings()`` (default
    ``fgraph.toposort()``).  A conditional whose own context is ``max_depth``
    deep is run eagerly (its inputs all in its context), which bounds the nesting.
    """
    if order is None:
        order = fgraph.toposort()
    orderings = fgraph.orderings()
    root: Context = ()
    var_ctx: dict[Variable, Context] = {o: root for o in fgraph.outputs}
    after: dict[Apply, list[Context]] = {}
    ctx: dict[Apply, Context] = {}
    lazy: set[Apply] = set()

    def use(v: Variable, c: Context) -> None:
        if v.owner is None:
            return
        old = var_ctx.get(v)
        var_ctx[v] = c if old is None else _common(old, c)

    for node in reversed(order):
        c: Context | None = None
        for o in node.outputs:
            u = var_ctx.get(o)
            if u is not None:
                c = u if c is None else _common(c, u)
        for u in after.get(node, ()):
            if c is None:
                c = u
            elif not _exclusive(c, u):
                c = _common(c, u)
        if c is None:
            c = root  # (a node nothing reads: run it always)
        ctx[node] = c
        br = lazy_branches(node) if node.op.lazy_conditional else None
        if br is not None and (max_depth is None or len(c) < max_depth):
            lazy.add(node)
            use(br.condition, c)
            then_c = (*c, (node, True))
            else_c = (*c, (node, False))
            for v in br.then_values:
                use(v, then_c)
            for v in br.else_values:
                use(v, else_c)
        else:
            for v in node.inputs:
                use(v, c)
        for p in orderings.get(node, ()):
            after.setdefault(p, []).append(c)
    return ctx, lazy


def lazy_schedule(fgraph: FunctionGraph, max_depth: int | None = None) -> Schedule | None:
    """The lazy schedule of ``fgraph``, or ``None`` when it has no lazy conditional."""
    topo = fgraph.toposort()
    if not has_lazy_nodes(topo):
        return None
    ctx, lazy = node_contexts(fgraph, topo, max_depth)
    if not lazy:
        return None
    blocks: dict[Context, list[Apply | Branch]] = {(): []}
    for node in topo:
        c = ctx[node]
        step: Apply | Branch = node
        if node in lazy:
            step = Branch(
                node,
                blocks.setdefault((*c, (node, True)), []),
                blocks.setdefault((*c, (node, False)), []),
            )
        blocks.setdefault(c, []).append(step)
    steps = blocks[()]
    # flatten: a branch's then-block, its else-block, then the conditional
    order: list[Apply] = []
    work: list[Apply | Branch | tuple[bool, Branch]] = list(reversed(steps))
    while work:
        item = work.pop()
        if isinstance(item, Branch):
            item.then_start = len(order)
            work.append((False, item))
            work.extend(reversed(item.else_steps))
            work.append((True, item))
            work.extend(reversed(item.then_steps))
        elif isinstance(item, tuple):
            then_done, br = item
            if then_done:
                br.else_start = len(order)
            else:
                order.append(br.node)
        else:
            order.append(item)
    return Schedule(steps, order, ctx)
