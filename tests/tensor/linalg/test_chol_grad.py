"""``CholeskyGrad``: the blocked reverse mode of the Cholesky factorization against the
formula ``sym(L^-T Phi(L^T Lbar) L^-1)`` evaluated by ``numpy.linalg.solve``, on
matrices of several blocks; its in-place form, failures, derivatives (``verify_grad``,
R_op) and the gradient of ``cholesky`` it now is."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import theon
import theon.tensor as T
from tests.tensor.linalg.test_ops import chol_grad_ref
from theon.tensor import linalg as la
from theon.tensor.linalg._common import band_part, mT
from theon.tensor.linalg.chol_grad import (
    BLOCK,
    CholeskyGrad,
    blocked_cholesky_grad,
)


def cholesky_grad_formula(factor: Any, gbar: Any) -> Any:
    """CholeskyGrad's value written with graph Ops: ``L^T Lbar`` and two triangular
    solves (the lower triangles of both read)."""
    L, Lbar = band_part(factor, None, 0), band_part(gbar, None, 0)
    phi = band_part(mT(L) @ Lbar, None, 0, 0.5)
    y = la.solve_triangular(L, phi, lower=True, trans=1, b_ndim=2)  # L^-T Phi
    abar = mT(la.solve_triangular(L, mT(y), lower=True, trans=1, b_ndim=2))
    return (abar + mT(abar)) * 0.5


def spd(n: int, seed: int = 0, scale: float = 1.0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, n))
    return (x @ x.T + n * np.eye(n)) * scale


def factor_and_bar(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    lbar = np.random.default_rng(seed + 100).normal(size=(n, n))
    return np.linalg.cholesky(spd(n, seed)), lbar


def close(got: np.ndarray, want: np.ndarray, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("n", [1, 2, 7, 64, 65, 130, 200])
@pytest.mark.parametrize("block", [1, 3, 64])
def test_blocked_kernel_matches_the_formula(n: int, block: int) -> None:
    L, lbar = factor_and_bar(n)
    want = chol_grad_ref(L, lbar)
    close(blocked_cholesky_grad(L, lbar, block), want)
    own = lbar.copy()
    got = blocked_cholesky_grad(L, own, block, overwrite_lbar=True)
    close(got, want)
    if n > block:
        assert got is own, "the result is written into Lbar's buffer"
    # column-major operands (the upper factor's transposed views)
    close(blocked_cholesky_grad(np.asfortranarray(L), np.asfortranarray(lbar), block), want)


def test_blocked_kernel_reads_only_the_lower_triangles() -> None:
    L, lbar = factor_and_bar(100)
    noise = np.triu(np.random.default_rng(5).normal(size=L.shape), 1)
    close(blocked_cholesky_grad(L + noise, lbar + 3 * noise, 32), chol_grad_ref(L, lbar))


def test_blocked_kernel_on_stacks_and_float32() -> None:
    parts = [factor_and_bar(70, seed) for seed in range(3)]
    Ls, bars = np.stack([p[0] for p in parts]), np.stack([p[1] for p in parts])
    got = blocked_cholesky_grad(Ls, bars, 16)
    for k, (L, lbar) in enumerate(parts):
        close(got[k], chol_grad_ref(L, lbar))
    got32 = blocked_cholesky_grad(Ls.astype("float32"), bars.astype("float32"), 16)
    assert got32.dtype == np.float32
    close(got32[0], chol_grad_ref(*parts[0]), tol=2e-4)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("linker", ["default", "vm"])
def test_op_on_several_blocks_matches_the_formula(lower: bool, linker: str) -> None:
    n = 2 * BLOCK + 22
    L, lbar = factor_and_bar(n, seed=3)
    c, g = T.dmatrix("c"), T.dmatrix("g")
    mode = theon.Mode(linker="vm") if linker == "vm" else None
    f = theon.function([c, g], la.cholesky_grad(c, g, lower=lower), mode=mode)
    if lower:
        got = f(L, lbar)
    else:
        got = f(L.T.copy(), lbar.T.copy())
    close(got, chol_grad_ref(L, lbar))


def test_gradient_of_cholesky_on_several_blocks() -> None:
    """theon.grad through cholesky is CholeskyGrad; finite differences agree, also for
    tiny and huge (but well-conditioned) matrices."""
    n = BLOCK + 6
    w = np.random.default_rng(7).normal(size=(n, n))
    a = T.dmatrix("a")
    g = theon.grad((la.cholesky(a) * w).sum(), a)
    assert any(isinstance(node.op, CholeskyGrad)
               for node in theon.function([a], g).maker.fgraph.apply_nodes)
    for scale in (1e-3, 1.0, 1e3):
        theon.verify_grad(lambda x: (la.cholesky((x + x.T) * 0.5) * w).sum(),
                          [spd(n, 1, scale)], rng=16, rel_tol=1e-4)


def test_gradient_equals_the_graph_formula() -> None:
    """The Op against the same formula written with graph Ops (solve_triangular)."""
    n = 150
    L, lbar = factor_and_bar(n, seed=4)
    c, g = T.dmatrix("c"), T.dmatrix("g")
    f = theon.function([c, g], [la.cholesky_grad(c, g), cholesky_grad_formula(c, g)])
    op, formula = f(L, lbar)
    close(op, formula)


def test_in_place_on_a_dead_gradient_keeps_the_callers_arrays() -> None:
    n = BLOCK + 30
    L, lbar = factor_and_bar(n, seed=5)
    c, g = T.dmatrix("c"), T.dmatrix("g")
    f = theon.function([c, g], la.cholesky_grad(c, g * 2.0))
    ops = [node.op for node in f.maker.fgraph.apply_nodes if isinstance(node.op, CholeskyGrad)]
    assert [op.inplace for op in ops] == [True]
    before = (L.copy(), lbar.copy())
    close(f(L, lbar), chol_grad_ref(L, 2 * lbar))
    np.testing.assert_array_equal(L, before[0])
    np.testing.assert_array_equal(lbar, before[1])
    # an input itself is not overwritten
    f2 = theon.function([c, g], la.cholesky_grad(c, g))
    assert not any(getattr(node.op, "inplace", False) for node in f2.maker.fgraph.apply_nodes)
    f2(L, lbar)
    np.testing.assert_array_equal(lbar, before[1])


def test_a_zero_on_the_diagonal_raises_or_gives_nan() -> None:
    L, lbar = factor_and_bar(BLOCK + 10)
    L[BLOCK + 3, BLOCK + 3] = 0.0
    c, g = T.dmatrix("c"), T.dmatrix("g")
    f = theon.function([c, g], la.cholesky_grad(c, g))
    with pytest.raises(np.linalg.LinAlgError, match="CholeskyGrad.*diagonal"):
        f(L, lbar)
    fn = theon.function([c, g], la.cholesky_grad(c, g, on_error="nan"))
    assert np.isnan(fn(L, lbar)).all()


def _second_order(c: Any, g: Any) -> Any:
    return la.cholesky_grad(c, g)


def test_derivatives_of_the_op() -> None:
    """verify_grad of CholeskyGrad itself (second derivatives of cholesky), lower and
    upper, and a Hessian-vector product of log det."""
    L, lbar = factor_and_bar(5)
    theon.verify_grad(_second_order, [L, lbar], rng=16)
    theon.verify_grad(lambda c, g: la.cholesky_grad(c, g, lower=False), [L.T, lbar], rng=16)
    # d^2 log det(A) [V] = -tr(A^-1 V A^-1) as a matrix: -A^-1 V A^-1
    a, v = T.dmatrix("a"), T.dmatrix("v")
    logdet = 2 * T.log(T.diagonal(la.cholesky(a))).sum()
    hv = theon.gradient.Rop(theon.grad(logdet, a), a, v)
    A = spd(6, 2)
    V = np.random.default_rng(9).normal(size=(6, 6))
    V = (V + V.T) / 2
    Ai = np.linalg.inv(A)
    close(theon.function([a, v], hv)(A, V), -Ai @ V @ Ai, tol=1e-9)
