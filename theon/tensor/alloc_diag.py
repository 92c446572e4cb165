"""Diagonal matrices as Ops, so that rewrites can see them: ``AllocDiag`` and ``AddDiag``.

A vectorized gradient over the rows of an identity matrix (a jacobian) gives
products such as ``eye(n) * v[None, :]``: the diagonal matrix of ``v``.  The
rewrites of :mod:`theon.tensor.rewriting.diagonal` turn them into
``AllocDiag(v)``, products with them into row or column scalings, and sums with
them into ``AddDiag`` (``x`` plus ``v`` on its diagonal: ``n`` additions, not
``n**2``).

>>> import numpy as np, theon.tensor as tt
>>> v, x = tt.dvector("v"), tt.dmatrix("x")
>>> AllocDiag()(v).eval({v: [1.0, 2.0]})
array([[1., 0.],
       [0., 2.]])
>>> AddDiag()(x, v).eval({x: np.ones((2, 2)), v: [1.0, 2.0]})
array([[2., 1.],
       [1., 3.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["AddDiag", "AllocDiag", "add_diag"]


def add_diag(x: np.ndarray, v: np.ndarray, inplace: bool) -> np.ndarray:
    """``x`` plus ``v`` on its diagonal, in ``x``'s buffer when ``inplace``.

    A C- or Fortran-contiguous square matrix's diagonal is the flat view with step
    ``n + 1`` (cheaper to make than ``einsum("ii->i")``'s view, which other layouts use).

    >>> add_diag(np.zeros((2, 2)), np.array([1.0, 2.0]), False)
    array([[1., 0.],
           [0., 2.]])
    """
    out = x if inplace else x.copy()
    n = out.shape[0]
    if out.ndim == 2 and n == out.shape[1] and out.flags.forc:
        # (i, i) sits at i * (n + 1) in memory order, for either layout
        d = out.ravel("K")[:: n + 1]
    else:
        d = np.einsum("ii->i", out)
    np.add(d, v, out=d)
    return out


def _diagonal(g: Variable) -> TensorVariable:
    from theon.tensor.extra_ops import diagonal

    return diagonal(g)


class AllocDiag(TensorOp):
    """The square matrix with the vector ``v`` on its diagonal and zeros elsewhere."""

    __props__ = ()

    def make_node(self, v: Any) -> Apply:
        v = as_tensor_variable(v)
        t = tensor_type(v)
        if t.ndim != 1:
            raise TypeError(f"AllocDiag: the diagonal must be a vector, got {describe(v)}")
        return Apply(self, [v], [TensorType(t.dtype, shape=(t.shape[0], t.shape[0]))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        v = inputs[0]
        n = v.shape[0]
        out = np.zeros((n, n), dtype=tensor_type(node.outputs[0]).dtype)
        np.einsum("ii->i", out)[...] = v
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        (n,) = input_shapes[0]
        return [(n, n)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [_diagonal(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None if eval_points[0] is None else self(eval_points[0])]


class AddDiag(TensorOp):
    """``x + diag(v)`` for a square matrix ``x`` and a vector ``v`` of its dtype.

    With ``inplace``, ``x``'s buffer receives the result (set by the inplace phase).
    """

    __props__ = ("inplace",)
    #: the inplace phase may set ``inplace`` when ``x`` is dead (theon.tensor.rewriting.inplace)
    inplace_flag = True

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def make_node(self, x: Any, v: Any) -> Apply:
        x, v = as_tensor_variable(x), as_tensor_variable(v)
        xt, vt = tensor_type(x), tensor_type(v)
        if xt.ndim != 2 or vt.ndim != 1 or xt.dtype != vt.dtype:
            raise TypeError(
                f"AddDiag: needs a matrix and a vector of one dtype, got {describe(x)} and "
                f"{describe(v)}"
            )
        return Apply(self, [x, v], [xt()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, v = inputs
        output_storage[0][0] = add_diag(x, v, self.inplace)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (g,) = output_grads
        return [g, _diagonal(g)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        ex, ev = eval_points
        if ex is None and ev is None:
            return [None]
        if ev is None:
            return [ex]
        if ex is None:
            return [AllocDiag()(ev)]
        return [AddDiag()(ex, ev)]
