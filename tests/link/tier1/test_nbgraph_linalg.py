"""The whole-graph numba tier on the linear algebra and advanced indexing of PyMC's
Gaussian processes (theon.backends.numba.linalg, theon.backends.numba.tensor_extra):
each spelling against the reference VM and NumPy/SciPy, the compiled graph itself
called (``slot.impl``) as well as the function, and the calls it refuses (a matrix
that is not positive definite, a zero on a diagonal, an index out of range) served by
tier 0 with tier 0's error or NaN."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import theon
import theon.tensor as tt
from tests.link.tier1.nbgraph_helpers import compiled
from theon.compile.mode import Mode
from theon.tensor.advanced_subtensor import AdvancedIncSubtensor
from theon.tensor.linalg import CholeskyGrad, SolveTriangular
from theon.tensor.linalg._common import BandPart, band_part

numba = pytest.importorskip("numba", reason="the whole-graph tier needs numba (theon[numba])")

VM = Mode(linker="vm", optimizer=None)
RTOL = 1e-12


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("nbgraph-linalg-cache"))


def op_types(f):
    """The Op classes of ``f``'s graph (a Blockwise's core Op's class too)."""
    out = set()
    for node in f.maker.fgraph.apply_nodes:
        out.add(type(node.op))
        core = getattr(node.op, "core_op", None)
        if core is not None:
            out.add(type(core))
    return out


def check(f, ref, args, rtol=RTOL):
    """The compiled graph's own values (``slot.impl``) and the function's against the
    reference's, to ``rtol``."""
    want = ref(*args)
    for got in (f._runner.slot.impl(*args), f(*args)):
        assert len(got) == len(want)
        for n, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, n
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * np.abs(w).max(initial=0),
                                       err_msg=f"output {n}")


def spd(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


# ------------------------------------------------------------------------------ Cholesky
def test_cholesky_lower_and_upper_match_numpy_and_the_vm(cache):
    a = tt.dmatrix("a")
    outs = [tt.linalg.cholesky(a), tt.linalg.cholesky(a, lower=False),
            tt.linalg.cholesky(a.T * 1.0)]  # (a transposed input)
    f = compiled([a], outs, [spd(5, 0)], cache)
    assert tt.linalg.Cholesky in op_types(f)
    ref = theon.function([a], outs, mode=VM)
    for x in (spd(5, 1), spd(1, 2), spd(12, 3)):
        check(f, ref, [x])
        low, up, _ = f._runner.slot.impl(x)
        np.testing.assert_allclose(low, np.linalg.cholesky(x), rtol=RTOL)
        np.testing.assert_allclose(up, sl.cholesky(x, lower=False), rtol=RTOL)
    # only the triangle the factor is of is read
    x = spd(4, 4)
    junk = np.tril(x) + np.triu(np.full((4, 4), np.nan), 1)
    assert not np.isnan(f._runner.slot.impl(junk)[0]).any()
    np.testing.assert_allclose(f._runner.slot.impl(junk)[0], np.linalg.cholesky(x), rtol=RTOL)


def test_a_matrix_that_is_not_positive_definite_is_served_by_tier_0(cache):
    a = tt.dmatrix("a")
    f = compiled([a], [tt.linalg.cholesky(a)], [spd(3, 5)], cache)
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(Exception):
        f._runner.slot.impl(bad)  # the compiled graph refuses it
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        f(bad)  # tier 0's error
    assert f._runner.slot.state == "ready"
    g = compiled([a], [tt.linalg.cholesky(a, on_error="nan") * 2.0], [spd(3, 5)], cache)
    assert np.isnan(g(bad)[0]).all()  # tier 0's NaN
    np.testing.assert_allclose(g(spd(3, 6))[0], 2 * np.linalg.cholesky(spd(3, 6)), rtol=RTOL)


# ---------------------------------------------------------------------- SolveTriangular
FLAGS = [(lower, trans, unit) for lower in (True, False) for trans in (0, 1, 2)
         for unit in (False, True)]


def test_solve_triangular_every_flag_vector_and_matrix_match_scipy(cache):
    a, b, bm = tt.dmatrix("a"), tt.dvector("b"), tt.dmatrix("bm")
    outs = []
    for lower, trans, unit in FLAGS:
        outs.append(tt.linalg.solve_triangular(a, b, lower=lower, trans=trans,
                                               unit_diagonal=unit, b_ndim=1))
        outs.append(tt.linalg.solve_triangular(a, bm, lower=lower, trans=trans,
                                               unit_diagonal=unit, b_ndim=2))
    rng = np.random.default_rng(7)

    def args(n, m):
        x = rng.normal(size=(n, n)) + 4 * np.eye(n)  # (both triangles full: one is read)
        return [x, rng.normal(size=n), rng.normal(size=(n, m))]

    f = compiled([a, b, bm], outs, args(5, 3), cache)
    assert SolveTriangular in op_types(f)
    ref = theon.function([a, b, bm], outs, mode=VM)
    for n, m in ((6, 2), (1, 1), (4, 0)):
        x, bv, bmat = args(n, m)
        check(f, ref, [x, bv, bmat])
        got = f._runner.slot.impl(x, bv, bmat)
        for k, (lower, trans, unit) in enumerate(FLAGS):
            for j, rhs in enumerate((bv, bmat)):
                want = sl.solve_triangular(x, rhs, lower=lower, trans=trans,
                                           unit_diagonal=unit)
                np.testing.assert_allclose(got[2 * k + j], want, rtol=1e-11, atol=1e-13,
                                           err_msg=str((lower, trans, unit, j)))


def test_a_zero_on_the_diagonal_is_served_by_tier_0_and_unit_diagonal_ignores_it(cache):
    a, b = tt.dmatrix("a"), tt.dvector("b")
    x = np.array([[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [4.0, 5.0, 6.0]])
    bv = np.array([1.0, 2.0, 3.0])
    f = compiled([a, b], [tt.linalg.solve_triangular(a, b, lower=True)], [x, bv], cache)
    u = compiled([a, b], [tt.linalg.solve_triangular(a, b, lower=True, unit_diagonal=True)],
                 [x, bv], cache)
    z = x.copy()
    z[1, 1] = 0.0
    with pytest.raises(Exception):
        f._runner.slot.impl(z, bv)
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        f(z, bv)
    np.testing.assert_allclose(u._runner.slot.impl(z, bv)[0],
                               sl.solve_triangular(z, bv, lower=True, unit_diagonal=True),
                               rtol=RTOL)
    # a right-hand side of another length: refused, tier 0's error
    with pytest.raises(Exception):
        f._runner.slot.impl(x, np.ones(2))
    with pytest.raises(ValueError):
        f(x, np.ones(2))


def test_batched_solves_go_through_the_blockwise_loop(cache):
    a3, a, b2 = tt.dtensor3("a3"), tt.dmatrix("a"), tt.dmatrix("b2")
    row = tt.TensorType("float64", shape=(1, None))("row")
    outs = [tt.linalg.solve_triangular(a3, b2, lower=True, b_ndim=1),
            tt.linalg.solve_triangular(a, row, lower=True, trans=1, b_ndim=1),
            tt.linalg.solve_triangular(a3, b2[0], lower=False, b_ndim=1),
            tt.linalg.cholesky(a3),
            # any core Op with a spelling: a batched matrix-vector product
            tt.Blockwise(tt.dot(tt.dmatrix(), tt.dvector()).owner.op, "(m,n),(n)->(m)")(a3, b2)]
    rng = np.random.default_rng(8)
    a3v = rng.normal(size=(3, 4, 4)) + 5 * np.eye(4)
    spd3 = np.stack([spd(4, s) for s in range(3)])
    args = [a3v, a3v[0], rng.normal(size=(3, 4)), rng.normal(size=(1, 4))]
    f = compiled([a3, a, b2, row], outs, args, cache)
    assert tt.Blockwise in op_types(f)
    ref = theon.function([a3, a, b2, row], outs, mode=VM)
    check(f, ref, args, rtol=1e-11)
    got = f._runner.slot.impl(*args)
    for k in range(3):
        np.testing.assert_allclose(got[0][k], sl.solve_triangular(a3v[k], args[2][k], lower=True),
                                   rtol=1e-11)
    np.testing.assert_allclose(got[4], np.einsum("bij,bj->bi", a3v, args[2]), rtol=1e-13)
    np.testing.assert_allclose(got[1][0], sl.solve_triangular(a3v[0], args[3][0], lower=True,
                                                              trans=1), rtol=1e-11)
    spd_args = [spd3, *args[1:]]
    check(f, ref, spd_args, rtol=1e-11)
    np.testing.assert_allclose(f._runner.slot.impl(*spd_args)[3], np.linalg.cholesky(spd3),
                               rtol=RTOL)
    # batches of other lengths: refused (a batch length that broadcasts), tier 0's values
    short = [a3v[:1], *args[1:]]
    with pytest.raises(Exception):
        f._runner.slot.impl(*short)
    for g, w in zip(f(*short), ref(*short)):
        np.testing.assert_allclose(g, w, rtol=1e-11)


# -------------------------------------------------------------------------- CholeskyGrad
def _fd_symmetric(fn, x, eps=1e-6):
    """Central differences of the scalar ``fn`` at the symmetric ``x`` along each
    symmetric direction ``E_ij + E_ji`` (``E_ii`` on the diagonal)."""
    n = x.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(i + 1):
            e = np.zeros((n, n))
            e[i, j] = e[j, i] = eps
            out[i, j] = out[j, i] = (fn(x + e) - fn(x - e)) / (2 * eps)
    return out


def test_cholesky_grad_matches_the_vm_and_finite_differences(cache):
    a, w = tt.dmatrix("a"), tt.dmatrix("w")
    cost_l = (tt.linalg.cholesky(a) * w).sum()
    cost_u = (tt.linalg.cholesky(a, lower=False) * w.T).sum()
    outs = [theon.grad(cost_l, a), theon.grad(cost_u, a)]
    rng = np.random.default_rng(9)
    args = [spd(6, 10), rng.normal(size=(6, 6))]
    f = compiled([a, w], outs, args, cache)
    assert CholeskyGrad in op_types(f)
    ref = theon.function([a, w], outs, mode=VM)
    for x, wv in (args, (spd(1, 11), np.array([[0.7]])), (spd(9, 12), rng.normal(size=(9, 9)))):
        check(f, ref, [x, wv], rtol=1e-11)
        gl, gu = f._runner.slot.impl(x, wv)
        fd = _fd_symmetric(lambda m, wv=wv: (np.linalg.cholesky(m) * wv).sum(), x)
        # the gradient wrt the symmetric a: g_ij + g_ji along E_ij + E_ji
        np.testing.assert_allclose(gl + gl.T - np.diag(np.diag(gl)), fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gu, gl, rtol=1e-11, atol=1e-14)


def test_cholesky_grad_op_refuses_a_zero_on_the_factors_diagonal(cache):
    fl, g = tt.dmatrix("fl"), tt.dmatrix("g")
    outs = [CholeskyGrad()(fl, g), CholeskyGrad(lower=False)(fl, g)]
    L = np.linalg.cholesky(spd(4, 13))
    gv = np.random.default_rng(14).normal(size=(4, 4))
    f = compiled([fl, g], outs, [L, gv], cache)
    ref = theon.function([fl, g], outs, mode=VM)
    check(f, ref, [L, gv])
    check(f, ref, [L.T.copy(), gv.T.copy()])
    z = L.copy()
    z[2, 2] = 0.0
    with pytest.raises(Exception):
        f._runner.slot.impl(z, gv)
    with pytest.raises(np.linalg.LinAlgError, match="zero on its diagonal"):
        f(z, gv)


# ------------------------------------------------------------------------------ BandPart
def test_band_part_matrices_and_stacks_match_numpy(cache):
    x, x3 = tt.dmatrix("x"), tt.dtensor3("x3")
    specs = [(None, 0, 1.0), (0, None, 1.0), (None, 0, 0.5), (1, 2, 1.0), (None, -1, 1.0),
             (2, 0, 3.0), (None, None, 0.25)]
    outs = [band_part(x * 1.0, lo, up, d) for lo, up, d in specs]
    outs += [band_part(x3 * 1.0, None, 0, 0.5), band_part(x3 * 1.0, 0, 1)]
    rng = np.random.default_rng(15)
    xv = rng.normal(size=(4, 5))
    xv[0, 3] = np.nan  # (outside most bands: zeroed there)
    args = [xv, rng.normal(size=(2, 3, 3))]
    f = compiled([x, x3], outs, args, cache)
    assert BandPart in op_types(f)
    ref = theon.function([x, x3], outs, mode=VM)
    got = f._runner.slot.impl(*args)
    for g, w in zip(got, ref(*args)):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0], np.tril(xv))
    np.testing.assert_array_equal(got[1], np.triu(xv))
    half = np.tril(xv)
    half[range(4), range(4)] *= 0.5
    np.testing.assert_array_equal(got[2], half)
    np.testing.assert_array_equal(got[3], np.triu(np.tril(xv, 2), -1))
    np.testing.assert_array_equal(got[4], np.tril(xv, -1))
    np.testing.assert_array_equal(got[7], np.tril(args[1]) - 0.5 * np.einsum(
        "bij,ij->bij", args[1], np.eye(3)))
    for shape in ((1, 1), (0, 3)):
        one = [np.full(shape, 2.0), np.zeros((0, 2, 2))]
        for g, w in zip(f._runner.slot.impl(*one), ref(*one)):
            np.testing.assert_array_equal(g, w)


# --------------------------------------------------------------------- advanced indexing
def test_advanced_indexing_by_integer_vectors_matches_numpy(cache):
    x, x3 = tt.dmatrix("x"), tt.dtensor3("x3")
    xi = tt.lmatrix("xi")
    i, j = tt.lvector("i"), tt.lvector("j")
    k = tt.lscalar("k")
    y, ys = tt.dvector("y"), tt.dscalar("ys")
    outs = [x[i, i], x[i, j], x[i, k], x3[i, j], x3[i],
            tt.set_subtensor(x[i, i], y), tt.inc_subtensor(x[i, j], y),
            tt.inc_subtensor(x[i, j], ys), tt.inc_subtensor(x3[i, j], x3[0, :1] * 1.0),
            tt.set_subtensor(xi[i, i], i), xi[i, j],
            AdvancedIncSubtensor(("?", "?"), ignore_duplicates=True)(x, y, i, j)]
    rng = np.random.default_rng(16)
    xv, x3v = rng.normal(size=(4, 4)), rng.normal(size=(4, 3, 2))
    xiv = np.arange(16).reshape(4, 4)
    iv, jv = np.array([0, 2, -1, 2]), np.array([1, 1, 0, 2])  # (repeated, negative)
    args = [xv, x3v, xiv, iv, jv, -2, np.array([1.0, 2.0, 3.0, 4.0]), 0.5]
    ins = [x, x3, xi, i, j, k, y, ys]
    f = compiled(ins, outs, args, cache)
    types = op_types(f)
    assert tt.AdvancedSubtensor in types and AdvancedIncSubtensor in types
    ref = theon.function(ins, outs, mode=VM)
    got = f._runner.slot.impl(*args)
    for n, (g, w) in enumerate(zip(got, ref(*args))):
        np.testing.assert_array_equal(g, w, err_msg=f"output {n}")
    # against NumPy: repeated indices accumulate in the increment, the last write wins
    acc = xv.copy()
    np.add.at(acc, (iv, jv), args[6])
    np.testing.assert_array_equal(got[6], acc)
    last = xv.copy()
    last[iv, iv] = args[6]
    np.testing.assert_array_equal(got[5], last)
    once = xv.copy()
    once[iv, jv] = xv[iv, jv] + args[6]
    np.testing.assert_array_equal(got[11], once)
    np.testing.assert_array_equal(got[2], xv[iv, -2])


def test_index_vectors_broadcast_and_may_be_empty(cache):
    x, x3 = tt.dmatrix("x"), tt.dtensor3("x3")
    i, j, y = tt.lvector("i"), tt.lvector("j"), tt.dvector("y")
    outs = [x[i, j], x3[i, j], tt.inc_subtensor(x[i, j], y), tt.set_subtensor(x3[i, j], 2.0)]
    rng = np.random.default_rng(17)
    xv, x3v = rng.normal(size=(4, 4)), rng.normal(size=(4, 3, 2))
    # (compiled on vectors of other lengths than 1: a call with a length-1 argument
    # goes to a function specialized for it; the compiled graph is called directly)
    f = compiled([x, x3, i, j, y], outs,
                 [xv, x3v, np.array([3, 0, 2]), np.array([0, 1, 1]), np.ones(3)], cache)
    ref = theon.function([x, x3, i, j, y], outs, mode=VM)
    args = [xv, x3v, np.array([3]), np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0])]
    empty = np.array([], np.int64)
    for a in (args, [xv, x3v, np.array([0, 1, 2]), np.array([2]), np.ones(1)],
              [xv, x3v, empty, empty, np.zeros(0)], [xv, x3v, empty, np.array([1]), np.ones(1)]):
        for n, (g, w) in enumerate(zip(f._runner.slot.impl(*a), ref(*a))):
            np.testing.assert_array_equal(g, w, err_msg=f"output {n}")
    np.testing.assert_array_equal(f._runner.slot.impl(*args)[0], xv[[3], [0, 1, 1]])
    # lengths that do not broadcast: refused, tier 0's IndexError
    bad = [xv, x3v, np.array([0, 1]), np.array([0, 1, 2]), np.ones(3)]
    with pytest.raises(IndexError):
        f._runner.slot.impl(*bad)
    with pytest.raises(IndexError):
        f(*bad)


def test_an_index_out_of_range_is_served_by_tier_0(cache):
    x, i, y = tt.dmatrix("x"), tt.lvector("i"), tt.dvector("y")
    outs = [x[i, i], tt.inc_subtensor(x[i, i], y)]
    args = [np.eye(3), np.array([0, 1]), np.ones(2)]
    f = compiled([x, i, y], outs, args, cache)
    for bad in ([np.eye(3), np.array([0, 3]), np.ones(2)],
                [np.eye(3), np.array([0, -4]), np.ones(2)]):
        with pytest.raises(IndexError):
            f._runner.slot.impl(*bad)
        with pytest.raises(IndexError):
            f(*bad)
    with pytest.raises(Exception):  # a y of another length
        f._runner.slot.impl(np.eye(3), np.array([0, 1]), np.ones(3))
    with pytest.raises(ValueError):
        f(np.eye(3), np.array([0, 1]), np.ones(3))
    assert f._runner.slot.state == "ready"
