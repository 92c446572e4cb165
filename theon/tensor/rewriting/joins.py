"""Joins of many small pieces built the same way: one operation on the joined operands.

A loop written in Python (``stack([grad(y[i], x) for i in range(n)])``) leaves ``n``
copies of one small graph under a Join; after the one-hot rewrites
(:mod:`.onehot`) each copy is ``c_i * K_i`` with ``t_i`` added at entry ``i``.  These
rewrites turn such a Join into the batched form, one operation per step of the
copies instead of ``n``:

- ``local_join_of_elemwise``: ``join(f(a_1, b_1), f(a_2, b_2), ...) ->
  f(join(a_1, a_2, ...), join(b_1, b_2, ...))`` (constants fold);
- ``local_join_of_entries``: ``join(v[c][None], v[c + 1][None], ...) -> v[c:c + n]``;
- ``local_join_of_diagonal_incs``: rows ``inc_subtensor(r_i[i], c_i)`` stacked ->
  ``AddDiag(stack(r_i), stack(c_i))``.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> A = np.arange(9.0).reshape(3, 3)
>>> y = tt.tanh(tt.dot(tt.constant(A), x)) * x
>>> f = theon.function([x], tt.stack([theon.grad(y[i], x) for i in range(3)]))
>>> "Join" in {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}
False
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Variable
from theon.rewriting import node_rewriter, register_canonicalize
from theon.tensor.alloc_diag import AddDiag
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.joining import Join, _join, static_axis
from theon.tensor.rewriting.utils import client_count, fit
from theon.tensor.shape import specify_shape
from theon.tensor.subtensor import IncSubtensor, Subtensor
from theon.tensor.type import tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = ["MAX_PIECE_SIZE", "local_join_of_diagonal_incs", "local_join_of_elemwise",
           "local_join_of_entries"]

#: Largest piece (in elements, from its static shape) whose Join is batched: for large
#: pieces the joins of the operands would cost more memory traffic than they save calls.
MAX_PIECE_SIZE = 4096


def _small(v: Variable) -> bool:
    shape = tensor_type(v).shape
    return None not in shape and math.prod(s for s in shape if s is not None) <= MAX_PIECE_SIZE


def _single_use(fgraph: FunctionGraph | None, pieces: list[Variable]) -> bool:
    return all(client_count(fgraph, p) == 1 for p in pieces)


@register_canonicalize
@node_rewriter([Join])
def local_join_of_elemwise(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``join(f(a_1, b_1), ..., f(a_n, b_n)) -> f(join(a_1, ..., a_n), join(b_1, ..., b_n))``.

    An elementwise ``f`` commutes with joining when each operand has its piece's length
    along the join axis and every piece's operand ``j`` broadcasts along the same other
    axes: entry by entry, the joined operands hold the same values the pieces read.
    Only for small pieces (static sizes up to ``MAX_PIECE_SIZE``) used by nothing else.
    """
    pieces = list(node.inputs[1:])
    axis = static_axis(node)
    if axis is None or len(pieces) < 2 or not _single_use(fgraph, pieces):
        return None
    owners = [p.owner for p in pieces]
    first = owners[0]
    if first is None or not isinstance(first.op, Elemwise) or first.op.inplace_pattern:
        return None
    if len(first.outputs) != 1:
        return None
    for o in owners:
        if o is None or o.op != first.op or len(o.inputs) != len(first.inputs):
            return None
    if not all(_small(p) for p in pieces):
        return None
    joined: list[Variable] = []
    for j in range(len(first.inputs)):
        ops = [o.inputs[j] for o in owners if o is not None]
        t0 = tensor_type(ops[0])
        bcast = tuple(s == 1 for s in t0.shape)
        for p, a in zip(pieces, ops):
            ta = tensor_type(a)
            if ta.dtype != t0.dtype or ta.ndim != t0.ndim:
                return None
            if ta.shape[axis] is None or ta.shape[axis] != tensor_type(p).shape[axis]:
                return None  # the operand broadcasts along the join axis
            if tuple(s == 1 for s in ta.shape) != bcast:
                return None
        joined.append(_join(axis, *ops))
    new = first.op(*joined)
    res = fit(new, node.outputs[0])
    return None if res is None else [res]


def _entry(p: Variable) -> tuple[TensorVariable, int] | None:
    """``(v, i)`` when ``p`` is ``v[i]`` (a constant integer ``i``) given length-1 axes."""
    node = p.owner
    if node is None or not isinstance(node.op, DimShuffle) or node.op.input_ndim != 0:
        return None
    e = node.inputs[0].owner
    if e is None or not isinstance(e.op, Subtensor) or len(e.inputs) != 1:
        return None
    idx = e.op.idx_list
    (v,) = tensor_vars(e.inputs)
    if len(idx) != 1 or tensor_type(v).ndim != 1 or not isinstance(idx[0], int):
        return None
    return v, idx[0]


@register_canonicalize
@node_rewriter([Join])
def local_join_of_entries(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``join(v[c][None, ...], v[c + 1][None, ...], ..., v[c + n - 1][None, ...]) ->
    v[c:c + n]`` (along the join axis).

    The pieces are consecutive entries of one vector, each with length-1 axes added; the
    slice holds the same entries in the same order.  The slice's length is checked to
    be ``n`` (where an entry was out of range, indexing raised; so does the check).
    """
    pieces = list(node.inputs[1:])
    axis = static_axis(node)
    if axis is None or len(pieces) < 2:
        return None
    found = [f for f in [_entry(p) for p in pieces] if f is not None]
    if len(found) < len(pieces):
        return None
    v, c = found[0]
    n = len(pieces)
    if c < 0 or any(f[0] is not v or f[1] != c + k for k, f in enumerate(found)):
        return None
    out = node.outputs[0]
    nd = tensor_type(out).ndim
    part = specify_shape(v[c:c + n], (n,))
    order: list[int | str] = ["x"] * nd
    order[axis] = 0
    res = fit(DimShuffle(1, order)(part), out)
    return None if res is None else [res]


@register_canonicalize
@node_rewriter([Join])
def local_join_of_diagonal_incs(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``join(inc_subtensor(r_0[0], c_0)[None], ..., inc_subtensor(r_{n-1}[n-1],
    c_{n-1})[None]) -> AddDiag(join(r_0[None], ...), join(c_0[None], ...))``.

    Row ``i`` of the stack is ``r_i`` with ``c_i`` added at entry ``i``: the stack of the
    ``r_i`` with ``c`` added on its diagonal (each ``r_i`` has static length ``n``: the
    result is square).
    """
    pieces = list(node.inputs[1:])
    n = len(pieces)
    if static_axis(node) != 0 or n < 2 or not _single_use(fgraph, pieces):
        return None
    rows: list[Variable] = []
    vals: list[Variable] = []
    for k, p in enumerate(pieces):
        ds = p.owner
        if ds is None or not isinstance(ds.op, DimShuffle) or ds.op.new_order != ("x", 0):
            return None
        inc = ds.inputs[0].owner
        if inc is None or not isinstance(inc.op, IncSubtensor) or inc.op.set_instead_of_inc:
            return None
        if inc.op.inplace or inc.op.idx_list != (k,) or len(inc.inputs) != 2:
            return None
        r, c = inc.inputs
        rt, ct = tensor_type(r), tensor_type(c)
        if rt.ndim != 1 or rt.shape[0] != n or ct.ndim != 0 or ct.dtype != rt.dtype:
            return None
        rows.append(DimShuffle(1, ("x", 0))(r))
        vals.append(DimShuffle(0, ("x",))(c))
    dt = tensor_type(node.outputs[0]).dtype
    if any(tensor_type(r).dtype != dt for r in rows) or dt not in ("float32", "float64"):
        return None
    new = AddDiag()(_join(0, *rows), _join(0, *vals))
    res = fit(new, node.outputs[0])
    return None if res is None else [res]

