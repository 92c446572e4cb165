"""Products and structured functions of sparse matrices.

* :func:`dot`: sparse x dense, dense x sparse or sparse x sparse, a dense result,
  with the *regular* gradient (every entry of a sparse input gets one);
* :func:`structured_dot`: sparse x dense, whose gradient with respect to the sparse
  input is *structured*: computed at its stored entries only, so it keeps the
  pattern and costs ``O(nnz * k)``, never a dense matrix;
* the structured elementwise functions (``structured_sigmoid``, ``structured_exp``,
  ...): applied to the stored entries only, built as ``CSM(f(data), indices,
  indptr, shape)``, so their gradients come from ``f``'s and keep the pattern;
* :func:`row_scale` / :func:`col_scale`: each row (column) times an entry of a
  dense vector, structured.

>>> import numpy as np, scipy.sparse as sp, theon, theon.tensor as tt
>>> from theon.sparse import csr_matrix
>>> x, w = csr_matrix("x"), tt.dvector("w")
>>> f = theon.function([x, w], dot(x, w))
>>> f(sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0]])), np.array([3.0, 4.0]))
array([3., 8.])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

import theon.tensor as tt
from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.op import Op
from theon.tensor.type import TensorType

from .ops import (
    CSM,
    _cast_like,
    _dense,
    _make,
    _out_dtype,
    as_format,
    csm_properties,
    entry_coords,
    mul,
    same_shape,
    shape_of,
    sp_sum,
    transpose,
)
from .type import as_sparse_variable, is_sparse_variable

__all__ = [
    "Dot", "ScaleSV", "StructuredDot", "StructuredDotGrad", "col_scale", "dot", "row_scale",
    "structured_add", "structured_dot", "structured_exp", "structured_log",
    "structured_maximum", "structured_minimum", "structured_pow", "structured_sigmoid",
]


def _to_sparse_like(g: Variable, x: Variable) -> Variable:
    """A gradient for sparse ``x``: dense ``g`` stored in ``x``'s format and dtype."""
    return _cast_like(as_format(g, x.type.format), x)  # type: ignore[attr-defined]


def _operand(v: Any) -> Variable:
    if isinstance(v, Variable):
        return v
    return as_sparse_variable(v) if sp.issparse(v) else _dense(v)


class Dot(Op):
    """``x @ y`` with at least one sparse operand, dense result.

    A dense operand is a matrix or a vector.  The gradient is the regular one:
    with respect to a sparse input it is the full dense gradient stored sparse.
    """

    __props__ = ()

    def __str__(self) -> str:
        return "SparseDot"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = _operand(x), _operand(y)
        xs, ys = is_sparse_variable(x), is_sparse_variable(y)
        if not (xs or ys):
            raise TypeError(f"sparse dot needs a sparse operand, got {describe(x)} and "
                            f"{describe(y)}")
        for v, s in ((x, xs), (y, ys)):
            if not s and v.type.ndim not in (1, 2):  # type: ignore[attr-defined]
                raise TypeError(f"sparse dot: a dense operand must be a vector or a matrix, "
                                f"got {describe(v)}")
        if xs and ys:
            shape: tuple[None, ...] = (None, None)
        else:
            dense = y if xs else x
            shape = (None,) * dense.type.ndim  # type: ignore[attr-defined]
        return Apply(self, [x, y], [TensorType(_out_dtype(x, y), shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, y = inputs
        dtype = node.outputs[0].type.dtype  # type: ignore[attr-defined]
        if sp.issparse(x):
            if x.shape[1] != y.shape[0]:
                raise ValueError(self._shape_error(node, x, y))
            z = x @ y
            if sp.issparse(z):
                z = z.toarray()
        else:
            if x.shape[-1] != y.shape[0]:
                raise ValueError(self._shape_error(node, x, y))
            z = (y.T @ x.T).T
        out[0][0] = np.asarray(z, dtype=dtype)

    @staticmethod
    def _shape_error(node: Apply, x: Any, y: Any) -> str:
        return (f"sparse dot: shapes {x.shape} and {y.shape} are not aligned, for "
                f"{describe(node.inputs[0])} and {describe(node.inputs[1])}")

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x, y = inputs
        (gz,) = grads
        xs, ys = is_sparse_variable(x), is_sparse_variable(y)
        if xs and not ys:
            gx = tt.outer(gz, y) if y.type.ndim == 1 else tt.dot(gz, y.T)  # type: ignore[attr-defined]
            return [_to_sparse_like(gx, x), _cast_like(dot(transpose(x), gz), y)]
        if ys and not xs:
            gy = tt.outer(x, gz) if x.type.ndim == 1 else tt.dot(x.T, gz)  # type: ignore[attr-defined]
            gx = dot(y, gz) if x.type.ndim == 1 else dot(gz, transpose(y))  # type: ignore[attr-defined]
            return [_cast_like(gx, x), _to_sparse_like(gy, y)]
        return [_to_sparse_like(dot(gz, transpose(y)), x),
                _to_sparse_like(dot(transpose(x), gz), y)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        x, y = node.inputs
        xs, ys = is_sparse_variable(x), is_sparse_variable(y)
        rows = shape_of(x, shapes[0], 0) if xs else (shapes[0][0] if x.type.ndim == 2 else None)  # type: ignore[attr-defined]
        cols = shape_of(y, shapes[1], 1) if ys else (shapes[1][1] if y.type.ndim == 2 else None)  # type: ignore[attr-defined]
        return [tuple(s for s in (rows, cols) if s is not None)]


_dot = Dot()


def dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with at least one sparse operand (sparse x dense, dense x sparse,
    sparse x sparse); the result is dense.  A dense operand may be a vector.

    The gradient is regular: with respect to a sparse operand it has every entry
    (use :func:`structured_dot` for one at the stored entries only).

    >>> import theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> dot(csr_matrix("x"), tt.dmatrix("w")).type
    TensorType(float64, shape=(None, None))
    """
    return _dot(x, y)  # type: ignore[return-value]


class StructuredDot(Op):
    """``a @ b`` of a sparse ``a`` and a dense ``b`` (matrix or vector): dense.

    The gradient with respect to ``a`` is structured (:class:`StructuredDotGrad`:
    at ``a``'s stored entries only)."""

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_sparse_variable(a), _dense(b)
        if b.type.ndim not in (1, 2):
            raise TypeError(f"structured_dot: b must be a vector or a matrix, got {describe(b)}")
        return Apply(self, [a, b], [TensorType(_out_dtype(a, b), shape=(None,) * b.type.ndim)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        a, b = inputs
        if a.shape[1] != b.shape[0]:
            raise ValueError(
                f"structured_dot: shapes {a.shape} and {b.shape} are not aligned, for "
                f"{describe(node.inputs[0])} and {describe(node.inputs[1])}")
        out[0][0] = np.asarray(a @ b, dtype=node.outputs[0].type.dtype)  # type: ignore[attr-defined]

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        a, b = inputs
        (gz,) = grads
        ga = StructuredDotGrad()(a, b, gz)
        return [_cast_like(ga, a), _cast_like(structured_dot(transpose(a), gz), b)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        a, b = node.inputs
        rows = shape_of(a, shapes[0], 0)
        return [(rows, shapes[1][1]) if b.type.ndim == 2 else (rows,)]  # type: ignore[attr-defined]


class StructuredDotGrad(Op):
    """The gradient of ``a @ b`` with respect to sparse ``a`` at its stored entries:
    entry ``(i, j)`` is ``gz[i] . b[j]``; sparse, with ``a``'s pattern."""

    __props__ = ()

    def make_node(self, a: Any, b: Any, gz: Any) -> Apply:
        a, b, gz = as_sparse_variable(a), _dense(b), _dense(gz)
        t = a.type
        return Apply(self, [a, b, gz], [type(t)(t.format, _out_dtype(b, gz))()])  # type: ignore[attr-defined]

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        a, b, gz = inputs
        rows, cols = entry_coords(a)
        if b.ndim == 1:
            data = gz[rows] * b[cols]
        else:
            data = np.einsum("ij,ij->i", gz[rows], b[cols])
        dtype = node.outputs[0].type.dtype  # type: ignore[attr-defined]
        out[0][0] = _make(a.format, np.asarray(data, dtype=dtype), a.indices.copy(),
                          a.indptr.copy(), a.shape)

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


_structured_dot = StructuredDot()


def structured_dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with one sparse and one dense operand, dense result, whose gradient
    with respect to the sparse operand is structured (its stored entries only).

    >>> import numpy as np, scipy.sparse as sp, theon, theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> a, b = csr_matrix("a"), tt.dmatrix("b")
    >>> ga = theon.grad(structured_dot(a, b).sum(), a)
    >>> m = sp.csr_matrix(np.array([[0.0, 2.0], [0.0, 0.0]]))
    >>> ga.eval({a: m, b: np.ones((2, 3))}).nnz  # the gradient keeps a's pattern
    1
    """
    x, y = _operand(x), _operand(y)
    if is_sparse_variable(x):
        return _structured_dot(x, y)  # type: ignore[return-value]
    if is_sparse_variable(y):
        if x.type.ndim == 1:  # type: ignore[attr-defined]
            return _structured_dot(transpose(y), x)  # type: ignore[return-value]
        return _structured_dot(transpose(y), x.T).T  # type: ignore[attr-defined,no-any-return]
    raise TypeError(f"structured_dot needs a sparse operand, got {describe(x)} and {describe(y)}")


# structured elementwise functions ------------------------------------------------------
def _structured(fn: Callable[..., Any], name: str) -> Callable[..., Variable]:
    def apply(x: Any, *args: Any) -> Variable:
        x = as_sparse_variable(x)
        extra = [tt.as_tensor_variable(a) for a in args]
        for a in extra:
            if a.type.ndim != 0:
                raise TypeError(f"{name}: the second operand must be a scalar, got {describe(a)}")
        data, ind, ptr, shape = csm_properties(x)
        if extra and isinstance(args[0], (int, float)):
            extra = [tt.constant(np.asarray(args[0], dtype=x.type.dtype))]  # type: ignore[attr-defined]
        return CSM(x.type.format)(fn(data, *extra), ind, ptr, shape)  # type: ignore[return-value,attr-defined]

    return apply


def structured_sigmoid(x: Any) -> Variable:
    """The logistic sigmoid of the stored entries of ``x`` (the pattern is kept, and
    the gradient is structured).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> structured_sigmoid(x).eval({x: sp.csr_matrix(np.array([[0.0, 0.0]]))}).nnz
    0
    """
    return _structured(tt.sigmoid, "structured_sigmoid")(x)


def structured_exp(x: Any) -> Variable:
    """``exp`` of the stored entries of ``x`` (missing entries stay zero).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> structured_exp(x).eval({x: sp.csr_matrix(np.array([[0.0, 1.0]]))}).toarray()[0, 0]
    np.float64(0.0)
    """
    return _structured(tt.exp, "structured_exp")(x)


def structured_log(x: Any) -> Variable:
    """``log`` of the stored entries of ``x`` (missing entries stay zero)."""
    return _structured(tt.log, "structured_log")(x)


def structured_pow(x: Any, y: Any) -> Variable:
    """``x ** y`` at the stored entries of ``x``, for a scalar ``y``."""
    return _structured(tt.pow, "structured_pow")(x, y)


def structured_minimum(x: Any, y: Any) -> Variable:
    """``minimum(x, y)`` at the stored entries of ``x``, for a scalar ``y``."""
    return _structured(tt.minimum, "structured_minimum")(x, y)


def structured_maximum(x: Any, y: Any) -> Variable:
    """``maximum(x, y)`` at the stored entries of ``x``, for a scalar ``y``."""
    return _structured(tt.maximum, "structured_maximum")(x, y)


def structured_add(x: Any, y: Any) -> Variable:
    """``x + y`` at the stored entries of ``x``, for a scalar ``y``.

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> structured_add(x, 1.0).eval({x: sp.csr_matrix(np.array([[0.0, 2.0]]))}).toarray()
    array([[0., 3.]])
    """
    return _structured(tt.add, "structured_add")(x, y)


# row and column scaling ------------------------------------------------------------------
class ScaleSV(Op):
    """Each stored entry ``(i, j)`` of sparse ``x`` times ``s[i]`` (``axis=1``: rows)
    or ``s[j]`` (``axis=0``: columns); sparse, with ``x``'s pattern (structured)."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        if axis not in (0, 1):
            raise ValueError(f"ScaleSV: axis must be 0 (columns) or 1 (rows), not {axis!r}")
        self.axis = axis

    def __str__(self) -> str:
        return "RowScale" if self.axis == 1 else "ColScale"

    def make_node(self, x: Any, s: Any) -> Apply:
        x, s = as_sparse_variable(x), _dense(s)
        if s.type.ndim != 1:
            raise TypeError(f"{self}: the scale must be a vector, got {describe(s)}")
        t = x.type
        return Apply(self, [x, s], [type(t)(t.format, _out_dtype(x, s))()])  # type: ignore[attr-defined]

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, s = inputs
        n = x.shape[0] if self.axis == 1 else x.shape[1]
        if s.shape[0] != n:
            raise ValueError(
                f"{self}: the scale has {s.shape[0]} entries for {n} "
                f"{'rows' if self.axis == 1 else 'columns'}, for {describe(node.inputs[0])}")
        rows, cols = entry_coords(x)
        dtype = node.outputs[0].type.dtype  # type: ignore[attr-defined]
        data = np.multiply(x.data, s[rows if self.axis == 1 else cols], dtype=dtype)
        out[0][0] = _make(x.format, data, x.indices.copy(), x.indptr.copy(), x.shape)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x, s = inputs
        (gz,) = grads
        if not is_sparse_variable(gz):
            gz = mul(gz, x)  # a dense gradient, read at x's entries
        gx = ScaleSV(self.axis)(as_format(gz, x.type.format), s)  # type: ignore[attr-defined]
        gs = sp_sum(mul(gz, x), axis=self.axis, sparse_grad=True)
        return [_cast_like(gx, x), _cast_like(gs, s)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


def row_scale(x: Any, s: Any) -> Variable:
    """Row ``i`` of sparse ``x`` times ``s[i]`` (``diag(s) @ x``), keeping the pattern.

    >>> import numpy as np, scipy.sparse as sp, theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> x, s = csr_matrix("x"), tt.dvector("s")
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> row_scale(x, s).eval({x: m, s: np.array([2.0, 3.0])}).toarray()
    array([[2., 0.],
           [3., 3.]])
    """
    return ScaleSV(1)(x, s)  # type: ignore[return-value]


def col_scale(x: Any, s: Any) -> Variable:
    """Column ``j`` of sparse ``x`` times ``s[j]`` (``x @ diag(s)``), keeping the pattern.

    >>> import numpy as np, scipy.sparse as sp, theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> x, s = csr_matrix("x"), tt.dvector("s")
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> col_scale(x, s).eval({x: m, s: np.array([2.0, 3.0])}).toarray()
    array([[2., 0.],
           [2., 3.]])
    """
    return ScaleSV(0)(x, s)  # type: ignore[return-value]
