"""Decompositions and their scalars: ``cholesky``, ``lu``, ``lu_factor``, ``inv``, ``pinv``,
``det`` and ``slogdet``.

Each is an Op on one matrix (``gufunc_signature``), batched over leading axes, with
``infer_shape``, a gradient and, where standard, ``R_op``.

Gradients (``A`` the input, a bar the gradient of a scalar cost):

- ``L = cholesky(A)``: ``Abar = sym(L^-T Phi(L^T Lbar) L^-1)``, ``Phi`` the lower
  triangle with the diagonal halved and ``sym(X) = (X + X^T) / 2`` (the gradient
  with respect to a symmetric ``A``; only one triangle of it is read), computed
  blocked by :class:`~theon.tensor.linalg.chol_grad.CholeskyGrad`.
- ``X = inv(A)``: ``Abar = -X^T Xbar X^T``.
- ``X = pinv(A)``: ``Abar = -X^T Xbar X^T + (I - A X) Xbar^T X X^T + X^T X Xbar^T (I - X A)``
  (Golub and Pereyra; valid where the rank does not change).
- ``d = det(A)``: ``Abar = dbar d A^-T``; ``slogdet``: ``Abar = logbar A^-T``.
- ``P, L, U = lu(A)`` (square): ``Abar = P L^-T (tril(L^T Lbar, -1) + triu(Ubar U^T)) U^-T``.
- ``LU, piv = lu_factor(A)``: the ``lu`` rule with ``Lbar``, ``Ubar`` the strict lower
  and the upper triangle of ``LUbar`` and ``P`` the permutation of the pivots (which
  are piecewise constant: no gradient flows through them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import grad_not_implemented
from theon.graph.op import Op
from theon.graph.vectorize import register_vectorize
from theon.tensor.basic import as_tensor_variable
from theon.tensor.linalg._blas import potrf
from theon.tensor.linalg._common import (
    LinalgOp,
    apply_op,
    as_float,
    band_mask,
    band_masks,
    band_part,
    check_matrix,
    check_square,
    float_dtype,
    mT,
    scipy_linalg,
    vectorize_linalg,
)
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "LU",
    "Cholesky",
    "Det",
    "LUFactor",
    "MatrixInverse",
    "PivotMatrix",
    "MatrixPinv",
    "SLogDet",
    "cholesky",
    "det",
    "inv",
    "lu",
    "lu_factor",
    "matrix_inverse",
    "pinv",
    "pivot_matrix",
    "slogdet",
    "split_packed",
]


def _matmul(a: Any, b: Any) -> TensorVariable:
    from theon.tensor.blas import matmul

    return matmul(a, b)


def _expand2(x: Any) -> TensorVariable:
    """``x[..., None, None]``."""
    from theon.tensor.reshaping import expand_dims

    return expand_dims(x, (-2, -1))


def _tsolve(a: Any, b: Any, **kw: Any) -> TensorVariable:
    from theon.tensor.linalg.solvers import solve_triangular

    return solve_triangular(a, b, b_ndim=2, **kw)


# cholesky ---------------------------------------------------------------------------------
class Cholesky(LinalgOp):
    """The Cholesky factor of a symmetric positive-definite matrix: ``A = L L^T``
    (``lower=True``) or ``A = U^T U``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> Cholesky()(a).eval({a: [[4.0, 2.0], [2.0, 2.0]]})
    array([[2., 0.],
           [1., 1.]])
    """

    __props__ = ("lower", "on_error", "inplace")
    gufunc_signature = "(m,m)->(m,m)"
    #: the inplace phase sets ``inplace`` when ``A`` is dead: the factor is then
    #: computed in ``A``'s buffer (theon.tensor.rewriting.inplace)
    inplace_flag = True

    def __init__(self, lower: bool = True, on_error: str = "raise", inplace: bool = False
                 ) -> None:
        self.lower = bool(lower)
        self._set_on_error(on_error)
        self._set_inplace(inplace)

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_square(x, "cholesky")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        dtype = tensor_type(node.outputs[0]).dtype
        try:
            out = potrf(a, self.lower, self.inplace) if a.dtype == dtype else None
            if out is not None:  # zero the triangle LAPACK did not write
                drop = band_masks(out.shape[0], out.shape[1], *((None, 0) if self.lower
                                                                else (0, None)))[1]
                np.copyto(out, 0, where=drop)
            else:  # the upper factor of A is the conjugate transpose of the lower one of A^T
                out = np.linalg.cholesky(a if self.lower else np.swapaxes(a, -1, -2))
                if not self.lower:
                    out = np.swapaxes(out, -1, -2).conj()
        except np.linalg.LinAlgError as exc:
            self.raise_or_nan(node, [a.shape], output_storage, exc,
                              "the matrix is not positive definite")
            return
        output_storage[0][0] = np.asarray(out, dtype=dtype)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise); a failing block: None, run block by block."""
        (a,) = inputs
        try:
            out = np.linalg.cholesky(a if self.lower else np.swapaxes(a, -1, -2))
        except np.linalg.LinAlgError:
            return None
        return [out if self.lower else np.swapaxes(out, -1, -2).conj()]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[0]]

    def matrix_structure(self, node: Apply) -> list[frozenset[str]]:
        """The output is lower (or upper) triangular (see ``linalg.rewriting.structure``)."""
        return [frozenset({"lower" if self.lower else "upper"})]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.linalg.chol_grad import cholesky_grad

        return [cholesky_grad(outputs[0], output_grads[0], self.lower, self.on_error)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (da,) = eval_points
        if da is None:
            return [None]
        out = self(*inputs)
        L = out if self.lower else mT(out)
        x = _tsolve(L, da, lower=True)  # L^-1 dA
        z = mT(_tsolve(L, mT(x), lower=True))  # L^-1 dA L^-T
        dl = _matmul(L, band_part(z, None, 0, 0.5))
        return [dl if self.lower else mT(dl)]


def cholesky(x: Any, lower: bool = True, *, on_error: str = "raise",
             check_finite: bool = False) -> TensorVariable:
    """The Cholesky factor of the symmetric positive-definite ``x`` (batched).

    ``lower=True`` gives ``L`` with ``x = L @ L.T``, else ``U`` with ``x = U.T @ U``.
    Only that triangle of ``x`` is read (as ``scipy.linalg.cholesky`` does).  A matrix
    that is not positive definite raises ``numpy.linalg.LinAlgError``, or gives NaN
    with ``on_error='nan'``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> cholesky(a, lower=False).eval({a: [[4.0, 2.0], [2.0, 2.0]]})
    array([[2., 1.],
           [0., 1.]])
    """
    factor: TensorVariable = apply_op(Cholesky(lower, on_error), x)
    return factor


# inv, pinv --------------------------------------------------------------------------------
class MatrixInverse(LinalgOp):
    """The inverse of a square matrix (``numpy.linalg.inv``).

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> MatrixInverse()(a).eval({a: [[2.0, 0.0], [0.0, 4.0]]})
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """

    __props__ = ("on_error",)
    gufunc_signature = "(m,m)->(m,m)"

    def __init__(self, on_error: str = "raise") -> None:
        self._set_on_error(on_error)

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_square(x, "inv")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        try:
            out = np.linalg.inv(a)
        except np.linalg.LinAlgError as exc:
            self.raise_or_nan(node, [a.shape], output_storage, exc, "the matrix is singular")
            return
        output_storage[0][0] = np.asarray(out, dtype=tensor_type(node.outputs[0]).dtype)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise); a singular block: None, run block by block."""
        try:
            return [np.linalg.inv(inputs[0])]
        except np.linalg.LinAlgError:
            return None

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[0]]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (x,), (gz,) = outputs, output_grads
        xt = mT(x)
        return [-_matmul(_matmul(xt, gz), xt)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (da,) = eval_points
        if da is None:
            return [None]
        x = self(*inputs)
        return [-_matmul(_matmul(x, da), x)]


def _float_input(a: Any) -> TensorVariable:
    v = as_tensor_variable(a)
    return as_float(v, float_dtype(v.type.dtype))


def inv(a: Any, *, on_error: str = "raise") -> TensorVariable:
    """The inverse of the square matrix ``a`` (batched), like ``numpy.linalg.inv``.

    A singular ``a`` raises ``numpy.linalg.LinAlgError`` (NaN with ``on_error='nan'``).

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> inv(a).eval({a: [[1.0, 1.0], [0.0, 1.0]]})
    array([[ 1., -1.],
           [ 0.,  1.]])
    """
    out: TensorVariable = apply_op(MatrixInverse(on_error), a)
    return out


matrix_inverse = inv


class MatrixPinv(LinalgOp):
    """The Moore-Penrose pseudo-inverse (``numpy.linalg.pinv``).

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> MatrixPinv()(a).eval({a: [[2.0], [0.0]]})
    array([[0.5, 0. ]])
    """

    __props__ = ("hermitian",)
    gufunc_signature = "(m,n)->(n,m)"

    def __init__(self, hermitian: bool = False) -> None:
        self.hermitian = bool(hermitian)

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_matrix(x, "pinv")
        m, n = x.type.shape
        return Apply(self, [x], [TensorType(x.type.dtype, shape=(n, m))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        out = np.linalg.pinv(inputs[0], hermitian=self.hermitian)
        output_storage[0][0] = np.asarray(out, dtype=tensor_type(node.outputs[0]).dtype)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise)."""
        return [np.linalg.pinv(inputs[0], hermitian=self.hermitian)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        m, n = input_shapes[0]
        return [(n, m)]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.creation import eye

        a, (x,), (gz,) = as_tensor_variable(inputs[0]), outputs, output_grads
        dt = a.dtype
        xt, gt = mT(x), mT(gz)
        i_ax = eye(a.shape[-2], dtype=dt) - _matmul(a, x)
        i_xa = eye(a.shape[-1], dtype=dt) - _matmul(x, a)
        term1 = -_matmul(_matmul(xt, gz), xt)
        term2 = _matmul(_matmul(i_ax, gt), _matmul(x, xt))
        term3 = _matmul(_matmul(xt, x), _matmul(gt, i_xa))
        return [term1 + term2 + term3]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """``dX = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X`` (Golub and
        Pereyra; where the rank does not change)."""
        from theon.tensor.creation import eye

        a, (da,) = as_tensor_variable(inputs[0]), eval_points
        if da is None:
            return [None]
        x = self(a)
        dt = a.dtype
        xt, dat = mT(x), mT(da)
        i_ax = eye(a.shape[-2], dtype=dt) - _matmul(a, x)
        i_xa = eye(a.shape[-1], dtype=dt) - _matmul(x, a)
        term1 = -_matmul(_matmul(x, da), x)
        term2 = _matmul(_matmul(x, xt), _matmul(dat, i_ax))
        term3 = _matmul(_matmul(i_xa, dat), _matmul(xt, x))
        return [term1 + term2 + term3]


def pinv(a: Any, hermitian: bool = False) -> TensorVariable:
    """The Moore-Penrose pseudo-inverse of ``a`` (batched), like ``numpy.linalg.pinv``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> pinv(a).eval({a: [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]})
    array([[1. , 0. , 0. ],
           [0. , 0.5, 0. ]])
    """
    out: TensorVariable = apply_op(MatrixPinv(hermitian), a)
    return out


# det, slogdet -----------------------------------------------------------------------------
class Det(LinalgOp):
    """The determinant of a square matrix (``numpy.linalg.det``); 0 for a singular one.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> round(float(Det()(a).eval({a: [[2.0, 1.0], [1.0, 3.0]]})), 12)
    5.0
    """

    gufunc_signature = "(m,m)->()"

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_square(x, "det")
        return Apply(self, [x], [TensorType(x.type.dtype, shape=())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.asarray(np.linalg.det(inputs[0]),
                                          dtype=tensor_type(node.outputs[0]).dtype)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise)."""
        return [np.linalg.det(inputs[0])]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [()]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a,), (d,), (gz,) = inputs, outputs, output_grads
        return [_expand2(as_tensor_variable(gz) * d) * mT(inv(a))]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        from theon.tensor.math import sum as tsum

        (a,), (da,) = inputs, eval_points
        if da is None:
            return [None]
        return [self(a) * tsum(mT(inv(a)) * da, axis=(-2, -1))]


def det(a: Any) -> TensorVariable:
    """The determinant of the square matrix ``a`` (batched), like ``numpy.linalg.det``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> float(det(a).eval({a: [[1.0, 2.0], [3.0, 4.0]]}).round(12))
    -2.0
    """
    out: TensorVariable = apply_op(Det(), a)
    return out


class SLogDet(LinalgOp):
    """``(sign, log|det|)`` of a square matrix (``numpy.linalg.slogdet``).

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> [float(v) for v in SLogDet()(a)[0].eval({a: [[-2.0, 0.0], [0.0, 1.0]]}).ravel()]
    [-1.0]
    """

    gufunc_signature = "(m,m)->(),()"

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_square(x, "slogdet")
        t = TensorType(x.type.dtype, shape=())
        return Apply(self, [x], [t(), t()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        sign, logdet = np.linalg.slogdet(inputs[0])
        dtype = tensor_type(node.outputs[0]).dtype
        output_storage[0][0] = np.asarray(sign, dtype=dtype)
        output_storage[1][0] = np.asarray(logdet, dtype=dtype)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise)."""
        return list(np.linalg.slogdet(inputs[0]))

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [(), ()]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a,), (_, glog) = inputs, output_grads
        return [_expand2(glog) * mT(inv(a))]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        from theon.tensor.math import sum as tsum
        from theon.tensor.math import zeros_like

        (a,), (da,) = inputs, eval_points
        if da is None:
            return [None, None]
        sign, _ = self(a)
        return [zeros_like(sign), tsum(mT(inv(a)) * da, axis=(-2, -1))]


def slogdet(a: Any) -> tuple[TensorVariable, TensorVariable]:
    """``(sign, log|det(a)|)`` of the square matrix ``a`` (batched), like
    ``numpy.linalg.slogdet``: ``det(a) = sign * exp(logabsdet)`` without overflow.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> sign, logabsdet = slogdet(a)
    >>> float(logabsdet.eval({a: [[1e200, 0.0], [0.0, 1e200]]}).round(6))
    921.034037
    """
    sign, logdet = apply_op(SLogDet(), a)
    return sign, logdet


# lu, lu_factor ----------------------------------------------------------------------------
class LU(LinalgOp):
    """The pivoted LU decomposition ``A = P L U`` (``scipy.linalg.lu``).

    Outputs ``(P, L, U)``; ``(P @ L, U)`` with ``permute_l``; ``(p, L, U)`` with
    ``p_indices`` (``A = L[p] @ U``).  ``L`` is ``(m, k)`` with a unit diagonal and
    ``U`` is ``(k, n)``, ``k = min(m, n)``.
    """

    __props__ = ("permute_l", "p_indices")

    def __init__(self, permute_l: bool = False, p_indices: bool = False) -> None:
        self.permute_l = bool(permute_l)
        self.p_indices = bool(p_indices)
        if self.permute_l:
            self.gufunc_signature = "(m,n)->(m,k),(k,n)"
        elif self.p_indices:
            self.gufunc_signature = "(m,n)->(m),(m,k),(k,n)"
        else:
            self.gufunc_signature = "(m,n)->(m,m),(m,k),(k,n)"

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_matrix(x, "lu")
        m, n = x.type.shape
        k = None if m is None or n is None else min(m, n)
        dt = x.type.dtype
        outs = [TensorType(dt, shape=(m, k))(), TensorType(dt, shape=(k, n))()]
        if self.p_indices:
            outs.insert(0, TensorType("int64", shape=(m,))())
        elif not self.permute_l:
            outs.insert(0, TensorType(dt, shape=(m, m))())
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        res = scipy_linalg().lu(inputs[0], permute_l=self.permute_l, check_finite=False,
                                p_indices=self.p_indices)
        for out, cell, val in zip(node.outputs, output_storage, res):
            cell[0] = np.asarray(val, dtype=tensor_type(out).dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.math import minimum

        m, n = input_shapes[0]
        k = minimum(m, n)
        shapes: list[Any] = [(m, k), (k, n)]
        if self.p_indices:
            shapes.insert(0, (m,))
        elif not self.permute_l:
            shapes.insert(0, (m, m))
        return shapes

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a,) = inputs
        m, n = tensor_type(a).shape[-2:]
        if self.permute_l or (m is not None and n is not None and m != n):
            return [grad_not_implemented(
                self, 0, a, "lu's gradient needs a square matrix and permute_l=False")]
        perm, L, U = outputs
        _, lbar, ubar = output_grads
        z = _lu_backward(L, U, lbar, ubar)
        if self.p_indices:
            return [z[perm]]
        return [_matmul(perm, z)]


def lu(a: Any, permute_l: bool = False, check_finite: bool = False,
       p_indices: bool = False) -> Any:
    """The pivoted LU decomposition of ``a`` (batched), like ``scipy.linalg.lu``:
    ``(P, L, U)`` with ``a = P @ L @ U``; ``(P @ L, U)`` with ``permute_l``;
    ``(p, L, U)`` with ``a = L[p] @ U`` with ``p_indices``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> P, L, U = lu(a)
    >>> U.eval({a: [[1.0, 2.0], [2.0, 2.0]]})
    array([[2., 2.],
           [0., 1.]])
    """
    return apply_op(LU(permute_l, p_indices), a)


def _lu_backward(L: Variable, U: Variable, lbar: Variable, ubar: Variable) -> TensorVariable:
    """``L^-T (tril(L^T Lbar, -1) + triu(Ubar U^T)) U^-T``: the gradient of ``L U``'s
    input with respect to its unpivoted product (``lu`` and ``lu_factor`` then apply P)."""
    g = band_part(_matmul(mT(L), lbar), None, -1) + band_part(_matmul(ubar, mT(U)), 0, None)
    y = _tsolve(L, g, lower=True, trans=1, unit_diagonal=True)  # L^-T G
    return mT(_tsolve(U, mT(y), lower=False))  # L^-T G U^-T


def split_packed(packed: Variable) -> tuple[TensorVariable, TensorVariable]:
    """``(L, U)`` from ``lu_factor``'s packed ``LU``: ``L`` with a unit diagonal."""
    v = as_tensor_variable(packed)
    lower = band_part(v, None, -1) + band_mask(v, 0, 0, v.dtype)
    return lower, band_part(packed, 0, None)


class PivotMatrix(Op):
    """The permutation matrix ``P`` of LAPACK's pivots (``A = P L U``): row ``i`` was
    swapped with row ``piv[i]``, in order.  Its gradient is disconnected (integers)."""

    __props__ = ("dtype",)
    gufunc_signature = "(m)->(m,m)"

    def __init__(self, dtype: str) -> None:
        self.dtype = str(dtype)

    def make_node(self, piv: Any) -> Apply:
        from theon.tensor.type import integer_dtypes

        v = as_tensor_variable(piv)
        if v.type.ndim != 1 or v.type.dtype not in integer_dtypes:
            raise TypeError(f"PivotMatrix: needs an integer vector, got {v.type}")
        m = v.type.shape[0]
        return Apply(self, [v], [TensorType(self.dtype, shape=(m, m))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (piv,) = inputs
        perm = np.arange(len(piv))
        for i, j in enumerate(piv.tolist()):
            perm[i], perm[j] = perm[j], perm[i]
        p = np.zeros((len(piv), len(piv)), dtype=self.dtype)
        p[perm, np.arange(len(piv))] = 1  # P^T A = A[perm]
        output_storage[0][0] = p

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        (m,) = input_shapes[0]
        return [(m, m)]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.graph.null_type import disconnected_type

        return [disconnected_type()]


def pivot_matrix(piv: Any, dtype: str) -> TensorVariable:
    """``P`` with ``A = P @ L @ U`` from ``lu_factor``'s pivots (batched).

    >>> import theon.tensor as tt
    >>> p = tt.ivector("p")
    >>> pivot_matrix(p, "float64").eval({p: [1, 1]}).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    from theon.tensor.blockwise import Blockwise

    out: TensorVariable = Blockwise(PivotMatrix(dtype))(piv)
    return out


class LUFactor(LinalgOp):
    """``scipy.linalg.lu_factor``: the packed factors ``LU`` and the pivots ``piv``
    (``int32``: row ``i`` was swapped with row ``piv[i]``).  Differentiable through
    ``LU`` (the pivots are piecewise constant)."""

    gufunc_signature = "(m,m)->(m,m),(m)"

    def make_node(self, a: Any) -> Apply:
        x = _float_input(a)
        check_square(x, "lu_factor")
        m = x.type.shape[0]
        return Apply(self, [x], [x.type(), TensorType("int32", shape=(m,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        import warnings

        with warnings.catch_warnings():  # a zero pivot is lu_solve's error, not ours
            warnings.simplefilter("ignore")
            packed, piv = scipy_linalg().lu_factor(inputs[0], check_finite=False)
        output_storage[0][0] = np.asarray(packed, dtype=tensor_type(node.outputs[0]).dtype)
        output_storage[1][0] = np.asarray(piv, dtype="int32")

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        (m, _) = input_shapes[0]
        return [input_shapes[0], (m,)]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a,) = inputs
        packed, piv = outputs
        lower, upper = split_packed(packed)
        # LUbar's strict lower triangle is Lbar, its upper one Ubar; each passes whole:
        # tril(L^T X, -1) reads only X's strict lower part, triu(X U^T) only its upper
        z = _lu_backward(lower, upper, output_grads[0], output_grads[0])
        return [_matmul(pivot_matrix(piv, tensor_type(a).dtype), z)]


def lu_factor(a: Any, check_finite: bool = False) -> tuple[TensorVariable, TensorVariable]:
    """``(LU, piv)`` of the square matrix ``a`` (batched), like ``scipy.linalg.lu_factor``;
    pass them to :func:`lu_solve`.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> packed, piv = lu_factor(a)
    >>> piv.eval({a: [[1.0, 2.0], [2.0, 2.0]]}).tolist()
    [1, 1]
    """
    packed, piv = apply_op(LUFactor(), a)
    return packed, piv


register_vectorize(Cholesky, MatrixInverse, MatrixPinv, Det, SLogDet, LU, LUFactor, PivotMatrix)(
    vectorize_linalg)
