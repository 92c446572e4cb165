"""JAX rules for the linear-algebra Ops of :mod:`theon.tensor.linalg`.

Each core Op (one matrix; ``Blockwise`` vmaps it over batch dimensions) maps to
``jax.numpy.linalg`` / ``jax.scipy.linalg`` / ``jax.lax.linalg``, with the
output dtypes of ``perform``.  What JAX has no function for is written with what
it has: the generalized symmetric eigenproblem through a Cholesky factor of
``b``, the Lyapunov equations as one Kronecker-product solve (``m**2`` unknowns:
meant for the small matrices of state-space models), the eigen-gradient
(``EigGrad``) by its formula.

**Failures.**  Under ``jax.jit`` there is no exception to raise on data: a
singular or non-positive-definite input gives, with ``on_error='nan'`` and with
``on_error='raise'`` alike, outputs filled with NaN (integer outputs: zeros),
where the other linkers give NaN or raise ``LinAlgError``.  A failure is detected
as a non-finite output from finite inputs (a factorization or solve), or a
non-finite input for the eigen- and singular-value decompositions and ``lstsq``
(which LAPACK would otherwise answer with garbage).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify
from theon.tensor.linalg._common import BandPart
from theon.tensor.linalg.chol_grad import CholeskyGrad
from theon.tensor.linalg.decomp import (
    LU,
    Cholesky,
    Det,
    LUFactor,
    MatrixInverse,
    MatrixPinv,
    PivotMatrix,
    SLogDet,
)
from theon.tensor.linalg.eig import Eig, EigGrad
from theon.tensor.linalg.misc import Expm, SolveContinuousLyapunov, SolveDiscreteLyapunov
from theon.tensor.linalg.solvers import (
    CholeskySolve,
    LUSolve,
    Solve,
    SolveTriangular,
    TriMatMul,
)
from theon.tensor.linalg.spectral import SVD, Eigh, Eigvalsh, Lstsq, QRFull
from theon.tensor.type import tensor_type

__all__ = ["guard_batch"]


def _dtypes(node: Apply) -> list[str]:
    return [tensor_type(o).dtype for o in node.outputs]


def _finite(values: Sequence[Any]) -> Any:
    import jax.numpy as jnp

    ok = jnp.asarray(True)
    for v in values:
        if jnp.issubdtype(jnp.asarray(v).dtype, jnp.inexact):
            ok = ok & jnp.all(jnp.isfinite(v))
    return ok


def _failed(inputs: Sequence[Any], outs: Sequence[Any]) -> Any:
    """Whether finite inputs gave a non-finite output.  The inputs are read only when an
    output is not finite (a ``lax.cond`` on that scalar): the common, finite case costs
    one pass over the outputs instead of one over the inputs too."""
    from jax import lax

    return lax.cond(_finite(outs), lambda ins: False, _finite, list(inputs))


def _nan_where(bad: Any, outs: Sequence[Any]) -> list[Any]:
    """The outputs, each filled with NaN (integers: zeros) where ``bad``."""
    import jax.numpy as jnp

    res = []
    for o in outs:
        fill = jnp.nan if jnp.issubdtype(o.dtype, jnp.inexact) else 0
        res.append(jnp.where(bad, jnp.full_like(o, fill), o))
    return res


def _rule(node: Apply, compute: Callable[..., Any], guard: str | None = None
          ) -> Callable[..., Any]:
    """A rule computing ``compute(*inputs)`` (a value or a tuple), cast to the output
    dtypes; ``guard``: ``"outputs"`` (NaN when finite inputs give a non-finite output)
    or ``"inputs"`` (NaN when an input is not finite)."""
    dtypes = _dtypes(node)
    single = len(dtypes) == 1

    def cast(*inputs: Any) -> list[Any]:
        import jax.numpy as jnp

        res = compute(*inputs)
        return [jnp.asarray(r).astype(dt) for r, dt in zip((res,) if single else res, dtypes)]

    def fn(*inputs: Any) -> Any:
        outs = cast(*inputs)
        if guard == "outputs":
            outs = _nan_where(_failed(inputs, outs), outs)
        elif guard == "inputs":
            outs = _nan_where(~_finite(inputs), outs)
        return outs[0] if single else tuple(outs)

    if guard is not None:
        # (the rule unguarded, the guard of a whole batch): the Blockwise rule maps the
        # first over the blocks and applies the second once (a guard mapped by vmap
        # would check every block's inputs on every call)
        def guard_whole(ins: Sequence[Any], batched: Sequence[bool], outs: list[Any],
                        nb: int) -> Any:
            res = guard_batch(guard, ins, batched, outs, nb)
            return res[0] if single else tuple(res)

        fn.__dict__["batched_parts"] = (cast, guard_whole)  # (read by the Blockwise rule)
    return fn


def _blocks_finite(values: Sequence[Any], nb: int, batched: Sequence[bool] | None = None
                   ) -> Any:
    """Per block of the ``nb`` leading (batch) axes: whether all of ``values`` are finite
    there (a bool array of the batch shape); a value not ``batched`` (it has no batch
    axes) counts for every block."""
    import jax.numpy as jnp

    ok = jnp.asarray(True)
    for k, v in enumerate(values):
        v = jnp.asarray(v)
        if jnp.issubdtype(v.dtype, jnp.inexact):
            lead = nb if batched is None or batched[k] else 0
            ok = ok & jnp.all(jnp.isfinite(v), axis=tuple(range(lead, v.ndim)))
    return ok


def guard_batch(guard: str, inputs: Sequence[Any], batched: Sequence[bool], outs: list[Any],
                nb: int) -> list[Any]:
    """The outputs of a batch of blocks with NaN in each failed block (see ``_rule``;
    ``batched[k]``: whether input ``k`` has the batch axes):
    ``"outputs"``, finite inputs that gave a non-finite output; ``"inputs"``, a
    non-finite input.  The common case (every output finite) is one sum over the
    outputs: the blocks are checked, and NaN written, only under ``lax.cond``.

    >>> import pytest
    >>> jnp = pytest.importorskip("jax.numpy")  # the example needs jax
    >>> out = jnp.array([[1.0, 2.0], [jnp.inf, 0.0]])  # block 1 failed, its input finite
    >>> guard_batch("outputs", [jnp.ones((2, 2, 2))], [True], [out], 1)[0].tolist()
    [[1.0, 2.0], [nan, nan]]
    """
    import jax.numpy as jnp
    from jax import lax

    def fill(bad: Any) -> list[Any]:
        res = []
        for o in outs:
            b = jnp.reshape(bad, bad.shape + (1,) * (o.ndim - nb))
            nan = jnp.nan if jnp.issubdtype(o.dtype, jnp.inexact) else 0
            res.append(jnp.where(b, jnp.full_like(o, nan), o))
        return res

    if guard == "inputs":
        return fill(~_blocks_finite(inputs, nb, batched))
    # one sum per output tells that all are finite (a sum that overflows only sends the
    # call down the exact per-block check)
    total = sum((jnp.sum(o) for o in outs if jnp.issubdtype(o.dtype, jnp.inexact)),
                jnp.asarray(0.0, outs[0].dtype))
    res: list[Any] = lax.cond(jnp.isfinite(total), lambda: list(outs),
                              lambda: fill(~_blocks_finite(outs, nb)
                                           & _blocks_finite(inputs, nb, batched)))
    return res


def _sym(a: Any, lower: bool) -> Any:
    """The symmetric matrix read from ``a``'s ``lower`` (or upper) triangle."""
    import jax.numpy as jnp

    t = jnp.tril(a) if lower else jnp.triu(a)
    return t + jnp.swapaxes(t, -1, -2) - jnp.diag(jnp.diagonal(a))


@jax_funcify.register(BandPart)
def _band_part(op: BandPart, node: Apply, **kw: Any) -> Callable[..., Any]:
    def band_part(x: Any) -> Any:
        import jax.numpy as jnp

        m, n = x.shape[-2:]
        d = jnp.arange(n)[None, :] - jnp.arange(m)[:, None]
        keep = jnp.ones((m, n), bool)
        if op.upper is not None:
            keep = keep & (d <= op.upper)
        if op.lower is not None:
            keep = keep & (d >= -op.lower)
        out = jnp.where(keep, x, jnp.zeros((), x.dtype))
        if op.diagonal != 1.0:
            out = jnp.where(d == 0, out * jnp.asarray(op.diagonal, x.dtype), out)
        return out

    return band_part


# -- decompositions -----------------------------------------------------------------------
@jax_funcify.register(Cholesky)
def _cholesky(op: Cholesky, node: Apply, **kw: Any) -> Callable[..., Any]:
    def chol(a: Any) -> Any:
        import jax.numpy as jnp

        a = _sym(a, True) if op.lower else _sym(a, False)
        low = jnp.linalg.cholesky(a)
        return low if op.lower else jnp.swapaxes(low, -1, -2).conj()

    return _rule(node, chol, "outputs")


@jax_funcify.register(MatrixInverse)
def _inv(op: MatrixInverse, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax.numpy as jnp

    return _rule(node, jnp.linalg.inv, "outputs")


@jax_funcify.register(MatrixPinv)
def _pinv(op: MatrixPinv, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax.numpy as jnp

    # NumPy's cutoff: singular values below 1e-15 * the largest are dropped
    return _rule(node, lambda a: jnp.linalg.pinv(a, rtol=1e-15, hermitian=op.hermitian))


@jax_funcify.register(Det)
def _det(op: Det, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax.numpy as jnp

    return _rule(node, jnp.linalg.det)


@jax_funcify.register(SLogDet)
def _slogdet(op: SLogDet, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax.numpy as jnp

    return _rule(node, lambda a: tuple(jnp.linalg.slogdet(a)))


def _lu_perm(a: Any) -> tuple[Any, Any, Any]:
    """``(L, U, perm)`` with ``a[perm] = L @ U`` (partial pivoting, any shape)."""
    import jax.numpy as jnp
    from jax import lax

    lu, _, perm = lax.linalg.lu(a)
    m, n = a.shape
    k = min(m, n)
    low = jnp.tril(lu[:, :k], -1) + jnp.eye(m, k, dtype=lu.dtype)
    up = jnp.triu(lu[:k, :])
    return low, up, perm


@jax_funcify.register(LU)
def _lu(op: LU, node: Apply, **kw: Any) -> Callable[..., Any]:
    def lu(a: Any) -> Any:
        import jax.numpy as jnp

        low, up, perm = _lu_perm(a)
        inv = jnp.argsort(perm)  # a = L[inv] @ U
        if op.permute_l:
            return low[inv], up
        if op.p_indices:
            return inv, low, up
        m = a.shape[0]
        p = jnp.zeros((m, m), a.dtype).at[perm, jnp.arange(m)].set(1)  # a = P @ L @ U
        return p, low, up

    return _rule(node, lu)


@jax_funcify.register(LUFactor)
def _lu_factor(op: LUFactor, node: Apply, **kw: Any) -> Callable[..., Any]:
    def lu_factor(a: Any) -> Any:
        from jax import lax

        lu, piv, _ = lax.linalg.lu(a)
        return lu, piv

    return _rule(node, lu_factor)


def _perm_of_pivots(piv: Any, m: int) -> Any:
    """The row order ``perm`` (``P^T A = A[perm]``) of LAPACK's sequential swaps."""
    import jax.numpy as jnp
    from jax import lax

    def swap(i: Any, perm: Any) -> Any:
        j = piv[i]
        pi, pj = perm[i], perm[j]
        return perm.at[i].set(pj).at[j].set(pi)

    return lax.fori_loop(0, m, swap, jnp.arange(m))


@jax_funcify.register(PivotMatrix)
def _pivot_matrix(op: PivotMatrix, node: Apply, **kw: Any) -> Callable[..., Any]:
    def pivot_matrix(piv: Any) -> Any:
        import jax.numpy as jnp

        m = piv.shape[0]
        perm = _perm_of_pivots(piv, m)
        return jnp.zeros((m, m), op.dtype).at[perm, jnp.arange(m)].set(1)

    return _rule(node, pivot_matrix)


# -- solvers ----------------------------------------------------------------------------
def _as2(b: Any, b_ndim: int) -> Any:
    return b[:, None] if b_ndim == 1 else b


def _from2(x: Any, b_ndim: int) -> Any:
    return x[:, 0] if b_ndim == 1 else x


@jax_funcify.register(Solve)
def _solve(op: Solve, node: Apply, **kw: Any) -> Callable[..., Any]:
    def solve(a: Any, b: Any) -> Any:
        import jax.numpy as jnp
        import jax.scipy.linalg as jsl
        from jax import lax

        b2 = _as2(b, op.b_ndim)
        if op.assume_a == "gen":
            x = jnp.linalg.solve(a, b2)
        elif op.assume_a == "tridiagonal":
            dl = jnp.concatenate([jnp.zeros(1, a.dtype), jnp.diagonal(a, -1)])
            du = jnp.concatenate([jnp.diagonal(a, 1), jnp.zeros(1, a.dtype)])
            x = lax.linalg.tridiagonal_solve(dl, jnp.diagonal(a), du, b2)
        elif op.assume_a == "pos":
            low = jnp.linalg.cholesky(_sym(a, op.lower))
            x = jsl.cho_solve((low, True), b2)
        else:  # 'sym', 'her': the matrix read from one triangle
            x = jnp.linalg.solve(_sym(a, op.lower), b2)
        return _from2(x, op.b_ndim)

    return _rule(node, solve, "outputs")


@jax_funcify.register(SolveTriangular)
def _solve_triangular(op: SolveTriangular, node: Apply, **kw: Any) -> Callable[..., Any]:
    def solve_triangular(a: Any, b: Any) -> Any:
        import jax.scipy.linalg as jsl

        x = jsl.solve_triangular(a, _as2(b, op.b_ndim), trans=op.trans, lower=op.lower,
                                 unit_diagonal=op.unit_diagonal)
        return _from2(x, op.b_ndim)

    return _rule(node, solve_triangular, "outputs")


@jax_funcify.register(TriMatMul)
def _tri_matmul(op: TriMatMul, node: Apply, **kw: Any) -> Callable[..., Any]:
    def tri_matmul(a: Any, b: Any) -> Any:
        import jax.numpy as jnp

        return jnp.matmul(jnp.tril(a) if op.lower else jnp.triu(a), b)

    return _rule(node, tri_matmul)


@jax_funcify.register(CholeskyGrad)
def _cholesky_grad(op: CholeskyGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    def cholesky_grad(factor: Any, gbar: Any) -> Any:
        import jax.numpy as jnp
        import jax.scipy.linalg as jsl

        if not op.lower:
            factor, gbar = factor.T, gbar.T
        L = jnp.tril(factor)
        phi = jnp.tril(L.T @ jnp.tril(gbar))
        phi = phi - 0.5 * jnp.diag(jnp.diagonal(phi))
        y = jsl.solve_triangular(L, phi, trans=1, lower=True)  # L^-T Phi
        abar = jsl.solve_triangular(L, y.T, trans=1, lower=True).T  # L^-T Phi L^-1
        return (abar + abar.T) * 0.5

    return _rule(node, cholesky_grad, "outputs")


@jax_funcify.register(CholeskySolve)
def _cho_solve(op: CholeskySolve, node: Apply, **kw: Any) -> Callable[..., Any]:
    def cho_solve(c: Any, b: Any) -> Any:
        import jax.scipy.linalg as jsl

        x = jsl.cho_solve((c, op.lower), _as2(b, op.b_ndim))
        return _from2(x, op.b_ndim)

    return _rule(node, cho_solve, "outputs")


@jax_funcify.register(LUSolve)
def _lu_solve(op: LUSolve, node: Apply, **kw: Any) -> Callable[..., Any]:
    def lu_solve(packed: Any, piv: Any, b: Any) -> Any:
        import jax.scipy.linalg as jsl

        x = jsl.lu_solve((packed, piv.astype("int32")), _as2(b, op.b_ndim), trans=op.trans)
        return _from2(x, op.b_ndim)

    return _rule(node, lu_solve, "outputs")


# -- spectral ----------------------------------------------------------------------------
def _eigh(a: Any, b: Any, lower: bool, vectors: bool) -> Any:
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    a = _sym(a, lower)
    if b is None:
        return jnp.linalg.eigh(a) if vectors else jnp.linalg.eigvalsh(a)
    # a v = w b v with b = L L^T: (L^-1 a L^-T) u = w u, v = L^-T u
    low = jnp.linalg.cholesky(_sym(b, lower))
    c = jsl.solve_triangular(low, jsl.solve_triangular(low, a, lower=True).T, lower=True).T
    w, u = jnp.linalg.eigh(_sym(c, True))
    if not vectors:
        return w
    return w, jsl.solve_triangular(low, u, lower=True, trans=1)


@jax_funcify.register(Eigh)
def _eigh_rule(op: Eigh, node: Apply, **kw: Any) -> Callable[..., Any]:
    lower = op.UPLO == "L"
    return _rule(node, lambda a, b=None: tuple(_eigh(a, b, lower, True)), "inputs")


@jax_funcify.register(Eigvalsh)
def _eigvalsh(op: Eigvalsh, node: Apply, **kw: Any) -> Callable[..., Any]:
    lower = op.UPLO == "L"
    return _rule(node, lambda a, b=None: _eigh(a, b, lower, False), "inputs")


@jax_funcify.register(Eig)
def _eig(op: Eig, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax.numpy as jnp

    return _rule(node, lambda a: tuple(jnp.linalg.eig(a)), "inputs")


@jax_funcify.register(EigGrad)
def _eig_grad(op: EigGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    def eig_grad(w: Any, v: Any, wbar: Any, vbar: Any) -> Any:
        import jax.numpy as jnp

        vh = v.conj().T
        vbar = vbar - v * jnp.real(jnp.einsum("ij,ij->j", v.conj(), vbar))[None, :]
        cw = w.conj()
        m = w.shape[0]
        eye = jnp.eye(m, dtype=bool)
        gaps = jnp.where(eye, 1.0, cw[None, :] - cw[:, None])
        f = jnp.where(eye, 0.0, 1.0 / gaps)
        inner = f * (vh @ vbar) + jnp.diag(wbar)
        g = jnp.linalg.solve(vh, inner @ vh)
        return g if jnp.dtype(op.dtype).kind == "c" else g.real

    return _rule(node, eig_grad)


@jax_funcify.register(SVD)
def _svd(op: SVD, node: Apply, **kw: Any) -> Callable[..., Any]:
    def svd(a: Any) -> Any:
        import jax.numpy as jnp

        res = jnp.linalg.svd(a, full_matrices=op.full_matrices, compute_uv=op.compute_uv)
        return tuple(res) if op.compute_uv else res

    return _rule(node, svd, "inputs")


@jax_funcify.register(QRFull)
def _qr(op: QRFull, node: Apply, **kw: Any) -> Callable[..., Any]:
    def qr(a: Any) -> Any:
        import jax.numpy as jnp

        res = jnp.linalg.qr(a, mode=op.mode)
        return res if op.mode == "r" else tuple(res)

    return _rule(node, qr)


@jax_funcify.register(Lstsq)
def _lstsq(op: Lstsq, node: Apply, **kw: Any) -> Callable[..., Any]:
    def lstsq(a: Any, b: Any) -> Any:
        import jax.numpy as jnp

        return jnp.linalg.lstsq(a, b, rcond=op.rcond)[0]

    return _rule(node, lstsq, "inputs")


# -- misc ------------------------------------------------------------------------------
@jax_funcify.register(Expm)
def _expm(op: Expm, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax.scipy.linalg as jsl

    return _rule(node, jsl.expm)


def _kron_solve(lhs: Any, q: Any) -> Any:
    import jax.numpy as jnp

    m = q.shape[0]
    return jnp.linalg.solve(lhs, q.reshape(m * m)).reshape(m, m)


@jax_funcify.register(SolveContinuousLyapunov)
def _lyap_c(op: SolveContinuousLyapunov, node: Apply, **kw: Any) -> Callable[..., Any]:
    def lyap(a: Any, q: Any) -> Any:
        import jax.numpy as jnp

        eye = jnp.eye(a.shape[0], dtype=a.dtype)
        # row-major vec: vec(A X) = (A kron I) vec X, vec(X A^T) = (I kron A) vec X
        return _kron_solve(jnp.kron(a, eye) + jnp.kron(eye, a), q)

    return _rule(node, lyap, "outputs")


@jax_funcify.register(SolveDiscreteLyapunov)
def _lyap_d(op: SolveDiscreteLyapunov, node: Apply, **kw: Any) -> Callable[..., Any]:
    def lyap(a: Any, q: Any) -> Any:
        import jax.numpy as jnp

        m = a.shape[0]
        return _kron_solve(jnp.eye(m * m, dtype=a.dtype) - jnp.kron(a, a.conj()), q)

    return _rule(node, lyap, "outputs")
