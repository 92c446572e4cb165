"""The core sparse Ops: construction and properties, conversions, transpose, ``+``, ``*``, sums.

Every Op computes with ``scipy.sparse`` in ``perform``; the default (py) linker
calls ``perform`` for them, so no emitter is needed.  Gradients with respect to a
sparse input are sparse matrices of the input's format and dtype.  A *structured*
gradient is defined at the input's stored entries only (it keeps the input's
sparsity pattern); a *regular* one is the full dense gradient stored sparse.
The conventions are Theano's and PyTensor's: ``dense_from_sparse`` and
``sparse + dense`` and ``sparse * dense`` have structured gradients with respect
to the sparse input, ``sp_sum`` a regular one unless ``sparse_grad=True``.

>>> import numpy as np, scipy.sparse as sp, theon
>>> from theon.sparse import csr_matrix, dense_from_sparse
>>> x = csr_matrix("x")
>>> f = theon.function([x], dense_from_sparse(x * 2.0))
>>> f(sp.csr_matrix(np.array([[0.0, 1.5], [2.0, 0.0]])))
array([[0., 3.],
       [4., 0.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

import theon.tensor as tt
from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.scalar.type import ScalarType, upcast
from theon.tensor.type import TensorType
from theon.tensor.variable import TensorVariable

from .type import (
    SparseTensorType,
    SparseVar,
    SparseVariable,
    as_sparse_variable,
    is_sparse_variable,
)

__all__ = [
    "CSM", "CSMGrad", "CSMProperties", "Cast", "DenseFromSparse", "AsFormat", "SparseFromDense",
    "SpShape", "SpSum", "Transpose", "AddSD", "AddSS", "MulSD", "MulSS",
    "add", "as_format", "cast", "csc_from_dense", "csm_data", "csm_indices", "csm_indptr",
    "csm_properties", "csm_shape", "csr_from_dense", "dense_from_sparse", "mul", "neg",
    "sp_ones_like", "sp_shape", "sp_sum", "sp_zeros_like", "sub", "transpose",
]

_F = TensorType


def entry_coords(m: Any) -> tuple[np.ndarray, np.ndarray]:
    """The row and column of each stored entry of a CSR/CSC matrix, in storage order.

    >>> r, c = entry_coords(sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 3.0]])))
    >>> r.tolist(), c.tolist()
    ([0, 1, 1], [1, 0, 1])
    """
    major = np.repeat(np.arange(len(m.indptr) - 1), np.diff(m.indptr))
    if m.format == "csr":
        return major, m.indices
    return m.indices, major


def _make(fmt: str, data: Any, indices: Any, indptr: Any, shape: Any) -> Any:
    cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
    return cls((data, indices, indptr), shape=tuple(int(s) for s in shape), copy=False)


def _dense(x: Any) -> TensorVariable:
    return tt.as_tensor_variable(x)


def _vtype(v: Variable) -> SparseTensorType | TensorType:
    """The type of a sparse or dense variable."""
    t = v.type
    assert isinstance(t, (SparseTensorType, TensorType)), f"{describe(v)}: not sparse or dense"
    return t


def _dtype(v: Variable) -> str:
    """The dtype of a sparse or dense variable."""
    return _vtype(v).dtype


def _cast_like(g: Variable, x: Variable) -> Variable:
    """``g`` in ``x``'s dtype (a gradient must have its input's type)."""
    dtype = _dtype(x)
    if _dtype(g) == dtype:
        return g
    if is_sparse_variable(g):
        return cast(g, dtype)
    return tt.cast(g, dtype)


def _check_shapes(node: Apply, a: Any, b: Any) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"{node.op}: shapes {a.shape} and {b.shape} differ, for "
            f"{describe(node.inputs[0])} and {describe(node.inputs[1])}"
        )


def shape_of(x: Variable, given: Sequence[Any], i: int) -> Any:
    """Dimension ``i`` of ``x``: from ``given`` (the shape feature's entry) when it
    has one, else read from the sparse value (the shape feature knows no sparse shapes)."""
    if len(given) == 2:
        return given[i]
    return sp_shape(x)[i]


def same_shape(node: Apply, shapes: Sequence[Any]) -> tuple[Any, Any]:
    """The shape of ``node``'s sparse input 0 (for Ops whose output has it)."""
    x = node.inputs[0]
    return (shape_of(x, shapes[0], 0), shape_of(x, shapes[0], 1))


# shape ------------------------------------------------------------------------
class SpShape(Op):
    """The shape of a sparse matrix, as an int64 vector of length 2."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [as_sparse_variable(x)], [_F("int64", shape=(2,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        out[0][0] = np.array(inputs[0].shape, dtype=np.int64)

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [(tt.constant(2, dtype="int64"),)]

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]


def sp_shape(x: Any) -> TensorVariable:
    """The symbolic shape of a sparse matrix (``x.shape``).

    >>> import scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> sp_shape(x).eval({x: sp.csr_matrix((2, 5))})
    array([2, 5])
    """
    shape: TensorVariable = SpShape()(x)
    return shape


# construction from parts, and the parts -----------------------------------------
class CSMProperties(Op):
    """The parts of a sparse matrix: ``(data, indices, indptr, shape)``.

    The first three are views of the matrix's arrays (``view_map``), so they are
    copied before they leave a compiled function.  The gradient with respect to the
    matrix comes from that of ``data`` only, at the stored entries (structured).
    """

    __props__ = ()
    view_map = {0: [0], 1: [0], 2: [0]}

    def make_node(self, x: Any) -> Apply:
        sx = as_sparse_variable(x)
        return Apply(self, [sx], [
            _F(sx.type.dtype, shape=(None,))(),
            _F("int32", shape=(None,))(), _F("int32", shape=(None,))(),
            _F("int64", shape=(2,))(),
        ])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        (x,) = inputs
        out[0][0] = x.data
        out[1][0] = x.indices.astype(np.int32, copy=False)
        out[2][0] = x.indptr.astype(np.int32, copy=False)
        out[3][0] = np.array(x.shape, dtype=np.int64)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             grads: Sequence[Variable]) -> list[Any]:
        x = as_sparse_variable(inputs[0])
        gdata = grads[0]
        if gdata is None or not isinstance(gdata.type, TensorType):
            return [disconnected_type()]
        _, ind, ptr, shp = outputs
        return [CSM(x.type.format)(_cast_like(gdata, x), ind, ptr, shp)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        x = as_sparse_variable(node.inputs[0])
        data, ind, ptr, _ = node.outputs
        n_major = shape_of(x, shapes[0], 0 if x.type.format == "csr" else 1)
        return [(_len0(data),), (_len0(ind),), (n_major + 1,), (tt.constant(2, dtype="int64"),)]


def _len0(v: Variable) -> Any:
    return _dense(v).shape[0]


_csm_properties = CSMProperties()


def csm_properties(x: Any) -> list[TensorVariable]:
    """``[data, indices, indptr, shape]`` of a sparse matrix (Theano's ``csm_properties``).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> csm_properties(x)[0].eval({x: sp.csr_matrix(np.array([[0.0, 2.0], [3.0, 0.0]]))})
    array([2., 3.])
    """
    parts: list[TensorVariable] = _csm_properties(x)
    return list(parts)


def csm_data(x: Any) -> TensorVariable:
    """The stored values of a sparse matrix, in storage order."""
    return csm_properties(x)[0]


def csm_indices(x: Any) -> TensorVariable:
    """The minor indices (columns of a CSR, rows of a CSC matrix)."""
    return csm_properties(x)[1]


def csm_indptr(x: Any) -> TensorVariable:
    """Where each major line (row of a CSR, column of a CSC) starts in ``data``."""
    return csm_properties(x)[2]


def csm_shape(x: Any) -> TensorVariable:
    """The shape, an int64 vector of length 2."""
    return csm_properties(x)[3]


class CSM(Op):
    """A sparse matrix of ``format`` from ``(data, indices, indptr, shape)``.

    ``indices`` and ``indptr`` are copied (so the result never shares them with an
    input); ``data`` too.  Its gradient with respect to ``data`` is the output
    gradient read at those entries (:class:`CSMGrad`).
    """

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in ("csr", "csc"):
            raise ValueError(f"CSM: format must be 'csr' or 'csc', not {format!r}")
        self.format = format

    def make_node(self, data: Any, indices: Any, indptr: Any, shape: Any) -> Apply:
        parts = [_dense(v) for v in (data, indices, indptr, shape)]
        names = ("data", "indices", "indptr", "shape")
        for v, what in zip(parts, names):
            if v.type.ndim != 1:
                raise TypeError(f"CSM: {what} must be a vector, got {describe(v)}")
        for v, what in zip(parts[1:], names[1:]):
            if v.type.dtype[:3] not in ("int", "uin"):
                raise TypeError(f"CSM: {what} must be integers, got {describe(v)}")
        return Apply(self, parts, [SparseTensorType(self.format, parts[0].type.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        data, indices, indptr, shape = inputs
        if len(data) != len(indices):
            raise ValueError(
                f"CSM: {len(data)} values for {len(indices)} indices, building "
                f"{describe(node.outputs[0])}"
            )
        out[0][0] = _make(self.format, data.copy(), indices.copy(), indptr.copy(), shape)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             grads: Sequence[Variable]) -> list[Any]:
        data, indices, indptr, shape = inputs
        g = CSMGrad(self.format)(indices, indptr, grads[0])
        return [_cast_like(g, data), disconnected_type(), disconnected_type(),
                disconnected_type()]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        shape = _dense(node.inputs[3])
        return [(shape[0], shape[1])]


CSR = CSM("csr")
CSC = CSM("csc")


class CSMGrad(Op):
    """The values of ``g`` (sparse or dense) at the entries given by ``indices`` and
    ``indptr`` in ``format``: the gradient of :class:`CSM` with respect to ``data``."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        self.format = format

    def make_node(self, indices: Any, indptr: Any, g: Any) -> Apply:
        gv: SparseVar | TensorVariable = g if is_sparse_variable(g) else _dense(g)
        return Apply(self, [_dense(indices), _dense(indptr), gv],
                     [_F(gv.dtype, shape=(None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        indices, indptr, g = inputs
        dtype = _dtype(node.outputs[0])
        if sp.issparse(g) and g.format == self.format and np.array_equal(g.indptr, indptr) \
                and np.array_equal(g.indices, indices) and g.has_canonical_format:
            out[0][0] = np.array(g.data, dtype=dtype)  # the same pattern: a copy of data
            return
        major = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        rows, cols = (major, indices) if self.format == "csr" else (indices, major)
        if sp.issparse(g):
            vals = np.asarray(g.tocsr()[rows, cols]).reshape(-1)
        else:
            vals = g[rows, cols]
        out[0][0] = np.array(vals, dtype=dtype)

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [shapes[0]]


# casts and conversions ------------------------------------------------------------
class Cast(Op):
    """A sparse matrix in another dtype (same pattern)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any) -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, x: Any) -> Apply:
        sx = as_sparse_variable(x)
        return Apply(self, [sx], [SparseTensorType(sx.format, self.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        out[0][0] = inputs[0].astype(self.dtype, copy=True)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x = as_sparse_variable(inputs[0])
        if x.dtype[:5] not in ("float", "compl"):
            return [disconnected_type()]
        return [_cast_like(grads[0], x)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


def cast(x: Any, dtype: Any) -> SparseVar:
    """``x`` in ``dtype`` (Theano's ``theano.sparse.cast``); ``x`` itself if it has it.

    >>> from theon.sparse import csr_matrix
    >>> cast(csr_matrix("x", "float64"), "float32").dtype
    'float32'
    """
    sx = as_sparse_variable(x)
    if sx.dtype == str(np.dtype(dtype)):
        return sx
    out: SparseVariable = Cast(dtype)(sx)
    return out


class AsFormat(Op):
    """The same matrix in another format (CSR <-> CSC)."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        self.format = format

    def make_node(self, x: Any) -> Apply:
        sx = as_sparse_variable(x)
        return Apply(self, [sx], [SparseTensorType(self.format, sx.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x = inputs[0]
        out[0][0] = x.asformat(self.format, copy=True)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        return [as_format(grads[0], as_sparse_variable(inputs[0]).format)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


def as_format(x: Any, format: str) -> SparseVar:
    """``x`` in ``format``; ``x`` itself if it has it (a dense ``x`` is converted)."""
    out: SparseVariable
    if not is_sparse_variable(x):
        out = SparseFromDense(format)(x)
    elif x.format == format:
        return x
    else:
        out = AsFormat(format)(x)
    return out


class DenseFromSparse(Op):
    """The dense matrix of a sparse one.

    With ``structured`` (the default, as in Theano and PyTensor) the gradient is
    the output gradient at the input's stored entries (``sp_ones_like(x) * gz``);
    otherwise it is all of the output gradient, stored sparse.
    """

    __props__ = ("structured",)

    def __init__(self, structured: bool = True) -> None:
        self.structured = bool(structured)

    def make_node(self, x: Any) -> Apply:
        sx = as_sparse_variable(x)
        return Apply(self, [sx], [_F(sx.dtype, shape=(None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        out[0][0] = inputs[0].toarray()

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x = as_sparse_variable(inputs[0])
        (gz,) = grads
        if x.dtype[:5] not in ("float", "compl"):
            return [disconnected_type()]
        if self.structured:
            return [_cast_like(mul(sp_ones_like(x), gz), x)]
        return [_cast_like(SparseFromDense(x.format)(gz), x)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        x = node.inputs[0]
        return [(shape_of(x, shapes[0], 0), shape_of(x, shapes[0], 1))]


dense_from_sparse = DenseFromSparse()


class SparseFromDense(Op):
    """The sparse matrix (``format``) of a dense 2-d one; zeros are not stored."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in ("csr", "csc"):
            raise ValueError(f"SparseFromDense: format must be 'csr' or 'csc', not {format!r}")
        self.format = format

    def make_node(self, x: Any) -> Apply:
        dx = _dense(x)
        if dx.ndim != 2:
            raise TypeError(f"{self.format}_from_dense needs a matrix, got {describe(dx)}")
        return Apply(self, [dx], [SparseTensorType(self.format, dx.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        cls = sp.csr_matrix if self.format == "csr" else sp.csc_matrix
        out[0][0] = cls(inputs[0])

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        (gz,) = grads
        g = dense_from_sparse(gz) if is_sparse_variable(gz) else gz
        return [_cast_like(g, inputs[0])]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [shapes[0]]


csr_from_dense = SparseFromDense("csr")
csc_from_dense = SparseFromDense("csc")


# transpose --------------------------------------------------------------------------
class Transpose(Op):
    """The transpose: a CSR matrix becomes the CSC matrix of the same arrays
    (no copy: a view, declared in ``view_map``), and the other way round."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        sx = as_sparse_variable(x)
        fmt = "csc" if sx.format == "csr" else "csr"
        return Apply(self, [sx], [SparseTensorType(fmt, sx.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x = inputs[0]
        # the same arrays read the other way (scipy's transpose() also checks them: 4x slower)
        out[0][0] = _make("csc" if x.format == "csr" else "csr", x.data, x.indices, x.indptr,
                          x.shape[::-1])

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        (gz,) = grads
        return [transpose(gz) if is_sparse_variable(gz) else tt.transpose(gz)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        x = node.inputs[0]
        return [(shape_of(x, shapes[0], 1), shape_of(x, shapes[0], 0))]


def transpose(x: Any) -> SparseVariable:
    """The transpose of a sparse matrix (``x.T``): CSR becomes CSC and vice versa.

    >>> from theon.sparse import csr_matrix
    >>> transpose(csr_matrix("x")).format
    'csc'
    """
    out: SparseVariable = Transpose()(x)
    return out


# elementwise + and * ------------------------------------------------------------------
def _out_dtype(*vs: Variable) -> str:
    return upcast(*(_dtype(v) for v in vs))


def _sparse_type(v: Variable) -> SparseTensorType:
    t = v.type
    assert isinstance(t, SparseTensorType), f"{describe(v)} is not sparse"
    return t


def _sum_to(g: Variable, y: Variable) -> Variable:
    """``g`` summed over the dimensions where ``y`` broadcasts (static length 1)."""
    dy = _dense(y)
    summed: TensorVariable
    if dy.ndim == 0:
        summed = _dense(g).sum()
        return summed
    axes = [k for k, b in enumerate(dy.broadcastable) if b]
    if axes:
        summed = _dense(g).sum(axis=axes, keepdims=True)
        return summed
    return g


class AddSS(Op):
    """``x + y`` of two sparse matrices of one format: sparse (the union of patterns)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        sx, sy = as_sparse_variable(x), as_sparse_variable(y)
        if sx.format != sy.format:
            raise TypeError(f"AddSS: formats differ: {describe(sx)} and {describe(sy)}")
        return Apply(self, [sx, sy], [SparseTensorType(sx.format, _out_dtype(sx, sy))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, y = inputs
        _check_shapes(node, x, y)
        t = _sparse_type(node.outputs[0])
        out[0][0] = (x + y).asformat(t.format).astype(t.dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        (gz,) = grads
        return [_cast_like(gz, v) for v in inputs]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


class AddSD(Op):
    """``x + y`` of a sparse ``x`` and a dense matrix ``y``: dense.  The gradient
    with respect to ``x`` is structured (at ``x``'s stored entries)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        sx, dy = as_sparse_variable(x), _dense(y)
        if dy.ndim != 2:
            raise TypeError(f"sparse + dense needs a dense matrix, got {describe(dy)}")
        return Apply(self, [sx, dy], [_F(_out_dtype(sx, dy), shape=(None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, y = inputs
        dtype = _dtype(node.outputs[0])
        if y.shape != x.shape:
            y = np.broadcast_to(y, x.shape)  # a static length-1 dimension
        z = np.array(y, dtype=dtype)
        rows, cols = entry_coords(x)
        z[rows, cols] += x.data
        out[0][0] = z

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x, y = inputs
        (gz,) = grads
        gx = _cast_like(mul(sp_ones_like(x), gz), x)
        return [gx, _cast_like(_sum_to(gz, y), y)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        x = node.inputs[0]
        return [(shape_of(x, shapes[0], 0), shape_of(x, shapes[0], 1))]


class MulSS(Op):
    """``x * y`` elementwise of two sparse matrices: sparse (the intersection)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        sx, sy = as_sparse_variable(x), as_sparse_variable(y)
        return Apply(self, [sx, sy], [SparseTensorType(sx.format, _out_dtype(sx, sy))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, y = inputs
        _check_shapes(node, x, y)
        t = _sparse_type(node.outputs[0])
        out[0][0] = sp.csr_matrix(x.multiply(y)).asformat(t.format).astype(t.dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x, y = as_sparse_variable(inputs[0]), as_sparse_variable(inputs[1])
        (gz,) = grads
        return [_cast_like(as_format(mul(y, gz), x.format), x),
                _cast_like(as_format(mul(x, gz), y.format), y)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


class MulSD(Op):
    """``x * y`` of a sparse ``x`` and a dense ``y`` (0-d, or a matrix, with static
    length-1 dimensions broadcasting): sparse, with ``x``'s pattern."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        sx, dy = as_sparse_variable(x), _dense(y)
        if dy.ndim not in (0, 2):
            raise TypeError(f"sparse * dense needs a 0-d or 2-d dense value, got {describe(dy)}")
        return Apply(self, [sx, dy], [SparseTensorType(sx.format, _out_dtype(sx, dy))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        x, y = inputs
        dtype = _dtype(node.outputs[0])
        if y.ndim == 0:
            data = np.multiply(x.data, y, dtype=dtype)
        else:
            if y.shape != x.shape:
                y = np.broadcast_to(y, x.shape)
            rows, cols = entry_coords(x)
            data = np.multiply(x.data, y[rows, cols], dtype=dtype)
        out[0][0] = _make(x.format, data, x.indices.copy(), x.indptr.copy(), x.shape)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x, y = as_sparse_variable(inputs[0]), _dense(inputs[1])
        (gz,) = grads
        gx = mul(gz, y)
        gy: Variable
        if y.ndim == 0:
            gy = sp_sum(mul(x, gz))
        else:
            gy = _sum_to(dense_from_sparse(mul(x, gz)), y)
        return [_cast_like(as_format(gx, x.format), x), _cast_like(gy, y)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        return [same_shape(node, shapes)]


_add_ss, _add_sd, _mul_ss, _mul_sd = AddSS(), AddSD(), MulSS(), MulSD()


def _as_operand(v: Any) -> Variable:
    if isinstance(v, Variable):
        return v
    if sp.issparse(v):
        return as_sparse_variable(v)
    return _dense(v)


def add(x: Any, y: Any) -> SparseVariable | TensorVariable:
    """``x + y`` with at least one sparse operand, as scipy computes it: sparse + sparse
    is sparse (in ``x``'s format), sparse + dense is dense.

    >>> import theon.tensor as tt
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> (add(x, x).format, add(x, tt.dmatrix("d")).type.ndim)
    ('csr', 2)
    """
    a, b = _as_operand(x), _as_operand(y)
    if is_sparse_variable(a):
        if is_sparse_variable(b):
            sparse: SparseVariable = _add_ss(a, as_format(b, a.format))
            return sparse
        dense: TensorVariable = _add_sd(a, b)
        return dense
    if is_sparse_variable(b):
        dense = _add_sd(b, a)
        return dense
    raise TypeError(f"theon.sparse.add needs a sparse operand, got {a} and {b}")


def neg(x: Any) -> SparseVariable:
    """``-x`` of a sparse matrix (same pattern)."""
    sx = as_sparse_variable(x)
    return mul(sx, np.asarray(-1, dtype=sx.dtype))


def sub(x: Any, y: Any) -> SparseVariable | TensorVariable:
    """``x - y`` with at least one sparse operand (``x + (-y)``)."""
    a, b = _as_operand(x), _as_operand(y)
    return add(a, neg(b) if is_sparse_variable(b) else -_dense(b))


def mul(x: Any, y: Any) -> SparseVariable:
    """Elementwise ``x * y`` with at least one sparse operand: sparse, as scipy's
    ``multiply`` (sparse * dense keeps the sparse operand's pattern).

    >>> from theon.sparse import csr_matrix, csc_matrix
    >>> mul(csr_matrix("x"), 2.0).format, mul(csr_matrix("x"), csc_matrix("y")).format
    ('csr', 'csr')
    """
    a, b = _as_operand(x), _as_operand(y)
    out: SparseVariable
    if is_sparse_variable(a):
        if is_sparse_variable(b):
            out = _mul_ss(a, as_format(b, a.format))
        else:
            out = _mul_sd(a, _weak(b, a))
        return out
    if is_sparse_variable(b):
        out = _mul_sd(b, _weak(a, b))
        return out
    raise TypeError(f"theon.sparse.mul needs a sparse operand, got {a} and {b}")


def _weak(y: Variable, like: SparseVar) -> Variable:
    """A constant Python number takes the sparse operand's dtype (a float32 graph
    stays float32, as NumPy 2's weak scalars)."""
    from theon.graph.basic import Constant

    t = y.type
    if (isinstance(y, Constant) and isinstance(t, (TensorType, ScalarType)) and t.ndim == 0
            and like.dtype[:5] == "float"):
        if t.dtype in ("int64", "float64", "int8") and np.can_cast(
            np.asarray(y.data), like.dtype, "same_kind"):
            return tt.constant(np.asarray(y.data, dtype=like.dtype))
    return y


def sp_ones_like(x: Any) -> SparseVariable:
    """Ones at the stored entries of ``x`` (the same pattern, structured).

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> sp_ones_like(x).eval({x: sp.csr_matrix(np.array([[0.0, 5.0]]))}).toarray()
    array([[0., 1.]])
    """
    sx = as_sparse_variable(x)
    data, ind, ptr, shape = csm_properties(sx)
    ones: SparseVariable = CSM(sx.format)(tt.ones_like(data), ind, ptr, shape)
    return ones


def sp_zeros_like(x: Any) -> SparseVariable:
    """The zero matrix of ``x``'s format, shape and dtype, with no stored entries.

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> sp_zeros_like(x).eval({x: sp.csr_matrix(np.array([[0.0, 5.0]]))}).nnz
    0
    """
    sx = as_sparse_variable(x)
    _, _, ptr, shape = csm_properties(sx)
    none = np.zeros(0, dtype=sx.dtype)
    no_index = np.zeros(0, dtype=np.int32)
    # every row (CSR) or column (CSC) starts and ends at 0
    zeros: SparseVariable = CSM(sx.format)(none, no_index, tt.zeros_like(ptr), shape)
    return zeros


# sums -------------------------------------------------------------------------------
class SpSum(Op):
    """The sum of a sparse matrix: all of it (``axis=None``, 0-d) or over an axis
    (a dense vector).  ``sparse_grad``: a structured gradient (at the stored
    entries); else the regular one (all entries, stored sparse)."""

    __props__ = ("axis", "sparse_grad")

    def __init__(self, axis: int | None = None, sparse_grad: bool = False) -> None:
        if axis not in (None, 0, 1):
            raise ValueError(f"sp_sum: axis must be None, 0 or 1, not {axis!r}")
        self.axis = axis
        self.sparse_grad = bool(sparse_grad)

    def make_node(self, x: Any) -> Apply:
        sx = as_sparse_variable(x)
        shape = () if self.axis is None else (None,)
        return Apply(self, [sx], [_F(sx.dtype, shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list[list[Any]]) -> None:
        (x,) = inputs
        dtype = _dtype(node.outputs[0])
        if self.axis is None:
            out[0][0] = np.asarray(x.data.sum(dtype=dtype), dtype=dtype)
        else:
            out[0][0] = np.asarray(x.sum(axis=self.axis, dtype=dtype), dtype=dtype).reshape(-1)

    def grad(self, inputs: Sequence[Variable], grads: Sequence[Variable]) -> list[Any]:
        x = as_sparse_variable(inputs[0])
        (gz,) = grads
        if x.dtype[:5] not in ("float", "compl"):
            return [disconnected_type()]
        g: Variable
        if self.sparse_grad:
            ones = sp_ones_like(x)
            if self.axis is None:
                g = mul(ones, gz)
            else:
                from .math import col_scale, row_scale

                g = col_scale(ones, gz) if self.axis == 0 else row_scale(ones, gz)
        else:
            shp = sp_shape(x)
            if self.axis is None:
                full = tt.alloc(gz, shp[0], shp[1])
            elif self.axis == 0:
                full = tt.alloc(_dense(gz).dimshuffle("x", 0), shp[0], shp[1])
            else:
                full = tt.alloc(_dense(gz).dimshuffle(0, "x"), shp[0], shp[1])
            g = SparseFromDense(x.format)(full)
        return [_cast_like(g, x)]

    def infer_shape(self, node: Apply, shapes: Sequence[Any]) -> list[Any]:
        if self.axis is None:
            return [()]
        x = node.inputs[0]
        return [(shape_of(x, shapes[0], 1 - self.axis),)]


def sp_sum(x: Any, axis: int | None = None, sparse_grad: bool = False) -> TensorVariable:
    """The sum of a sparse matrix over ``axis`` (None: all, a 0-d tensor; 0 or 1: a
    dense vector), Theano's ``sp_sum``.  ``sparse_grad=True`` gives a structured
    gradient (at the stored entries), else the regular one.

    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import csr_matrix
    >>> x = csr_matrix("x")
    >>> sp_sum(x, axis=0).eval({x: sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))})
    array([3., 3.])
    """
    total: TensorVariable = SpSum(axis, sparse_grad)(x)
    return total
