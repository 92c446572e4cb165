"""DestroyHandler: keeps inplace (destructive) operations safe.

An op *destroys* input ``i`` when ``i`` is in a list of its ``destroy_map``: it
overwrites that input's memory.  An output listed in ``view_map`` is a *view*
of the inputs it names: it shares their memory.  A variable's *view roots* are
the variables that own the memory it uses (follow ``view_map`` upwards).  An
output that destroys an input is a new value (its own root), even though it
reuses the input's memory.

The rules, for a destroyed root ``r`` (destroyed through any of its views):

- at most one node destroys ``r``;
- ``r`` is not a Constant, nor a graph input unless it was declared mutable;
- no view of ``r`` (nor ``r``) is a graph output (the output would be overwritten);
- the destroyer has no other input aliasing ``r``;
- every other node reading ``r`` or a view of it runs before the destroyer
  (``orderings``); if one of them depends on the destroyer, the graph is invalid.

``validate`` raises :class:`InconsistencyError` when a rule breaks.  It is
incremental: it keeps a topological numbering of the nodes that respects the
orderings.  After a change it checks only the edges and the roots the change
touched, and repairs the numbering locally (a dynamic topological sort) where
a new edge goes backwards; it renumbers the whole graph only when that repair
would be large.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> from theon.graph.fg import FunctionGraph
>>> class Clobber(Op):
...     __props__ = ()
...     destroy_map = {0: [0]}
...     def make_node(self, x):
...         return Apply(self, [x], [Generic()()])
>>> x = Generic()("x")
>>> fg = FunctionGraph([x], [Clobber()(x)])
>>> try:
...     fg.attach_feature(DestroyHandler())
... except InconsistencyError as e:
...     print("refused")
refused
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.features import AlreadyThere, Feature, InconsistencyError, ReplaceValidate
from theon.graph.fg import Output

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "DestroyHandler",
    "can_destroy",
    "ensure_destroy_handler",
    "try_replace",
    "view_roots",
]


def view_roots(var: Variable) -> list[Variable]:
    """The variables whose memory ``var`` uses (itself if it is no view), via ``view_map``.

    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> view_roots(x) == [x]
    True
    """
    roots: list[Variable] = []
    seen: set[Variable] = set()
    stack = [var]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        idx = (
            owner.op.view_map.get(v.index)
            if owner is not None and v.index is not None
            else None
        )
        if not idx:
            roots.append(v)
            continue
        assert owner is not None
        stack.extend(owner.inputs[i] for i in reversed(idx))
    return roots


class DestroyHandler(Feature):
    """Validates destructive ops and orders them after the other readers.

    Parameters
    ----------
    mutable_inputs
        Graph inputs that may be destroyed.  ``None`` reads the graph's
        ``mutable_inputs`` field (None there means none).

    Attaching adds ``fgraph.destroy_handler``, ``fgraph.destroyers(var)``,
    ``fgraph.has_destroyers(vars)`` and ``fgraph.view_roots(var)``.  Use it with
    :class:`~theon.graph.features.ReplaceValidate` (see :func:`ensure_destroy_handler`).
    """

    # nodes a local reordering or a can_destroy search may visit before giving up
    max_local_search = 2048
    # and all of them together, per node of the graph: a search can cost as much as
    # the graph, and one per node would make a pass over the graph O(n**2)
    search_per_node = 32

    def __init__(self, mutable_inputs: Iterable[Variable] | None = None) -> None:
        self._mutable_arg = None if mutable_inputs is None else set(mutable_inputs)
        self.fgraph: FunctionGraph | None = None

    # attach / detach ---------------------------------------------------------------
    def on_attach(self, fgraph: FunctionGraph) -> None:
        if fgraph.destroy_handler is not None:
            raise AlreadyThere("a DestroyHandler is already attached")
        if self.fgraph is not None:
            raise ValueError("this DestroyHandler is already attached to another graph")
        self.fgraph = fgraph
        # view var -> the input variables it views (as listed by view_map)
        self.view_parents: dict[Variable, list[Variable]] = {}
        # var -> its direct views (an ordered set)
        self.view_children: dict[Variable, dict[Variable, None]] = {}
        self.destroyers_set: dict[Apply, None] = {}
        # destroyed root -> {(destroyer, input index): None}, kept up to date: a
        # destroyer's entries are recomputed when its input, or a view between that
        # input and its roots, changes (see _refresh_destroyers_below)
        self._droots: dict[Variable, dict[tuple[Apply, int], None]] = {}
        self._d_entries: dict[Apply, list[tuple[Variable, int]]] = {}
        self.pos: dict[Apply, float] = {}
        self.pos_valid = False
        # changed nodes -> indices of their changed inputs (None: all, a new node)
        self.touched: dict[Apply, set[int] | None] = {}
        self.outputs_touched: set[int] = set()
        # node visits left to the searches (can_destroy, reordering); grows with the graph
        self.search_pool = self.max_local_search
        for node in fgraph.apply_nodes:
            self._add_node(node)
        fgraph.destroy_handler = self
        fgraph.destroyers = self.destroyers
        fgraph.has_destroyers = self.has_destroyers
        fgraph.view_roots = view_roots
        try:
            self.validate(fgraph)
        except InconsistencyError:
            self.on_detach(fgraph)
            raise

    def on_detach(self, fgraph: FunctionGraph) -> None:
        if fgraph.destroy_handler is self:
            fgraph.destroy_handler = None
            del fgraph.destroyers, fgraph.has_destroyers, fgraph.view_roots
        self.fgraph = None

    def clone(self) -> DestroyHandler:
        return DestroyHandler(self._mutable_arg)

    # bookkeeping -------------------------------------------------------------------
    @property
    def mutable_inputs(self) -> set[Variable]:
        if self._mutable_arg is not None:
            return self._mutable_arg
        return set(self.fgraph.mutable_inputs or ()) if self.fgraph is not None else set()

    def _link_views(self, node: Apply) -> None:
        vm = node.op.view_map
        if not vm:
            return
        for o, idx in vm.items():
            out = node.outputs[o]
            parents = [node.inputs[i] for i in idx]
            self.view_parents[out] = parents
            for p in parents:
                self.view_children.setdefault(p, {})[out] = None

    def _unlink_views(self, node: Apply) -> None:
        vm = node.op.view_map
        if not vm:
            return
        for o in vm:
            out = node.outputs[o]
            for p in self.view_parents.pop(out, ()):
                ch = self.view_children.get(p)
                if ch is not None:
                    ch.pop(out, None)
                    if not ch:
                        del self.view_children[p]

    def _refresh_destroyers_below(self, node: Apply) -> None:
        """Recompute the entries of the destroyers of (views of) ``node``'s view outputs.

        Called when an input of the view node ``node`` changed, which changes the
        roots of everything viewing its outputs.  (A view node imported or pruned
        changes no destroyer's roots: its outputs have no reader yet, or no more.)
        """
        fg = self.fgraph
        assert fg is not None
        destroyers = self.destroyers_set
        affected: dict[Apply, None] = {}
        for o in node.op.view_map:
            for a in self.aliases(node.outputs[o]):
                for c, _ in fg.clients.get(a, ()):
                    if c in destroyers and c is not node:
                        affected[c] = None
        for d in affected:
            self._remove_destroyer(d)
            self._add_destroyer(d)

    def _add_destroyer(self, node: Apply) -> None:
        self.destroyers_set[node] = None
        entries = []
        for idx in node.op.destroy_map.values():
            for i in idx:
                for r in view_roots(node.inputs[i]):
                    self._droots.setdefault(r, {})[(node, i)] = None
                    entries.append((r, i))
        self._d_entries[node] = entries

    def _remove_destroyer(self, node: Apply) -> None:
        self.destroyers_set.pop(node, None)
        for r, i in self._d_entries.pop(node, ()):
            d = self._droots.get(r)
            if d is not None:
                d.pop((node, i), None)
                if not d:
                    del self._droots[r]

    def _add_node(self, node: Apply) -> None:
        self.search_pool += self.search_per_node
        self._link_views(node)
        if node.op.destroy_map:
            self._add_destroyer(node)
        self.touched[node] = None

    def destroyed_roots(self) -> dict[Variable, dict[tuple[Apply, int], None]]:
        """``{root: {(destroyer, input index): None}}`` for every destroyed root."""
        return self._droots

    # feature callbacks ---------------------------------------------------------------
    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self._add_node(node)

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self._unlink_views(node)
        if node.op.destroy_map:
            self._remove_destroyer(node)
        self.pos.pop(node, None)
        self.touched.pop(node, None)

    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply,
        i: int,
        old: Variable,
        new: Variable,
        reason: str | None,
    ) -> None:
        op = node.op
        if type(op) is Output:
            self.outputs_touched.add(op.idx)
            return
        if node.op.view_map:
            self._unlink_views(node)
            self._link_views(node)
            self._refresh_destroyers_below(node)
        if node.op.destroy_map:
            self._remove_destroyer(node)
            self._add_destroyer(node)
        if node not in self.touched:
            self.touched[node] = {i}
        else:
            idx = self.touched[node]
            if idx is not None:
                idx.add(i)

    # queries ---------------------------------------------------------------------
    def aliases(self, root: Variable) -> list[Variable]:
        """``root`` and every view of it, transitively."""
        out = [root]
        seen = {root}
        k = 0
        while k < len(out):
            for c in self.view_children.get(out[k], ()):
                if c not in seen:
                    seen.add(c)
                    out.append(c)
            k += 1
        return out

    def destroyers(self, var: Variable) -> list[Apply]:
        """The nodes that destroy ``var``'s memory (through any alias of its roots)."""
        droots = self.destroyed_roots()
        out: dict[Apply, None] = {}
        for r in view_roots(var):
            for d, _ in droots.get(r, ()):
                out[d] = None
        return list(out)

    def has_destroyers(self, vars: Iterable[Variable]) -> bool:
        """Whether any of ``vars`` has its memory destroyed by some node."""
        droots = self.destroyed_roots()
        return any(r in droots for v in vars for r in view_roots(v))

    def is_protected(self, root: Variable) -> bool:
        """Constants and graph inputs not declared mutable may not be destroyed."""
        fg = self.fgraph
        assert fg is not None
        if isinstance(root, Constant):
            return True
        return root.owner is None and root not in self.mutable_inputs

    def _root_readers(
        self, root: Variable, entries: Sequence[tuple[Apply, int]], strict: bool
    ) -> tuple[Apply, list[Apply]]:
        """The destroyer of ``root`` and the other nodes reading it; raise if illegal."""
        from theon.graph.fg import describe

        fg = self.fgraph
        assert fg is not None
        nodes = list(dict.fromkeys(d for d, _ in entries))
        d, i = entries[0]
        destroyed = d.inputs[i]
        if strict:
            if len(nodes) > 1:
                raise InconsistencyError(
                    f"{describe(destroyed)} is destroyed by two nodes, {nodes[0]} and "
                    f"{nodes[1]}; at most one operation may overwrite a value"
                )
            if len(entries) > 1:
                raise InconsistencyError(
                    f"{d.op} destroys two inputs that share the memory of {describe(root)}"
                )
            if isinstance(root, Constant):
                raise InconsistencyError(
                    f"{d.op} would overwrite the constant {describe(root)} (input {i} of {d})"
                )
            if self.is_protected(root):
                raise InconsistencyError(
                    f"{d.op} would overwrite the function input {describe(root)}, which is "
                    "not declared mutable (use In(x, mutable=True) to allow it)"
                )
        tolerated = getattr(d.op, "destroyhandler_tolerate_same", ())
        readers: list[Apply] = []
        seen: set[Apply] = set()
        for a in self.aliases(root):
            for c, j in fg.clients.get(a, ()):
                if type(c.op) is Output:
                    if strict:
                        raise InconsistencyError(
                            f"{d.op} would overwrite {describe(a)}, which is an output of "
                            "the function"
                        )
                    continue
                if c is d:
                    if j != i and strict and not (
                        (i, j) in tolerated and d.inputs[j] is d.inputs[i]
                    ):
                        raise InconsistencyError(
                            f"{d.op} destroys input {i} ({describe(destroyed)}) while its "
                            f"input {j} ({describe(a)}) uses the same memory"
                        )
                    continue
                if c not in seen:
                    seen.add(c)
                    readers.append(c)
        return d, readers

    def orderings(self, fgraph: FunctionGraph) -> dict[Apply, list[Apply]]:
        """``{destroyer: readers that must run before it}``."""
        out: dict[Apply, list[Apply]] = {}
        for r, entries in self.destroyed_roots().items():
            d, readers = self._root_readers(r, list(entries), strict=False)
            if readers:
                out.setdefault(d, []).extend(readers)
        return out

    # validation ----------------------------------------------------------------------
    def validate(self, fgraph: FunctionGraph) -> None:
        """Raise :class:`InconsistencyError` if a destruction is illegal (see module doc)."""
        if not (self.pos_valid and self._incremental_ok(fgraph)):
            self._full_validate(fgraph)
        self.touched.clear()
        self.outputs_touched.clear()

    def refresh(self, fgraph: FunctionGraph) -> None:
        """Bring the numbering up to date with the graph (the graph must be valid)."""
        if not self.pos_valid or self.touched or self.outputs_touched:
            self.validate(fgraph)

    # the numbering: a topological order of the nodes that respects the orderings,
    # kept up to date locally (dynamic topological sort, Pearce & Kelly)
    def _succ(self, fgraph: FunctionGraph, n: Apply, droots: Any) -> list[Apply]:
        """Nodes that must come after ``n``: its clients, and destroyers of what it reads."""
        out = [c for o in n.outputs for c, _ in fgraph.clients.get(o, ())
               if type(c.op) is not Output]
        if droots:
            for inp in n.inputs:
                for r in view_roots(inp):
                    for d, _ in droots.get(r, ()):
                        if d is not n:
                            out.append(d)
        return out

    def _pred(self, fgraph: FunctionGraph, n: Apply, droots: Any) -> list[Apply]:
        """Nodes that must come before ``n``: its producers, and readers of what it destroys."""
        apply_nodes = fgraph.apply_nodes
        out = [i.owner for i in n.inputs if i.owner is not None and i.owner in apply_nodes]
        if droots and n in self.destroyers_set:
            for r, i in self._d_entries.get(n, ()):
                out.extend(self._root_readers(r, [(n, i)], strict=False)[1])
        return out

    def _reorder(self, fgraph: FunctionGraph, u: Apply, v: Apply, droots: Any,
                 moved: dict[Apply, float]) -> bool:
        """Renumber so that ``u`` comes before ``v``.

        False on a cycle, an unknown node, or a region too large to be worth it
        (the caller then renumbers everything).
        """
        visits = [0]
        try:
            return self._reorder_region(fgraph, u, v, droots, moved, visits)
        finally:  # (what it costs is taken from the search pool, never below 0)
            self.search_pool = max(0, self.search_pool - visits[0])

    def _reorder_region(self, fgraph: FunctionGraph, u: Apply, v: Apply, droots: Any,
                        moved: dict[Apply, float], visits: list[int]) -> bool:
        """The body of ``_reorder``; counts the nodes it visits in ``visits[0]``."""
        pos = self.pos
        lb, ub = pos[v], pos[u]
        fwd: list[Apply] = []
        seen = {v}
        stack = [v]
        budget = self.max_local_search
        while stack:
            n = stack.pop()
            fwd.append(n)
            visits[0] += 1
            budget -= 1
            if budget < 0:
                return False
            for c in self._succ(fgraph, n, droots):
                if c is u:
                    return False
                pc = pos.get(c)
                if pc is None:
                    return False
                if pc < ub and c not in seen:
                    seen.add(c)
                    stack.append(c)
        back: list[Apply] = []
        seen_b = {u}
        stack = [u]
        while stack:
            n = stack.pop()
            back.append(n)
            visits[0] += 1
            budget -= 1
            if budget < 0:
                return False
            for p in self._pred(fgraph, n, droots):
                pp = pos.get(p)
                if pp is None or p in seen:
                    return False
                if pp > lb and p not in seen_b:
                    seen_b.add(p)
                    stack.append(p)
        nodes = sorted(back, key=pos.__getitem__) + sorted(fwd, key=pos.__getitem__)
        slots = sorted(pos[n] for n in nodes)
        for n, slot in zip(nodes, slots):
            moved.setdefault(n, pos[n])  # the first position, to restore on failure
            pos[n] = slot
        return True

    def _violations(
        self, fgraph: FunctionGraph, nodes: Iterable[tuple[Apply, list[Variable]]],
        both_ways: Iterable[Apply], ordered: Sequence[tuple[Apply, list[Apply]]], droots: Any,
    ) -> list[tuple[Apply, Apply]]:
        """Edges ``(u, v)`` with ``pos[u] >= pos[v]`` among those that may have changed."""
        pos = self.pos
        inf = float("inf")
        bad: list[tuple[Apply, Apply]] = []
        apply_nodes = fgraph.apply_nodes
        for t, inputs in nodes:
            pt = pos[t]
            for inp in inputs:
                o = inp.owner
                if o is not None and o in apply_nodes and pos.get(o, inf) >= pt:
                    bad.append((o, t))
        for t in both_ways:
            pt = pos[t]
            bad.extend((p, t) for p in self._pred(fgraph, t, droots) if pos.get(p, inf) >= pt)
            bad.extend((t, c) for c in self._succ(fgraph, t, droots) if pos.get(c, -inf) <= pt)
        for d, readers in ordered:
            pd = pos[d]
            bad.extend((rd, d) for rd in readers if pos.get(rd, inf) >= pd)
        return bad

    def _incremental_ok(self, fgraph: FunctionGraph) -> bool:
        """Check what changed and renumber locally; False when a full check is needed."""
        pos = self.pos
        apply_nodes = fgraph.apply_nodes
        clients = fgraph.clients
        inf = float("inf")
        touched = [
            (t, t.inputs if idx is None else [t.inputs[i] for i in idx])
            for t, idx in self.touched.items()
            if t in apply_nodes
        ]
        # 1. number the new nodes between their producers and their consumers
        for t, _ in touched:
            if t in pos:
                continue
            lo = -inf
            for inp in t.inputs:
                o = inp.owner
                if o is not None and o in apply_nodes:
                    po = pos.get(o)
                    if po is None:
                        return False
                    lo = max(lo, po)
            hi = inf
            for out in t.outputs:
                for c, _ in clients.get(out, ()):
                    pc = pos.get(c)  # (None for an Output node)
                    if pc is not None and pc < hi:
                        hi = pc
            if lo == -inf:
                p = 0.0 if hi == inf else hi - 1.0
            elif hi == inf:
                p = lo + 1.0
            elif lo < hi:
                p = (lo + hi) / 2.0
            else:
                p = lo  # out of order: repaired below
            pos[t] = p
        # 2. the destroyed roots the change touched: the rules, and who reads them
        droots = self.destroyed_roots()
        roots: dict[Variable, None] = {}
        if droots:
            for _, inputs in touched:
                for inp in inputs:
                    for r in view_roots(inp):
                        if r in droots:
                            roots[r] = None
            for k in self.outputs_touched:
                for r in view_roots(fgraph.outputs[k]):
                    if r in droots:
                        roots[r] = None
        ordered = [self._root_readers(r, list(droots[r]), strict=True) for r in roots]
        # 3. repair the order where a new edge goes backwards, then re-check
        moved: dict[Apply, float] = {}
        for u, v in self._violations(fgraph, touched, (), ordered, droots):
            if pos[u] >= pos[v] and not self._reorder(fgraph, u, v, droots, moved):
                pos.update(moved)
                return False
        if moved and self._violations(fgraph, touched, moved, ordered, droots):
            pos.update(moved)
            return False
        return True

    def _full_validate(self, fgraph: FunctionGraph) -> None:
        """Check every destroyed root and renumber the nodes; raise on a violation."""
        from theon.graph.traversal import io_toposort

        orderings: dict[Apply, list[Apply]] = {}
        for r, entries in self.destroyed_roots().items():
            d, readers = self._root_readers(r, list(entries), strict=True)
            if readers:
                orderings.setdefault(d, []).extend(readers)
        try:
            order = io_toposort(fgraph.inputs, fgraph.outputs, orderings)
        except ValueError:
            raise InconsistencyError(self._explain_cycle(fgraph, orderings)) from None
        pos: dict[Apply, float] = {n: float(k) for k, n in enumerate(order)}
        k = len(order)
        for n in fgraph.apply_nodes:
            if n not in pos:
                pos[n] = float(k)
                k += 1
        self.pos = pos
        self.pos_valid = True

    def _explain_cycle(self, fgraph: FunctionGraph, orderings: dict[Apply, list[Apply]]) -> str:
        """Name a destroyer and a reader that needs the destroyed value after it."""
        from theon.graph.fg import describe

        for d, readers in orderings.items():
            below = self._descendants(fgraph, d, orderings)
            for rd in readers:
                if rd in below:
                    destroyed = [d.inputs[i] for idx in d.op.destroy_map.values() for i in idx]
                    what = describe(destroyed[0]) if destroyed else str(d)
                    return (
                        f"{d.op} would overwrite {what}, but {rd.op} (in {rd}) still needs "
                        f"that value and can only run after {d.op}"
                    )
        return "the graph with its destroy orderings has a cycle"

    @staticmethod
    def _descendants(
        fgraph: FunctionGraph, start: Apply, orderings: dict[Apply, list[Apply]]
    ) -> set[Apply]:
        after: dict[Apply, list[Apply]] = {}
        for d, readers in orderings.items():
            for rd in readers:
                after.setdefault(rd, []).append(d)
        seen: set[Apply] = set()
        stack = [start]
        while stack:
            n = stack.pop()
            nexts: list[Apply] = list(after.get(n, ()))
            for out in n.outputs:
                nexts.extend(c for c, _ in fgraph.clients.get(out, ())
                             if type(c.op) is not Output)
            for c in nexts:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return seen


def ensure_destroy_handler(
    fgraph: FunctionGraph, mutable_inputs: Iterable[Variable] | None = None
) -> DestroyHandler:
    """Attach a ReplaceValidate and a DestroyHandler to ``fgraph`` if missing.

    >>> from theon.graph.type import Generic
    >>> from theon.graph.fg import FunctionGraph
    >>> x = Generic()("x")
    >>> fg = FunctionGraph([x], [x])
    >>> ensure_destroy_handler(fg) is fg.destroy_handler
    True
    """
    if not hasattr(fgraph, "replace_all_validate"):
        fgraph.attach_feature(ReplaceValidate())
    dh = fgraph.destroy_handler
    if dh is None:
        dh = DestroyHandler(mutable_inputs)
        fgraph.attach_feature(dh)
    return dh


def can_destroy(fgraph: FunctionGraph, node: Apply, i: int) -> bool:
    """Whether ``node`` could overwrite its input ``i`` without breaking a rule.

    A cheap check made before trying a destructive variant of ``node``; the
    replacement itself should still go through :func:`try_replace`.  Needs an
    attached DestroyHandler.  Exact, except that it answers False when deciding
    would take a search of more than ``DestroyHandler.max_local_search`` nodes, or
    more than the searches on this graph have left (``search_per_node`` node visits
    per node of the graph, for all of them together: so a pass calling it on every
    node stays linear in the graph's size).

    >>> from theon.graph.type import Generic
    >>> from theon.graph.op import Op
    >>> from theon.graph.basic import Apply
    >>> from theon.graph.fg import FunctionGraph
    >>> class F(Op):
    ...     def make_node(self, x):
    ...         return Apply(self, [x], [Generic()()])
    >>> x = Generic()("x")
    >>> fg = FunctionGraph([x], [F()(x)])
    >>> _ = ensure_destroy_handler(fg)
    >>> can_destroy(fg, fg.outputs[0].owner, 0)   # x is a protected input
    False
    """
    dh = fgraph.destroy_handler
    if dh is None:
        raise ValueError("can_destroy needs a DestroyHandler on the graph "
                         "(see ensure_destroy_handler)")
    droots = dh.destroyed_roots()
    x = node.inputs[i]
    tolerated = getattr(node.op, "destroyhandler_tolerate_same", ())
    readers: list[Apply] = []
    for r in view_roots(x):
        if dh.is_protected(r):
            return False
        if any(d is not node for d, _ in droots.get(r, ())):
            return False
        # every variable sharing r's memory, and who reads it: found from r's side, so
        # the cost does not grow with node's other inputs (a sum of 10^4 inputs)
        for a in dh.aliases(r):
            for c, j in fgraph.clients.get(a, ()):
                if type(c.op) is Output:
                    return False
                if c is not node:
                    readers.append(c)
                elif j != i and not (node.inputs[j] is x and (i, j) in tolerated):
                    return False  # another input of node uses the same memory
    if not readers:
        return True
    dh.refresh(fgraph)
    pos = dh.pos
    pn = pos[node]
    last = max(pos[rd] for rd in readers)
    if last < pn:
        return True
    # is a reader reachable from node?  Only nodes numbered before the last reader
    # can lead to it, so the search stays between node and that reader.
    targets = set(readers)
    seen = {node}
    stack = [node]
    limit = min(dh.max_local_search, dh.search_pool)
    budget = limit
    try:
        while stack:
            n = stack.pop()
            budget -= 1
            if budget < 0:
                return False  # too far to tell cheaply: do not risk a full renumbering
            for c in dh._succ(fgraph, n, droots):
                if c in targets:
                    return False
                if c not in seen and pos[c] < last:
                    seen.add(c)
                    stack.append(c)
        return True
    finally:
        dh.search_pool -= min(limit, limit - budget)


def try_replace(
    fgraph: FunctionGraph,
    pairs: Sequence[tuple[Variable, Variable]],
    reason: str | None = None,
) -> bool:
    """Replace and validate; on :class:`InconsistencyError` roll back and return False.

    >>> from theon.graph.type import Generic
    >>> from theon.graph.fg import FunctionGraph
    >>> x = Generic()("x")
    >>> fg = FunctionGraph([x], [x])
    >>> _ = ensure_destroy_handler(fg)
    >>> try_replace(fg, [])
    True
    """
    try:
        fgraph.replace_all_validate(list(pairs), reason=reason)
    except InconsistencyError:
        return False
    return True
