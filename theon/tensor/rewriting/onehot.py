"""One-hot tensors: what the gradient of one element ``y[i]`` is seeded with.

``grad(y[i], x)`` starts from ``inc_subtensor(zeros_like(y)[i], 1)``, a tensor that is
zero except at one entry, and multiplies it through the backward graph.  Carried as
"zeros with ``c`` at ``i``", the work on it is one entry's instead of the whole
tensor's, and the matrix-vector product of the backward pass becomes a row or column
of the matrix (a constant one for a constant matrix):

- ``local_onehot_mul``: ``onehot(i, c) * y * z -> onehot(i, c * y[i] * z[i])``;
- ``local_onehot_dot``: ``dot(M, onehot(i, c)) -> c * M[:, i]`` and
  ``dot(onehot(i, c), M) -> c * M[i]``;
- ``local_onehot_add``: ``v + onehot(i, c) -> inc_subtensor(v[i], c)``;
- ``local_add_inc_zeros``: the same for any index and value (a slice, an advanced
  index such as a diagonal's): ``v + inc_subtensor(zeros[idx], c) ->
  inc_subtensor(v[idx], c)``, one pass over ``v`` instead of a zero tensor and a sum.

A stacked loop jacobian (``stack([grad(y[i], x) for i in ...])``) so costs one row of
work per row.  Off the one entry the original multiplies zeros by finite numbers:
equal values (an infinite or NaN factor gave NaN there in the original; zeros may
differ in sign).

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> A = np.arange(9.0).reshape(3, 3)
>>> y = tt.tanh(tt.dot(tt.constant(A), x))
>>> f = theon.function([x], theon.grad(y[1], x))
>>> [type(n.op).__name__ for n in f.maker.fgraph.toposort()
...  if type(n.op).__name__ in ("Dot", "Gemv")]  # the forward product only
['Dot']
>>> bool(np.allclose(f(np.zeros(3)), A[1]))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Variable
from theon.rewriting import node_rewriter, register_canonicalize
from theon.tensor import math as tm
from theon.tensor.advanced_subtensor import AdvancedIncSubtensor
from theon.tensor.basic import NotScalarConstantError, get_scalar_constant_value
from theon.tensor.blas import Dot
from theon.tensor.creation import Alloc
from theon.tensor.rewriting.utils import elemwise_node, fit
from theon.tensor.subtensor import SYM, IncSubtensor, Subtensor
from theon.tensor.type import tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "OneHot",
    "as_onehot",
    "local_add_inc_zeros",
    "local_onehot_add",
    "local_onehot_dot",
    "local_onehot_mul",
]


class OneHot:
    """``base`` (all zeros) with ``value`` (0-d) at one entry: ``base[idx] = value``.

    ``idx_list`` and ``idx_inputs`` are those of the IncSubtensor that made it: one
    integer (or symbolic scalar) per dimension of ``base``.
    """

    __slots__ = ("base", "value", "idx_list", "idx_inputs")

    def __init__(self, base: Variable, value: Variable, idx_list: tuple[Any, ...],
                 idx_inputs: list[Variable]) -> None:
        self.base = base
        self.value = value
        self.idx_list = idx_list
        self.idx_inputs = idx_inputs

    def at(self, v: Variable) -> TensorVariable:
        """``v``'s entry at this index (index 0 along ``v``'s static-length-1 axes)."""
        shape = tensor_type(v).shape
        nd = len(shape)
        lead = len(self.idx_list) - nd
        entries: list[Any] = []
        inputs: list[Variable] = []
        it = iter(self.idx_inputs)
        for d, e in enumerate(self.idx_list):
            sym = next(it) if e == SYM else None
            if d < lead:
                continue
            if shape[d - lead] == 1:
                entries.append(0)
            elif sym is not None:
                entries.append(SYM)
                inputs.append(sym)
            else:
                entries.append(e)
        return Subtensor(tuple(entries))(v, *inputs)

    def with_value(self, base: Variable, value: Variable) -> TensorVariable:
        """``base`` with ``value`` added at this entry."""
        op = IncSubtensor(self.idx_list)
        return op(base, value, *self.idx_inputs)


def _is_zero(v: Variable) -> bool:
    node = v.owner
    if node is not None and isinstance(node.op, Alloc):
        v = node.inputs[0]
    try:
        return bool(get_scalar_constant_value(v) == 0)
    except NotScalarConstantError:
        return False


def as_onehot(v: Variable) -> OneHot | None:
    """``v`` as a :class:`OneHot` when it is ``inc_subtensor(zeros[i, j, ...], c)`` (or the
    ``set_subtensor`` of it) with one integer index per dimension.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> h = as_onehot(tt.inc_subtensor(tt.zeros_like(x)[2], 5.0))
    >>> h.idx_list
    (2,)
    >>> as_onehot(tt.inc_subtensor(x[2], 5.0)) is None
    True
    """
    node = v.owner
    if node is None or not isinstance(node.op, IncSubtensor) or node.op.inplace:
        return None
    base, value, *idx_inputs = node.inputs
    idx_list = node.op.idx_list
    bt = tensor_type(base)
    if len(idx_list) != bt.ndim or any(isinstance(e, slice) for e in idx_list):
        return None  # a slice, or fewer indices than dimensions: more than one entry
    if tensor_type(value).ndim != 0 or not _is_zero(base):
        return None
    return OneHot(base, value, tuple(idx_list), list(idx_inputs))


def _full_size(h: OneHot, out: Variable) -> bool:
    """Whether the one-hot already has the result's shape (no axis of it broadcasts)."""
    bs, os_ = tensor_type(h.base).shape, tensor_type(out).shape
    return len(bs) == len(os_) and all(b != 1 or o == 1 for b, o in zip(bs, os_))


@register_canonicalize
@node_rewriter([ts.mul])
def local_onehot_mul(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``onehot(i, c) * y * z -> onehot(i, c * y[i] * z[i])``.

    Off entry ``i`` the product is ``0 * y * z``, 0 for finite factors; at ``i`` it is
    ``c * y[i] * z[i]`` (a factor of static length 1 along an axis is read at 0 there).
    Only when the one-hot has the result's shape and dtype (the factors do not widen it).
    """
    out = node.outputs[0]
    if elemwise_node(out, ts.mul) is None:
        return None
    ot = tensor_type(out)
    hots = [(k, as_onehot(v)) for k, v in enumerate(node.inputs)]
    found = [(k, h) for k, h in hots if h is not None]
    if len(found) != 1:
        return None
    k, h = found[0]
    assert h is not None
    if not _full_size(h, out) or tensor_type(h.base).dtype != ot.dtype:
        return None
    factors = [h.value] + [h.at(v) for j, v in enumerate(node.inputs) if j != k]
    value = tm.mul(*factors)
    if tensor_type(value).dtype != ot.dtype:
        return None
    res = fit(h.with_value(h.base, value), out)
    return None if res is None else [res]


@register_canonicalize
@node_rewriter([ts.add])
def local_onehot_add(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``v + w + onehot(i, c) -> inc_subtensor((v + w)[i], c)``.

    Adding zeros leaves every entry of ``v + w`` but entry ``i``, which gets ``c``
    added.  Only when neither the one-hot nor ``v + w`` broadcasts to the result.
    """
    out = node.outputs[0]
    if elemwise_node(out, ts.add) is None or len(node.inputs) < 2:
        return None
    ot = tensor_type(out)
    for k, v in enumerate(node.inputs):
        h = as_onehot(v)
        if h is None:
            continue
        if not _full_size(h, out):
            return None  # the one-hot broadcasts: its value lands on a whole axis
        rest = [w for j, w in enumerate(node.inputs) if j != k]
        base = rest[0] if len(rest) == 1 else tm.add(*rest)
        bt = tensor_type(base)
        if (bt.ndim != ot.ndim or bt.dtype != ot.dtype or tensor_type(h.value).dtype != ot.dtype
                or any(b == 1 and o != 1 for b, o in zip(bt.shape, ot.shape))):
            return None
        res = fit(h.with_value(base, h.value), out)
        return None if res is None else [res]
    return None


def _inc_of_zeros(v: Variable) -> Apply | None:
    """The node of ``v = inc_subtensor(zeros[idx], c)`` (basic or advanced ``idx``; a
    basic ``set_subtensor`` too, which writes each entry once: the same as adding to
    zeros), not in place."""
    node = v.owner
    if node is None or not isinstance(node.op, (IncSubtensor, AdvancedIncSubtensor)):
        return None
    op = node.op
    if op.inplace or (op.set_instead_of_inc and isinstance(op, AdvancedIncSubtensor)):
        return None
    return node if _is_zero(node.inputs[0]) else None


@register_canonicalize
@node_rewriter([ts.add])
def local_add_inc_zeros(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``v + w + inc_subtensor(zeros[idx], c) -> inc_subtensor((v + w)[idx], c)``.

    The increment is zero but on ``idx``, where it holds ``c`` (repeated advanced
    indices accumulate, as they do when ``c`` is added to ``v + w`` there).  Only when
    the zeros and ``v + w`` both have the result's shape (neither broadcasts) and
    dtype; a one-entry increment is ``local_onehot_add``'s.

    >>> import theon, theon.tensor as tt
    >>> x, c = tt.dvector("x"), tt.dvector("c")
    >>> f = theon.function([x, c], x + tt.inc_subtensor(tt.zeros_like(x)[1:], c))
    >>> [type(n.op).__name__ for n in f.maker.fgraph.apply_nodes]
    ['IncSubtensor']
    >>> f([1.0, 1.0, 1.0], [2.0, 3.0]).tolist()
    [1.0, 3.0, 4.0]
    """
    out = node.outputs[0]
    if elemwise_node(out, ts.add) is None or len(node.inputs) < 2:
        return None
    ot = tensor_type(out)
    for k, v in enumerate(node.inputs):
        inc = _inc_of_zeros(v)
        if inc is None or as_onehot(v) is not None:
            continue
        zt = tensor_type(inc.inputs[0])
        rest = [w for j, w in enumerate(node.inputs) if j != k]
        base = rest[0] if len(rest) == 1 else tm.add(*rest)
        bt = tensor_type(base)
        if any(t.ndim != ot.ndim or t.dtype != ot.dtype
               or any(b == 1 and o != 1 for b, o in zip(t.shape, ot.shape)) for t in (zt, bt)):
            return None
        props = inc.op._props_dict()
        props["set_instead_of_inc"] = False  # (a basic set writes each entry once)
        res = fit(type(inc.op)(**props)(base, *inc.inputs[1:]), out)
        return None if res is None else [res]
    return None


@register_canonicalize
@node_rewriter([Dot])
def local_onehot_dot(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``dot(M, onehot(j, c)) -> c * M[:, j]``, ``dot(onehot(i, c), M) -> c * M[i]``.

    ``sum_k M[r, k] * e_k`` over a vector ``e`` that is zero but at ``j`` is
    ``M[r, j] * c`` (plus zeros); the same for a row of ``M``.  For a vector ``M``
    both give ``c * M[j]``.  For a constant ``M`` the row or column is folded.
    """
    a, b = tensor_vars(node.inputs)
    out = node.outputs[0]
    ot = tensor_type(out)
    ha, hb = as_onehot(a), as_onehot(b)
    if (ha is None) == (hb is None):
        return None
    h, m = (ha, b) if ha is not None else (hb, a)
    assert h is not None
    if tensor_type(h.base).ndim != 1 or not _full_size(h, h.base):
        return None
    mt = tensor_type(m)
    if mt.ndim == 2:
        nd_ax = 0 if ha is not None else 1  # the axis of M the vector contracts with
        entries: list[Any] = [slice(None), slice(None)]
        entries[nd_ax] = h.idx_inputs[0] if h.idx_list[0] == SYM else h.idx_list[0]
        if mt.shape[nd_ax] == 1:
            return None  # M broadcasts against the one-hot: not a single row/column
        line = m[tuple(entries)]
    elif mt.ndim == 1:
        line = h.at(m)
    else:
        return None
    new = tm.mul(h.value, line)
    if tensor_type(new).dtype != ot.dtype and np.dtype(ot.dtype).kind != "f":
        return None
    res = fit(new, out)
    return None if res is None else [res]
