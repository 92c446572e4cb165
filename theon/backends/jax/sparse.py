"""JAX rules for the sparse Ops of :mod:`theon.sparse`.

A sparse value (a ``scipy.sparse`` CSR or CSC matrix) becomes a :class:`Layout`
(a jax pytree like :class:`jax.experimental.sparse.BCSR`) holding the same three
arrays and the row of each entry: for a CSR matrix, the matrix itself; for a CSC
matrix, its transpose (the CSC arrays of ``x`` are the CSR arrays of ``x.T``).
The variable's type says which, so the rules read the arrays as ``perform`` does:
``Transpose`` is free, ``CSM`` and ``CSMProperties`` build and take apart the
arrays, and the products and sums gather the stored entries and add them up with
``segment_sum``.  On the way out the arrays become a ``scipy.sparse`` matrix of
the type's format again (duplicates summed).

Limits, because XLA needs every array's length when compiling:

- a sparse matrix made under ``jit`` from a dense one (``SparseFromDense``, and so
  ``csr_from_dense``) stores every entry, zeros included; its value is the same,
  but ``CSMProperties`` and ``nnz`` see the stored zeros;
- sparse ``+`` sparse stores both operands' entries (a position stored in both
  twice, summed on the way out), and sparse ``*`` sparse keeps the first
  operand's pattern (the entries the second lacks are stored zeros);
- ``CSM`` needs its shape input known when tracing (a constant).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from theon.backends.jax.tensor import DynamicShapeError
from theon.graph.basic import Apply, Constant, Variable
from theon.link.jax.dispatch import jax_funcify
from theon.sparse.math import Dot, ScaleSV, StructuredDot, StructuredDotGrad
from theon.sparse.ops import (
    CSM,
    AddSD,
    AddSS,
    AsFormat,
    Cast,
    CSMGrad,
    CSMProperties,
    DenseFromSparse,
    MulSD,
    MulSS,
    SparseFromDense,
    SpShape,
    SpSum,
    Transpose,
)
from theon.sparse.type import SparseTensorType
from theon.tensor.type import TensorType

__all__ = ["Layout", "from_jax", "to_jax"]


def _fmt(v: Variable) -> str:
    t = v.type
    assert isinstance(t, SparseTensorType), f"{v} is not a sparse matrix"
    return t.format


def _is_sparse(v: Variable) -> bool:
    return isinstance(v.type, SparseTensorType)


class Layout:
    """The CSR layout arrays of a sparse value under ``jax.jit`` (a CSC matrix: those of its
    transpose), a jax pytree: ``data``, ``indices``, ``indptr`` (int32), the static
    ``shape`` of the layout, and ``rows``, the row (major index) of each stored entry, or
    ``None`` where it is not known yet (the rules then compute it from ``indptr``).

    A matrix given as an argument brings its ``rows``: NumPy expands ``indptr`` in a
    fraction of the time XLA's cumulative sum takes on the CPU, and the products of
    the sparse Ops all need them.
    """

    __slots__ = ("data", "indices", "indptr", "rows", "shape")

    def __init__(self, data: Any, indices: Any, indptr: Any, shape: tuple[int, int],
                 rows: Any = None) -> None:
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.shape = shape
        self.rows = rows

    def __repr__(self) -> str:
        return f"Layout(shape={self.shape}, nse={self.data.shape[0]})"


_PYTREE_REGISTERED = False
_PYTREE_LOCK = threading.Lock()


def _register_pytree() -> None:
    """Register :class:`Layout` with jax, once (jax refuses a second registration)."""
    global _PYTREE_REGISTERED
    if _PYTREE_REGISTERED:
        return
    import jax

    with _PYTREE_LOCK:
        if not _PYTREE_REGISTERED:
            jax.tree_util.register_pytree_node(
                Layout,
                lambda v: ((v.data, v.indices, v.indptr, v.rows), v.shape),
                lambda shape, ch: Layout(ch[0], ch[1], ch[2], shape, ch[3]),
            )
            _PYTREE_REGISTERED = True


def to_jax(x: Any) -> Layout:
    """The :class:`Layout` holding the arrays of the ``scipy.sparse`` CSR/CSC matrix ``x``.

    The matrix's own NumPy arrays go to the jitted call as they are (the index arrays
    as int32, copied only when they are not), with the row of each entry: no jax
    array is built and nothing is validated here (scipy checked the matrix when it
    was built), so the call transfers each array once.

    >>> import numpy as np, pytest, scipy.sparse as sp
    >>> jax = pytest.importorskip("jax")  # the example needs jax
    >>> m = sp.csc_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    >>> from_jax(to_jax(m), "csc").toarray().tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    _register_pytree()
    shape = x.shape if x.format == "csr" else x.shape[::-1]
    indptr = x.indptr.astype(np.int32, copy=False)
    n_major = int(shape[0])
    return Layout(x.data, x.indices.astype(np.int32, copy=False), indptr,
                  (n_major, int(shape[1])), _rows_of(indptr))


#: (len(indptr), nnz) -> (a copy of indptr, the row of each entry): the rows of the
#: last few layouts, as a matrix is often passed again with the same pattern
_ROWS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
_ROWS_KEPT = 8
_ROWS_LOCK = threading.Lock()


def _rows_of(indptr: np.ndarray) -> np.ndarray:
    """The row (major index) of each entry of the layout ``indptr``, read-only.

    Kept for the last few patterns and reused when ``indptr`` is equal, element for
    element, to the one they came from (a comparison costs a tenth of expanding it
    again), in a 64-byte aligned buffer (XLA copies an unaligned argument)."""
    key = (indptr.shape[0], int(indptr[-1]) if indptr.shape[0] else 0)
    hit = _ROWS.get(key)
    if hit is not None and np.array_equal(hit[0], indptr):
        return hit[1]
    n = key[1]
    buf = np.empty(4 * n + 64, dtype=np.uint8)
    start = (-buf.ctypes.data) % 64
    rows = buf[start:start + 4 * n].view(np.int32)
    rows[...] = np.repeat(np.arange(key[0] - 1, dtype=np.int32), np.diff(indptr))
    rows.flags.writeable = False
    with _ROWS_LOCK:  # (another thread may insert while the oldest is dropped)
        if len(_ROWS) >= _ROWS_KEPT:
            _ROWS.pop(next(iter(_ROWS)), None)
        _ROWS[key] = (indptr.copy(), rows)
    return rows


def from_jax(v: Any, fmt: str) -> Any:
    """The ``scipy.sparse`` matrix of format ``fmt`` held by the :class:`Layout` ``v``."""
    import scipy.sparse as sp

    cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
    shape = tuple(v.shape) if fmt == "csr" else tuple(v.shape)[::-1]
    m = cls((np.array(v.data), np.array(v.indices), np.array(v.indptr)), shape=shape)
    m.sum_duplicates()
    return m


def _register_types() -> None:
    from theon.link.jax import dispatch

    typify = getattr(dispatch, "jax_typify", None)
    untypify = getattr(dispatch, "jax_untypify", None)
    if typify is not None:
        typify.register(SparseTensorType)(lambda t, value: to_jax(value))
    if untypify is not None:
        untypify.register(SparseTensorType)(lambda t, value: from_jax(value, t.format))


_register_types()


# -- helpers on the layout ------------------------------------------------------------
def _bcsr(data: Any, indices: Any, indptr: Any, shape: tuple[int, ...], rows: Any = None
          ) -> Layout:
    _register_pytree()
    return Layout(data, indices, indptr, (int(shape[0]), int(shape[1])), rows)


def _shape(v: Any, fmt: str) -> tuple[int, int]:
    s = tuple(int(n) for n in v.shape)
    return (s[0], s[1]) if fmt == "csr" else (s[1], s[0])


def _major(indptr: Any, nse: int) -> Any:
    """The major index (row of a CSR layout) of each of the ``nse`` stored entries: one
    count at each row's end, summed (a cumulative sum; five times faster than a binary
    search per entry)."""
    import jax.numpy as jnp

    ends = jnp.zeros(nse + 1, indptr.dtype).at[indptr[1:-1]].add(1)
    return jnp.cumsum(ends)[:nse]


def _coords(v: Any, fmt: str) -> tuple[Any, Any]:
    """The row and column of each stored entry, in storage order."""
    major = v.rows if v.rows is not None else _major(v.indptr, v.data.shape[0])
    return (major, v.indices) if fmt == "csr" else (v.indices, major)


def _todense(v: Any, fmt: str, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    rows, cols = _coords(v, fmt)
    data = v.data if dtype is None else v.data.astype(dtype)
    return jnp.zeros(_shape(v, fmt), data.dtype).at[rows, cols].add(data)


def _layout(rows: Any, cols: Any, data: Any, shape: tuple[int, int], fmt: str) -> Any:
    """The :class:`Layout` (format ``fmt``) of the entries ``(rows, cols, data)``."""
    import jax.numpy as jnp

    major, minor = (rows, cols) if fmt == "csr" else (cols, rows)
    n_major = shape[0] if fmt == "csr" else shape[1]
    order = jnp.lexsort((minor, major))
    major, minor, data = major[order], minor[order], data[order]
    indptr = jnp.searchsorted(major, jnp.arange(n_major + 1), side="left").astype("int32")
    layout_shape = shape if fmt == "csr" else shape[::-1]
    return _bcsr(data, minor.astype("int32"), indptr, layout_shape, major.astype("int32"))


def _with_data(v: Any, data: Any) -> Any:
    return _bcsr(data, v.indices, v.indptr, tuple(v.shape), v.rows)


def _out_dtype(node: Apply) -> str:
    t = node.outputs[0].type
    assert isinstance(t, (SparseTensorType, TensorType)), f"{node} gives a {t}"
    return t.dtype


# -- parts and construction -------------------------------------------------------------
@jax_funcify.register(SpShape)
def _sp_shape(op: SpShape, node: Apply, **kw: Any) -> Callable[..., Any]:
    fmt = _fmt(node.inputs[0])

    def sp_shape(x: Any) -> Any:
        return np.asarray(_shape(x, fmt), dtype="int64")  # static: stays concrete

    return sp_shape


@jax_funcify.register(CSMProperties)
def _csm_properties(op: CSMProperties, node: Apply, **kw: Any) -> Callable[..., Any]:
    fmt = _fmt(node.inputs[0])

    def csm_properties(x: Any) -> Any:
        return (x.data, x.indices.astype("int32"), x.indptr.astype("int32"),
                np.asarray(_shape(x, fmt), dtype="int64"))  # the shape stays concrete

    return csm_properties


@jax_funcify.register(CSM)
def _csm(op: CSM, node: Apply, **kw: Any) -> Callable[..., Any]:
    def csm(data: Any, indices: Any, indptr: Any, shape: Any) -> Any:
        v = node.inputs[3]
        known = v.data if isinstance(v, Constant) else shape
        try:
            m, n = (int(s) for s in np.asarray(known).reshape(-1))
        except Exception:
            raise DynamicShapeError(
                f"mode='JAX': {op} has a shape computed from a run-time value: under jax.jit the "
                "shape of a sparse matrix must be known when tracing (a constant)") from None
        layout = (m, n) if op.format == "csr" else (n, m)
        return _bcsr(data, indices.astype("int32"), indptr.astype("int32"), layout)

    return csm


@jax_funcify.register(CSMGrad)
def _csm_grad(op: CSMGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    g_var = node.inputs[2]
    dtype = _out_dtype(node)

    def csm_grad(indices: Any, indptr: Any, g: Any) -> Any:

        dense = _todense(g, _fmt(g_var)) if _is_sparse(g_var) else g
        major = _major(indptr, indices.shape[0])
        rows, cols = (major, indices) if op.format == "csr" else (indices, major)
        return dense[rows, cols].astype(dtype)

    return csm_grad


# -- casts and conversions -------------------------------------------------------------
@jax_funcify.register(Cast)
def _cast(op: Cast, node: Apply, **kw: Any) -> Callable[..., Any]:
    return lambda x: _with_data(x, x.data.astype(op.dtype))


@jax_funcify.register(AsFormat)
def _as_format(op: AsFormat, node: Apply, **kw: Any) -> Callable[..., Any]:
    fmt = _fmt(node.inputs[0])
    if fmt == op.format:
        return lambda x: x

    def as_format(x: Any) -> Any:
        rows, cols = _coords(x, fmt)
        return _layout(rows, cols, x.data, _shape(x, fmt), op.format)

    return as_format


@jax_funcify.register(DenseFromSparse)
def _dense_from_sparse(op: DenseFromSparse, node: Apply, **kw: Any) -> Callable[..., Any]:
    fmt = _fmt(node.inputs[0])
    dtype = _out_dtype(node)
    return lambda x: _todense(x, fmt, dtype)


@jax_funcify.register(SparseFromDense)
def _sparse_from_dense(op: SparseFromDense, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = _out_dtype(node)

    def sparse_from_dense(x: Any) -> Any:
        import jax.numpy as jnp

        m, n = x.shape
        if op.format == "csr":  # every entry stored, in row order
            data = x.reshape(-1)
            indices = jnp.tile(jnp.arange(n, dtype="int32"), m)
            indptr = jnp.arange(0, m * n + 1, n, dtype="int32")
            return _bcsr(data.astype(dtype), indices, indptr, (m, n))
        data = x.T.reshape(-1)
        indices = jnp.tile(jnp.arange(m, dtype="int32"), n)
        indptr = jnp.arange(0, m * n + 1, m, dtype="int32")
        return _bcsr(data.astype(dtype), indices, indptr, (n, m))

    return sparse_from_dense


@jax_funcify.register(Transpose)
def _transpose(op: Transpose, node: Apply, **kw: Any) -> Callable[..., Any]:
    # CSR arrays of x are the CSC arrays of x.T: the layout is the same
    return lambda x: x


# -- + and * ---------------------------------------------------------------------------
@jax_funcify.register(AddSS)
def _add_ss(op: AddSS, node: Apply, **kw: Any) -> Callable[..., Any]:
    fx, fy, fo = _fmt(node.inputs[0]), _fmt(node.inputs[1]), _fmt(node.outputs[0])
    dtype = _out_dtype(node)

    def add_ss(x: Any, y: Any) -> Any:
        import jax.numpy as jnp

        rx, cx = _coords(x, fx)
        ry, cy = _coords(y, fy)
        data = jnp.concatenate([x.data.astype(dtype), y.data.astype(dtype)])
        return _layout(jnp.concatenate([rx, ry]), jnp.concatenate([cx, cy]), data,
                       _shape(x, fx), fo)

    return add_ss


@jax_funcify.register(AddSD)
def _add_sd(op: AddSD, node: Apply, **kw: Any) -> Callable[..., Any]:
    fx = _fmt(node.inputs[0])
    dtype = _out_dtype(node)

    def add_sd(x: Any, y: Any) -> Any:
        import jax.numpy as jnp

        rows, cols = _coords(x, fx)
        z = jnp.broadcast_to(y, _shape(x, fx)).astype(dtype)
        return z.at[rows, cols].add(x.data.astype(dtype))

    return add_sd


@jax_funcify.register(MulSS)
def _mul_ss(op: MulSS, node: Apply, **kw: Any) -> Callable[..., Any]:
    fx, fy = _fmt(node.inputs[0]), _fmt(node.inputs[1])
    dtype = _out_dtype(node)

    def mul_ss(x: Any, y: Any) -> Any:
        rows, cols = _coords(x, fx)
        yd = _todense(y, fy)
        return _with_data(x, (x.data * yd[rows, cols]).astype(dtype))

    return mul_ss


@jax_funcify.register(MulSD)
def _mul_sd(op: MulSD, node: Apply, **kw: Any) -> Callable[..., Any]:
    fx = _fmt(node.inputs[0])
    dtype = _out_dtype(node)

    def mul_sd(x: Any, y: Any) -> Any:
        import jax.numpy as jnp

        if y.ndim == 0:
            return _with_data(x, (x.data * y).astype(dtype))
        rows, cols = _coords(x, fx)
        yb = jnp.broadcast_to(y, _shape(x, fx))
        return _with_data(x, (x.data * yb[rows, cols]).astype(dtype))

    return mul_sd


@jax_funcify.register(SpSum)
def _sp_sum(op: SpSum, node: Apply, **kw: Any) -> Callable[..., Any]:
    fx = _fmt(node.inputs[0])
    dtype = _out_dtype(node)

    def sp_sum(x: Any) -> Any:
        if op.axis is None:
            return x.data.astype(dtype).sum()
        return _todense(x, fx, dtype).sum(axis=op.axis)

    return sp_sum


# -- products ----------------------------------------------------------------------------
def _sparse_dense(x: Any, fmt: str, y: Any, dtype: str) -> Any:
    """``x @ y`` for a sparse ``x`` and a dense vector or matrix ``y``."""
    import jax

    rows, cols = _coords(x, fmt)
    data = x.data.astype(dtype)
    yd = y.astype(dtype)[cols]
    contrib = data * yd if y.ndim == 1 else data[:, None] * yd
    return jax.ops.segment_sum(contrib, rows, num_segments=_shape(x, fmt)[0],
                               indices_are_sorted=fmt == "csr")


def _dense_sparse(x: Any, y: Any, fmt: str, dtype: str) -> Any:
    """``x @ y`` for a dense vector or matrix ``x`` and a sparse ``y``."""
    import jax

    rows, cols = _coords(y, fmt)
    data = y.data.astype(dtype)
    n = _shape(y, fmt)[1]
    srt = fmt == "csc"
    if x.ndim == 1:
        return jax.ops.segment_sum(x.astype(dtype)[rows] * data, cols, num_segments=n,
                                   indices_are_sorted=srt)
    contrib = (x.astype(dtype)[:, rows] * data).T
    return jax.ops.segment_sum(contrib, cols, num_segments=n, indices_are_sorted=srt).T


@jax_funcify.register(Dot)
def _dot(op: Dot, node: Apply, **kw: Any) -> Callable[..., Any]:
    xv, yv = node.inputs
    dtype = _out_dtype(node)

    def dot(x: Any, y: Any) -> Any:
        if _is_sparse(xv):
            yd = _todense(y, _fmt(yv), dtype) if _is_sparse(yv) else y
            return _sparse_dense(x, _fmt(xv), yd, dtype)
        return _dense_sparse(x, y, _fmt(yv), dtype)

    return dot


@jax_funcify.register(StructuredDot)
def _structured_dot(op: StructuredDot, node: Apply, **kw: Any) -> Callable[..., Any]:
    fa = _fmt(node.inputs[0])
    dtype = _out_dtype(node)
    return lambda a, b: _sparse_dense(a, fa, b, dtype)


@jax_funcify.register(StructuredDotGrad)
def _structured_dot_grad(op: StructuredDotGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    fa = _fmt(node.inputs[0])
    dtype = _out_dtype(node)

    def structured_dot_grad(a: Any, b: Any, gz: Any) -> Any:
        rows, cols = _coords(a, fa)
        data = gz[rows] * b[cols] if b.ndim == 1 else (gz[rows] * b[cols]).sum(axis=-1)
        return _with_data(a, data.astype(dtype))

    return structured_dot_grad


@jax_funcify.register(ScaleSV)
def _scale_sv(op: ScaleSV, node: Apply, **kw: Any) -> Callable[..., Any]:
    fx = _fmt(node.inputs[0])
    dtype = _out_dtype(node)

    def scale_sv(x: Any, s: Any) -> Any:
        rows, cols = _coords(x, fx)
        return _with_data(x, (x.data * s[rows if op.axis == 1 else cols]).astype(dtype))

    return scale_sv
