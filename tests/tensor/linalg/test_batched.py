"""The linalg functions on batches (Blockwise): values equal NumPy's stacked routines or a
loop over SciPy, gradients by verify_grad on batched inputs, broadcast batch axes,
float32, the reference VM, and a failing block naming its batch index."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.linalg as sl

import theon
import theon.tensor as T
from theon.tensor import linalg as la
from theon.tensor.blockwise import Blockwise
from theon.tensor.linalg.solvers import tri_matmul

B, N = 3, 4


def stack(fn: Any, *arrays: np.ndarray) -> np.ndarray:
    """A loop over the leading axis (the independent reference)."""
    return np.stack([fn(*parts) for parts in zip(*arrays)])


def spds(dtype: str = "float64", seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(B, N, N))
    return (x @ np.swapaxes(x, -1, -2) + N * np.eye(N)).astype(dtype)


def gens(dtype: str = "float64", seed: int = 1) -> np.ndarray:
    return (np.random.default_rng(seed).normal(size=(B, N, N)) + N * np.eye(N)).astype(dtype)


def rhs(shape: tuple[int, ...], dtype: str = "float64", seed: int = 2) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def sym(x: Any) -> Any:
    return (x + x.swapaxes(-1, -2)) * 0.5


def _phi(L: np.ndarray, Lbar: np.ndarray) -> np.ndarray:
    """The lower triangle of L^T Lbar with its diagonal halved."""
    p = np.tril(L.T @ np.tril(Lbar))
    p[np.diag_indices_from(p)] *= 0.5
    return p


CASES = [
    ("cholesky", lambda a: la.cholesky(a), lambda a: stack(np.linalg.cholesky, a),
     lambda d: [spds(d)]),
    ("cholesky_upper", lambda a: la.cholesky(a, lower=False),
     lambda a: stack(lambda m: sl.cholesky(m, lower=False), a), lambda d: [spds(d)]),
    ("inv", la.inv, lambda a: stack(np.linalg.inv, a), lambda d: [gens(d)]),
    ("pinv", la.pinv, lambda a: stack(np.linalg.pinv, a), lambda d: [rhs((B, N, 2), d)]),
    ("det", la.det, lambda a: stack(np.linalg.det, a), lambda d: [gens(d)]),
    ("slogdet", lambda a: la.slogdet(a)[1], lambda a: stack(lambda m: np.linalg.slogdet(m)[1], a),
     lambda d: [gens(d)]),
    ("solve_vec", lambda a, b: la.solve(a, b, b_ndim=1), lambda a, b: stack(np.linalg.solve, a, b),
     lambda d: [gens(d), rhs((B, N), d)]),
    ("solve_mat", la.solve, lambda a, b: stack(np.linalg.solve, a, b),
     lambda d: [gens(d), rhs((B, N, 2), d)]),
    ("solve_pos", lambda a, b: la.solve(a, b, assume_a="pos"),
     lambda a, b: stack(lambda m, v: sl.solve(m, v, assume_a="pos"), a, b),
     lambda d: [spds(d), rhs((B, N, 2), d)]),
    ("solve_triangular", lambda a, b: la.solve_triangular(a, b, lower=True, b_ndim=1),
     lambda a, b: stack(lambda m, v: sl.solve_triangular(m, v, lower=True), a, b),
     lambda d: [gens(d), rhs((B, N), d)]),
    ("cho_solve", lambda c, b: la.cho_solve((c, True), b),
     lambda c, b: stack(lambda m, v: sl.cho_solve((m, True), v), c, b),
     lambda d: [np.linalg.cholesky(spds()).astype(d), rhs((B, N, 2), d)]),
    ("tri_matmul", lambda a, b: tri_matmul(a, b, lower=False),
     lambda a, b: stack(lambda m, v: np.triu(m) @ v, a, b),
     lambda d: [gens(d), rhs((B, N, 2), d)]),
    ("cholesky_grad", lambda c, g: la.cholesky_grad(c, g),
     lambda c, g: stack(lambda m, v: np.linalg.solve(
         m.T, np.linalg.solve(m.T, _phi(m, v)).T).T, c, g) * 0.5
     + np.swapaxes(stack(lambda m, v: np.linalg.solve(
         m.T, np.linalg.solve(m.T, _phi(m, v)).T).T, c, g), -1, -2) * 0.5,
     lambda d: [np.linalg.cholesky(spds()).astype(d), gens(d)]),
    ("lu_U", lambda a: la.lu(a)[2], lambda a: stack(lambda m: sl.lu(m)[2], a),
     lambda d: [gens(d)]),
    ("lu_solve", lambda a, b: la.lu_solve(la.lu_factor(a), b),
     lambda a, b: stack(lambda m, v: sl.lu_solve(sl.lu_factor(m), v), a, b),
     lambda d: [gens(d), rhs((B, N, 2), d)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "build", "ref", "values"), CASES, ids=[c[0] for c in CASES])
def test_batched_values(name: str, build: Any, ref: Any, values: Any, dtype: str) -> None:
    vals = values(dtype)
    xs = [T.TensorType(dtype, shape=(None,) * v.ndim)(f"x{i}") for i, v in enumerate(vals)]
    out = build(*xs)
    assert isinstance(out.owner.op, Blockwise)
    assert out.type.dtype == dtype
    got = theon.function(xs, out)(*vals)
    vm = theon.function(xs, out, mode=theon.Mode(linker="vm"))(*vals)
    tol = 1e-10 if dtype == "float64" else 2e-4
    np.testing.assert_allclose(got, ref(*vals), rtol=tol, atol=tol)
    np.testing.assert_allclose(vm, got, rtol=tol, atol=tol)
    assert got.dtype == dtype


GRADS = [
    ("cholesky", lambda a: la.cholesky(sym(a)), [spds()]),
    ("inv", la.inv, [gens()]),
    ("det", la.det, [gens()]),
    ("slogdet", lambda a: la.slogdet(a)[1], [gens()]),
    ("pinv", la.pinv, [rhs((B, N, 2))]),
    ("solve_vec", lambda a, b: la.solve(a, b, b_ndim=1), [gens(), rhs((B, N))]),
    ("solve_pos", lambda a, b: la.solve(sym(a), b, assume_a="pos"), [spds(), rhs((B, N, 2))]),
    ("solve_triangular", lambda a, b: la.solve_triangular(a, b, lower=True), [gens(),
                                                                              rhs((B, N, 2))]),
    ("cho_solve", lambda c, b: la.cho_solve((c, True), b),
     [np.linalg.cholesky(spds()), rhs((B, N, 2))]),
    ("lu", lambda a: la.lu(a)[1] + la.lu(a)[2] * 2.0, [gens()]),
    ("tri_matmul", lambda a, b: tri_matmul(a, b), [gens(), rhs((B, N, 2))]),
    ("cholesky_grad", lambda c, g: la.cholesky_grad(c, g),
     [np.linalg.cholesky(spds()), gens()]),
]


@pytest.mark.parametrize(("name", "fn", "pt"), GRADS, ids=[g[0] for g in GRADS])
def test_batched_verify_grad(name: str, fn: Any, pt: list[np.ndarray]) -> None:
    theon.verify_grad(fn, pt, rng=16)


def test_broadcast_batch_axes() -> None:
    """A single matrix against a batch of right-hand sides, and a batch of matrices
    against one right-hand side."""
    a, bs = T.dmatrix("a"), T.dtensor3("bs")
    av, bv = gens()[0], rhs((B, N, 2))
    got = theon.function([a, bs], la.solve(a, bs))(av, bv)
    np.testing.assert_allclose(got, stack(lambda v: np.linalg.solve(av, v), bv))
    A, b = T.dtensor3("A"), T.dvector("b")
    Av, b1 = gens(), rhs((N,))
    got = theon.function([A, b], la.solve(A, b, b_ndim=1))(Av, b1)
    np.testing.assert_allclose(got, stack(lambda m: np.linalg.solve(m, b1), Av))


def test_batched_failure_names_the_block() -> None:
    A = T.dtensor3("A")
    values = spds()
    values[1] = -values[1]  # not positive definite
    f = theon.function([A], la.cholesky(A))
    with pytest.raises(np.linalg.LinAlgError) as info:
        f(values)
    assert "batch index (1,)" in "\n".join(getattr(info.value, "__notes__", []))
    g = theon.function([A], la.cholesky(A, on_error="nan"))
    out = g(values)
    assert np.isnan(out[1]).all() and np.isfinite(out[[0, 2]]).all()
    np.testing.assert_allclose(out[0], np.linalg.cholesky(values[0]))


def test_batched_solve_gradient_matches_numpy() -> None:
    A, b, w = T.dtensor3("A"), T.dmatrix("b"), T.dmatrix("w")
    x = la.solve(A, b, b_ndim=1)
    gA, gb = theon.grad((w * x).sum(), [A, b])
    Av, bv, wv = gens(), rhs((B, N)), rhs((B, N), seed=5)
    got_a, got_b = theon.function([A, b, w], [gA, gb])(Av, bv, wv)
    xv = stack(np.linalg.solve, Av, bv)
    want_b = stack(lambda m, v: np.linalg.solve(m.T, v), Av, wv)
    np.testing.assert_allclose(got_b, want_b)
    np.testing.assert_allclose(got_a, -want_b[:, :, None] * xv[:, None, :])
