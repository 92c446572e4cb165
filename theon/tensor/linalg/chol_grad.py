"""The gradient of the Cholesky factorization as one Op, computed block by block.

For ``A = L L^T`` (``L`` lower triangular) and the gradient ``Lbar`` of a cost with
respect to ``L``, the gradient with respect to the symmetric ``A`` is

    ``Abar = sym(L^-T Phi(L^T Lbar) L^-1)``,

``Phi`` the lower triangle with the diagonal halved and ``sym(X) = (X + X^T) / 2``
(Murray, "Differentiation of the Cholesky decomposition", 2016).  Written so, it is
one triangular product and two triangular solves with ``n`` right-hand sides: about
``3 n^3`` multiply-adds, each pass over a full ``n x n`` temporary.

:func:`blocked_cholesky_grad` gets the same result by running the blocked Cholesky algorithm
backwards (Murray's blocked reverse mode), which costs about ``n^3 / 3``
multiply-adds, nearly all of them in large matrix products.  The forward algorithm
takes the rows in blocks ``J`` of :data:`BLOCK`; with ``K`` the rows below ``J``,
``R = L[J, :j]`` and ``B = L[K, :j]`` the factor's columns left of the block,

    ``D = chol(A[J, J] - R R^T)``,  ``C = (A[K, J] - B R^T) D^-T``

are the diagonal block and the block column below it.  Backwards, the blocks taken
in reverse order and ``G`` starting as the lower triangle of ``Lbar``:

- ``M = G[K, J] D^-1`` is the gradient with respect to ``A[K, J]``;
- ``G[K, :j] -= M R``, ``G[J, :j] -= M^T B`` and ``G[J, J] -= M^T C`` (the product
  ``B R^T`` and ``C``'s dependence on ``D``);
- ``S = sym(D^-T Phi(D^T G[J, J]) D^-1)`` (the formula above, on the small block) is
  the gradient with respect to the symmetric ``A[J, J] - R R^T``, so
  ``G[J, :j] -= 2 S R`` and ``G[J, J]`` becomes ``S`` as the gradient of a lower
  triangle (the entries below the diagonal doubled).

Then ``Abar = (G + G^T) / 2``, which is written block by block as the blocks become
final (no pass over the whole matrix).  The small blocks use ``D^-1`` (one triangular solve
of the block) and matrix products; a matrix of at most :data:`BLOCK` rows is that
small block alone.

The Op's own derivatives (second derivatives of ``cholesky``) are closed forms of
triangular solves and products (:meth:`CholeskyGrad.L_op`, :meth:`CholeskyGrad.R_op`).

>>> import numpy as np
>>> L = np.linalg.cholesky(np.diag([4.0, 16.0]))
>>> blocked_cholesky_grad(L, np.eye(2))  # d trace(L) / dA: 1 / (2 sqrt(a_ii))
array([[0.25 , 0.   ],
       [0.   , 0.125]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.vectorize import register_vectorize
from theon.tensor.basic import as_tensor_variable
from theon.tensor.linalg._blas import gemm_update, trsm
from theon.tensor.linalg._common import (
    LinalgOp,
    apply_op,
    band_part,
    check_square,
    float_dtype,
    mT,
    vectorize_linalg,
)
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "BLOCK",
    "CholeskyGrad",
    "blocked_cholesky_grad",
    "cholesky_grad",
]

#: rows of a block of :func:`blocked_cholesky_grad` (64 to 128 were fastest for 500 x 500)
BLOCK = 64


def _mt(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def _masks(m: int, dtype: np.dtype[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The ``m x m`` lower-triangular 0/1 mask (a product with it is a faster ``tril``)
    and the same with its diagonal halved (``Phi``); their top-left corners are the
    masks of a smaller block."""
    tri = np.tri(m, dtype=dtype)
    return tri, tri - np.eye(m, dtype=dtype) * dtype.type(0.5)


def _sym_block(d: np.ndarray, dinv: np.ndarray, dbar: np.ndarray,
               masks: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``sym(D^-T Phi(D^T tril(dbar)) D^-1)`` for the lower triangle ``D`` of ``d``
    (``dinv`` its inverse), over any leading axes; ``masks`` from :func:`_masks`."""
    m = d.shape[-1]
    tri, phi_mask = masks[0][:m, :m], masks[1][:m, :m]
    phi = (_mt(d * tri) @ (dbar * tri)) * phi_mask
    s: np.ndarray = _mt(dinv) @ phi @ dinv
    s += _mt(s)  # (NumPy buffers the overlapping transpose)
    s *= s.dtype.type(0.5)
    return s


def _update(c: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float) -> None:
    """``c += alpha a b`` in ``c``'s memory: BLAS ``gemm`` on matrices, else NumPy."""
    if not gemm_update(a, b, c, alpha):
        c += c.dtype.type(alpha) * (a @ b)


def _block_inverse(d: np.ndarray, eye: np.ndarray) -> np.ndarray:
    """The inverse of the lower triangle of the square block ``d`` (or of each in a
    stack), whose diagonal has no zero."""
    from theon.tensor.linalg.solvers import tri_solve

    if d.ndim == 2:
        got = trsm(d, eye.copy(), lower=True, trans=False, unit=False, overwrite_b=True)
        if got is not None:
            return got
    return tri_solve(d, np.broadcast_to(eye, d.shape), True, 0, False, 2)


def blocked_cholesky_grad(L: np.ndarray, Lbar: np.ndarray, block: int = BLOCK,
                          overwrite_lbar: bool = False) -> np.ndarray:
    """``Abar = sym(L^-T Phi(L^T Lbar) L^-1)`` for the lower triangles of ``L`` (a
    Cholesky factor) and ``Lbar``, over any leading axes, by the blocked reverse mode
    of the module docstring (blocks of ``block`` rows).  Each block of the result is
    written once it is final: the blocks below the diagonal (and their transposes
    above it) when their column is done, the diagonal blocks last.  The result may be
    ``Lbar``'s own buffer with ``overwrite_lbar``.  ``LinAlgError`` for a zero on
    ``L``'s diagonal (raised before anything is written).

    >>> import numpy as np
    >>> blocked_cholesky_grad(np.array([[2.0]]), np.array([[1.0]]))  # d sqrt(a)/da at 4
    array([[0.25]])
    """
    from theon.tensor.linalg.solvers import check_diagonal

    dt = np.result_type(L.dtype, Lbar.dtype, np.float32)
    n = L.shape[-1]
    L = L.astype(dt, copy=False)
    check_diagonal(L, False)
    eye = np.eye(min(block, n), dtype=dt)
    masks = _masks(min(block, n), dt)
    if n <= block:  # one block: the formula itself
        return _sym_block(L, _block_inverse(L, eye), Lbar, masks)
    own = overwrite_lbar and Lbar.dtype == dt and Lbar.flags.writeable
    G = Lbar if own else np.array(Lbar, dtype=dt)
    half = dt.type(0.5)
    for j in reversed(range(0, n, block)):
        e = min(j + block, n)
        d = L[..., j:e, j:e]
        dinv = _block_inverse(d, eye[: e - j, : e - j])
        dbar = G[..., j:e, j:e]
        if e < n:
            m = G[..., e:, j:e] @ dinv  # the gradient wrt A[K, J]
            mt = _mt(m)
            if j:
                _update(G[..., e:, :j], m, L[..., j:e, :j], -1.0)
                _update(G[..., j:e, :j], mt, L[..., e:, :j], -1.0)
            dbar = dbar - mt @ L[..., e:, j:e]
            np.multiply(m, half, out=G[..., e:, j:e])  # final: sym() halves them
            np.multiply(mt, half, out=G[..., j:e, e:])
        s = _sym_block(d, dinv, dbar, masks)
        if j:
            _update(G[..., j:e, :j], s, L[..., j:e, :j], -2.0)
        G[..., j:e, j:e] = s
    return G


class CholeskyGrad(LinalgOp):
    """The gradient ``Abar`` of a cost with respect to the symmetric input ``A`` of
    :class:`~theon.tensor.linalg.decomp.Cholesky`, from the factor and the gradient
    with respect to it (their ``lower`` triangles, or the upper ones): the module
    docstring's blocked algorithm.  ``Cholesky``'s gradient is this Op.

    >>> import numpy as np, theon.tensor as tt
    >>> L, g = tt.dmatrix("L"), tt.dmatrix("g")
    >>> CholeskyGrad()(L, g).eval({L: [[2.0]], g: [[1.0]]})
    array([[0.25]])
    """

    __props__ = ("lower", "on_error", "inplace")
    gufunc_signature = "(m,m),(m,m)->(m,m)"
    #: the inplace phase sets ``inplace`` when the gradient (input 1) is dead: the result
    #: is then computed in its buffer (theon.tensor.rewriting.inplace)
    inplace_flag = True
    inplace_input = 1

    def __init__(self, lower: bool = True, on_error: str = "raise", inplace: bool = False
                 ) -> None:
        self.lower = bool(lower)
        self._set_on_error(on_error)
        self._set_inplace(inplace)

    def make_node(self, factor: Any, gbar: Any) -> Apply:
        fv, gv = as_tensor_variable(factor), as_tensor_variable(gbar)
        check_square(fv, "CholeskyGrad")
        check_square(gv, "CholeskyGrad")
        dt = float_dtype(fv.type.dtype, gv.type.dtype)
        if fv.type.dtype != dt or gv.type.dtype != dt:
            raise TypeError(f"CholeskyGrad: needs two matrices of one float dtype, got "
                            f"{fv.type} and {gv.type}")
        shape = tuple(a if a is not None else b for a, b in zip(fv.type.shape, gv.type.shape))
        return Apply(self, [fv, gv], [TensorType(dt, shape)()])

    def _run(self, factor: np.ndarray, gbar: np.ndarray, inplace: bool = False) -> np.ndarray:
        if not self.lower:
            factor, gbar = _mt(factor), _mt(gbar)
        return blocked_cholesky_grad(factor, gbar, overwrite_lbar=inplace)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        factor, gbar = inputs
        try:
            out = self._run(factor, gbar, self.inplace)
        except np.linalg.LinAlgError as exc:
            self.raise_or_nan(node, [factor.shape], output_storage, exc,
                              "the factor has a zero on its diagonal")
            return
        output_storage[0][0] = np.asarray(out, dtype=tensor_type(node.outputs[0]).dtype)

    def perform_batched(self, node: Apply, inputs: Sequence[Any], batch: Any) -> Any:
        """A whole stack at once (Blockwise); a failing block: None, run block by block."""
        factor, gbar = np.broadcast_arrays(*inputs)
        try:
            return [self._run(factor, gbar)]
        except np.linalg.LinAlgError:
            return None

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[0]]

    def _lower(self, factor: Variable, gbar: Variable) -> tuple[TensorVariable, TensorVariable]:
        """The lower triangles of the factor and of its gradient, as ``L`` and ``Lbar``."""
        if not self.lower:
            factor, gbar = mT(factor), mT(gbar)
        return band_part(factor, None, 0), band_part(gbar, None, 0)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        """With ``Y = sym(X)``, ``X = L^-T P L^-1``, ``P = Phi(M)``, ``M = L^T Lbar`` and
        ``Hs = sym(H)`` (``H`` the gradient wrt ``Y``): ``Pbar = L^-1 Hs L^-T``,
        ``Mbar = Phi(Pbar)``, ``d/dL = tril(-2 Y Hs L^-T + Lbar Mbar^T)`` (the solves
        give ``-(X + X^T) Hs L^-T``) and ``d/dLbar = tril(L Mbar)``."""
        from theon.tensor.blas import matmul
        from theon.tensor.linalg.solvers import solve_triangular

        L, Lbar = self._lower(*inputs)
        y = outputs[0]
        h = as_tensor_variable(output_grads[0])
        hs = (h + mT(h)) * 0.5
        w = solve_triangular(L, hs, lower=True, b_ndim=2)  # L^-1 Hs
        pbar = solve_triangular(L, mT(w), lower=True, b_ndim=2)  # L^-1 Hs L^-T
        mbar = band_part(pbar, None, 0, 0.5)
        gl = band_part(matmul(y, mT(w)) * -2.0 + matmul(Lbar, mT(mbar)), None, 0)
        gg = band_part(matmul(L, mbar), None, 0)
        return [gl, gg] if self.lower else [mT(gl), mT(gg)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """``dY = sym(L^-T Phi(dL^T Lbar + L^T dLbar) L^-1 - 2 L^-T dL^T Y)`` (the lower
        triangles of ``dL`` and ``dLbar``)."""
        from theon.tensor.blas import matmul
        from theon.tensor.linalg.solvers import solve_triangular
        from theon.tensor.math import zeros_like

        if all(p is None for p in eval_points):
            return [None]
        dl, dg = (zeros_like(x) if p is None else p for x, p in zip(inputs, eval_points))
        L, Lbar = self._lower(*inputs)
        dl, dg = self._lower(dl, dg)
        y = self(*inputs)
        q = band_part(matmul(mT(dl), Lbar) + matmul(mT(L), dg), None, 0, 0.5)
        v = solve_triangular(L, q, lower=True, trans=1, b_ndim=2)  # L^-T Q
        z = mT(solve_triangular(L, mT(v), lower=True, trans=1, b_ndim=2))  # L^-T Q L^-1
        t2 = solve_triangular(L, matmul(mT(dl), y), lower=True, trans=1, b_ndim=2)
        d = z - t2 * 2.0
        return [(d + mT(d)) * 0.5]


def cholesky_grad(factor: Any, gbar: Any, lower: bool = True, on_error: str = "raise"
                  ) -> TensorVariable:
    """The gradient with respect to the symmetric ``A`` of ``factor = cholesky(A, lower)``
    given the gradient ``gbar`` with respect to the factor (batched over leading axes):
    what ``theon.grad`` builds through ``cholesky``.

    >>> import theon.tensor as tt
    >>> L, g = tt.dmatrix("L"), tt.dmatrix("g")
    >>> cholesky_grad(L, g).eval({L: [[2.0, 0.0], [1.0, 1.0]], g: [[0.0, 0.0], [0.0, 2.0]]})
    array([[ 0.25, -0.5 ],
           [-0.5 ,  1.  ]])
    """
    grad: TensorVariable = apply_op(CholeskyGrad(lower, on_error), factor, gbar)
    return grad


register_vectorize(CholeskyGrad)(vectorize_linalg)
