"""Triangles and diagonals: ``tri``, ``tril``, ``triu`` and their indices, ``trace``,
``fill_diagonal``, ``identity_like``.

Every function here is a composition of existing Ops (comparisons of ``arange``s,
``switch``, indexing), so gradients, shapes and the backends come from those Ops.

>>> import numpy as np
>>> import theon.tensor as tt
>>> m = tt.dmatrix("m")
>>> tril(m).eval({m: np.ones((2, 3))})
array([[1., 0., 0.],
       [1., 1., 0.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.graph.fg import describe
from theon.tensor.arguments import as_int
from theon.tensor.basic import as_tensor_variable, cast, constant
from theon.tensor.creation import arange, eye
from theon.tensor.extra_ops import diagonal, nonzero
from theon.tensor.math import ge, maximum, minimum, switch
from theon.tensor.reduction import sum as tsum
from theon.tensor.subtensor import set_subtensor
from theon.tensor.variable import TensorVariable

__all__ = [
    "extract_diag",
    "fill_diagonal",
    "fill_diagonal_offset",
    "identity_like",
    "trace",
    "tri",
    "tril",
    "tril_indices",
    "tril_indices_from",
    "triu",
    "triu_indices",
    "triu_indices_from",
]


def _floatx() -> str:
    from theon.config import config

    return str(config.floatX)


def _mask(n: Any, m: Any, k: Any) -> TensorVariable:
    """The boolean ``n`` by ``m`` matrix that is true where ``j <= i + k``."""
    rows = arange(n)
    cols = arange(m)
    return ge(rows[:, None] + k, cols[None, :])


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> TensorVariable:
    """An ``N`` by ``M`` array with ones at and below diagonal ``k`` and zeros elsewhere,
    like ``numpy.tri`` (``dtype`` defaults to ``config.floatX``, as in PyTensor).

    >>> tri(3, k=-1, dtype="int8").eval()
    array([[0, 0, 0],
           [1, 0, 0],
           [1, 1, 0]], dtype=int8)
    """
    return cast(_mask(N, N if M is None else M, k), dtype or _floatx())


def _tri_part(m: Any, k: Any, lower: bool, what: str) -> TensorVariable:
    x = as_tensor_variable(m)
    if x.type.ndim == 0:
        raise ValueError(f"{what}: needs at least 1 dimension, got {describe(x)}")
    if x.type.ndim == 1:  # NumPy's rule: a vector is the row of every line
        n_rows: Any = x.shape[0]
    else:
        n_rows = x.shape[-2]
    n_cols = x.shape[-1]
    keep = _mask(n_rows, n_cols, k) if lower else ~_mask(n_rows, n_cols, k - 1)
    zero = constant(np.zeros((), dtype=x.type.dtype))
    return switch(keep, x, zero)  # not a product: inf * 0 would be nan


def tril(m: Any, k: Any = 0) -> TensorVariable:
    """The lower triangle of the matrices in the last two axes (entries above diagonal
    ``k`` zeroed), like ``numpy.tril``; a vector is the row of a square matrix.

    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> tril(v).eval({v: [1.0, 2.0]})
    array([[1., 0.],
           [1., 2.]])
    """
    return _tri_part(m, k, True, "tril")


def triu(m: Any, k: Any = 0) -> TensorVariable:
    """The upper triangle of the matrices in the last two axes (entries below diagonal
    ``k`` zeroed), like ``numpy.triu``.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> triu(m, 1).eval({m: [[1.0, 2.0], [3.0, 4.0]]})
    array([[0., 2.],
           [0., 0.]])
    """
    return _tri_part(m, k, False, "triu")


def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[TensorVariable, TensorVariable]:
    """The row and column indices (int64) of the lower triangle of an ``n`` by ``m``
    matrix, like ``numpy.tril_indices``.

    >>> [i.eval().tolist() for i in tril_indices(2)]
    [[0, 1, 1], [0, 0, 1]]
    """
    rows, cols = nonzero(_mask(n, n if m is None else m, k))
    return rows, cols


def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[TensorVariable, TensorVariable]:
    """The row and column indices (int64) of the upper triangle of an ``n`` by ``m``
    matrix, like ``numpy.triu_indices``.

    >>> [i.eval().tolist() for i in triu_indices(2)]
    [[0, 0, 1], [0, 1, 1]]
    """
    rows, cols = nonzero(~_mask(n, n if m is None else m, k - 1))
    return rows, cols


def _matrix(a: Any, what: str) -> TensorVariable:
    x = as_tensor_variable(a)
    if x.type.ndim != 2:
        raise ValueError(f"{what}: needs a matrix, got {describe(x)}")
    return x


def tril_indices_from(a: Any, k: Any = 0) -> tuple[TensorVariable, TensorVariable]:
    """The indices of the lower triangle of the matrix ``a``, like
    ``numpy.tril_indices_from``.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> [i.eval({m: np.zeros((2, 3))}).tolist() for i in tril_indices_from(m)]
    [[0, 1, 1], [0, 0, 1]]
    """
    x = _matrix(a, "tril_indices_from")
    return tril_indices(x.shape[0], k, x.shape[1])


def triu_indices_from(a: Any, k: Any = 0) -> tuple[TensorVariable, TensorVariable]:
    """The indices of the upper triangle of the matrix ``a``, like
    ``numpy.triu_indices_from``.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> [i.eval({m: np.zeros((2, 2))}).tolist() for i in triu_indices_from(m)]
    [[0, 0, 1], [0, 1, 1]]
    """
    x = _matrix(a, "triu_indices_from")
    return triu_indices(x.shape[0], k, x.shape[1])


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: Any = None) -> TensorVariable:
    """The sum of diagonal ``offset`` of the 2-d slices along ``axis1`` and ``axis2``,
    like ``numpy.trace`` (its dtype rule: small integers sum in int64).

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> trace(m).eval({m: [[1.0, 2.0], [3.0, 4.0]]})
    array(5.)
    """
    return tsum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def extract_diag(x: Any) -> TensorVariable:
    """The main diagonal of the first two axes (PyTensor's name for ``diagonal(x)``).

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> extract_diag(m).eval({m: [[1.0, 2.0], [3.0, 4.0]]})
    array([1., 4.])
    """
    return diagonal(x)


def fill_diagonal(a: Any, val: Any) -> TensorVariable:
    """A copy of ``a`` with its main diagonal set to the scalar ``val`` (cast to
    ``a``'s dtype), like ``numpy.fill_diagonal`` (which writes in place): a matrix gets
    ``min(rows, cols)`` entries, a larger array needs all lengths equal.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> fill_diagonal(m, 5.0).eval({m: np.zeros((2, 3))})
    array([[5., 0., 0.],
           [0., 5., 0.]])
    """
    x = as_tensor_variable(a)
    v = as_tensor_variable(val)
    nd = x.type.ndim
    if nd < 2:
        raise ValueError(f"fill_diagonal: needs at least 2 dimensions, got {describe(x)}")
    if v.type.ndim != 0:
        raise ValueError(f"fill_diagonal: val must be a scalar, got {describe(v)}")
    if nd == 2:
        n: Any = minimum(x.shape[0], x.shape[1])
    else:
        known = {s for s in x.type.shape if s is not None}
        if len(known) > 1:
            raise ValueError(
                f"fill_diagonal: all lengths of {describe(x)} must be equal (NumPy's rule)")
        n = x.shape[0]
    i = arange(n)
    return set_subtensor(x[(i,) * nd], cast(v, x.type.dtype))


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> TensorVariable:
    """A copy of the matrix ``a`` with diagonal ``offset`` (above the main one when
    positive) set to the scalar ``val``.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> fill_diagonal_offset(m, 1.0, -1).eval({m: np.zeros((3, 2))})
    array([[0., 0.],
           [1., 0.],
           [0., 1.]])
    """
    x = _matrix(a, "fill_diagonal_offset")
    v = as_tensor_variable(val)
    if v.type.ndim != 0:
        raise ValueError(f"fill_diagonal_offset: val must be a scalar, got {describe(v)}")
    k = as_int(offset, "fill_diagonal_offset: offset")
    rows, cols = x.shape[0], x.shape[1]
    n = maximum(minimum(rows + min(k, 0), cols - max(k, 0)), 0)
    i = arange(n)
    return set_subtensor(x[i - min(k, 0), i + max(k, 0)], cast(v, x.type.dtype))


def identity_like(x: Any, dtype: Any = None) -> TensorVariable:
    """The identity matrix of ``x``'s shape (and by default its dtype).

    >>> import theon.tensor as tt
    >>> identity_like(tt.imatrix("m")).type
    TensorType(int32, shape=(None, None))
    """
    m = _matrix(x, "identity_like")
    return eye(m.shape[0], m.shape[1], dtype=dtype or m.type.dtype)
