"""The generic passes: merge (common subexpression elimination) and constant folding.

Merge keeps a hash-consing table keyed by ``(op, *inputs)`` that a
:class:`MergeFeature` updates on every graph change, so finding duplicates is
incremental: the whole pass is linear in the graph's size.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> from theon.graph.fg import FunctionGraph
>>> class F(Op):
...     __props__ = ()
...     def make_node(self, x):
...         return Apply(self, [x], [Generic()()])
>>> x = Generic()("x")
>>> fg = FunctionGraph([x], [F()(x), F()(x)])
>>> _ = merge_rewriter(fg)
>>> fg.outputs[0] is fg.outputs[1]
True
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.features import AlreadyThere, Feature
from theon.graph.fg import Output
from theon.rewriting.basic import (
    GraphRewriter,
    NodeRewriter,
    Replacement,
    RewriteStats,
    apply_replacements,
)
from theon.rewriting.walkers import in2out

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "ConstantFolding",
    "MergeFeature",
    "MergeRewriter",
    "constant_folding",
    "merge_rewriter",
    "topo_constant_folding",
    "topo_unconditional_constant_folding",
    "unconditional_constant_folding",
]


class MergeFeature(Feature):
    """Keeps a table of nodes by ``(op, *inputs)``
    and of constants by ``(type, signature)``, and the duplicates found so far.

    Nodes that destroy an input are never merged.  Find it on a graph with
    ``fgraph.find_feature(MergeFeature)``.
    """

    def __init__(self) -> None:
        # keys are (op number, *inputs): equal ops share a number (see _op_number)
        self.table: dict[tuple[Any, ...], Apply] = {}
        self._op_numbers: dict[Any, int] = {}
        self._op_by_id: dict[int, tuple[Any, int]] = {}
        self.node_key: dict[Apply, tuple[Any, ...]] = {}
        self.consts: dict[tuple[Any, Any], Constant] = {}
        self.pending: deque[tuple[Any, Any]] = deque()
        # nodes whose inputs changed since merge last ran, re-keyed when it next runs:
        # a key holds every input, so re-keying on each change would cost O(k**2)
        # for a node of k inputs that all get replaced (a sum of 10^4 terms)
        self.dirty: dict[Apply, None] = {}
        # pairs a validator refused to merge; never proposed again
        self.refused: set[tuple[Any, Any]] = set()

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if fgraph.find_feature(MergeFeature) is not None:
            raise AlreadyThere("a MergeFeature is already attached")
        for v in fgraph.outputs:
            if isinstance(v, Constant):
                self._see_const(v)
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def clone(self) -> MergeFeature:
        return MergeFeature()

    def _see_const(self, c: Constant) -> None:
        try:
            key = (c.type, c.signature())
            other = self.consts.get(key)
        except TypeError:  # unhashable signature: never merged
            return
        if other is None:
            self.consts[key] = c
        elif other is not c and (c, other) not in self.refused:
            self.pending.append((c, other))

    def _op_number(self, op: Any) -> int:
        """A number shared by equal ops (ops hash in Python; numbers hash fast)."""
        got = self._op_by_id.get(id(op))
        if got is not None and got[0] is op:
            return got[1]
        numbers = self._op_numbers
        k = numbers.setdefault(op, len(numbers))  # TypeError for unhashable props
        self._op_by_id[id(op)] = (op, k)  # keeps op alive, so its id stays its own
        return k

    def _register(self, node: Apply) -> None:
        op = node.op
        if op.destroy_map:
            return
        try:
            key = (self._op_number(op), *node.inputs)
        except TypeError:  # an op with unhashable props: never merged
            return
        other = self.table.setdefault(key, node)
        self.node_key[node] = key
        if other is not node and (node, other) not in self.refused:
            self.pending.append((node, other))

    def _unregister(self, node: Apply) -> None:
        key = self.node_key.pop(node, None)
        if key is not None:
            table = self.table
            other = table.pop(key, None)
            if other is not None and other is not node:
                table[key] = other

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        for v in node.inputs:
            if isinstance(v, Constant):
                self._see_const(v)
        self._register(node)

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self._unregister(node)
        self.dirty.pop(node, None)

    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply,
        i: int,
        old: Variable,
        new: Variable,
        reason: str | None,
    ) -> None:
        if isinstance(new, Constant):
            self._see_const(new)
        if type(node.op) is not Output:
            self.dirty[node] = None

    def flush(self, fgraph: FunctionGraph) -> None:
        """Re-key the nodes whose inputs changed (queueing the duplicates this reveals)."""
        dirty, self.dirty = self.dirty, {}
        apply_nodes = fgraph.apply_nodes
        for node in dirty:
            if node in apply_nodes:
                self._unregister(node)
                self._register(node)


def _same_inputs(a: Apply, b: Apply) -> bool:
    """Whether ``a`` and ``b`` apply equal ops to the same variables."""
    if a.op != b.op or len(a.inputs) != len(b.inputs) or len(a.outputs) != len(b.outputs):
        return False
    return all(x is y for x, y in zip(a.inputs, b.inputs))


def _more_specific(a: Apply, b: Apply) -> bool:
    """Whether each output type of ``b`` equals or refines ``a``'s (``b`` may replace ``a``)."""
    return all(
        x.type == y.type or x.type.is_super(y.type) for x, y in zip(a.outputs, b.outputs)
    )


class MergeRewriter(GraphRewriter):
    """Merge: ``op(x, y)`` computed twice becomes one node; equal constants become one.

    Two nodes merge when their ops are equal and their inputs are the same
    variables; two constants merge when their types and ``signature()`` are
    equal.  The earlier node (or constant) is kept, unless the later node's output
    types are more specific (a replacement refined an input's static shape); nodes
    whose output types are incomparable are left apart.  The pass always returns:
    a pair is proposed again only after a change to the graph.
    """

    name = "merge"
    #: replaces nodes by equal ones already in the graph (see theon.rewriting.provenance)
    merges_nodes = True

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        if fgraph.find_feature(MergeFeature) is None:
            fgraph.attach_feature(MergeFeature())

    def apply(self, fgraph: FunctionGraph) -> RewriteStats:
        stats = RewriteStats()
        mf = fgraph.find_feature(MergeFeature)
        if mf is None:
            raise ValueError("MergeRewriter.apply needs a MergeFeature (see add_requirements)")
        pending = mf.pending
        apply_nodes = fgraph.apply_nodes
        variables = fgraph.variables
        while True:
            # merging nodes gives their readers equal inputs: re-key those, merge again
            mf.flush(fgraph)
            if not pending:
                break
            while pending:
                a, b = pending.popleft()
                stats.attempts += 1
                if (a, b) in mf.refused:
                    continue
                if isinstance(a, Constant):
                    if a is b or a not in variables:
                        continue
                    if b not in variables:  # the kept constant left the graph: a takes its place
                        mf.consts[(a.type, a.signature())] = a
                        continue
                    if apply_replacements(fgraph, [(a, b)], self):
                        stats.fires["merge"] += 1
                    else:
                        mf.refused.add((a, b))
                    continue
                if a not in apply_nodes:
                    continue
                if b not in apply_nodes or not _same_inputs(a, b):
                    # the kept node is gone or changed: a may become the representative
                    if b in mf.dirty:
                        mf.flush(fgraph)  # (b's entry in the table is stale)
                    mf._unregister(a)
                    mf._register(a)
                    continue
                # Equal ops on the same inputs can still differ in their output types
                # when a replacement refined an input's type after the node was built
                # (``(None,)`` then ``(500,)``): keep the node whose types are the more
                # specific, and never merge two whose types are incomparable.  Such a
                # pair is refused for good: proposing it again would loop forever.
                if not _more_specific(a, b):
                    if not _more_specific(b, a):
                        mf.refused.add((a, b))
                        continue
                    a, b = b, a
                    mf.table[mf.node_key[a]] = b
                pairs = [(o, n) for o, n in zip(a.outputs, b.outputs) if o in variables]
                if not pairs:
                    continue
                if apply_replacements(fgraph, pairs, self, a):
                    stats.fires["merge"] += 1
                else:
                    mf.refused.add((a, b))
        return stats


merge_rewriter = MergeRewriter()


class ConstantFolding(NodeRewriter):
    """Constant folding: ``op(c1, ..., cn) -> Constant(op.perform(c1, ..., cn))``.

    Applies when every input is a Constant and ``op.do_constant_folding(node)``
    is true (or always, when ``unconditional``).  Ops that destroy an input, have
    no ``perform``, or raise while folding are left for run time (which reports
    errors with the node's context).
    """

    name = "constant_folding"

    def __init__(self, unconditional: bool = False, name: str | None = None) -> None:
        self.unconditional = unconditional
        if name is not None:
            self.name = name

    def tracks(self) -> None:
        return None

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        values = []
        for i in node.inputs:
            if not isinstance(i, Constant):
                return None
            values.append(i.data)
        op = node.op
        if op.destroy_map or not (self.unconditional or op.do_constant_folding(node)):
            return None
        storage: list[list[Any]] = [[None] for _ in node.outputs]
        try:
            op.perform(node, values, storage)
        except Exception:
            return None
        return [o.type.make_constant(cell[0]) for o, cell in zip(node.outputs, storage)]


constant_folding = ConstantFolding()

#: constant folding that ignores ``do_constant_folding`` (PyTensor's
#: ``unconditional_constant_folding``): for a graph whose constant value is wanted, not
#: for a compiled function (an Op declines folding when the constant would be large)
unconditional_constant_folding = ConstantFolding(True, "unconditional_constant_folding")

#: PyTensor's graph rewriters folding constants once over the graph, in to out
topo_constant_folding = in2out(constant_folding, ignore_newtrees=True,
                               name="topo_constant_folding")
topo_unconditional_constant_folding = in2out(
    unconditional_constant_folding, ignore_newtrees=True,
    name="topo_unconditional_constant_folding",
)
