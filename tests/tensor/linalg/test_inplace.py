"""Cholesky by LAPACK's ``potrf`` in NumPy's own OpenBLAS, and the factorizations and
triangular solves the inplace phase runs in their input's buffer: values against NumPy
and SciPy, the caller's arrays untouched, the failures as before."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import theon
import theon.tensor as tt
from theon.tensor import linalg
from theon.tensor.linalg import decomp
from theon.tensor.linalg._blas import potrf
from theon.tensor.linalg.decomp import Cholesky
from theon.tensor.linalg.solvers import SolveTriangular

HAVE_POTRF = potrf(np.eye(2), True) is not None


def _spd(n: int, seed: int, dtype: str = "float64") -> np.ndarray:
    a = np.random.default_rng(seed).normal(size=(n, n))
    return (a @ a.T / n + np.eye(n)).astype(dtype)


def _ops(f: theon.compile.Function, cls: type) -> list:  # type: ignore[name-defined]
    return [n.op for n in f.maker.fgraph.toposort() if isinstance(n.op, cls)]


@pytest.mark.skipif(not HAVE_POTRF, reason="NumPy's LAPACK is not the OpenBLAS it ships")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [1, 2, 7, 130])
def test_potrf_equals_numpy_for_every_triangle_and_layout(n: int, dtype: str) -> None:
    """The factor sits in the triangle read; the other triangle is left as it was."""
    k = _spd(n, n, dtype)
    junk = np.triu(np.random.default_rng(1).normal(size=(n, n)), 1).astype(dtype)
    want = np.linalg.cholesky(k)
    rtol = 1e-10 if dtype == "float64" else 1e-4
    for lower in (True, False):
        src = k + junk if lower else (k + junk).T  # junk in the triangle not read
        for order in "CF":
            a = np.array(src, order=order)
            keep = a.copy()
            got = potrf(a, lower)
            np.testing.assert_array_equal(a, keep)  # not overwrite_a: a is kept
            assert got is not None and got.dtype == dtype
            tri = np.tril(got) if lower else np.triu(got).T
            np.testing.assert_allclose(tri, want, rtol=rtol, atol=rtol)
            rest = np.triu(got, 1) if lower else np.tril(got, -1)
            np.testing.assert_array_equal(rest, np.triu(src, 1) if lower else np.tril(src, -1))
            buf = np.array(src, order=order)
            assert potrf(buf, lower, overwrite_a=True) is buf


@pytest.mark.skipif(not HAVE_POTRF, reason="NumPy's LAPACK is not the OpenBLAS it ships")
def test_potrf_refuses_what_it_cannot_do_and_raises_as_numpy() -> None:
    assert potrf(np.eye(3, dtype=complex), True) is None
    assert potrf(np.ones((2, 3)), True) is None
    assert potrf(np.ones((2, 2, 2)), True) is None
    strided = np.zeros((4, 8))[:, ::2]
    strided[...] = _spd(4, 3)
    got = potrf(strided, True, overwrite_a=True)  # not contiguous: factored in a copy
    assert got is not None and got is not strided
    np.testing.assert_allclose(np.tril(got), np.linalg.cholesky(strided), rtol=1e-12)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        potrf(np.array([[1.0, 2.0], [2.0, 1.0]]), True)
    nan = np.array([[4.0, np.nan], [np.nan, 4.0]])  # NaN: no error, as in NumPy
    np.testing.assert_array_equal(np.tril(potrf(nan, True)), np.linalg.cholesky(nan))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("reach", ["potrf", "numpy"])
def test_cholesky_of_a_temporary_is_factored_in_place(lower: bool, reach: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``cholesky(x x^T + I)``: the sum is dead once factored, so the factor takes its
    buffer; ``cholesky(a)`` of the caller's ``a`` never does.  Both equal NumPy, with
    and without the LAPACK of NumPy's OpenBLAS."""
    if reach == "numpy":
        monkeypatch.setattr(decomp, "potrf", lambda *args: None)
    elif not HAVE_POTRF:
        pytest.skip("NumPy's LAPACK is not the OpenBLAS it ships")
    x, a = tt.dmatrices("x", "a")
    k = tt.dot(x, x.T) + tt.eye(x.shape[0])
    f = theon.function([x, a], [linalg.cholesky(k, lower=lower), linalg.cholesky(a, lower=lower)])
    assert sorted(op.inplace for op in _ops(f, Cholesky)) == [False, True]
    xv = np.random.default_rng(5).normal(size=(6, 6))
    av = _spd(6, 6)
    xv0, av0 = xv.copy(), av.copy()
    got_k, got_a = f(xv, av)
    ref_k = np.linalg.cholesky(xv @ xv.T + np.eye(6))
    ref_a = np.linalg.cholesky(av)
    if not lower:
        ref_k, ref_a = ref_k.T, ref_a.T
    np.testing.assert_allclose(got_k, ref_k, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_a, ref_a, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(xv, xv0)
    np.testing.assert_array_equal(av, av0)


def test_cholesky_in_place_still_fails_as_declared() -> None:
    """A non-positive-definite temporary: the error names the node (``raise``), or the
    factor is NaN (``on_error='nan'``), in place as not."""
    x = tt.dmatrix("x")
    k = tt.dot(x, x.T) - 2.0 * tt.eye(x.shape[0])
    f = theon.function([x], linalg.cholesky(k))
    g = theon.function([x], linalg.cholesky(k, on_error="nan"))
    assert [op.inplace for op in _ops(f, Cholesky)] == [True]
    assert [op.inplace for op in _ops(g, Cholesky)] == [True]
    xv = np.eye(3) * 0.5
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        f(xv)
    assert np.isnan(g(xv)).all()


def test_cholesky_inplace_prop_is_part_of_its_identity() -> None:
    assert Cholesky() != Cholesky(inplace=True)
    assert Cholesky(inplace=True).destroy_map == {0: [0]}
    assert str(Cholesky()) == "Cholesky{lower=True}"
    assert str(Cholesky(inplace=True)) == "Cholesky{lower=True, inplace=True}"


@pytest.mark.parametrize("b_ndim", [1, 2])
def test_solve_triangular_of_a_temporary_is_solved_in_place(b_ndim: int) -> None:
    """``solve_triangular(L, 2 b)``: ``2 b`` is dead, the solution takes its buffer;
    ``solve_triangular(L, b)`` of the caller's ``b`` never does."""
    t = tt.dmatrix("t")
    b = tt.dvector("b") if b_ndim == 1 else tt.dmatrix("b")
    outs = [linalg.solve_triangular(t, 2.0 * b, lower=True, trans=1),
            linalg.solve_triangular(t, b, lower=True, trans=1)]
    f = theon.function([t, b], outs)
    assert sorted(op.inplace for op in _ops(f, SolveTriangular)) == [False, True]
    rng = np.random.default_rng(7)
    tv = rng.normal(size=(90, 90)) / 90 + 2 * np.eye(90)
    bv = rng.normal(size=(90,) if b_ndim == 1 else (90, 70))
    tv0, bv0 = tv.copy(), bv.copy()
    got_tmp, got_b = f(tv, bv)
    want = scipy.linalg.solve_triangular(tv, bv, lower=True, trans=1)
    np.testing.assert_allclose(got_tmp, 2 * want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_b, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(tv, tv0)
    np.testing.assert_array_equal(bv, bv0)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("n", [5, 90])
def test_solve_triangular_of_a_transposed_temporary_is_solved_on_the_right(
        lower: bool, n: int) -> None:
    """``solve_triangular(T, solve_triangular(T, b)^T)``: the right-hand side is the
    transpose of a dead result, its columns contiguous: solved in that buffer as a
    right-side solve."""
    t, b = tt.dmatrices("t", "b")
    inner = linalg.solve_triangular(t, b, lower=lower)
    f = theon.function([t, b], linalg.solve_triangular(t, inner.T, lower=lower, trans=1))
    assert [op.inplace for op in _ops(f, SolveTriangular)] == [False, True]
    rng = np.random.default_rng(n)
    tv = rng.normal(size=(n, n)) / n + 2 * np.eye(n)
    bv = rng.normal(size=(n, n))
    want = scipy.linalg.solve_triangular(
        tv, scipy.linalg.solve_triangular(tv, bv, lower=lower).T, lower=lower, trans=1)
    np.testing.assert_allclose(f(tv, bv), want, rtol=1e-9, atol=1e-12)


def test_solve_triangular_inplace_prop_destroys_b() -> None:
    op = SolveTriangular(lower=True, inplace=True)
    assert op.destroy_map == {0: [1]}
    assert op != SolveTriangular(lower=True)
    assert "inplace=True" in str(op) and "inplace" not in str(SolveTriangular(lower=True))


def test_gradient_through_in_place_factor_and_solves_equals_numpy() -> None:
    """The GP log likelihood's gradient (a Cholesky and its gradient's solves, all on
    temporaries) equals the closed form ``0.5 tr((a a^T - K^-1) dK)``."""
    x, y, s = tt.dmatrix("x"), tt.dvector("y"), tt.dscalar("s")
    k = tt.exp(-0.5 * (x[:, None, 0] - x[None, :, 0]) ** 2) + s * tt.eye(x.shape[0])
    lo = linalg.cholesky(k)
    alpha = linalg.solve_triangular(lo.T, linalg.solve_triangular(lo, y, lower=True))
    logp = -0.5 * tt.dot(y, alpha) - tt.log(tt.diagonal(lo)).sum()
    f = theon.function([x, y, s], [logp, theon.grad(logp, s)])
    assert any(op.inplace for op in _ops(f, Cholesky))
    assert any(op.inplace for op in _ops(f, SolveTriangular))
    rng = np.random.default_rng(8)
    xv, yv, sv = rng.uniform(-2, 2, size=(40, 1)), rng.normal(size=40), 0.3
    kv = np.exp(-0.5 * (xv[:, 0][:, None] - xv[:, 0][None, :]) ** 2) + sv * np.eye(40)
    kinv = np.linalg.inv(kv)
    a = kinv @ yv
    ref_logp = -0.5 * yv @ a - 0.5 * np.linalg.slogdet(kv)[1]
    ref_grad = 0.5 * np.trace(np.outer(a, a) - kinv)
    got_logp, got_grad = f(xv, yv, sv)
    np.testing.assert_allclose(got_logp, ref_logp, rtol=1e-9)
    np.testing.assert_allclose(got_grad, ref_grad, rtol=1e-8)


def test_triangular_dot_becomes_trmm_in_place_and_equals_numpy() -> None:
    """dot(L^T, B) and dot(L, B) of a Cholesky factor L: TriMatMul (BLAS trmm), written
    into B's buffer when B is a dead temporary; a general dot, a dot added to
    something (gemm's pattern) and mode="JAX" keep Dot."""
    from theon.tensor.blas import Dot
    from theon.tensor.linalg.solvers import TriMatMul

    a, b, c = tt.dmatrices("a", "b", "c")
    lo = linalg.cholesky(a)
    outs = [tt.dot(lo.T, 2.0 * b), tt.dot(lo, c), tt.dot(b, c), tt.dot(lo, b) + c]
    f = theon.function([a, b, c], outs)
    tri = _ops(f, TriMatMul)
    assert sorted((op.lower, op.inplace) for op in tri) == [(False, True), (True, False)]
    assert len(_ops(f, Dot)) + len([n for n in f.maker.fgraph.apply_nodes
                                    if type(n.op).__name__ == "Gemm"]) >= 2
    rng = np.random.default_rng(9)
    av, bv, cv = _spd(70, 9), rng.normal(size=(70, 70)), rng.normal(size=(70, 70))
    b0, c0 = bv.copy(), cv.copy()
    low = np.linalg.cholesky(av)
    want = [low.T @ (2.0 * bv), low @ cv, bv @ cv, low @ bv + cv]
    for got, w in zip(f(av, bv, cv), want):
        np.testing.assert_allclose(got, w, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(bv, b0)
    np.testing.assert_array_equal(cv, c0)
    g = theon.function([a, b, c], outs, mode="JAX") if _have_jax() else None
    if g is not None:
        assert not _ops(g, TriMatMul)


def _have_jax() -> bool:
    import importlib.util

    return importlib.util.find_spec("jax") is not None
