"""BLAS-backed products: ``Gemm`` and ``Gemv`` ops and the rewrite that introduces them.

``z + a*dot(x, y)`` (``x`` a matrix, ``y`` a matrix or vector) becomes one node
that runs NumPy's BLAS product and then scales and accumulates in place, instead
of a product node, a scaling node and an addition node with their temporaries.
It deliberately uses NumPy's BLAS, not ``scipy.linalg.blas``: SciPy ships a second
OpenBLAS whose worker threads spin against NumPy's and made an MLP training step
five times slower on two cores.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x, y, z = tt.dmatrix("x"), tt.dmatrix("y"), tt.dmatrix("z")
>>> f = theon.function([x, y, z], z + 2.0 * tt.dot(x, y))
>>> [type(n.op).__name__ for n in f.maker.fgraph.apply_nodes]
['Gemm']
>>> f(np.eye(2), np.ones((2, 2)), np.zeros((2, 2))).tolist()
[[2.0, 2.0], [2.0, 2.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Variable
from theon.graph.fg import Output, describe
from theon.rewriting import node_rewriter, register_specialize
from theon.tensor import math as tm
from theon.tensor.basic import TensorOp, as_tensor_variable, cast, constant
from theon.tensor.blas import Dot
from theon.tensor.elemwise import DimShuffle
from theon.tensor.rewriting.canonicalize import rebuild_sum
from theon.tensor.rewriting.utils import (
    ADDITIVE,
    additive_terms,
    client_count,
    combined_const,
    elemwise_node,
    fit,
    size1_constant,
)
from theon.tensor.type import TensorType, tensor_type, tensor_vars

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = ["Gemm", "Gemv", "gemm", "gemv", "local_gemm", "local_outer_products_to_dot"]

_BLAS_DTYPES = ("float32", "float64", "complex64", "complex128")


def _merge_dim(a: int | None, b: int | None) -> int | None:
    return a if a is not None else b


class _BlasOp(TensorOp):
    """Shared checks of Gemm and Gemv: ``beta * z + alpha * dot(x, y)``."""

    __props__ = ()
    _name = ""
    _ndims: tuple[int, int, int] = (2, 2, 2)

    def make_node(self, z: Any, alpha: Any, x: Any, y: Any, beta: Any) -> Apply:
        z, x, y = (as_tensor_variable(v) for v in (z, x, y))
        dt = z.type.dtype
        alpha = as_tensor_variable(alpha)
        beta = as_tensor_variable(beta)
        if dt not in _BLAS_DTYPES:
            raise TypeError(f"{self._name} needs float or complex data, got {describe(z)}")
        for v, nd, what in ((z, self._ndims[0], "z"), (x, self._ndims[1], "x"),
                            (y, self._ndims[2], "y")):
            if v.type.ndim != nd or v.type.dtype != dt:
                raise TypeError(
                    f"{self._name}: {what} must be a {nd}-d {dt} tensor, got {describe(v)}"
                )
        for v, what in ((alpha, "alpha"), (beta, "beta")):
            if v.type.ndim != 0:
                raise TypeError(f"{self._name}: {what} must be 0-d, got {describe(v)}")
        alpha = alpha if alpha.type.dtype == dt else cast(alpha, dt)
        beta = beta if beta.type.dtype == dt else cast(beta, dt)
        rows = _merge_dim(z.type.shape[0], x.type.shape[0])
        shape: tuple[int | None, ...] = (rows,)
        if self._ndims[0] == 2:
            shape = (rows, _merge_dim(z.type.shape[1], y.type.shape[1]))
        return Apply(self, [z, alpha, x, y, beta], [TensorType(dt, shape=shape)()])

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[0])]

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        z, a, x, y, b = inputs
        r = np.dot(x, y)  # a fresh array: scale and accumulate into it in place
        if a != 1:
            r *= a
        if b == 1:
            r += z
        elif b != 0:
            r += b * z
        dt = tensor_type(node.outputs[0]).numpy_dtype
        output_storage[0][0] = r if r.dtype == dt else np.asarray(r, dtype=dt)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.blas import dot, outer
        from theon.tensor.reshaping import transpose

        z, a, x, y, b = tensor_vars(inputs)
        (g,) = tensor_vars(output_grads)
        gz = g * b
        prod = dot(x, y)
        ga = tm.sum(g * prod)
        gb = tm.sum(g * z)
        if self._ndims[0] == 2:
            gx, gy = dot(g, transpose(y)) * a, dot(transpose(x), g) * a
        else:
            gx, gy = outer(g, y) * a, dot(transpose(x), g) * a
        return [gz, ga, gx, gy, gb]


class Gemm(_BlasOp):
    """``beta * z + alpha * dot(x, y)`` for matrices (one BLAS product).

    >>> import theon.tensor as tt
    >>> Gemm()(tt.dmatrix("z"), 1.0, tt.dmatrix("x"), tt.dmatrix("y"), 1.0).type
    TensorType(float64, shape=(None, None))
    """

    _name = "Gemm"
    _ndims = (2, 2, 2)

    def __str__(self) -> str:
        return "Gemm"


class Gemv(_BlasOp):
    """``beta * z + alpha * dot(x, y)`` for a matrix ``x`` and vectors ``y``, ``z``.

    >>> import theon.tensor as tt
    >>> Gemv()(tt.dvector("z"), 1.0, tt.dmatrix("x"), tt.dvector("y"), 1.0).type
    TensorType(float64, shape=(None,))
    """

    _name = "Gemv"
    _ndims = (1, 2, 1)

    def __str__(self) -> str:
        return "Gemv"


gemm = Gemm()
gemv = Gemv()


# ------------------------------------------------------------------------------ rewrite
def _scaled_dot(fgraph: FunctionGraph, v: Variable) -> tuple[Apply, Any] | None:
    """``v`` as ``dot(x, y)`` or ``s * dot(x, y)`` (``s`` one value): the Dot node and ``s``."""
    scale: Any = None
    m = elemwise_node(v, ts.mul)
    if m is not None:
        if len(m.inputs) != 2 or client_count(fgraph, v) != 1:
            return None
        for k in (0, 1):
            s, d = m.inputs[k], m.inputs[1 - k]
            if all(n == 1 for n in tensor_type(s).shape) and d.owner is not None:
                if isinstance(d.owner.op, Dot):
                    scale, v = s, d
                    break
        else:
            return None
    node = v.owner
    if node is None or not isinstance(node.op, Dot) or client_count(fgraph, v) != 1:
        return None
    return node, scale


def _as_0d(s: Any, dtype: str) -> Variable:
    """The one value of a size-1 tensor ``s`` (or 1) as a 0-d tensor of ``dtype``."""
    if s is None:
        return constant(np.asarray(1, dtype=dtype))
    c = size1_constant(s)
    if c is not None:
        return constant(np.asarray(c, dtype=dtype))
    nd = s.type.ndim
    if nd:
        s = DimShuffle(nd, ())(s)
    return s if s.type.dtype == dtype else cast(s, dtype)


@register_specialize
@node_rewriter([ts.add, ts.sub])
def local_gemm(fgraph: FunctionGraph, node: Apply) -> Any:
    """``z + a*dot(x, y) -> gemm(z, a, x, y, 1)`` (``gemv`` for a vector ``y``).

    Also ``z - a*dot(x, y)`` (alpha ``-a``) and ``a*dot(x, y) - z`` (beta ``-1``),
    inside a larger sum too.  Only when the product has no other client, all
    operands share a BLAS dtype and nothing broadcasts.
    """
    out = node.outputs[0]
    dt = tensor_type(out).dtype
    nd = tensor_type(out).ndim
    if dt not in _BLAS_DTYPES or nd not in (1, 2):
        return None
    t = additive_terms(fgraph, out)
    if t is None:
        return None
    c = combined_const(t, additive=True)
    if c is None:
        return None

    def full(v: Variable) -> bool:
        return (
            tensor_type(v).ndim == nd
            and tensor_type(v).dtype == dt
            and all(s != 1 or o == 1 for s, o in zip(tensor_type(v).shape, tensor_type(out).shape))
        )

    def operands(v: Variable) -> tuple[Variable, Variable, Any] | None:
        """``(x, y, s)`` when ``v`` is ``s * dot(x, y)`` and may join a gemm."""
        got = _scaled_dot(fgraph, v)
        if got is None:
            return None
        dnode, scale = got
        x, y = dnode.inputs
        if tensor_type(x).ndim != 2 or tensor_type(y).ndim != nd or not full(dnode.outputs[0]):
            return None
        if tensor_type(x).dtype != dt or tensor_type(y).dtype != dt:
            return None
        if scale is not None and scale.type.dtype != dt:
            return None
        return x, y, scale

    def alpha_of(scale: Any, positive: bool) -> Variable:
        alpha = _as_0d(scale, dt)
        return alpha if positive else tm.neg(alpha)

    op = gemm if nd == 2 else gemv
    terms = [(v, True) for v in t.pos] + [(v, False) for v in t.neg]
    for k, (v, vpos) in enumerate(terms):
        got = operands(v)
        if got is None:
            continue
        x, y, scale = got
        for j, (z, zpos) in enumerate(terms):
            if j == k or not full(z):
                continue
            beta = constant(np.asarray(1 if zpos else -1, dtype=dt))
            new = op(z, alpha_of(scale, vpos), x, y, beta)
            # the sum's other products join the same chain now, as this rewrite would
            # do one by one on the rebuilt sum (which costs O(n**2) for n products)
            rest = [(w, p) for i, (w, p) in enumerate(terms) if i not in (j, k)]
            rest_pos: list[Variable] = []
            rest_neg: list[Variable] = []
            one = constant(np.asarray(1, dtype=dt))
            for w, p in [r for r in rest if r[1]] + [r for r in rest if not r[1]]:
                more = operands(w)
                if more is not None:
                    new = op(new, alpha_of(more[2], p), more[0], more[1], one)
                else:
                    (rest_pos if p else rest_neg).append(w)
            return [fit(rebuild_sum([new, *rest_pos], rest_neg, c, out), out, node.inputs)]
    return None


def _outer(fgraph: FunctionGraph, v: Variable) -> tuple[Variable, Variable] | None:
    """``(a, b)`` when ``v = a[:, None] * b[None, :]`` (the factors in either order) for
    vectors ``a`` and ``b`` of ``v``'s dtype, and the sum is ``v``'s only client."""
    m = elemwise_node(v, ts.mul)
    if m is None or len(m.inputs) != 2 or client_count(fgraph, v) != 1:
        return None
    col = row = None
    for x in m.inputs:
        ds = x.owner
        if ds is None or not isinstance(ds.op, DimShuffle) or ds.op.input_ndim != 1:
            return None
        if ds.op.new_order == (0, "x"):
            col = ds.inputs[0]
        elif ds.op.new_order == ("x", 0):
            row = ds.inputs[0]
    dt = tensor_type(v).dtype
    if col is None or row is None or tensor_type(col).dtype != dt or tensor_type(row).dtype != dt:
        return None
    return col, row


@node_rewriter([ts.add, ts.sub, ts.neg])
def local_outer_products_to_dot(fgraph: FunctionGraph, node: Apply) -> Any:
    """``±a_1 b_1^T ± ... ± a_k b_k^T + rest -> [±a_1 ... ±a_k] @ [b_1 ... b_k]^T + rest``
    (``k >= 2`` outer products of vectors, written ``a[:, None] * b[None, :]``).

    A sum of ``k`` outer products is one matrix product with inner dimension ``k``
    (``sum_k a_k[i] b_k[j]``): BLAS writes the result once, where the elementwise form
    makes a matrix per product and adds them (the gradients of two matrix-vector
    products; 500 x 500, k = 2: 0.1 ms against 0.7 to 1.4 ms).  Only for a float
    matrix result that no product broadcasts into; tagged ``native_blas``, which
    ``mode="JAX"`` leaves out (XLA fuses the elementwise form itself).

    >>> import theon, theon.tensor as tt
    >>> u, v, w, z = (tt.dvector(n) for n in "uvwz")
    >>> f = theon.function([u, v, w, z], u[:, None] * v[None, :] - w[:, None] * z[None, :])
    >>> sorted({type(n.op).__name__ for n in f.maker.fgraph.apply_nodes})
    ['DimShuffle', 'Dot', 'Elemwise', 'Join']
    >>> f([1.0, 2.0], [3.0], [1.0, 1.0], [1.0]).tolist()
    [[2.0], [5.0]]
    """
    out = node.outputs[0]
    ot = tensor_type(out)
    if ot.ndim != 2 or ot.dtype not in ("float32", "float64") or not any(
            elemwise_node(v, ts.mul, *ADDITIVE) is not None for v in node.inputs):
        return None  # (no product among the terms: the common case, decided cheaply)
    clients = fgraph.clients.get(out, ())
    if len(clients) == 1 and not isinstance(clients[0][0].op, Output) and elemwise_node(
            clients[0][0].outputs[0], *ADDITIVE) is not None:
        return None  # an inner sum: the outer one takes its terms
    t = additive_terms(fgraph, out)
    if t is None or t.fills:
        return None
    c = combined_const(t, additive=True)
    if c is None:
        return None
    cols: list[Variable] = []
    rows: list[Variable] = []
    rest: tuple[list[Variable], list[Variable]] = ([], [])
    for side, terms in enumerate((t.pos, t.neg)):
        for v in terms:
            pair = _outer(fgraph, v)
            if pair is None or tensor_type(v).shape != ot.shape:
                rest[side].append(v)
                continue
            cols.append(pair[0] if side == 0 else tm.neg(pair[0]))
            rows.append(pair[1])
    if len(cols) < 2:
        return None
    from theon.tensor.blas import dot
    from theon.tensor.joining import stack

    prod = dot(stack(*cols, axis=1), stack(*rows, axis=0))
    return [fit(rebuild_sum([prod, *rest[0]], rest[1], c, out), out, node.inputs)]


register_specialize(local_outer_products_to_dot, "native_blas")
