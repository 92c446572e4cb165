"""Matrix functions: ``norm``, ``matrix_power``, ``kron``, ``expm``, ``trace``,
``diag``/``extract_diag``, ``block_diag`` and the Lyapunov solvers.

``norm``, ``matrix_power``, ``kron``, ``trace`` and ``block_diag`` are exact
compositions of existing Ops (their gradients come from those Ops); ``diag`` and
``extract_diag`` are :func:`theon.tensor.extra_ops.diag` and
:func:`~theon.tensor.extra_ops.diagonal`.  ``expm`` and the Lyapunov solvers are Ops
computed by SciPy (imported when the Op first runs), with these gradients:

- ``expm``: ``Abar`` is the Frechet derivative of ``exp`` at ``A^T`` in the direction
  ``Gbar``, the upper-right block of ``expm([[A^T, Gbar], [0, A^T]])``;
- ``solve_continuous_lyapunov`` (``A X + X A^T = Q``): with ``Y`` solving the adjoint
  equation ``A^T Y + Y A = Xbar``, ``Qbar = Y`` and ``Abar = -(Y X^T + Y^T X)``;
- ``solve_discrete_lyapunov`` (``A X A^T - X + Q = 0``): with ``Y`` solving
  ``A^T Y A - Y + Xbar = 0``, ``Qbar = Y`` and ``Abar = Y A X^T + Y^T A X``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply
from theon.graph.fg import describe
from theon.graph.op import Op
from theon.graph.vectorize import register_vectorize
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.extra_ops import diag, diagonal
from theon.tensor.linalg.spectral import (
    _apply,
    float_matrix,
    mT,
    svd,
    vectorize_blockwise,
    zeros_like,
)
from theon.tensor.type import TensorType, float_dtypes, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["Expm", "SolveContinuousLyapunov", "SolveDiscreteLyapunov", "block_diag", "diag",
           "expm", "extract_diag", "kron", "matrix_power", "norm",
           "solve_continuous_lyapunov", "solve_discrete_lyapunov", "trace"]

#: PyTensor's name for the diagonal of a matrix (``numpy.diagonal``).
extract_diag = diagonal


def _square(a: Any, what: str) -> TensorVariable:
    x = float_matrix(a, what)
    m, n = x.type.shape
    if m is not None and n is not None and m != n:
        raise ValueError(f"{what}: needs a square matrix, got {describe(x)}")
    return x


def _block(tl: TensorVariable, tr: TensorVariable, br: TensorVariable) -> TensorVariable:
    """``[[tl, tr], [0, br]]`` for square blocks of one size."""
    from theon.tensor.joining import concatenate

    top = concatenate([tl, tr], axis=-1)
    bottom = concatenate([zeros_like(tl), br], axis=-1)
    return concatenate([top, bottom], axis=-2)


# expm ---------------------------------------------------------------------------------


class Expm(Op):
    """The matrix exponential (``scipy.linalg.expm``) of a square matrix."""

    __props__ = ()
    gufunc_signature = "(m,m)->(m,m)"

    def make_node(self, a: Any) -> Apply:
        x = _square(a, "expm")
        n = x.type.shape[0] if x.type.shape[0] is not None else x.type.shape[1]
        return Apply(self, [x], [TensorType(x.type.dtype, (n, n))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        import scipy.linalg

        (a,) = inputs
        if a.shape[0] != a.shape[1]:
            raise ValueError(f"expm: needs a square matrix, got shape {a.shape} for "
                             f"{describe(node.inputs[0])}")
        output_storage[0][0] = np.asarray(scipy.linalg.expm(a),
                                          dtype=tensor_type(node.outputs[0]).dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[0])]

    def _frechet(self, a: TensorVariable, e: TensorVariable) -> TensorVariable:
        """``L(a, e)``: the upper-right block of ``expm([[a, e], [0, a]])``."""
        n = a.shape[-1]
        big = _apply(self, _block(a, e, a))
        block: TensorVariable = big[..., :n, n:]
        return block

    def grad(self, inputs: Sequence[Any], output_grads: Sequence[Any]) -> list[Any]:
        at = mT(inputs[0])
        return [self._frechet(at, output_grads[0])]

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self._frechet(inputs[0], eval_points[0])]

    def __str__(self) -> str:
        return "Expm"


def expm(a: Any) -> TensorVariable:
    """The matrix exponential ``sum_k a**k / k!``, like ``scipy.linalg.expm``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> expm(a).eval({a: [[0.0, 0.0], [0.0, 0.0]]})
    array([[1., 0.],
           [0., 1.]])
    """
    out: TensorVariable = _apply(Expm(), a)
    return out


# Lyapunov equations -------------------------------------------------------------------


class _Lyapunov(Op):
    """Common part of the two Lyapunov solvers: inputs ``a``, ``q``; output ``x``."""

    __props__: tuple[str, ...] = ()
    gufunc_signature = "(m,m),(m,m)->(m,m)"
    name = ""

    def make_node(self, a: Any, q: Any) -> Apply:
        av = _square(a, self.name)
        qv = _square(q, f"{self.name} (q)")
        dt = np.result_type(av.type.dtype, qv.type.dtype).name
        av, qv = (cast(v, dt) if v.type.dtype != dt else v for v in (av, qv))
        shape = tuple(s if s is not None else t for s, t in zip(av.type.shape, qv.type.shape))
        return Apply(self, [av, qv], [TensorType(dt, shape)()])

    def _solve(self, a: Any, q: Any) -> Any:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, q = inputs
        if a.shape != q.shape or a.shape[0] != a.shape[1]:
            raise ValueError(f"{self.name}: a and q must be square matrices of one size, got "
                             f"shapes {a.shape} and {q.shape} ({describe(node.inputs[0])})")
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                x = self._solve(a, q)
            for w in caught:
                if issubclass(w.category, RuntimeWarning):
                    raise np.linalg.LinAlgError(str(w.message))
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        except np.linalg.LinAlgError as e:
            raise np.linalg.LinAlgError(
                f"{self}: the equation is singular for {describe(node.inputs[0])}: {e}"
            ) from e
        output_storage[0][0] = np.asarray(x, dtype=tensor_type(node.outputs[0]).dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[0])]


class SolveContinuousLyapunov(_Lyapunov):
    """``x`` with ``a x + x a^T = q`` (``scipy.linalg.solve_continuous_lyapunov``)."""

    name = "solve_continuous_lyapunov"

    def _solve(self, a: Any, q: Any) -> Any:
        import scipy.linalg

        return scipy.linalg.solve_continuous_lyapunov(a, q)

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        from theon.tensor.blas import matmul

        a, _ = inputs
        (x,) = outputs
        y = _apply(self, mT(a), output_grads[0])
        return [-(matmul(y, mT(x)) + matmul(mT(y), x)), y]

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list[Any]:
        from theon.tensor.blas import matmul

        a, q = inputs
        da, dq = eval_points
        if da is None and dq is None:
            return [None]
        x = _apply(self, a, q)
        rhs = dq if dq is not None else zeros_like(x)
        if da is not None:
            rhs = rhs - matmul(da, x) - matmul(x, mT(da))
        return [_apply(self, a, rhs)]

    def __str__(self) -> str:
        return "SolveContinuousLyapunov"


class SolveDiscreteLyapunov(_Lyapunov):
    """``x`` with ``a x a^T - x + q = 0`` (``scipy.linalg.solve_discrete_lyapunov``,
    ``method`` ``'direct'`` or ``'bilinear'``; None: SciPy's choice by size)."""

    __props__ = ("method",)
    name = "solve_discrete_lyapunov"

    def __init__(self, method: str | None = None) -> None:
        if method not in (None, "direct", "bilinear"):
            raise ValueError(f"solve_discrete_lyapunov: method must be None, 'direct' or "
                             f"'bilinear', got {method!r}")
        self.method = method

    def _solve(self, a: Any, q: Any) -> Any:
        import scipy.linalg

        return scipy.linalg.solve_discrete_lyapunov(a, q, method=self.method)

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        from theon.tensor.blas import matmul

        a, _ = inputs
        (x,) = outputs
        y = _apply(self, mT(a), output_grads[0])
        return [matmul(matmul(y, a), mT(x)) + matmul(matmul(mT(y), a), x), y]

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list[Any]:
        from theon.tensor.blas import matmul

        a, q = inputs
        da, dq = eval_points
        if da is None and dq is None:
            return [None]
        x = _apply(self, a, q)
        rhs = dq if dq is not None else zeros_like(x)
        if da is not None:
            rhs = rhs + matmul(matmul(da, x), mT(a)) + matmul(matmul(a, x), mT(da))
        return [_apply(self, a, rhs)]

    def __str__(self) -> str:
        return "SolveDiscreteLyapunov" + (f"{{{self.method}}}" if self.method else "")


def solve_continuous_lyapunov(a: Any, q: Any) -> TensorVariable:
    """The solution ``x`` of ``a @ x + x @ a.T = q``, like
    ``scipy.linalg.solve_continuous_lyapunov``; a ``LinAlgError`` when ``a`` and ``-a``
    share an eigenvalue (the equation is singular).

    >>> import theon.tensor as tt
    >>> a, q = tt.dmatrix("a"), tt.dmatrix("q")
    >>> solve_continuous_lyapunov(a, q).eval({a: [[1.0, 0.0], [0.0, 2.0]],
    ...                                       q: [[2.0, 0.0], [0.0, 8.0]]})
    array([[1., 0.],
           [0., 2.]])
    """
    x: TensorVariable = _apply(SolveContinuousLyapunov(), a, q)
    return x


def solve_discrete_lyapunov(a: Any, q: Any, method: str | None = None) -> TensorVariable:
    """The solution ``x`` of ``a @ x @ a.T - x + q = 0``, like
    ``scipy.linalg.solve_discrete_lyapunov``.

    >>> import theon.tensor as tt
    >>> a, q = tt.dmatrix("a"), tt.dmatrix("q")
    >>> solve_discrete_lyapunov(a, q).eval({a: [[0.5, 0.0], [0.0, 0.0]],
    ...                                     q: [[3.0, 0.0], [0.0, 1.0]]})
    array([[4., 0.],
           [0., 1.]])
    """
    x: TensorVariable = _apply(SolveDiscreteLyapunov(method), a, q)
    return x


register_vectorize(Expm, SolveContinuousLyapunov, SolveDiscreteLyapunov)(vectorize_blockwise)


# compositions -------------------------------------------------------------------------


def trace(x: Any, offset: int = 0) -> TensorVariable:
    """The sum of diagonal ``offset`` of the matrices in the last two axes, like
    ``numpy.linalg.trace`` (the same as ``numpy.trace`` for a matrix).

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> trace(m).eval({m: [[1.0, 2.0], [3.0, 4.0]]})
    array(5.)
    """
    v = as_tensor_variable(x)
    if v.type.ndim < 2:
        raise ValueError(f"trace: needs at least 2 dimensions, got {describe(v)}")
    total: TensorVariable = diagonal(v, offset, -2, -1).sum(axis=-1)
    return total


def kron(a: Any, b: Any) -> TensorVariable:
    """The Kronecker product, like ``numpy.kron`` (the inputs get leading axes of
    length 1 up to the same number of dimensions).

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dmatrix("b")
    >>> kron(a, b).eval({a: [[1.0, 2.0]], b: [[1.0], [10.0]]})
    array([[ 1.,  2.],
           [10., 20.]])
    """
    from theon.tensor.reshaping import reshape

    av, bv = as_tensor_variable(a), as_tensor_variable(b)
    nd = max(av.type.ndim, bv.type.ndim)
    if nd == 0:
        scalar: TensorVariable = av * bv
        return scalar
    av = av[(None,) * (nd - av.type.ndim)] if av.type.ndim < nd else av
    bv = bv[(None,) * (nd - bv.type.ndim)] if bv.type.ndim < nd else bv
    prod = av[tuple(x for _ in range(nd) for x in (slice(None), None))] * \
        bv[tuple(x for _ in range(nd) for x in (None, slice(None)))]
    shape = [av.shape[i] * bv.shape[i] for i in range(nd)]
    return reshape(prod, shape, ndim=nd)


def block_diag(*matrices: Any) -> TensorVariable:
    """The block-diagonal matrix of the given matrices, like ``scipy.linalg.block_diag``.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dmatrix("b")
    >>> block_diag(a, b).eval({a: [[1.0, 2.0]], b: [[3.0], [4.0]]})
    array([[1., 2., 0.],
           [0., 0., 3.],
           [0., 0., 4.]])
    """
    from theon.tensor.creation import zeros
    from theon.tensor.subtensor import set_subtensor

    if not matrices:
        raise ValueError("block_diag: needs at least one matrix")
    mats = [as_tensor_variable(m) for m in matrices]
    for m in mats:
        if m.type.ndim != 2:
            raise ValueError(f"block_diag: every input must be a matrix, got {describe(m)}")
    dtype = np.result_type(*[m.type.dtype for m in mats]).name
    rows: Any = 0
    cols: Any = 0
    for m in mats:
        rows, cols = rows + m.shape[0], cols + m.shape[1]
    out = zeros((rows, cols), dtype=dtype)
    r: Any = 0
    c: Any = 0
    for m in mats:
        r2, c2 = r + m.shape[0], c + m.shape[1]
        out = set_subtensor(out[r:r2, c:c2], cast(m, dtype) if m.type.dtype != dtype else m)
        r, c = r2, c2
    return out


def matrix_power(m: Any, n: int) -> TensorVariable:
    """``m`` raised to the integer power ``n``, like ``numpy.linalg.matrix_power``, by
    repeated squaring (``n < 0``: the power of the inverse).

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> matrix_power(m, 3).eval({m: [[1.0, 1.0], [0.0, 1.0]]})
    array([[1., 3.],
           [0., 1.]])
    """
    from theon.tensor.blas import matmul
    from theon.tensor.creation import eye

    if int(n) != n:
        raise TypeError(f"matrix_power: the exponent must be an integer, got {n!r}")
    n = int(n)
    mv = as_tensor_variable(m)
    if mv.type.ndim < 2:
        raise ValueError(f"matrix_power: needs a (batch of) square matrices, got {describe(mv)}")
    if n == 0:
        identity: TensorVariable = zeros_like(mv) + eye(mv.shape[-1], dtype=mv.type.dtype)
        return identity
    if n < 0:
        from theon.tensor.linalg.decomp import inv

        mv, n = inv(mv), -n
    result: TensorVariable | None = None
    base = mv
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    assert result is not None
    return result


# norms --------------------------------------------------------------------------------


def _vector_norm(x: TensorVariable, ord: Any, axis: int, keepdims: bool) -> TensorVariable:
    import theon.tensor.math as tm

    ax = abs(x) if x.type.dtype in float_dtypes else x
    out: TensorVariable
    if ord is None or ord == 2:
        out = tm.sqrt((x * x).sum(axis=axis, keepdims=keepdims))
    elif ord == np.inf:
        out = tm.max(ax, axis=axis, keepdims=keepdims)
    elif ord == -np.inf:
        out = tm.min(ax, axis=axis, keepdims=keepdims)
    elif ord == 0:
        out = cast(tm.neq(x, 0), x.type.dtype).sum(axis=axis, keepdims=keepdims)
    elif ord == 1:
        out = ax.sum(axis=axis, keepdims=keepdims)
    elif isinstance(ord, str):
        raise ValueError(f"norm: invalid order {ord!r} for a vector norm")
    else:
        p = float(ord)
        out = (ax ** p).sum(axis=axis, keepdims=keepdims) ** (1.0 / p)
    return out


def _matrix_norm(x: TensorVariable, ord: Any, axes: tuple[int, int],
                 keepdims: bool) -> TensorVariable:
    import theon.tensor.math as tm
    from theon.tensor.reshaping import expand_dims, transpose

    r, c = axes
    nd = x.type.ndim
    out: TensorVariable
    if ord in (2, -2, "nuc"):
        rest = [d for d in range(nd) if d not in (r, c)]
        s = svd(transpose(x, (*rest, r, c)), compute_uv=False)
        out = (s.max(axis=-1) if ord == 2 else s.min(axis=-1) if ord == -2
               else s.sum(axis=-1))
    elif ord in (None, "fro"):
        out = tm.sqrt((x * x).sum(axis=(r, c)))
    elif ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum of |x| (sum over rows); inf: the largest row sum
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        sums = abs(x).sum(axis=inner)
        outer -= outer > inner
        out = sums.max(axis=outer) if ord in (1, np.inf) else sums.min(axis=outer)
    else:
        raise ValueError(f"norm: invalid order {ord!r} for a matrix norm")
    if keepdims:
        out = expand_dims(out, tuple(sorted((r, c))))
    return out


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> TensorVariable:
    """A vector or matrix norm, like ``numpy.linalg.norm``.

    ``axis`` an integer: vector norms of ``ord`` None or 2, 1, inf, -inf, 0 (the number
    of non-zeros) or any ``p``; ``axis`` a pair: matrix norms of ``ord`` None or
    ``'fro'``, ``'nuc'``, 1, -1, 2, -2, inf, -inf; ``axis=None``: the vector norm of a
    1-d ``x``, the matrix norm of a 2-d ``x``, and with ``ord=None`` the 2-norm of
    all of ``x`` flattened.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> norm(x).eval({x: [[3.0, 0.0], [0.0, 4.0]]})
    array(5.)
    >>> norm(x, ord=1, axis=1).eval({x: [[3.0, -1.0], [0.0, 4.0]]})
    array([4., 4.])
    """
    from theon.tensor.reduction import normalize_axis
    from theon.tensor.reshaping import flatten, reshape

    v = as_tensor_variable(x)
    if v.type.dtype not in float_dtypes:
        v = cast(v, "float64")
    nd = v.type.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            out = _vector_norm(flatten(v), None, 0, False)
            return reshape(out, [1] * nd, ndim=nd) if keepdims else out
        if nd == 1:
            axis = 0
        elif nd == 2:
            axis = (0, 1)
        else:
            raise ValueError(f"norm: an order needs axis=None only for 1-d or 2-d input, got "
                             f"{describe(v)}")
    if isinstance(axis, (tuple, list)):
        if len(axis) == 1:
            axis = axis[0]
        elif len(axis) != 2:
            raise ValueError(f"norm: axis must be an integer or a pair, got {axis!r}")
    if isinstance(axis, (tuple, list)):
        r, c = (int(a) for a in axis)
        if not (-nd <= r < nd and -nd <= c < nd):
            raise ValueError(f"norm: axis {tuple(axis)} out of range for {describe(v)}")
        r, c = r % nd, c % nd
        if r == c:
            raise ValueError(f"norm: the two axes are both {r}")
        return _matrix_norm(v, ord, (r, c), keepdims)
    (ax,) = normalize_axis(int(axis), nd, "axis") or (0,)
    return _vector_norm(v, ord, ax, keepdims)

