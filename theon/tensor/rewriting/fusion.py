"""Elementwise fusion: chains of Elemwise nodes become one Elemwise(Composite).

A fused node evaluates its whole inner scalar graph in one pass over the data
(the tier-0 linker runs it block by block), instead of materializing every
intermediate array.

``f(g(x), h(x, y)) -> Composite{f(g(i0), h(i0, i1))}(x, y)``

A producer is absorbed into a consumer's group only when every client of its
outputs is in the group (so no outside node needs an intermediate, and no cycle
can form) and its output has the group's broadcast pattern (so nothing is
recomputed across broadcast dimensions).

One-element constants stay operands of the fused node rather than literals of
its Composite, so groups that differ only in their constants share one fused op
(and one generated kernel): ``exp(-x)*2`` and ``exp(-y)*3`` are both
``Composite{mul(exp(neg(i0)), i1)}``.  The py linker still spells a 0-d
constant operand as a literal.  Constants are inlined only where an operand would
cost a node (a constant broadcast by a DimShuffle) or where operands would pass
``MAX_FUSED_INPUTS``.

>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.exp(-x ** 2) * tt.sin(x) + 1)
>>> [str(n.op)[:19] for n in f.maker.fgraph.toposort()]
['Elemwise{Composite{']
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph, Output
from theon.rewriting.basic import GraphRewriter, apply_replacements
from theon.rewriting.db import rewrite_db
from theon.scalar.composite import Composite
from theon.scalar.type import ScalarType, get_scalar_type
from theon.scalar.type import constant as scalar_constant
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.type import tensor_type

__all__ = ["FusionRewriter", "MAX_FUSED_INPUTS"]

# Generated kernels take one argument per input; keep them readable and fast.
MAX_FUSED_INPUTS = 32


def _fusable(node: Any) -> bool:
    return (
        isinstance(node, Apply)
        and isinstance(node.op, Elemwise)
        and not node.op.inplace_pattern
        and len(node.outputs) == 1
        and all(_scalar_ok(o) for o in node.outputs)
        and getattr(node.op.scalar_op, "impl", None) is not None
    )


def _scalar_ok(v: Variable) -> bool:
    try:
        get_scalar_type(tensor_type(v).dtype)
    except (TypeError, ValueError, AttributeError):
        return False
    return True


def _inline_constant(v: Variable, operands: bool) -> Any:
    """The scalar value to inline for ``v``, or None to make it an operand.

    A broadcast one-element constant is always inlined; a one-element Constant
    only when ``operands`` is False.
    """
    if isinstance(v, Constant):
        data = v.data
        if not operands and getattr(data, "size", 0) == 1:
            return data.reshape(())
        return None
    node = v.owner
    if node is not None and isinstance(node.op, DimShuffle):
        src = node.inputs[0]
        if isinstance(src, Constant) and getattr(src.data, "size", 0) == 1:
            return src.data.reshape(())
    return None


class FusionRewriter(GraphRewriter):
    """Fuse groups of Elemwise nodes into Elemwise(Composite) nodes (one linear pass)."""

    name = "elemwise_fusion"

    def apply(self, fgraph: FunctionGraph) -> Any:
        order = fgraph.toposort()
        assigned: set[Apply] = set()
        groups: list[list[Apply]] = []
        clients = fgraph.clients
        ok_ops: dict[Any, bool] = {}  # op -> whether its nodes can be fused (cached)
        patterns: dict[Any, tuple[bool, ...]] = {}  # type -> its broadcast pattern

        def fusable(n: Apply) -> bool:
            key = (n.op, tuple(o.type for o in n.outputs))
            try:
                got = ok_ops.get(key)
            except TypeError:  # an op with unhashable props
                return _fusable(n)
            if got is None:
                got = ok_ops[key] = _fusable(n)
            return got

        def pattern(t: Any) -> tuple[bool, ...]:
            got = patterns.get(t)
            if got is None:
                got = patterns[t] = t.broadcastable
            return got

        # distinct nodes reading a node's output (a graph output may also be an output
        # of the fused node), cached: the graph does not change while groups are collected
        n_clients: dict[Apply, int] = {}

        def client_count(p: Apply) -> int:
            got = n_clients.get(p)
            if got is None:
                got = n_clients[p] = len(
                    {c: None for c, _ in clients.get(p.outputs[0], ()) if type(c.op) is not Output}
                )
            return got

        for root in reversed(order):
            if root in assigned or not fusable(root):
                continue
            bcast = pattern(root.outputs[0].type)
            members = [root]
            assigned.add(root)
            # a producer joins once all its clients are members: count the members
            # reading it (each member counted once), so every node and edge is seen
            # once per group instead of rescanning the waiting producers
            readers: dict[Apply, int] = {}
            k = 0
            while k < len(members):
                node = members[k]
                k += 1
                for p in {i.owner: None for i in node.inputs if i.owner is not None}:
                    if p in assigned or not fusable(p):  # (members are assigned)
                        continue
                    if pattern(p.outputs[0].type) != bcast:
                        continue
                    # (an Elemwise output is never an inlinable constant: no check needed)
                    seen = readers.get(p, 0) + 1
                    readers[p] = seen
                    if seen == client_count(p):
                        members.append(p)
                        assigned.add(p)
            if len(members) > 1:
                groups.append(members)
        pos = {n: k for k, n in enumerate(order)}
        inlined: dict[Any, Variable] = {}  # equal inlined constants share one scalar constant
        for members in groups:
            members.sort(key=pos.__getitem__)
            self._fuse(fgraph, members, inlined)
        return None

    def _fuse(
        self,
        fgraph: FunctionGraph,
        members: list[Apply],
        inlined: dict[Any, Variable] | None = None,
        const_operands: bool = True,
    ) -> bool:
        """Replace ``members`` (in dependency order) by one fused node.

        With ``const_operands``, one-element constants are inputs of the fused node
        (unless that passes MAX_FUSED_INPUTS); otherwise they are inlined.
        """
        group = set(members)
        clients = fgraph.clients
        outer_inputs: list[Variable] = []
        # how each member reads its inputs: an outer input's position, an earlier
        # member's position (negative) or an inlined constant; this describes the
        # composite completely, so equal descriptions share one op (see _FUSED)
        refs: dict[Variable, Any] = {}
        consts: dict[Variable, Any] = {}
        member_keys = []
        for j, node in enumerate(members):
            in_refs = []
            for v in node.inputs:
                r = refs.get(v)
                if r is None:
                    c = _inline_constant(v, const_operands)
                    if c is not None:
                        r = ("c", c.dtype.str, c.tobytes())
                        consts[v] = (c, r)
                    else:
                        r = len(outer_inputs)
                        outer_inputs.append(v)
                    refs[v] = r
                in_refs.append(r)
            out = node.outputs[0]
            refs[out] = -1 - j
            assert isinstance(node.op, Elemwise)  # members are Elemwise nodes
            member_keys.append(
                (node.op.scalar_op, tuple(in_refs), tensor_type(out).dtype)
            )
        if len(outer_inputs) > MAX_FUSED_INPUTS:
            if const_operands and any(isinstance(v, Constant) for v in outer_inputs):
                return self._fuse(fgraph, members, inlined, const_operands=False)
            return False
        out_pos = [
            j
            for j, n in enumerate(members)
            if any(c not in group for c, _ in clients[n.outputs[0]])
        ]
        key: tuple[Any, ...] | None = (
            tuple(tensor_type(v).dtype for v in outer_inputs),
            tuple(member_keys),
            tuple(out_pos),
        )
        try:
            op = _FUSED.get(key, _MISSING)
        except TypeError:  # a scalar op with unhashable props
            key, op = None, _MISSING
        if op is _MISSING:
            op = self._fused_op(members, outer_inputs, consts, out_pos, inlined)
            if key is not None:
                if len(_FUSED) >= _FUSED_LIMIT:
                    _FUSED.clear()
                _FUSED[key] = op
        if op is None:
            return False
        outer_outputs = [members[j].outputs[0] for j in out_pos]
        node = op.make_node(*outer_inputs)
        if any(nv.type != old.type for nv, old in zip(node.outputs, outer_outputs)):
            # make_node gives every output the static shape of all the inputs together,
            # which may be more specific than what an output replaced here promised
            # (``exp(x)`` fused with ``exp(x) * y``, y of static length 3): each output
            # keeps the type of the variable it replaces (dtypes are equal, see
            # _fused_op; the values are the same as before fusion)
            node = Apply(op, list(node.inputs), [old.type() for old in outer_outputs])
        pairs = list(zip(outer_outputs, node.outputs))
        # (the fused node's provenance: every member, the last one first)
        return apply_replacements(fgraph, pairs, self, members[-1], consumed=members)

    @staticmethod
    def _fused_op(
        members: list[Apply], outer_inputs: list[Variable], consts: dict[Variable, Any],
        out_pos: list[int], inlined: dict[Any, Variable] | None = None,
    ) -> Elemwise | None:
        """``Elemwise(Composite)`` computing ``members``; None if a scalar op types differently."""
        inner_of: dict[Variable, Variable] = {}
        for v in outer_inputs:
            inner_of[v] = get_scalar_type(tensor_type(v).dtype)()
        for v, (c, key) in consts.items():
            sc = inlined.get(key) if inlined is not None else None
            if sc is None:
                sc = scalar_constant(c, dtype=str(c.dtype))
                if inlined is not None:
                    inlined[key] = sc
            inner_of[v] = sc
        for node in members:
            ins = [inner_of[v] for v in node.inputs]
            assert isinstance(node.op, Elemwise)  # members are Elemwise nodes
            out = node.op.scalar_op.make_node(*ins).outputs[0]
            out_t = out.type
            assert isinstance(out_t, ScalarType)  # what a scalar op's make_node gives
            if out_t.dtype != tensor_type(node.outputs[0]).dtype:
                return None  # the scalar op would type it differently: leave it alone
            inner_of[node.outputs[0]] = out
        comp = Composite(
            [inner_of[v] for v in outer_inputs],
            [inner_of[members[j].outputs[0]] for j in out_pos],
            fresh=True,  # built here for this op alone: no copy needed
        )
        return Elemwise(comp)


# Fused ops by the description of what they compute (bounded; ops are immutable, so
# graphs may share them): same-shaped groups and recompiles skip building composites.
_FUSED: dict[Any, Elemwise | None] = {}
_FUSED_LIMIT = 4096
_MISSING: Any = object()


fusion_rewriter = FusionRewriter()
rewrite_db.register("elemwise_fusion", fusion_rewriter, "fast_run", "fusion", phase="fusion")
