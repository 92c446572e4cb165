"""``mode="JAX"`` on the linear-algebra Ops and ``Blockwise`` (``jax.vmap`` over the
batch dimensions, broadcast as in NumPy), against the reference VM; ``on_error``
(JAX cannot raise on data: NaN); gradients."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.tensor import linalg as la  # noqa: E402
from theon.tensor.blockwise import Blockwise  # noqa: E402

VM = Mode(linker="vm")
RNG = np.random.default_rng(0)


def spd(*batch, n=4):
    a = RNG.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def both(ins, outs, *args):
    fj = theon.function(ins, outs, mode="JAX")
    fv = theon.function(ins, outs, mode=VM)
    return fj(*args), fv(*args), fj


def assert_same(got, want, rtol=1e-9):
    if not isinstance(want, list | tuple):
        got, want = [got], [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-9)


A3 = tt.dtensor3("A3")  # a batch of matrices
M = tt.dmatrix("M")
B = tt.dmatrix("B")
V = tt.dvector("V")
PIV = tt.ivector("piv")

CASES = {
    "cholesky": (lambda: la.cholesky(A3), [A3], lambda: [spd(2)]),
    "cholesky_upper": (lambda: la.cholesky(A3, lower=False), [A3], lambda: [spd(2)]),
    "inv": (lambda: la.inv(A3), [A3], lambda: [RNG.normal(size=(3, 4, 4))]),
    "pinv": (lambda: la.pinv(A3), [A3], lambda: [RNG.normal(size=(2, 5, 3))]),
    "det": (lambda: la.det(A3), [A3], lambda: [RNG.normal(size=(3, 4, 4))]),
    "slogdet": (lambda: la.slogdet(A3), [A3], lambda: [RNG.normal(size=(3, 4, 4))]),
    "lu": (lambda: la.lu(A3), [A3], lambda: [RNG.normal(size=(2, 4, 4))]),
    "lu_rect_p_indices": (lambda: la.lu(M, p_indices=True), [M],
                          lambda: [RNG.normal(size=(5, 3))]),
    "lu_permute_l": (lambda: la.lu(M, permute_l=True), [M], lambda: [RNG.normal(size=(4, 4))]),
    "lu_factor": (lambda: la.lu_factor(A3), [A3], lambda: [RNG.normal(size=(2, 4, 4))]),
    "pivot_matrix": (lambda: la.decomp.pivot_matrix(PIV, "float64"), [PIV],
                     lambda: [np.array([2, 2, 3, 3], dtype="int32")]),
    "solve": (lambda: la.solve(A3, B), [A3, B],
              lambda: [RNG.normal(size=(3, 4, 4)), RNG.normal(size=(4, 2))]),
    "solve_vector": (lambda: la.solve(M, V, b_ndim=1), [M, V],
                     lambda: [RNG.normal(size=(4, 4)), RNG.normal(size=4)]),
    "solve_pos": (lambda: la.solve(M, B, assume_a="pos"), [M, B],
                  lambda: [np.triu(spd()), RNG.normal(size=(4, 2))]),
    "solve_sym_lower": (lambda: la.solve(M, B, assume_a="sym", lower=True), [M, B],
                        lambda: [np.tril(spd()), RNG.normal(size=(4, 2))]),
    "solve_tridiagonal": (lambda: la.solve(M, V, assume_a="tridiagonal", b_ndim=1), [M, V],
                          lambda: [np.triu(np.tril(spd(), 1), -1), RNG.normal(size=4)]),
    "solve_triangular": (lambda: la.solve_triangular(A3, B, lower=True, trans=1), [A3, B],
                         lambda: [RNG.normal(size=(2, 4, 4)) + 4 * np.eye(4),
                                  RNG.normal(size=(4, 3))]),
    "tri_matmul": (lambda: [la.solvers.tri_matmul(A3, B), la.solvers.tri_matmul(M, B, False)],
                   [A3, M, B], lambda: [RNG.normal(size=(2, 4, 4)), RNG.normal(size=(4, 4)),
                                        RNG.normal(size=(4, 3))]),
    "cholesky_grad": (lambda: [la.CholeskyGrad()(M, B), la.CholeskyGrad(lower=False)(M.T, B)],
                      [M, B], lambda: [np.linalg.cholesky(spd(n=70)), RNG.normal(size=(70, 70))]),
    "cho_solve": (lambda: la.cho_solve((A3, True), B), [A3, B],
                  lambda: [np.linalg.cholesky(spd(2)), RNG.normal(size=(4, 3))]),
    "lu_solve": (lambda: la.lu_solve(la.lu_factor(M), B, trans=1), [M, B],
                 lambda: [RNG.normal(size=(4, 4)), RNG.normal(size=(4, 2))]),
    "band_part": (lambda: [la._common.band_part(A3, None, 0, 0.5),
                           la._common.band_part(A3, 1, -1), la._common.band_part(M, -1, 2)],
                  [A3, M], lambda: [RNG.normal(size=(2, 4, 5)), RNG.normal(size=(5, 3))]),
    "eigh": (lambda: la.eigh(A3), [A3], lambda: [spd(2)]),
    "eigh_generalized": (lambda: la.eigh(M, b=B), [M, B], lambda: [spd(), spd()]),
    "eigvalsh": (lambda: la.eigvalsh(A3), [A3], lambda: [spd(3)]),
    "svd": (lambda: la.svd(A3), [A3], lambda: [RNG.normal(size=(2, 5, 3))]),
    "svd_reduced": (lambda: la.svd(M, full_matrices=False), [M],
                    lambda: [RNG.normal(size=(3, 5))]),
    "svd_values": (lambda: la.svd(A3, compute_uv=False), [A3],
                   lambda: [RNG.normal(size=(2, 5, 3))]),
    "qr": (lambda: la.qr(A3), [A3], lambda: [RNG.normal(size=(2, 5, 3))]),
    "qr_complete": (lambda: la.qr(M, mode="complete"), [M], lambda: [RNG.normal(size=(5, 3))]),
    "qr_r": (lambda: la.qr(M, mode="r"), [M], lambda: [RNG.normal(size=(5, 3))]),
    # (lstsq's residuals, empty unless a has full rank, have a data-dependent length)
    "lstsq": (lambda: [la.lstsq(A3, B)[k] for k in (0, 2, 3)], [A3, B],
              lambda: [RNG.normal(size=(2, 5, 3)), RNG.normal(size=(5, 2))]),
    "expm": (lambda: la.expm(A3), [A3], lambda: [RNG.normal(size=(2, 4, 4)) * 0.3]),
    "lyapunov_continuous": (lambda: la.solve_continuous_lyapunov(M, B), [M, B],
                            lambda: [RNG.normal(size=(4, 4)) - 4 * np.eye(4), spd()]),
    "lyapunov_discrete": (lambda: la.solve_discrete_lyapunov(A3, B), [A3, B],
                          lambda: [RNG.normal(size=(2, 4, 4)) * 0.2, spd()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_matches_the_reference(name):
    build, ins, args = CASES[name]
    outs = build()
    outs = list(outs) if isinstance(outs, list | tuple) else [outs]
    got, want, f = both(ins, outs, *args())
    assert_same(got, want)


def test_eig_and_its_gradient():
    a = RNG.normal(size=(4, 4))
    w, v = la.eig(M)
    got, want, _ = both([M], [w, v], a)
    assert got[0].dtype == np.complex128
    np.testing.assert_allclose(a @ got[1], got[1] * got[0], atol=1e-10)
    np.testing.assert_allclose(np.sort_complex(got[0]), np.sort_complex(want[0]), atol=1e-10)
    cost = (w.real ** 2).sum() + (abs(v) ** 2 * np.arange(4.0)).sum()
    got, want, _ = both([M], theon.grad(cost, M), a)
    assert_same(got, want, rtol=1e-7)


@pytest.mark.parametrize("name", ["solve", "cholesky", "det", "inv", "eigh", "svd_values",
                                  "lstsq", "lu_solve", "qr", "expm", "lyapunov_continuous"])
def test_gradients_match_the_reference(name):
    build, ins, args = CASES[name]
    outs = build()
    outs = list(outs) if isinstance(outs, list | tuple) else [outs]
    cost = sum(((o if o.type.dtype.startswith("float") else o * 0) ** 2).sum() for o in outs)
    if name == "eigh":  # sign-invariant in the eigenvectors
        cost = (outs[0] ** 2).sum() + ((outs[1] ** 2) * np.arange(4.0)).sum()
    if name == "qr":
        cost = (abs(outs[1]) ** 2).sum()
    grads = theon.grad(cost, ins)
    got, want, _ = both(ins, grads, *args())
    assert_same(got, want, rtol=1e-7)


def test_blockwise_broadcasts_batch_dimensions():
    a = tt.dtensor4("a")  # (2, 1, 4, 4)
    b = tt.dtensor3("b")  # (3, 4, 2): broadcasts against a's batch (2, 1) to (2, 3)
    x = la.solve(a, b)
    assert isinstance(x.owner.op, Blockwise)
    av = RNG.normal(size=(2, 1, 4, 4)) + 4 * np.eye(4)
    bv = RNG.normal(size=(3, 4, 2))
    got, want, _ = both([a, b], x, av, bv)
    assert got.shape == (2, 3, 4, 2)
    assert_same(got, want)
    np.testing.assert_allclose(got, np.linalg.solve(av, bv), rtol=1e-10)


def test_blockwise_of_a_tensor_op():
    core = tt.dot(tt.dmatrix(), tt.dvector()).owner.op
    a3, v = tt.dtensor3("a3"), tt.dvector("v")
    y = Blockwise(core, "(m,n),(n)->(m)")(a3, v)
    got, want, _ = both([a3, v], y, np.ones((2, 3, 4)), np.arange(4.0))
    assert_same(got, want)


@pytest.mark.parametrize("on_error", ["nan", "raise"])
def test_failures_give_nan_in_jax(on_error):
    """JAX cannot raise on data under jit: a singular or non-positive-definite input
    gives NaN outputs with both settings (the reference raises with 'raise')."""
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    notpd = np.array([[1.0, 2.0], [2.0, 1.0]])
    outs = [la.inv(M, on_error=on_error), la.cholesky(B, on_error=on_error),
            la.solve(M, V, b_ndim=1, on_error=on_error)]
    f = theon.function([M, B, V], outs, mode="JAX")
    for r in f(sing, notpd, np.ones(2)):
        assert np.isnan(r).all()
    good = f(np.eye(2) * 2, np.eye(2) * 4, np.ones(2))
    np.testing.assert_allclose(good[0], np.eye(2) / 2)
    np.testing.assert_allclose(good[1], np.eye(2) * 2)
    if on_error == "nan":
        for r in theon.function([M, B, V], outs, mode=VM)(sing, notpd, np.ones(2)):
            assert np.isnan(r).all()
    else:
        with pytest.raises(np.linalg.LinAlgError):
            theon.function([M], outs[0], mode=VM)(sing)


def test_a_batch_with_one_failing_block_fails_only_that_block():
    a = np.stack([np.eye(3) * 2, np.ones((3, 3))])
    f = theon.function([A3], la.inv(A3, on_error="nan"), mode="JAX")
    r = f(a)
    np.testing.assert_allclose(r[0], np.eye(3) / 2)
    assert np.isnan(r[1]).all()


def test_a_failing_block_with_an_unbatched_operand():
    """The batch's guard reads an operand without batch axes (V) for every block."""
    a = np.stack([np.eye(2) * 2, [[1.0, 2.0], [2.0, 4.0]], np.eye(2)])
    f = theon.function([A3, V], la.solve(A3, V, b_ndim=1, on_error="nan"), mode="JAX")
    r = f(a, np.array([1.0, 3.0]))
    np.testing.assert_allclose(r[0], [0.5, 1.5])
    assert np.isnan(r[1]).all()
    np.testing.assert_allclose(r[2], [1.0, 3.0])


def test_gradient_of_a_batched_solve_factors_each_matrix_once():
    """solve(A, b) and the solve with A^T in its gradient share one LU factorization in
    mode="JAX" (jax 0.10.2 hangs on two batched LU solves in one jitted function);
    the values equal NumPy's."""
    rng = np.random.default_rng(17)
    a = rng.normal(size=(50, 4, 4)) + 4 * np.eye(4)
    b, w = rng.normal(size=(50, 4)), rng.normal(size=(50, 4))
    bm, wm = tt.dmatrix("b"), tt.dmatrix("w")
    x = la.solve(A3, bm, b_ndim=1)
    cost = (wm * x).sum()
    f = theon.function([A3, bm, wm], [cost, *theon.grad(cost, [A3, bm])], mode="JAX")
    names = [str(n.op) for n in f.maker.fgraph.toposort()]
    assert sum("LUFactor" in s for s in names) == 1
    assert not any("{Solve{" in s for s in names), names
    xs = np.linalg.solve(a, b[..., None])[..., 0]
    gb = np.linalg.solve(np.swapaxes(a, 1, 2), w[..., None])[..., 0]
    for _ in range(20):  # (the hang showed within a few calls)
        got = f(a, b, w)
    np.testing.assert_allclose(got[0], (w * xs).sum())
    np.testing.assert_allclose(got[1], -gb[..., :, None] * xs[..., None, :], atol=1e-12)
    np.testing.assert_allclose(got[2], gb, atol=1e-12)
