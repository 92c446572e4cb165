"""Identity and diagonal matrices: what a jacobian's batch of unit seeds becomes.

The vectorized jacobian batches a vector-Jacobian product over the rows of
``eye(n)``; its graph then holds ``eye(n) * v[None, :]`` (the seed times an
elementwise derivative) and products of those with matrices.  Written as
diagonal matrices they cost ``n`` operations instead of ``n**2`` (or ``n**3``):

- ``local_mul_eye_to_alloc_diag``: ``eye(n) * r[None, :] * c[:, None] -> AllocDiag(r * c)``;
- ``local_dot_diag``: ``dot(AllocDiag(d), b) -> d[:, None] * b``,
  ``dot(a, AllocDiag(d)) -> a * d[None, :]``, ``dot(eye(n), b) -> b``, ``dot(a, eye(n)) -> a``;
- ``local_sum_of_diagonal_product``: ``sum(x * eye(n)) -> sum(diagonal(x))``;
- ``local_add_alloc_diag``: ``x + AllocDiag(d) -> AddDiag(x, d)`` (``x`` with ``d`` added
  on its diagonal), and ``AddDiag`` overwrites a dead ``x`` in the inplace phase.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> J = theon.gradient.jacobian(tt.tanh(x) * x, x)
>>> f = theon.function([x], J)
>>> sorted({type(n.op).__name__ for n in f.maker.fgraph.toposort()} & {"AllocDiag", "MatMul"})
['AllocDiag']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Constant, Variable
from theon.rewriting import node_rewriter, register_canonicalize, register_specialize
from theon.tensor import math as tm
from theon.tensor.alloc_diag import AddDiag, AllocDiag
from theon.tensor.basic import get_scalar_constant_value
from theon.tensor.blas import Dot
from theon.tensor.creation import Eye, alloc
from theon.tensor.elemwise import DimShuffle
from theon.tensor.reduction import Sum
from theon.tensor.rewriting.utils import as_dtype, elemwise_node, fit
from theon.tensor.shape import SpecifyShape
from theon.tensor.type import tensor_type

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "is_identity",
    "local_add_alloc_diag",
    "local_dot_diag",
    "local_mul_eye_to_alloc_diag",
    "local_sum_of_diagonal_product",
]


def _int_const(v: Variable) -> int | None:
    try:
        return int(get_scalar_constant_value(v))
    except Exception:
        return None


def is_identity(v: Variable) -> bool:
    """Whether ``v`` is a square identity matrix: ``eye(n)`` or a constant equal to one.

    >>> import numpy as np, theon.tensor as tt
    >>> is_identity(tt.constant(np.eye(3))), is_identity(tt.constant(np.ones((3, 3))))
    (True, False)
    """
    t = tensor_type(v)
    if t.ndim != 2:
        return False
    if isinstance(v, Constant):
        a = np.asarray(v.data)
        n = a.shape[0]
        if a.shape != (n, n) or a.dtype.kind not in "biuf":
            return False
        return bool(np.count_nonzero(a) == n and (np.diagonal(a) == 1).all())
    node = v.owner
    if node is None or not isinstance(node.op, Eye):
        return False
    n, m, k = (_int_const(i) for i in node.inputs)
    if k != 0:
        return False
    return n is not None and n == m or node.inputs[0] is node.inputs[1]


def _as_vector(f: Variable) -> Variable | None:
    """A 2-d factor that varies along at most one axis, as the vector (or 0-d) along it."""
    shape = tensor_type(f).shape
    node = f.owner
    if shape[0] == 1 and shape[1] == 1:
        return DimShuffle(2, ())(f)
    if shape[0] == 1:
        if node is not None and isinstance(node.op, DimShuffle) and node.op.new_order == ("x", 0):
            return node.inputs[0]
        return DimShuffle(2, (1,))(f)
    if shape[1] == 1:
        if node is not None and isinstance(node.op, DimShuffle) and node.op.new_order == (0, "x"):
            return node.inputs[0]
        return DimShuffle(2, (0,))(f)
    return None


@register_canonicalize
@node_rewriter([ts.mul])
def local_mul_eye_to_alloc_diag(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``eye(n) * r[None, :] * c[:, None] * s -> AllocDiag(r * c * s)``,
    ``eye(n) * s -> AllocDiag(alloc(s, n))`` and
    ``AllocDiag(d) * r[None, :] * ... -> AllocDiag(d * r * ...)``.

    Off the diagonal the product is 0; on it, entry ``(i, i)`` is ``d[i] * r[i] * c[i] * s``
    (a row vector, a column vector or a scalar takes the same value at ``(i, i)``;
    ``eye`` is ``d = 1``).  Exact on the diagonal; off it ``0 * x`` is 0 for finite ``x``
    (an infinite or NaN factor gave NaN there in the original).
    """
    if elemwise_node(node.outputs[0], ts.mul) is None or tensor_type(node.outputs[0]).ndim != 2:
        return None
    diag = [k for k, f in enumerate(node.inputs) if is_identity(f) or _diag_of(f) is not None]
    if len(diag) != 1 or len(node.inputs) < 2:
        return None
    first = _diag_of(node.inputs[diag[0]])
    vecs: list[Variable] = [] if first is None else [first]
    for k, f in enumerate(node.inputs):
        if k == diag[0]:
            continue
        v = _as_vector(f)
        if v is None:
            return None
        vecs.append(v)
    d = vecs[0] if len(vecs) == 1 else tm.mul(*vecs)
    if not any(tensor_type(v).ndim == 1 for v in vecs):
        # all scalars (s * eye(n)): the diagonal is s repeated, its length eye's
        n = _identity_length(node.inputs[diag[0]])
        if n is None:
            return None
        d = alloc(d, n)
    out = node.outputs[0]
    res = fit(AllocDiag()(as_dtype(d, tensor_type(out).dtype)), out)
    return None if res is None else [res]


def _identity_length(v: Variable) -> Any:
    """``n`` for an identity matrix ``v`` (``eye(n)`` or a constant), else None."""
    if isinstance(v, Constant):
        return np.shape(v.data)[0]
    node = v.owner
    return node.inputs[0] if node is not None and isinstance(node.op, Eye) else None


@register_canonicalize
@node_rewriter([Sum])
def local_sum_of_diagonal_product(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``sum(x * eye(n)) -> sum(diagonal(x))`` and ``sum(x * AllocDiag(d)) ->
    sum(diagonal(x) * d)`` (a sum over both axes).

    Off the diagonal the product is 0, so the sum is that of the diagonal entries
    (``n`` terms instead of ``n**2``); exact for finite ``x`` (an infinite or NaN
    entry off the diagonal made the original sum NaN)."""
    (prod,) = node.inputs
    m = elemwise_node(prod, ts.mul)
    if m is None or len(m.inputs) != 2 or tensor_type(prod).ndim != 2:
        return None
    op = node.op
    assert isinstance(op, Sum)  # (the rewrite tracks Sum)
    if op.axis is not None and sorted(op.axis) != [0, 1]:
        return None
    from theon.tensor.extra_ops import diagonal

    for k in (0, 1):
        x, e = m.inputs[k], m.inputs[1 - k]
        if tensor_type(x).shape != tensor_type(prod).shape:
            continue  # x broadcasts: not n**2 distinct entries
        d = _diag_of(e)
        if d is None and not is_identity(e):
            continue
        terms = diagonal(x) if d is None else tm.mul(diagonal(x), d)
        res = fit(Sum(axis=None, dtype=op.dtype)(terms), node.outputs[0])
        return None if res is None else [res]
    return None


def _diag_of(v: Variable) -> Variable | None:
    """``d`` when ``v`` is ``AllocDiag(d)`` (seen through SpecifyShape)."""
    node = v.owner
    if node is not None and isinstance(node.op, SpecifyShape):
        node = node.inputs[0].owner
    if node is not None and isinstance(node.op, AllocDiag):
        return node.inputs[0]
    return None


@register_canonicalize
@node_rewriter([Dot])
def local_dot_diag(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """Products with a diagonal or identity matrix, as elementwise scalings.

    ``dot(diag(d), b)[i, j] = d[i] * b[i, j]``, ``dot(a, diag(d))[i, j] = a[i, j] * d[j]``
    (for a vector ``b``/``a``, ``d * b``/``a * d``); ``dot(eye(n), b) = b`` and
    ``dot(a, eye(n)) = a``.
    """
    a, b = node.inputs
    out = node.outputs[0]
    na, nb = tensor_type(a).ndim, tensor_type(b).ndim
    new: Variable | None = None
    da, db = _diag_of(a), _diag_of(b)
    if da is not None:
        new = tm.mul(DimShuffle(1, (0, "x"))(da), b) if nb == 2 else tm.mul(da, b)
    elif db is not None:
        new = tm.mul(a, DimShuffle(1, ("x", 0))(db)) if na == 2 else tm.mul(a, db)
    elif is_identity(a):
        new = b
    elif is_identity(b):
        new = a
    if new is None:
        return None
    res = fit(new, out)
    return None if res is None else [res]


@register_specialize
@node_rewriter([ts.add])
def local_add_alloc_diag(fgraph: FunctionGraph | None, node: Apply) -> Any:
    """``x + AllocDiag(d) -> AddDiag(x, d)``: only the ``n`` diagonal entries change.

    ``x`` (the sum of the other terms) must already have the output's shape (it
    does not broadcast), so the result is ``x`` with ``x[i, i] + d[i]`` on the diagonal.
    """
    out = node.outputs[0]
    if elemwise_node(out, ts.add) is None or tensor_type(out).ndim != 2:
        return None
    diags = [k for k, t in enumerate(node.inputs) if _diag_of(t) is not None]
    if len(diags) != 1 or len(node.inputs) < 2:
        return None
    d = _diag_of(node.inputs[diags[0]])
    assert d is not None
    rest = [t for k, t in enumerate(node.inputs) if k != diags[0]]
    x = rest[0] if len(rest) == 1 else tm.add(*rest)
    if tensor_type(x).ndim != 2 or any(s == 1 for s in tensor_type(x).shape) and any(
        s != 1 for s in tensor_type(out).shape
    ):
        return None  # x broadcasts: it has no room for the result
    dt = tensor_type(out).dtype
    res = fit(AddDiag()(as_dtype(x, dt), as_dtype(d, dt)), out)
    return None if res is None else [res]
