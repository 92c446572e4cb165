"""eig, eigh, eigvalsh, svd, qr, lstsq against numpy.linalg / scipy.linalg: values
(float64 and float32), gradients (verify_grad), R_op, infer_shape, the reference VM
against the default linker, and failures."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.linalg

import theon
import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape
from theon.compile.mode import Mode
from theon.tensor.linalg import spectral as sp
from theon.tensor.linalg.eig import eig
from theon.tensor.linalg.spectral import eigh, eigvalsh, lstsq, qr, svd

VM = Mode(linker="vm")
SHAPES = [(4, 4), (5, 3), (3, 5)]


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def sym(n: int, seed: int = 0, dtype: str = "float64") -> np.ndarray:
    """A symmetric matrix with well separated eigenvalues."""
    q, _ = np.linalg.qr(rng(seed).normal(size=(n, n)))
    w = np.arange(1.0, n + 1) * 1.5 - 2.0
    return ((q * w) @ q.T).astype(dtype)


def spd(n: int, seed: int = 0) -> np.ndarray:
    m = rng(seed).normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


def mat(dtype: str = "float64") -> Any:
    return tt.matrix("a", dtype=dtype)


def tol(dtype: str) -> dict[str, float]:
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-10,
                                                                     "atol": 1e-10}


# values ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_eigh_values(dtype: str) -> None:
    a = mat(dtype)
    s = sym(5, 1, dtype)
    for uplo in ("L", "U"):
        w, v = eigh(a, UPLO=uplo)
        assert w.type.dtype == dtype and v.type.dtype == dtype
        f = theon.function([a], [w, v, eigvalsh(a, UPLO=uplo)])
        gw, gv, gw2 = f(s)
        ew, ev = np.linalg.eigh(s, UPLO=uplo)
        assert gw.dtype == dtype and gv.dtype == dtype
        np.testing.assert_allclose(gw, ew, **tol(dtype))
        np.testing.assert_allclose(gw2, ew, **tol(dtype))
        # eigenvectors up to sign
        np.testing.assert_allclose(np.abs(gv), np.abs(ev), **tol(dtype))
    # only one triangle is read
    junk = s.copy()
    junk[np.triu_indices(5, 1)] = 100.0
    np.testing.assert_allclose(eigvalsh(a).eval({a: junk}), np.linalg.eigvalsh(s),
                               **tol(dtype))


def test_eigh_generalized_values() -> None:
    a, b = tt.dmatrices("a", "b")
    av, bv = sym(4, 2), spd(4, 3)
    w, v = eigh(a, b=b)
    gw, gv = theon.function([a, b], [w, v])(av, bv)
    ew = scipy.linalg.eigh(av, bv, eigvals_only=True)
    np.testing.assert_allclose(gw, ew, rtol=1e-10)
    np.testing.assert_allclose(av @ gv, bv @ gv * gw, atol=1e-9)
    np.testing.assert_allclose(gv.T @ bv @ gv, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(eigvalsh(a, b).eval({a: av, b: bv}), ew, rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_eig_values(dtype: str) -> None:
    a = mat(dtype)
    x = rng(4).normal(size=(4, 4)).astype(dtype)
    w, v = eig(a)
    assert w.type.dtype == ("complex64" if dtype == "float32" else "complex128")
    gw, gv = theon.function([a], [w, v])(x)
    ew, ev = np.linalg.eig(x)
    np.testing.assert_allclose(gw, ew, **tol(dtype))
    np.testing.assert_allclose(x @ gv, gv * gw, rtol=1e-3, atol=1e-4)
    # real eigenvalues still come back complex
    assert eig(a)[0].eval({a: np.eye(2, dtype=dtype)}).dtype.kind == "c"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_svd_values(dtype: str, shape: tuple[int, int]) -> None:
    a = mat(dtype)
    x = rng(5).normal(size=shape).astype(dtype)
    for full in (True, False):
        u, s, vh = svd(a, full_matrices=full)
        gu, gs, gvh = theon.function([a], [u, s, vh])(x)
        eu, es, evh = np.linalg.svd(x, full_matrices=full)
        assert gu.shape == eu.shape and gvh.shape == evh.shape and gs.dtype == dtype
        np.testing.assert_allclose(gs, es, **tol(dtype))
        k = min(shape)
        np.testing.assert_allclose((gu[:, :k] * gs) @ gvh[:k], x, **tol(dtype))
        np.testing.assert_allclose(np.abs(gu[:, :k]), np.abs(eu[:, :k]), **tol(dtype))
    np.testing.assert_allclose(svd(a, compute_uv=False).eval({a: x}),
                               np.linalg.svd(x, compute_uv=False), **tol(dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_qr_values(dtype: str, shape: tuple[int, int]) -> None:
    a = mat(dtype)
    x = rng(6).normal(size=shape).astype(dtype)
    for mode in ("reduced", "complete"):
        q, r = qr(a, mode=mode)
        gq, gr = theon.function([a], [q, r])(x)
        eq, er = np.linalg.qr(x, mode=mode)
        assert gq.dtype == dtype and gq.shape == eq.shape and gr.shape == er.shape
        np.testing.assert_allclose(gq, eq, **tol(dtype))
        np.testing.assert_allclose(gr, er, **tol(dtype))
    np.testing.assert_allclose(qr(a, mode="r").eval({a: x}), np.linalg.qr(x, mode="r"),
                               **tol(dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(6, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("b_ndim", [1, 2])
def test_lstsq_values(dtype: str, shape: tuple[int, int], b_ndim: int) -> None:
    a = mat(dtype)
    b = tt.tensor("b", dtype=dtype, shape=(None,) * b_ndim)
    x = rng(7).normal(size=shape).astype(dtype)
    y = rng(8).normal(size=(shape[0],) + (2,) * (b_ndim - 1)).astype(dtype)
    got = theon.function([a, b], lstsq(a, b))(x, y)
    want = np.linalg.lstsq(x, y, rcond=None)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-3 if dtype == "float32" else 1e-9,
                                   atol=1e-4 if dtype == "float32" else 1e-10)
    assert got[0].dtype == dtype


def test_lstsq_rank_deficient() -> None:
    a, b = tt.dmatrix("a"), tt.dvector("b")
    x = rng(9).normal(size=(6, 2)) @ rng(10).normal(size=(2, 3))  # rank 2
    y = rng(11).normal(size=6)
    got = theon.function([a, b], lstsq(a, b))(x, y)
    want = np.linalg.lstsq(x, y, rcond=None)
    assert got[2] == want[2] == 2
    assert got[1].shape == want[1].shape == (0,)
    np.testing.assert_allclose(got[0], want[0], atol=1e-10)
    got = theon.function([a], lstsq(a, b, rcond=0.5)[2])(x)
    assert got == np.linalg.lstsq(x, y, rcond=0.5)[2]


def test_integer_input_is_float64() -> None:
    a = tt.imatrix("a")
    assert svd(a, compute_uv=False).type.dtype == "float64"
    np.testing.assert_allclose(eigvalsh(a).eval({a: np.array([[2, 1], [1, 2]], "int32")}),
                               [1.0, 3.0])


# gradients ---------------------------------------------------------------------------


def weights(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(1.0, np.prod(shape) + 1).reshape(shape) / np.prod(shape)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_grad(uplo: str) -> None:
    n = 4
    wt = weights((n, n))

    def f(x: Any) -> Any:  # eigenvectors enter through v**2: invariant under sign flips
        w, v = eigh(x, UPLO=uplo)
        return (w * np.arange(1.0, n + 1)).sum() + ((v ** 2) * wt).sum()

    theon.verify_grad(f, [sym(n, 12)], rng=np.random.default_rng(0))
    theon.verify_grad(lambda x: eigvalsh(x, UPLO=uplo), [sym(n, 13)])
    # a non-symmetric point: the upper (lower) triangle is not read
    theon.verify_grad(f, [rng(14).normal(size=(n, n)) + 3 * np.diag(np.arange(n))])


def test_eigh_generalized_grad() -> None:
    n = 3
    wt = weights((n, n))

    def f(x: Any, y: Any) -> Any:
        w, v = eigh(x, b=y)
        return w.sum() + 0.3 * (w ** 2).sum() + ((v ** 2) * wt).sum()

    theon.verify_grad(f, [sym(n, 15), spd(n, 16)])
    theon.verify_grad(lambda x, y: eigvalsh(x, y), [sym(n, 17), spd(n, 18)])


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_grad(shape: tuple[int, int]) -> None:
    x = rng(19).normal(size=shape)
    k = min(shape)
    theon.verify_grad(lambda a: svd(a, compute_uv=False), [x])

    def f(a: Any) -> Any:  # functions of u u^T and v v^T-like terms: sign-invariant
        u, s, vh = svd(a, full_matrices=False)
        return ((u ** 2) * weights((shape[0], k))).sum() + ((vh ** 2) * weights(
            (k, shape[1]))).sum() + (s ** 3).sum()

    theon.verify_grad(f, [x])


def test_svd_full_square_grad() -> None:
    def f(a: Any) -> Any:
        u, s, vh = svd(a, full_matrices=True)
        return (u ** 2 * weights((3, 3))).sum() + (vh ** 2).sum(axis=0)[0] + s[0]

    theon.verify_grad(f, [rng(20).normal(size=(3, 3))])


@pytest.mark.parametrize("shape", SHAPES)
def test_qr_grad(shape: tuple[int, int]) -> None:
    x = rng(21).normal(size=shape) + np.eye(*shape) * 2
    k = min(shape)

    def f(a: Any) -> Any:
        q, r = qr(a)
        return (q * weights((shape[0], k))).sum() + (r * weights((k, shape[1]))).sum()

    theon.verify_grad(f, [x])
    theon.verify_grad(lambda a: qr(a, mode="r"), [x])

    def g(a: Any) -> Any:  # complete: the first k columns of q
        q, r = qr(a, mode="complete")
        return (q[:, :k] * weights((shape[0], k))).sum() + (r ** 2).sum()

    theon.verify_grad(g, [x])


@pytest.mark.parametrize("shape", [(6, 3), (3, 5), (4, 4)])
def test_lstsq_grad(shape: tuple[int, int]) -> None:
    x = rng(22).normal(size=shape)
    theon.verify_grad(lambda a, b: lstsq(a, b)[0], [x, rng(23).normal(size=shape[0])])
    theon.verify_grad(lambda a, b: lstsq(a, b)[0], [x, rng(24).normal(size=(shape[0], 2))])


def test_lstsq_residual_and_s_grad() -> None:
    x = rng(25).normal(size=(6, 3))
    theon.verify_grad(lambda a, b: lstsq(a, b)[1], [x, rng(26).normal(size=(6, 2))])
    theon.verify_grad(lambda a, b: lstsq(a, b)[3], [x, rng(27).normal(size=6)])


def test_grads_float32() -> None:
    x = sym(3, 28, "float32")
    theon.verify_grad(lambda a: eigvalsh(a), [x])
    theon.verify_grad(lambda a: svd(a, compute_uv=False), [rng(29).normal(size=(3, 2))
                                                           .astype("float32")])
    a = tt.fmatrix("a")
    g = theon.grad(eigvalsh(a).sum() + svd(a, compute_uv=False).sum(), a)
    assert g.type.dtype == "float32"


def _eig_cost(c: np.ndarray) -> Any:
    """A real cost of eig's outputs that does not depend on the eigenvectors' phases."""
    n = c.shape[-1]

    def cost(a: Any) -> Any:
        w, v = eig(a)
        return ((tt.real(w) * c[0]).sum() + (tt.imag(w) ** 2 * c[1]).sum()
                + (abs(v) ** 2 * c[2:2 + n]).sum())

    return cost


@pytest.mark.parametrize("shape", [(4, 4), (3, 4, 4), (2, 1, 3, 3)])
def test_eig_verify_grad(shape: tuple[int, ...]) -> None:
    """Complex eigenvalue pairs included (a random real matrix has them)."""
    x = rng(32).normal(size=shape)
    assert np.iscomplexobj(np.linalg.eigvals(x)) and (np.linalg.eigvals(x).imag != 0).any()
    c = rng(36).normal(size=(2 + shape[-1], shape[-1]))
    theon.verify_grad(_eig_cost(c), [x], rng=rng(33))


def test_eig_grad_matches_numpy_finite_differences() -> None:
    """The eigenvalue gradient against central differences of numpy.linalg.eigvals."""
    x = rng(34).normal(size=(4, 4))
    a = tt.dmatrix("a")
    w, _ = eig(a)
    cost = (tt.real(w) ** 2).sum() + (tt.imag(w) * 3).sum()
    got = theon.function([a], theon.grad(cost, a))(x)

    def ref_cost(m: np.ndarray) -> float:
        e = np.linalg.eigvals(m)
        return float((e.real ** 2).sum() + (e.imag * 3).sum())

    eps = 1e-6
    fd = np.zeros_like(x)
    for i in range(4):
        for j in range(4):
            d = np.zeros_like(x)
            d[i, j] = eps
            fd[i, j] = (ref_cost(x + d) - ref_cost(x - d)) / (2 * eps)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def test_eig_grad_of_symmetric_input_equals_eigh() -> None:
    x = sym(4, seed=5)
    a = tt.dmatrix("a")
    g1 = theon.function([a], theon.grad((tt.real(eig(a)[0]) ** 3).sum(), a))(x)
    g2 = theon.function([a], theon.grad((eigvalsh(a) ** 3).sum(), a))(x)
    # eigvalsh reads one triangle: its gradient is the symmetric one folded onto it
    np.testing.assert_allclose(np.tril(g1 + g1.T) - np.diag(np.diag(g1)), g2, atol=1e-10)


def test_eig_grad_float32_stays_float32() -> None:
    a = tt.fmatrix("a")
    g = theon.grad(tt.real(eig(a)[0]).sum(), a)
    assert g.type.dtype == "float32"
    x = rng(35).normal(size=(3, 3)).astype("float32")
    np.testing.assert_allclose(theon.function([a], g)(x), np.eye(3), atol=1e-4)


# R_op ---------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [
    lambda a: eigvalsh(a),
    lambda a: eigh(a)[0],
    lambda a: eigh(a, UPLO="U")[1] ** 2,
    lambda a: svd(a, compute_uv=False),
])
def test_rop_matches_transpose_trick(build: Any) -> None:
    a, e = tt.dmatrix("a"), tt.dmatrix("e")
    out = build(a)
    r1 = theon.Rop(out, a, e)
    r2 = theon.Rop(out, a, e, use_op_rop_implementation=False)
    f = theon.function([a, e], [r1, r2])
    x, ev = sym(4, 30), rng(31).normal(size=(4, 4))
    got, want = f(x, ev)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    # and against finite differences
    h = 1e-6
    fo = theon.function([a], out)
    np.testing.assert_allclose(got, (fo(x + h * ev) - fo(x - h * ev)) / (2 * h), atol=1e-5)


# shapes, linkers ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_infer_shape(shape: tuple[int, int]) -> None:
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    x = rng(32).normal(size=shape)
    y = rng(33).normal(size=(shape[0], 2))
    for full in (True, False):
        check_infer_shape(svd(a, full_matrices=full)[0], [a], [x])
    check_infer_shape(svd(a, compute_uv=False), [a], [x])
    for mode in ("reduced", "complete", "r"):
        out = qr(a, mode=mode)
        check_infer_shape(out if mode == "r" else out[0], [a], [x])
    check_infer_shape(lstsq(a, b)[0], [a, b], [x, y])
    v = tt.dvector("v")
    check_infer_shape(lstsq(a, v)[0], [a, v], [x, y[:, 0]])
    if shape[0] == shape[1]:
        check_infer_shape(eigh(a)[0], [a], [sym(shape[0])])
        check_infer_shape(eigvalsh(a), [a], [sym(shape[0])])
        check_infer_shape(eig(a)[0], [a], [x])
        check_infer_shape(eigh(a, b=b)[0], [a, b], [sym(4), spd(4)])


def test_static_shapes() -> None:
    a = tt.tensor("a", dtype="float64", shape=(5, 3))
    u, s, vh = svd(a, full_matrices=False)
    assert (u.type.shape, s.type.shape, vh.type.shape) == ((5, 3), (3,), (3, 3))
    assert qr(a, mode="complete")[0].type.shape == (5, 5)


def test_vm_matches_default_linker() -> None:
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    outs = [*eigh(a), eigvalsh(a), *svd(a), *qr(a), lstsq(a, b)[0],
            theon.grad(eigvalsh(a).sum() + svd(a, compute_uv=False).sum()
                       + (qr(a)[1] ** 2).sum() + lstsq(a, b)[0].sum(), a)]
    x, y = sym(4, 34), rng(35).normal(size=(4, 2))
    got = theon.function([a, b], outs)(x, y)
    ref = theon.function([a, b], outs, mode=VM)(x, y)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


# failures -----------------------------------------------------------------------------


def test_svd_failure_names_node() -> None:
    a = tt.dmatrix("a")
    f = theon.function([a], svd(a, compute_uv=False))
    bad = np.array([[np.nan, 1.0], [1.0, 1.0]])
    with pytest.raises(np.linalg.LinAlgError, match="SVD.*'a'") as info:
        f(bad)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "test_spectral.py" in notes  # where the node was built
    g = theon.function([a], svd(a, on_error="nan"))
    u, s, vh = g(bad)
    assert u.shape == (2, 2) and np.isnan(u).all() and np.isnan(s).all()


@pytest.mark.parametrize("build", [
    lambda a: eigh(a)[0], lambda a: eigvalsh(a), lambda a: eig(a)[0],
    lambda a: lstsq(a, tt.ones(a.shape[0]))[0],
])
def test_non_finite_input_raises_or_nan(build: Any) -> None:
    a = tt.dmatrix("a")
    bad = np.array([[np.inf, 1.0], [1.0, 1.0]])
    with pytest.raises(np.linalg.LinAlgError):
        theon.function([a], build(a))(bad)


def test_on_error_nan_eigh_and_lstsq() -> None:
    a, b = tt.dmatrix("a"), tt.dvector("b")
    bad = np.array([[np.inf, 1.0], [1.0, 1.0]])
    w, v = eigh(a, on_error="nan")
    gw, gv = theon.function([a], [w, v])(bad)
    assert gw.shape == (2,) and gv.shape == (2, 2) and np.isnan(gv).all()
    x = theon.function([a, b], lstsq(a, b, on_error="nan")[0])(bad, np.ones(2))
    assert x.shape == (2,) and np.isnan(x).all()


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="SVD.*matrix.*'v'"):
        svd(tt.dvector("v"))
    with pytest.raises(TypeError, match="real.*'c'"):
        eigh(tt.cmatrix("c"))
    with pytest.raises(ValueError, match="on_error"):
        svd(tt.dmatrix("a"), on_error="ignore")
    with pytest.raises(ValueError, match="UPLO"):
        eigh(tt.dmatrix("a"), UPLO="X")
    with pytest.raises(ValueError, match="mode"):
        qr(tt.dmatrix("a"), mode="raw")
    with pytest.raises(ValueError, match="rows"):
        a, b = tt.dmatrix("a"), tt.dvector("b")
        theon.function([a, b], lstsq(a, b)[0])(np.ones((3, 2)), np.ones(2))


def test_props_identity() -> None:
    assert sp.SVD(True, False) == sp.SVD(True, False)
    assert sp.SVD(True, False) != sp.SVD(False, False)
    assert hash(sp.Eigh("L")) == hash(sp.Eigh("L"))
    assert sp.Eigh("L") != sp.Eigh("U")
    assert sp.QRFull("r") != sp.QRFull("reduced")
    assert sp.SVD(False, True).gufunc_signature == "(m,n)->(m,k),(k),(k,n)"


# batched (Blockwise) ------------------------------------------------------------------


def sym_batch(shape: tuple[int, ...], n: int, seed: int, dtype: str = "float64") -> np.ndarray:
    flat = [sym(n, seed + i) for i in range(int(np.prod(shape)))]
    return np.array(flat).reshape(*shape, n, n).astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batched_values(dtype: str) -> None:
    x = tt.tensor("x", dtype=dtype, shape=(None, None, None, None))
    s = sym_batch((2, 3), 4, 40, dtype)
    g = rng(41).normal(size=(2, 3, 5, 3)).astype(dtype)
    w, v = eigh(x)
    gw, gv = theon.function([x], [w, v])(s)
    ew, ev = np.linalg.eigh(s)
    np.testing.assert_allclose(gw, ew, **tol(dtype))
    np.testing.assert_allclose(np.abs(gv), np.abs(ev), **tol(dtype))
    np.testing.assert_allclose(eigvalsh(x).eval({x: s}), ew, **tol(dtype))
    np.testing.assert_allclose(eig(x)[0].eval({x: s}), np.linalg.eig(s)[0], rtol=1e-3)
    for full in (True, False):
        got = theon.function([x], svd(x, full_matrices=full))(g)
        want = np.linalg.svd(g, full_matrices=full)
        assert [o.shape for o in got] == [o.shape for o in want]
        np.testing.assert_allclose(got[1], want[1], **tol(dtype))
    np.testing.assert_allclose(svd(x, compute_uv=False).eval({x: g}),
                               np.linalg.svd(g, compute_uv=False), **tol(dtype))
    for mode in ("reduced", "complete"):
        got = theon.function([x], qr(x, mode=mode))(g)
        for o, e in zip(got, np.linalg.qr(g, mode=mode)):
            np.testing.assert_allclose(o, e, **tol(dtype))
    np.testing.assert_allclose(qr(x, mode="r").eval({x: g}), np.linalg.qr(g, mode="r"),
                               **tol(dtype))


def test_batched_broadcast_and_loops() -> None:
    a, b = tt.dtensor3("a"), tt.dtensor3("b")
    av = rng(42).normal(size=(3, 5, 3))
    bv = rng(43).normal(size=(1, 5, 2))  # broadcasts over the batch
    x, res, rank, s = theon.function([a, b], lstsq(a, b))(av, bv)
    for i in range(3):
        e = np.linalg.lstsq(av[i], bv[0], rcond=None)
        np.testing.assert_allclose(x[i], e[0], rtol=1e-9)
        np.testing.assert_allclose(res[i], e[1], rtol=1e-9)
        assert rank[i] == e[2]
        np.testing.assert_allclose(s[i], e[3], rtol=1e-9)
    v = tt.dvector("v")  # a plain vector b against a batch of matrices
    x1 = lstsq(a, v)[0].eval({a: av, v: bv[0, :, 0]})
    np.testing.assert_allclose(x1, x[..., 0], rtol=1e-9)
    # generalized eigh: a batch of a against one b
    bb = tt.dmatrix("bb")
    sa, sb = sym_batch((2,), 3, 44), spd(3, 45)
    w = eigvalsh(a, bb).eval({a: sa, bb: sb})
    for i in range(2):
        np.testing.assert_allclose(w[i], scipy.linalg.eigvalsh(sa[i], sb), rtol=1e-10)


def test_batched_grads() -> None:
    s = sym_batch((2,), 3, 46)
    wt = weights((3, 3))

    def f_eigh(x: Any) -> Any:
        w, v = eigh(x)
        return w.sum() + (w ** 2).sum() + ((v ** 2) * wt).sum()

    theon.verify_grad(f_eigh, [s])
    theon.verify_grad(eigvalsh, [s])
    g = rng(47).normal(size=(2, 4, 3))

    def f_svd(x: Any) -> Any:
        u, sv, vh = svd(x, full_matrices=False)
        return ((u ** 2) * weights((4, 3))).sum() + (sv ** 2).sum() + (vh ** 4).sum()

    theon.verify_grad(f_svd, [g])
    theon.verify_grad(lambda x: svd(x, compute_uv=False), [g])

    def f_qr(x: Any) -> Any:
        q, r = qr(x)
        return (q * weights((4, 3))).sum() + (r ** 2).sum()

    theon.verify_grad(f_qr, [g])
    theon.verify_grad(lambda x, y: lstsq(x, y)[0], [g, rng(48).normal(size=(2, 4, 2))])
    theon.verify_grad(lambda x, y: lstsq(x, y)[0], [g, rng(49).normal(size=(4,))])
    theon.verify_grad(lambda x, y: eigvalsh(x, y), [s, spd(3, 50)])


def test_batched_infer_shape_and_vm() -> None:
    x = tt.dtensor3("x")
    g = rng(51).normal(size=(2, 5, 3))
    check_infer_shape(svd(x, full_matrices=False)[0], [x], [g])
    check_infer_shape(qr(x, mode="complete")[0], [x], [g])
    s = sym_batch((2,), 3, 52)
    check_infer_shape(eigh(x)[1], [x], [s])
    outs = [*eigh(x), *svd(x), theon.grad(eigvalsh(x).sum() + svd(x, compute_uv=False).sum(),
                                          x)]
    got = theon.function([x], outs)(s)
    ref = theon.function([x], outs, mode=VM)(s)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_batched_failure_names_batch_index() -> None:
    x = tt.dtensor3("x")
    bad = np.stack([np.eye(2), np.array([[np.nan, 1.0], [1.0, 1.0]])])
    with pytest.raises(np.linalg.LinAlgError) as info:
        theon.function([x], svd(x, compute_uv=False))(bad)
    assert "batch index (1,)" in "\n".join(info.value.__notes__)
    s = theon.function([x], svd(x, compute_uv=False, on_error="nan"))(bad)
    np.testing.assert_allclose(s[0], [1.0, 1.0])
    assert np.isnan(s[1]).all()
