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
from theon.scalar.type import ScalarType
from theon.tensor.type import TensorType
from theon.tensor.variable import TensorVariable

from .ops import (
    CSM,
    _cast_like,
    _dense,
    _dtype,
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
from .type import SparseVar, SparseVariable, as_sparse_variable, is_sparse_variable

__all__ = [
    "Dot", "ScaleSV", "StructuredDot", "StructuredDotGrad", "col_scale", "dot", "row_scale",
    "sign", "structured_add", "structured_dot", "structured_exp", "structured_log",
    "structured_maximum", "structured_minimum", "structured_pow", "structured_sigmoid",
]


def _to_sparse_like(g: Variable, x: SparseVar) -> Variable:
    """A gradient for sparse ``x``: dense ``g`` stored in ``x``'s format and dtype."""
    return _cast_like(as_format(g, x.format), x)


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
        a, b = _operand(x), _operand(y)
        if not (is_sparse_variable(a) or is_sparse_variable(b)):
            raise TypeError(f"sparse dot needs a sparse operand, got {describe(a)} and "
                            f"{describe(b)}")
        shape: tuple[None, ...] = (None, None)  # sparse x sparse
        for v in (a, b):
            if is_sparse_variable(v):
                continue
            t = v.type
            if not isinstance(t, (TensorType, ScalarType)) or t.ndim not in (1, 2):
                raise TypeError(f"sparse dot: a dense operand must be a vector or a matrix, "
                                f"got {describe(v)}")
            shape = (None,) * t.ndim
        return Apply(self, [a, b], [TensorType(_out_dtype(a, b), shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, y = inputs
        dtype = _dtype(node.outputs[0])
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
        if is_sparse_variable(x):
            if is_sparse_variable(y):
                return [_to_sparse_like(dot(gz, transpose(y)), x),
                        _to_sparse_like(dot(transpose(x), gz), y)]
            dy = _dense(y)
            gx = tt.outer(gz, dy) if dy.ndim == 1 else tt.dot(gz, dy.T)
            return [_to_sparse_like(gx, x), _cast_like(dot(transpose(x), gz), dy)]
        assert is_sparse_variable(y)  # make_node: at least one operand is sparse
        dx = _dense(x)
        gy = tt.outer(dx, gz) if dx.ndim == 1 else tt.dot(dx.T, gz)
        gx = dot(y, gz) if dx.ndim == 1 else dot(gz, transpose(y))
        return [_cast_like(gx, dx), _to_sparse_like(gy, y)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        x, y = node.inputs
        rows = (shape_of(x, shapes[0], 0) if is_sparse_variable(x)
                else (shapes[0][0] if _dense(x).ndim == 2 else None))
        cols = (shape_of(y, shapes[1], 1) if is_sparse_variable(y)
                else (shapes[1][1] if _dense(y).ndim == 2 else None))
        return [tuple(s for s in (rows, cols) if s is not None)]


_dot = Dot()


def dot(x: Any, y: Any) -> TensorVariable:
    """``x @ y`` with at least one sparse operand (sparse x dense, dense x sparse,
    sparse x sparse); the result is dense.  A dense operand may be a vector.

    The gradient is regular: with respect to a sparse operand it has every entry
    (use :func:`structured_dot` for one at the stored entries only).

    >>> import theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> dot(csr_matrix("x"), tt.dmatrix("w")).type
    TensorType(float64, shape=(None, None))
    """
    out: TensorVariable = _dot(x, y)
    return out


class StructuredDot(Op):
    """``a @ b`` of a sparse ``a`` and a dense ``b`` (matrix or vector): dense.

    The gradient with respect to ``a`` is structured (:class:`StructuredDotGrad`:
    at ``a``'s stored entries only)."""

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        sa, db = as_sparse_variable(a), _dense(b)
        if db.ndim not in (1, 2):
            raise TypeError(f"structured_dot: b must be a vector or a matrix, got {describe(db)}")
        return Apply(self, [sa, db], [TensorType(_out_dtype(sa, db), shape=(None,) * db.ndim)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        a, b = inputs
        if a.shape[1] != b.shape[0]:
            raise ValueError(
                f"structured_dot: shapes {a.shape} and {b.shape} are not aligned, for "
                f"{describe(node.inputs[0])} and {describe(node.inputs[1])}")
        out[0][0] = np.asarray(a @ b, dtype=_dtype(node.outputs[0]))

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        a, b = inputs
        (gz,) = grads
        ga = StructuredDotGrad()(a, b, gz)
        return [_cast_like(ga, a), _cast_like(structured_dot(transpose(a), gz), b)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        a, b = node.inputs
        rows = shape_of(a, shapes[0], 0)
        return [(rows, shapes[1][1]) if _dense(b).ndim == 2 else (rows,)]


class StructuredDotGrad(Op):
    """The gradient of ``a @ b`` with respect to sparse ``a`` at its stored entries:
    entry ``(i, j)`` is ``gz[i] . b[j]``; sparse, with ``a``'s pattern."""

    __props__ = ()

    def make_node(self, a: Any, b: Any, gz: Any) -> Apply:
        sa, db, dgz = as_sparse_variable(a), _dense(b), _dense(gz)
        t = sa.type
        return Apply(self, [sa, db, dgz], [type(t)(t.format, _out_dtype(db, dgz))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        a, b, gz = inputs
        rows, cols = entry_coords(a)
        if b.ndim == 1:
            data = gz[rows] * b[cols]
        else:
            data = np.einsum("ij,ij->i", gz[rows], b[cols])
        dtype = _dtype(node.outputs[0])
        out[0][0] = _make(a.format, np.asarray(data, dtype=dtype), a.indices.copy(),
                          a.indptr.copy(), a.shape)

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


_structured_dot = StructuredDot()


def structured_dot(x: Any, y: Any) -> TensorVariable:
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
    a, b = _operand(x), _operand(y)
    out: TensorVariable
    if is_sparse_variable(a):
        out = _structured_dot(a, b)
    elif is_sparse_variable(b):
        da = _dense(a)
        if da.ndim == 1:
            out = _structured_dot(transpose(b), da)
        else:
            out = _structured_dot(transpose(b), da.T).T
    else:
        raise TypeError(
            f"structured_dot needs a sparse operand, got {describe(a)} and {describe(b)}")
    return out


# structured elementwise functions ------------------------------------------------------
def _structured(fn: Callable[..., Any], name: str) -> Callable[..., SparseVariable]:
    def apply(x: Any, *args: Any) -> SparseVariable:
        sx = as_sparse_variable(x)
        operands = [tt.as_tensor_variable(a) for a in args]
        for a in operands:
            if a.ndim != 0:
                raise TypeError(f"{name}: the second operand must be a scalar, got {describe(a)}")
        data, ind, ptr, shape = csm_properties(sx)
        extra: list[Variable] = list(operands)
        if extra and isinstance(args[0], (int, float)):
            extra = [tt.constant(np.asarray(args[0], dtype=sx.dtype))]
        out: SparseVariable = CSM(sx.format)(fn(data, *extra), ind, ptr, shape)
        return out

    return apply


def structured_sigmoid(x: Any) -> SparseVariable:
    """The logistic sigmoid of the stored entries of ``x`` (the pattern is kept, and
    the gradient is structured).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> structured_sigmoid(x).eval({x: sp.csr_matrix(np.array([[0.0, 0.0]]))}).nnz
    0
    """
    return _structured(tt.sigmoid, "structured_sigmoid")(x)


def structured_exp(x: Any) -> SparseVariable:
    """``exp`` of the stored entries of ``x`` (missing entries stay zero).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> structured_exp(x).eval({x: sp.csr_matrix(np.array([[0.0, 1.0]]))}).toarray()[0, 0]
    np.float64(0.0)
    """
    return _structured(tt.exp, "structured_exp")(x)


def structured_log(x: Any) -> SparseVariable:
    """``log`` of the stored entries of ``x`` (missing entries stay zero)."""
    return _structured(tt.log, "structured_log")(x)


def structured_pow(x: Any, y: Any) -> SparseVariable:
    """``x ** y`` at the stored entries of ``x``, for a scalar ``y``."""
    return _structured(tt.pow, "structured_pow")(x, y)


def structured_minimum(x: Any, y: Any) -> SparseVariable:
    """``minimum(x, y)`` at the stored entries of ``x``, for a scalar ``y``."""
    return _structured(tt.minimum, "structured_minimum")(x, y)


def structured_maximum(x: Any, y: Any) -> SparseVariable:
    """``maximum(x, y)`` at the stored entries of ``x``, for a scalar ``y``."""
    return _structured(tt.maximum, "structured_maximum")(x, y)


def sign(x: Any) -> SparseVariable:
    """The sign of the stored entries of ``x`` (PyTensor's ``sparse.sign``: structured,
    the pattern is kept; its gradient is zero).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> sign(x).eval({x: sp.csr_matrix(np.array([[0.0, -2.0], [3.0, 0.0]]))}).toarray()
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    return _structured(tt.sign, "sign")(x)


def structured_add(x: Any, y: Any) -> SparseVariable:
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
        sx, ds = as_sparse_variable(x), _dense(s)
        if ds.ndim != 1:
            raise TypeError(f"{self}: the scale must be a vector, got {describe(ds)}")
        t = sx.type
        return Apply(self, [sx, ds], [type(t)(t.format, _out_dtype(sx, ds))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, s = inputs
        n = x.shape[0] if self.axis == 1 else x.shape[1]
        if s.shape[0] != n:
            raise ValueError(
                f"{self}: the scale has {s.shape[0]} entries for {n} "
                f"{'rows' if self.axis == 1 else 'columns'}, for {describe(node.inputs[0])}")
        rows, cols = entry_coords(x)
        dtype = _dtype(node.outputs[0])
        data = np.multiply(x.data, s[rows if self.axis == 1 else cols], dtype=dtype)
        out[0][0] = _make(x.format, data, x.indices.copy(), x.indptr.copy(), x.shape)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x, s = as_sparse_variable(inputs[0]), inputs[1]
        (gz,) = grads
        # a dense gradient is read at x's entries
        g: Variable = gz if is_sparse_variable(gz) else mul(gz, x)
        gx = ScaleSV(self.axis)(as_format(g, x.format), s)
        gs = sp_sum(mul(g, x), axis=self.axis, sparse_grad=True)
        return [_cast_like(gx, x), _cast_like(gs, s)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


def row_scale(x: Any, s: Any) -> SparseVariable:
    """Row ``i`` of sparse ``x`` times ``s[i]`` (``diag(s) @ x``), keeping the pattern.

    >>> import numpy as np, scipy.sparse as sp, theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> x, s = csr_matrix("x"), tt.dvector("s")
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> row_scale(x, s).eval({x: m, s: np.array([2.0, 3.0])}).toarray()
    array([[2., 0.],
           [3., 3.]])
    """
    out: SparseVariable = ScaleSV(1)(x, s)
    return out


def col_scale(x: Any, s: Any) -> SparseVariable:
    """Column ``j`` of sparse ``x`` times ``s[j]`` (``x @ diag(s)``), keeping the pattern.

    >>> import numpy as np, scipy.sparse as sp, theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> x, s = csr_matrix("x"), tt.dvector("s")
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> col_scale(x, s).eval({x: m, s: np.array([2.0, 3.0])}).toarray()
    array([[2., 0.],
           [2., 3.]])
    """
    out: SparseVariable = ScaleSV(0)(x, s)
    return out
