"""Linear solves: ``solve``, ``solve_triangular``, ``cho_solve`` and ``lu_solve``; and
``TriMatMul``, the product with a triangular matrix the rewrites put in for ``dot``.

Each solves ``A x = b`` for a right-hand side ``b`` that is a vector (``b_ndim=1``,
core signature ``(m,m),(m)->(m)``) or a matrix of columns (``b_ndim=2``,
``(m,m),(m,n)->(m,n)``), batched over leading axes.  ``b_ndim`` defaults to ``b``'s
number of dimensions when that is 1 or 2, else 2 (a batch of matrices).

Gradients, with ``x = A^-1 b``: ``bbar = A^-T xbar`` (a solve with the transpose)
and ``Abar = -bbar x^T``, restricted to what the solver reads: the triangle of a
triangular ``A`` (without the diagonal when it is a unit diagonal), the three
diagonals of a tridiagonal one, and symmetrized, ``(Abar + Abar^T) / 2``, for a
symmetric / Hermitian / positive-definite one.  ``R_op``: ``dx = A^-1 (db - dA x)``.

A singular matrix (a zero pivot; for ``assume_a='pos'``, one not positive definite)
raises ``numpy.linalg.LinAlgError`` (NaN with ``on_error='nan'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.vectorize import register_vectorize
from theon.tensor.basic import as_tensor_variable
from theon.tensor.linalg._blas import trmm, trsm
from theon.tensor.linalg._common import (
    LinalgOp,
    apply_op,
    as_float,
    band_mask,
    band_part,
    check_square,
    float_dtype,
    mT,
    scipy_linalg,
    vectorize_linalg,
)
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "CholeskySolve",
    "LUSolve",
    "Solve",
    "SolveTriangular",
    "TriMatMul",
    "cho_solve",
    "lu_solve",
    "solve",
    "solve_triangular",
    "tri_matmul",
]

ASSUME_A = ("gen", "sym", "her", "pos", "tridiagonal")
_ASSUME_ALIASES = {"general": "gen", "symmetric": "sym", "hermitian": "her",
                   "positive definite": "pos", "tridiag": "tridiagonal"}


def _matmul(a: Any, b: Any) -> TensorVariable:
    from theon.tensor.blas import matmul

    return matmul(a, b)


def _default_b_ndim(b: Variable, b_ndim: int | None) -> int:
    if b_ndim is None:
        return 1 if tensor_type(b).ndim == 1 else 2
    return _check_b_ndim(b_ndim)


def _check_b_ndim(b_ndim: int) -> int:
    if b_ndim not in (1, 2):
        raise ValueError(f"b_ndim must be 1 or 2, got {b_ndim!r}")
    return int(b_ndim)


def _outer_like(bbar: Variable, x: Variable, b_ndim: int) -> TensorVariable:
    """``bbar x^T``: an outer product of vectors, or a product of matrices."""
    if b_ndim == 1:
        from theon.tensor.reshaping import expand_dims

        outer: TensorVariable = expand_dims(bbar, -1) * expand_dims(x, -2)
        return outer
    return _matmul(bbar, mT(x))


def _matvec_like(a: Variable, x: Variable, b_ndim: int) -> TensorVariable:
    """``a x`` for a vector ``x`` (``b_ndim=1``) or a matrix."""
    if b_ndim == 1:
        from theon.tensor.reshaping import expand_dims, squeeze

        return squeeze(_matmul(a, expand_dims(x, -1)), -1)
    return _matmul(a, x)


class _SolveBase(LinalgOp):
    """``make_node``, ``infer_shape`` and the checks shared by the solves of ``A x = b``."""

    b_ndim: int = 2
    what = "solve"

    def _signature(self) -> str:
        return "(m,m),(m)->(m)" if self.b_ndim == 1 else "(m,m),(m,n)->(m,n)"

    def make_node(self, a: Any, b: Any) -> Apply:
        av, bv = as_tensor_variable(a), as_tensor_variable(b)
        dt = float_dtype(av.type.dtype, bv.type.dtype)
        av, bv = as_float(av, dt), as_float(bv, dt)
        check_square(av, self.what)
        if bv.type.ndim != self.b_ndim:
            raise TypeError(f"{self.what}: b must have {self.b_ndim} dimension(s) "
                            f"(b_ndim={self.b_ndim}), got {describe(bv)}")
        m = av.type.shape[0] if av.type.shape[0] is not None else av.type.shape[1]
        bm = bv.type.shape[0]
        if m is not None and bm is not None and m != bm:
            raise ValueError(f"{self.what}: {describe(av)} and {describe(bv)} do not align")
        shape = (m if m is not None else bm, *bv.type.shape[1:])
        return Apply(self, [av, bv], [TensorType(dt, shape=shape)()])

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[1]]

    def _store(self, node: Apply, out: Any, output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.asarray(out, dtype=tensor_type(node.outputs[0]).dtype)

    def _failed(self, node: Apply, b: Any, output_storage: list[list[Any]],
                exc: Exception) -> None:
        self.raise_or_nan(node, [np.shape(b)], output_storage, exc, "the matrix is singular")


class Solve(_SolveBase):
    """``x`` with ``A x = b`` for a general, symmetric (``'sym'``), Hermitian
    (``'her'``), positive-definite (``'pos'``) or tridiagonal ``A``
    (``scipy.linalg.solve``; NumPy's LU solver for ``'gen'``).

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> Solve(b_ndim=1)(a, b).eval({a: [[2.0, 0.0], [0.0, 4.0]], b: [1.0, 1.0]})
    array([0.5 , 0.25])
    """

    __props__ = ("assume_a", "lower", "b_ndim", "on_error")

    def __init__(self, assume_a: str = "gen", lower: bool = False, b_ndim: int = 2,
                 on_error: str = "raise") -> None:
        assume_a = _ASSUME_ALIASES.get(assume_a, assume_a)
        if assume_a not in ASSUME_A:
            raise ValueError(f"assume_a must be one of {ASSUME_A}, got {assume_a!r}")
        self.assume_a = assume_a
        self.lower = bool(lower)
        self.b_ndim = _check_b_ndim(b_ndim)
        self._set_on_error(on_error)
        self.gufunc_signature = self._signature()

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        try:
            if self.assume_a == "gen":
                out = np.linalg.solve(a, b)
            else:
                out = scipy_linalg().solve(a, b, lower=self.lower, assume_a=self.assume_a,
                                           check_finite=False)
        except np.linalg.LinAlgError as exc:
            self._failed(node, b, output_storage, exc)
            return
        except ValueError as exc:  # scipy: a NaN in a tridiagonal matrix and the like
            if self.on_error != "nan":
                raise
            self._failed(node, b, output_storage, exc)
            return
        self._store(node, out, output_storage)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise, ``'gen'`` only); a singular block: None,
        run block by block."""
        if self.assume_a != "gen":
            return None
        a, b = inputs
        try:
            if self.b_ndim == 1:
                return [np.linalg.solve(a, b[..., None])[..., 0]]
            return [np.linalg.solve(a, b)]
        except np.linalg.LinAlgError:
            return None

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a, _), (x,), (gz,) = inputs, outputs, output_grads
        symmetric = self.assume_a in ("sym", "her", "pos")
        bbar = self(a if symmetric else mT(a), gz)
        abar = -_outer_like(bbar, x, self.b_ndim)
        if symmetric:
            abar = (abar + mT(abar)) * 0.5
        elif self.assume_a == "tridiagonal":
            at = as_tensor_variable(a)
            abar = abar * band_mask(at, 1, 1, at.dtype)  # (fused with the outer product)
        return [abar, bbar]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        a, b = inputs
        da, db = eval_points
        if da is None and db is None:
            return [None]
        x = self(a, b)
        rhs = db if da is None else (-_matvec_like(da, x, self.b_ndim) if db is None
                                     else db - _matvec_like(da, x, self.b_ndim))
        return [self(a, rhs)]


def solve(a: Any, b: Any, *, lower: bool = False, assume_a: str = "gen",
          check_finite: bool = False, b_ndim: int | None = None,
          on_error: str = "raise", transposed: bool = False) -> TensorVariable:
    """``x`` with ``a @ x = b`` (batched), like ``scipy.linalg.solve``.

    ``assume_a`` is ``'gen'`` (LU with pivoting), ``'sym'``, ``'her'``, ``'pos'``
    (Cholesky; reads the triangle ``lower`` says) or ``'tridiagonal'``.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> solve(a, b, assume_a="pos").eval({a: [[4.0, 0.0], [0.0, 2.0]], b: [2.0, 1.0]})
    array([0.5, 0.5])
    """
    b = as_tensor_variable(b)
    if transposed:
        a = mT(a)
    op = Solve(assume_a, lower, _default_b_ndim(b, b_ndim), on_error)
    x: TensorVariable = apply_op(op, a, b)
    return x


_TRI_BLOCK = 64


def check_diagonal(t: np.ndarray, unit: bool) -> None:
    """A LinAlgError naming the first zero on the diagonal(s) of ``t`` (none if ``unit``).

    >>> import numpy as np
    >>> check_diagonal(np.array([[1.0, 0.0], [2.0, 0.0]]), False)
    Traceback (most recent call last):
    ...
    numpy.linalg.LinAlgError: singular matrix: resolution failed at diagonal 1
    """
    if unit:
        return
    d = np.diagonal(t, axis1=-2, axis2=-1)
    zero = np.flatnonzero((d == 0).any(axis=tuple(range(d.ndim - 1))) if d.ndim > 1 else d == 0)
    if zero.size:
        raise np.linalg.LinAlgError(
            f"singular matrix: resolution failed at diagonal {int(zero[0])}")


def tri_solve(a: np.ndarray, b: np.ndarray, lower: bool, trans: int, unit: bool,
              b_ndim: int, overwrite_b: bool = False) -> np.ndarray:
    """``x`` with ``op(T) x = b`` (``T`` the ``lower`` or upper triangle of ``a``, its
    diagonal ones if ``unit``; ``op`` the transpose if ``trans``), over any leading batch
    axes.  Blocked substitution: ``x_i = T_ii^-1 (b_i - sum_j T_ij x_j)``, blocks of
    ``_TRI_BLOCK`` rows, on NumPy's BLAS (``matmul``) and LAPACK (``solve`` of each
    diagonal block); a single matrix goes to the ``trsm`` of NumPy's own OpenBLAS
    when :func:`~theon.tensor.linalg._blas.trsm` reaches it.  Using NumPy's BLAS alone
    keeps one thread pool: SciPy ships a second OpenBLAS, and two pools busy-waiting
    on few cores slow each other down (a 500 x 500 triangular solve took 6 ms between
    NumPy calls instead of 0.02).
    A zero on a used diagonal raises ``LinAlgError`` naming it.  With ``overwrite_b``,
    a single matrix may be solved in ``b``'s own buffer.

    >>> import numpy as np
    >>> tri_solve(np.array([[2.0, 9.0], [1.0, 1.0]]), np.array([2.0, 2.0]), True, 0, False, 1)
    array([1., 1.])
    """
    dt = np.result_type(a.dtype, b.dtype, np.float32)
    if a.ndim == 2:
        check_diagonal(a, unit)
        bm = b[:, None] if b_ndim == 1 else b
        x = trsm(a.astype(dt, copy=False), bm.astype(dt, copy=False), lower, bool(trans), unit,
                 overwrite_b)
        if x is not None:
            return x[:, 0] if b_ndim == 1 else x
    t = np.tril(a) if lower else np.triu(a)
    if trans:
        t = np.swapaxes(t, -1, -2)
        lower = not lower
    n = t.shape[-1]
    if unit:
        t[..., range(n), range(n)] = 1
    else:
        check_diagonal(t, unit)
    x = np.array(b[..., None] if b_ndim == 1 else b, dtype=dt)
    starts = range(0, n, _TRI_BLOCK)
    for i in starts if lower else reversed(starts):
        j = min(i + _TRI_BLOCK, n)
        if lower and i:
            x[..., i:j, :] -= t[..., i:j, :i] @ x[..., :i, :]
        elif not lower and j < n:
            x[..., i:j, :] -= t[..., i:j, j:] @ x[..., j:, :]
        x[..., i:j, :] = np.linalg.solve(t[..., i:j, i:j], x[..., i:j, :])
    return x[..., 0] if b_ndim == 1 else x


class SolveTriangular(_SolveBase):
    """``x`` with ``op(T) x = b`` for the triangle ``T`` of ``A`` (``lower`` or upper;
    its diagonal taken as ones with ``unit_diagonal``), ``op`` the transpose when
    ``trans=1`` (``scipy.linalg.solve_triangular``).

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> SolveTriangular(lower=True, b_ndim=1)(a, b).eval({a: [[2.0, 9.0], [1.0, 1.0]],
    ...                                                   b: [2.0, 2.0]})
    array([1., 1.])
    """

    __props__ = ("lower", "trans", "unit_diagonal", "b_ndim", "on_error", "inplace")
    what = "solve_triangular"
    #: the inplace phase sets ``inplace`` when ``b`` (input 1) is dead: the solution is
    #: then computed in ``b``'s buffer (theon.tensor.rewriting.inplace)
    inplace_flag = True
    inplace_input = 1

    def __init__(self, lower: bool = False, trans: int | str = 0, unit_diagonal: bool = False,
                 b_ndim: int = 2, on_error: str = "raise", inplace: bool = False) -> None:
        self._set_inplace(inplace)
        self.lower = bool(lower)
        code = {"N": 0, "T": 1, "C": 2}.get(trans, -1) if isinstance(trans, str) else trans
        if code not in (0, 1, 2):
            raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
        self.trans = code
        self.unit_diagonal = bool(unit_diagonal)
        self.b_ndim = _check_b_ndim(b_ndim)
        self._set_on_error(on_error)
        self.gufunc_signature = self._signature()

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        try:
            out = tri_solve(a, b, self.lower, self.trans, self.unit_diagonal, self.b_ndim,
                            overwrite_b=self.inplace)
        except np.linalg.LinAlgError as exc:
            self._failed(node, b, output_storage, exc)
            return
        self._store(node, out, output_storage)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise); a singular block: None, block by block."""
        a, b = inputs
        try:
            return [tri_solve(a, b, self.lower, self.trans, self.unit_diagonal, self.b_ndim)]
        except np.linalg.LinAlgError:
            return None

    def _band(self, x: Variable) -> TensorVariable:
        """``x`` on the triangle the solve reads (strict when the diagonal is unit), by
        :func:`band_part`: one pass, in place.  (A 0/1 mask built from ``arange`` and
        fused with the outer product that forms ``x`` cost a dozen integer and float
        steps an element, and ten more graph nodes to rewrite: ``gp_logp`` compiled
        1.5 to 2 ms faster without it.)  The rewrites of ``linalg.rewriting`` add
        gradients on one band before taking the band once."""
        off = -1 if self.unit_diagonal else 0
        return band_part(x, None, off) if self.lower else band_part(x, off, None)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a, _), (x,), (gz,) = inputs, outputs, output_grads
        back = SolveTriangular(self.lower, 1 - min(self.trans, 1), self.unit_diagonal,
                               self.b_ndim, self.on_error)
        bbar = back(a, gz)
        g = -_outer_like(bbar, x, self.b_ndim)  # the gradient wrt op(T)
        if self.trans:
            g = mT(g)
        return [self._band(g), bbar]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        a, b = inputs
        da, db = eval_points
        if da is None and db is None:
            return [None]
        x = self(a, b)
        if da is not None:
            dt = self._band(da)
            dax = _matvec_like(mT(dt) if self.trans else dt, x, self.b_ndim)
            rhs = -dax if db is None else db - dax
        else:
            rhs = db
        return [self(a, rhs)]


def solve_triangular(a: Any, b: Any, *, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, check_finite: bool = False,
                     b_ndim: int | None = None, on_error: str = "raise") -> TensorVariable:
    """``x`` with ``a @ x = b`` for a triangular ``a`` (batched), like
    ``scipy.linalg.solve_triangular``: only the triangle ``lower`` says is read.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> solve_triangular(a, b, lower=True).eval({a: [[1.0, 0.0], [1.0, 2.0]], b: [1.0, 3.0]})
    array([1., 1.])
    """
    b = as_tensor_variable(b)
    op = SolveTriangular(lower, trans, unit_diagonal, _default_b_ndim(b, b_ndim), on_error)
    x: TensorVariable = apply_op(op, a, b)
    return x


class TriMatMul(_SolveBase):
    """``T @ b`` for the ``lower`` (or upper) triangle ``T`` of the square ``a`` (the
    other triangle is not read): BLAS ``trmm``, half the multiply-adds of a general
    product.  ``linalg.rewriting.local_triangular_dot`` puts it in for ``dot(a, b)``
    where ``a`` is known to be triangular (a Cholesky factor or its transpose, as in
    the Cholesky gradient's ``L^T Lbar``).  With ``inplace`` (set by the inplace phase
    when ``b`` is dead) the product is written into ``b``.

    Gradients: ``abar = tri(gz b^T)``, ``bbar = T^T gz``.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrices("a", "b")
    >>> TriMatMul(lower=True)(a, b).eval({a: [[2.0, 9.0], [1.0, 1.0]], b: [[1.0], [1.0]]})
    array([[2.],
           [2.]])
    """

    __props__ = ("lower", "inplace")
    what = "tri_matmul"
    inplace_flag = True
    inplace_input = 1

    def __init__(self, lower: bool = True, inplace: bool = False) -> None:
        self.lower = bool(lower)
        self.b_ndim = 2
        self.gufunc_signature = self._signature()
        self._set_inplace(inplace)

    def _tri(self, a: Any) -> Any:
        return band_part(a, None, 0) if self.lower else band_part(a, 0, None)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        dt = tensor_type(node.outputs[0]).dtype
        out = trmm(a, b, self.lower, self.inplace) if a.dtype == b.dtype == dt else None
        if out is None:
            out = (np.tril(a) if self.lower else np.triu(a)) @ b
        self._store(node, out, output_storage)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise): ``matmul`` of the triangles."""
        a, b = inputs
        return [(np.tril(a) if self.lower else np.triu(a)) @ b]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (a, b), (gz,) = inputs, output_grads
        # T^T is the other triangle of a^T: a product with a triangular matrix again
        return [self._tri(_matmul(gz, mT(b))), tri_matmul(mT(a), gz, not self.lower)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (a, b), (da, db) = inputs, eval_points
        terms = []
        if da is not None:
            terms.append(_matmul(self._tri(da), b))
        if db is not None:
            terms.append(tri_matmul(a, db, self.lower))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


def tri_matmul(a: Any, b: Any, lower: bool = True) -> TensorVariable:
    """``tril(a) @ b`` (``lower``) or ``triu(a) @ b``, batched (:class:`TriMatMul`).

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrices("a", "b")
    >>> tri_matmul(a, b, lower=False).eval({a: [[2.0, 9.0], [1.0, 1.0]], b: [[1.0], [1.0]]})
    array([[11.],
           [ 1.]])
    """
    product: TensorVariable = apply_op(TriMatMul(lower), a, b)
    return product


class CholeskySolve(_SolveBase):
    """``x`` with ``(C C^T) x = b`` (``lower``) or ``(C^T C) x = b``, for a Cholesky
    factor ``C`` (``scipy.linalg.cho_solve``).

    >>> import theon.tensor as tt
    >>> c, b = tt.dmatrix("c"), tt.dvector("b")
    >>> CholeskySolve(lower=True, b_ndim=1)(c, b).eval({c: [[2.0, 0.0], [0.0, 1.0]],
    ...                                                 b: [4.0, 1.0]})
    array([1., 1.])
    """

    __props__ = ("lower", "b_ndim", "on_error")
    what = "cho_solve"

    def __init__(self, lower: bool = False, b_ndim: int = 2, on_error: str = "raise") -> None:
        self.lower = bool(lower)
        self.b_ndim = _check_b_ndim(b_ndim)
        self._set_on_error(on_error)
        self.gufunc_signature = self._signature()

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        c, b = inputs
        if not np.all(np.diagonal(c, axis1=-2, axis2=-1)):
            exc = np.linalg.LinAlgError("a zero on the factor's diagonal")
            self._failed(node, b, output_storage, exc)
            return
        out = scipy_linalg().cho_solve((c, self.lower), b, check_finite=False)
        self._store(node, out, output_storage)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (c, _), (x,), (gz,) = inputs, outputs, output_grads
        bbar = self(c, gz)
        abar = -_outer_like(bbar, x, self.b_ndim)
        s = abar + mT(abar)
        tri = self._triangle(c)
        if self.lower:  # A = C C^T: dA = dC C^T + C dC^T
            cbar = self._triangle(_matmul(s, tri))
        else:  # A = C^T C
            cbar = self._triangle(_matmul(tri, s))
        return [cbar, bbar]

    def _triangle(self, x: Variable) -> TensorVariable:
        """``x`` on the triangle of the factor the solve reads (diagonal included)."""
        return band_part(x, None, 0) if self.lower else band_part(x, 0, None)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """``dx = A^-1 (db - dA x)`` with ``dA = dC C^T + C dC^T`` (``C^T C``: transposed),
        ``C`` and ``dC`` the triangle the solve reads."""
        c, b = inputs
        dc, db = eval_points
        if dc is None and db is None:
            return [None]
        x = self(c, b)
        rhs = db
        if dc is not None:
            tri, dtri = self._triangle(c), self._triangle(dc)
            if self.lower:
                da = _matmul(dtri, mT(tri)) + _matmul(tri, mT(dtri))
            else:
                da = _matmul(mT(dtri), tri) + _matmul(mT(tri), dtri)
            dax = _matvec_like(da, x, self.b_ndim)
            rhs = -dax if db is None else db - dax
        return [self(c, rhs)]


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, *, check_finite: bool = False,
              b_ndim: int | None = None, on_error: str = "raise") -> TensorVariable:
    """``x`` with ``A @ x = b`` given the Cholesky factor of ``A`` as ``(c, lower)``
    (batched), like ``scipy.linalg.cho_solve``.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> from theon.tensor.linalg import cholesky
    >>> cho_solve((cholesky(a), True), b).eval({a: [[4.0, 0.0], [0.0, 1.0]], b: [4.0, 1.0]})
    array([1., 1.])
    """
    c, lower = c_and_lower
    b = as_tensor_variable(b)
    op = CholeskySolve(lower, _default_b_ndim(b, b_ndim), on_error)
    x: TensorVariable = apply_op(op, c, b)
    return x


class LUSolve(LinalgOp):
    """``x`` with ``A x = b`` (``trans=1``: ``A^T x = b``) from ``scipy.linalg.lu_factor``'s
    ``(LU, piv)`` (``scipy.linalg.lu_solve``).  Its gradient wrt ``b`` is a solve with
    the transpose; wrt the packed factors, that of the two triangular solves (the
    pivots are piecewise constant)."""

    __props__ = ("trans", "b_ndim", "on_error")

    def __init__(self, trans: int = 0, b_ndim: int = 2, on_error: str = "raise") -> None:
        self.trans = int(trans)
        if self.trans not in (0, 1):
            raise ValueError(f"trans must be 0 or 1, got {trans!r}")
        self.b_ndim = _check_b_ndim(b_ndim)
        self._set_on_error(on_error)
        self.gufunc_signature = ("(m,m),(m),(m)->(m)" if self.b_ndim == 1
                                 else "(m,m),(m),(m,n)->(m,n)")

    def make_node(self, packed: Any, piv: Any, b: Any) -> Apply:
        from theon.tensor.type import integer_dtypes

        node = _SolveBase.make_node(Solve(b_ndim=self.b_ndim), packed, b)
        pv = as_tensor_variable(piv)
        if pv.type.ndim != 1 or pv.type.dtype not in integer_dtypes:
            raise TypeError(f"lu_solve: the pivots must be an integer vector, got {describe(pv)}")
        a, b2 = node.inputs
        return Apply(self, [a, pv, b2], [node.outputs[0].type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        packed, piv, b = inputs
        if not np.all(np.diagonal(packed, axis1=-2, axis2=-1)):
            exc = np.linalg.LinAlgError("a zero pivot: the matrix is singular")
            self.raise_or_nan(node, [np.shape(b)], output_storage, exc, "the matrix is singular")
            return
        out = scipy_linalg().lu_solve((packed, piv), b, trans=self.trans, check_finite=False)
        output_storage[0][0] = np.asarray(out, dtype=tensor_type(node.outputs[0]).dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[2]]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.linalg.decomp import pivot_matrix, split_packed

        packed, piv, _ = inputs
        x, gz = as_tensor_variable(outputs[0]), as_tensor_variable(output_grads[0])
        bbar = LUSolve(1 - self.trans, self.b_ndim, self.on_error)(packed, piv, gz)
        dt = tensor_type(packed).dtype
        lower, upper = split_packed(packed)
        p = pivot_matrix(piv, dt)
        xm, gm, bm = (v if self.b_ndim == 2 else v[..., :, None] for v in (x, gz, bbar))
        if self.trans == 0:
            # x = U^-1 y, y = L^-1 P^T b: Ubar = -triu(ybar x^T), Lbar = -tril(cbar y^T)
            y = _matmul(upper, xm)
            ybar = solve_triangular(upper, gm, lower=False, trans=1, b_ndim=2)
            cbar = _matmul(mT(p), bm)  # L^-T ybar (= P^T bbar)
            lbar, ubar = _matmul(cbar, mT(y)), _matmul(ybar, mT(xm))
        else:
            # x = P z, z = L^-T y, y = U^-T b: Lbar = -tril(z ybar^T), Ubar = -triu(y bbar^T)
            z = _matmul(mT(p), xm)
            y = _matmul(mT(lower), z)
            ybar = solve_triangular(lower, _matmul(mT(p), gm), lower=True, unit_diagonal=True,
                                    b_ndim=2)
            lbar, ubar = _matmul(z, mT(ybar)), _matmul(y, mT(bm))
        packed_bar = -(band_part(lbar, None, -1) + band_part(ubar, 0, None))
        return [packed_bar, disconnected_type(), bbar]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """``dx = op(A)^-1 (db - op(dA) x)`` with ``A = P L U`` and ``dA = P (dL U + L dU)``,
        ``dL``/``dU`` the strict lower and the upper triangle of the packed direction."""
        from theon.tensor.linalg.decomp import pivot_matrix, split_packed

        packed, piv, b = inputs
        dpacked, _, db = eval_points
        if dpacked is None and db is None:
            return [None]
        x = self(packed, piv, b)
        rhs = db
        if dpacked is not None:
            dt = tensor_type(packed).dtype
            lower, upper = split_packed(packed)
            dl = band_part(dpacked, None, -1)
            du = band_part(dpacked, 0, None)
            da = _matmul(pivot_matrix(piv, dt), _matmul(dl, upper) + _matmul(lower, du))
            dax = _matvec_like(mT(da) if self.trans else da, x, self.b_ndim)
            rhs = -dax if db is None else db - dax
        return [self(packed, piv, rhs)]


def lu_solve(lu_and_piv: tuple[Any, Any], b: Any, trans: int = 0, *,
             check_finite: bool = False, b_ndim: int | None = None,
             on_error: str = "raise") -> TensorVariable:
    """``x`` with ``A @ x = b`` from ``lu_factor(A)`` (batched), like
    ``scipy.linalg.lu_solve``.

    >>> import theon.tensor as tt
    >>> from theon.tensor.linalg import lu_factor
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> lu_solve(lu_factor(a), b).eval({a: [[0.0, 2.0], [1.0, 0.0]], b: [2.0, 1.0]})
    array([1., 1.])
    """
    packed, piv = lu_and_piv
    b = as_tensor_variable(b)
    op = LUSolve(trans, _default_b_ndim(b, b_ndim), on_error)
    x: TensorVariable = apply_op(op, packed, piv, b, keep=(1,))
    return x


register_vectorize(Solve, SolveTriangular, CholeskySolve, LUSolve, TriMatMul)(vectorize_linalg)
