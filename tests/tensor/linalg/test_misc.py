"""norm, matrix_power, kron, expm, trace, diag/extract_diag, block_diag and the
Lyapunov solvers against numpy.linalg / scipy.linalg: values (float64 and float32),
gradients, R_op, infer_shape, the reference VM against the default linker, failures."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.linalg

import theon
import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape
from theon.compile.mode import Mode
from theon.tensor.linalg import misc
from theon.tensor.linalg.misc import (
    block_diag,
    diag,
    expm,
    extract_diag,
    kron,
    matrix_power,
    norm,
    solve_continuous_lyapunov,
    solve_discrete_lyapunov,
    trace,
)

VM = Mode(linker="vm")
INF = np.inf


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def stable(n: int, seed: int, scale: float = 1.0) -> np.ndarray:
    """A matrix with eigenvalues of real part in [1, 2] (scaled): continuous Lyapunov
    is well posed; scaled below 1 in norm for the discrete one."""
    q, _ = np.linalg.qr(rng(seed).normal(size=(n, n)))
    m = q @ np.diag(np.linspace(1.0, 2.0, n)) @ q.T + 0.2 * rng(seed + 1).normal(size=(n, n))
    return m * scale


def tol(dtype: str) -> dict[str, float]:
    return {"rtol": 2e-4, "atol": 2e-4} if dtype == "float32" else {"rtol": 1e-9,
                                                                     "atol": 1e-11}


# norm ---------------------------------------------------------------------------------

VECTOR_ORDS = [None, 1, 2, INF, -INF, 0, 3, 0.5, -1]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, INF, -INF]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms(dtype: str, ord: Any) -> None:
    x = tt.tensor("x", dtype=dtype, shape=(None, None, None))
    v = rng(1).normal(size=(2, 3, 4)).astype(dtype)
    v[0, 0, 0] = 0.0
    for axis in (0, 1, -1):
        for keepdims in (False, True):
            out = norm(x, ord=ord, axis=axis, keepdims=keepdims)
            got = out.eval({x: v})
            with np.errstate(divide="ignore"):  # ord=-1 at the zero
                want = np.linalg.norm(v, ord=ord, axis=axis, keepdims=keepdims)
            assert got.shape == want.shape and got.dtype == dtype
            np.testing.assert_allclose(got, want, **tol(dtype))
    vec = tt.vector("v", dtype=dtype)
    with np.errstate(divide="ignore"):
        want = np.linalg.norm(v[0, 0], ord)
    np.testing.assert_allclose(norm(vec, ord).eval({vec: v[0, 0]}), want, **tol(dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norms(dtype: str, ord: Any) -> None:
    a = tt.matrix("a", dtype=dtype)
    for shape in ((3, 5), (5, 3)):
        m = rng(2).normal(size=shape).astype(dtype)
        for keepdims in (False, True):
            got = norm(a, ord, keepdims=keepdims).eval({a: m})
            want = np.linalg.norm(m, ord, keepdims=keepdims)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, **tol(dtype))
            got = norm(a, ord, axis=(1, 0), keepdims=keepdims).eval({a: m})
            np.testing.assert_allclose(got, np.linalg.norm(m, ord, axis=(1, 0),
                                                           keepdims=keepdims), **tol(dtype))


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, INF, -INF])
def test_matrix_norms_over_axes_of_a_tensor(ord: Any) -> None:
    x = tt.dtensor3("x")
    v = rng(3).normal(size=(2, 3, 4))
    for axis in ((0, 2), (2, 0), (1, 2), (-1, -2)):
        for keepdims in (False, True):
            got = norm(x, ord, axis=axis, keepdims=keepdims).eval({x: v})
            want = np.linalg.norm(v, ord, axis=axis, keepdims=keepdims)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_norm_flattened_and_errors() -> None:
    x = tt.dtensor3("x")
    v = rng(4).normal(size=(2, 3, 4))
    np.testing.assert_allclose(norm(x).eval({x: v}), np.linalg.norm(v))
    np.testing.assert_allclose(norm(x, keepdims=True).eval({x: v}),
                               np.linalg.norm(v, keepdims=True))
    i = tt.ivector("i")
    assert norm(i, 1).eval({i: np.array([3, -4], "int32")}) == 7.0
    with pytest.raises(ValueError, match="1-d or 2-d"):
        norm(x, ord=1)
    with pytest.raises(ValueError, match="invalid order"):
        norm(tt.dvector("v"), "fro")
    with pytest.raises(ValueError, match="invalid order"):
        norm(tt.dmatrix("m"), 3)
    with pytest.raises(ValueError, match="out of range"):
        norm(x, axis=(0, 5))
    with pytest.raises(ValueError, match="both"):
        norm(x, axis=(1, 1))


@pytest.mark.parametrize("ord", [None, 1, INF, 3, -INF])
def test_vector_norm_grad(ord: Any) -> None:
    theon.verify_grad(lambda v: norm(v, ord), [np.array([0.5, -1.5, 2.5, -0.25])])


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, INF])
def test_matrix_norm_grad(ord: Any) -> None:
    m = rng(5).normal(size=(4, 3))
    theon.verify_grad(lambda a: norm(a, ord), [m])


# matrix_power, kron, trace, diag, block_diag -------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matrix_power(dtype: str) -> None:
    a = tt.matrix("a", dtype=dtype)
    m = (rng(6).normal(size=(3, 3)) / 2).astype(dtype)
    for n in (0, 1, 2, 3, 5, 8, 13):
        out = matrix_power(a, n)
        got = out.eval({a: m})
        assert got.dtype == dtype
        np.testing.assert_allclose(got, np.linalg.matrix_power(m, n), **tol(dtype))
    theon.verify_grad(lambda x: matrix_power(x, 5), [m.astype("float64")])
    # batches of matrices
    x = tt.dtensor3("x")
    v = rng(7).normal(size=(2, 3, 3))
    np.testing.assert_allclose(matrix_power(x, 3).eval({x: v}), np.linalg.matrix_power(v, 3))
    np.testing.assert_allclose(matrix_power(x, 0).eval({x: v}), np.linalg.matrix_power(v, 0))
    with pytest.raises(TypeError, match="integer"):
        matrix_power(a, 1.5)


def test_matrix_power_negative() -> None:
    pytest.importorskip("theon.tensor.linalg.decomp")  # inv: the other linalg module
    a = tt.dmatrix("a")
    m = rng(8).normal(size=(3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(matrix_power(a, -3).eval({a: m}),
                               np.linalg.matrix_power(m, -3), rtol=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_kron(dtype: str) -> None:
    cases = [((2, 3), (4, 2)), ((3,), (2,)), ((2,), (3, 2)), ((2, 2, 2), (3, 1)), ((3, 1), ())]
    for sa, sb in cases:
        a = tt.tensor("a", dtype=dtype, shape=(None,) * len(sa))
        b = tt.tensor("b", dtype=dtype, shape=(None,) * len(sb))
        x = rng(9).normal(size=sa).astype(dtype)
        y = rng(10).normal(size=sb).astype(dtype)
        got = kron(a, b).eval({a: x, b: y})
        want = np.kron(x, y)
        assert got.shape == want.shape and got.dtype == dtype
        np.testing.assert_allclose(got, want, **tol(dtype))
    theon.verify_grad(kron, [rng(11).normal(size=(2, 3)), rng(12).normal(size=(2, 2))])


def test_trace_and_diag() -> None:
    a = tt.dmatrix("a")
    m = rng(13).normal(size=(3, 4))
    for k in (0, 1, -1, 3):
        np.testing.assert_allclose(trace(a, k).eval({a: m}), np.trace(m, k))
    x = tt.dtensor3("x")
    v = rng(14).normal(size=(2, 3, 3))
    np.testing.assert_allclose(trace(x).eval({x: v}), np.trace(v, axis1=-2, axis2=-1))
    theon.verify_grad(trace, [m])
    np.testing.assert_allclose(diag(a).eval({a: m}), np.diag(m))
    vec = tt.dvector("v")
    np.testing.assert_allclose(diag(vec).eval({vec: m[0]}), np.diag(m[0]))
    np.testing.assert_allclose(extract_diag(a).eval({a: m}), np.diagonal(m))
    assert diag is tt.diag and extract_diag is tt.diagonal
    with pytest.raises(ValueError, match="2 dimensions"):
        trace(vec)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_block_diag(dtype: str) -> None:
    shapes = [(2, 3), (1, 1), (3, 2)]
    vs = [tt.matrix(f"m{i}", dtype=dtype) for i in range(3)]
    xs = [rng(15 + i).normal(size=s).astype(dtype) for i, s in enumerate(shapes)]
    got = block_diag(*vs).eval(dict(zip(vs, xs)))
    np.testing.assert_allclose(got, scipy.linalg.block_diag(*xs))
    assert got.dtype == dtype
    theon.verify_grad(lambda a, b: block_diag(a, b), xs[::2])
    # mixed dtypes upcast
    i = tt.imatrix("i")
    assert block_diag(vs[0], i).type.dtype == np.result_type(dtype, "int32").name
    with pytest.raises(ValueError, match="matrix"):
        block_diag(tt.dvector("v"))


# expm ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_expm_values(dtype: str) -> None:
    a = tt.matrix("a", dtype=dtype)
    m = rng(20).normal(size=(4, 4)).astype(dtype)
    got = expm(a).eval({a: m})
    assert got.dtype == dtype
    np.testing.assert_allclose(got, scipy.linalg.expm(m), **tol(dtype))


def test_expm_grad_and_rop() -> None:
    m = rng(21).normal(size=(3, 3))
    theon.verify_grad(expm, [m])
    theon.verify_grad(lambda x: expm(x)[0, 1] * expm(x)[2, 2], [m])
    a, e = tt.dmatrix("a"), tt.dmatrix("e")
    ev = rng(22).normal(size=(3, 3))
    got = theon.function([a, e], theon.Rop(expm(a), a, e))(m, ev)
    want = scipy.linalg.expm_frechet(m, ev, compute_expm=False)
    np.testing.assert_allclose(got, want, rtol=1e-9)


# Lyapunov ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lyapunov_values(dtype: str) -> None:
    a, q = tt.matrix("a", dtype=dtype), tt.matrix("q", dtype=dtype)
    av = stable(4, 23).astype(dtype)
    qv = rng(25).normal(size=(4, 4)).astype(dtype)
    x = solve_continuous_lyapunov(a, q).eval({a: av, q: qv})
    assert x.dtype == dtype
    np.testing.assert_allclose(x, scipy.linalg.solve_continuous_lyapunov(av, qv),
                               **tol(dtype))
    ad = stable(4, 26, 0.3).astype(dtype)
    for method in (None, "direct", "bilinear"):
        x = solve_discrete_lyapunov(a, q, method).eval({a: ad, q: qv})
        np.testing.assert_allclose(
            x, scipy.linalg.solve_discrete_lyapunov(ad, qv, method), **tol(dtype))


def test_lyapunov_grads() -> None:
    qv = rng(27).normal(size=(3, 3))
    theon.verify_grad(solve_continuous_lyapunov, [stable(3, 28), qv])
    for method in ("direct", "bilinear"):
        theon.verify_grad(lambda a, q, m=method: solve_discrete_lyapunov(a, q, m),
                          [stable(3, 29, 0.3), qv])


@pytest.mark.parametrize("fn,scale", [(solve_continuous_lyapunov, 1.0),
                                      (solve_discrete_lyapunov, 0.3)])
def test_lyapunov_rop(fn: Any, scale: float) -> None:
    a, q, ea, eq = tt.dmatrices("a", "q", "ea", "eq")
    out = fn(a, q)
    r1 = theon.Rop(out, [a, q], [ea, eq])
    r2 = theon.Rop(out, [a, q], [ea, eq], use_op_rop_implementation=False)
    vals = [stable(3, 30, scale), rng(31).normal(size=(3, 3)), rng(32).normal(size=(3, 3)),
            rng(33).normal(size=(3, 3))]
    got, want = theon.function([a, q, ea, eq], [r1, r2])(*vals)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    h = 1e-6
    f = theon.function([a, q], out)
    fd = (f(vals[0] + h * vals[2], vals[1] + h * vals[3])
          - f(vals[0] - h * vals[2], vals[1] - h * vals[3])) / (2 * h)
    np.testing.assert_allclose(got, fd, atol=1e-5)


def test_lyapunov_singular_raises() -> None:
    a, q = tt.dmatrices("a", "q")
    f = theon.function([a, q], solve_continuous_lyapunov(a, q))
    with pytest.raises(np.linalg.LinAlgError, match="singular.*'a'") as info:
        f(np.zeros((2, 2)), np.eye(2))
    assert "test_misc.py" in "\n".join(getattr(info.value, "__notes__", []))
    g = theon.function([a, q], solve_discrete_lyapunov(a, q, "direct"))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        g(np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="square"):
        solve_continuous_lyapunov(tt.tensor("a", dtype="float64", shape=(2, 3)), q)
    with pytest.raises(ValueError, match="method"):
        solve_discrete_lyapunov(a, q, "schur")


# shapes, linkers, identity -------------------------------------------------------------


def test_infer_shape() -> None:
    a, q = tt.dmatrices("a", "q")
    m = stable(3, 34)
    check_infer_shape(expm(a), [a], [m])
    check_infer_shape(solve_continuous_lyapunov(a, q), [a, q], [m, m])
    check_infer_shape(solve_discrete_lyapunov(a, q), [a, q], [m * 0.3, m])


def test_vm_matches_default_linker() -> None:
    a, q = tt.dmatrices("a", "q")
    cost = (expm(a).sum() + norm(a, "nuc") + norm(a, 1) + trace(matrix_power(a, 3))
            + (solve_continuous_lyapunov(a, q) ** 2).sum() + kron(a, q).sum()
            + solve_discrete_lyapunov(a * 0.3, q).sum() + block_diag(a, q).sum())
    outs = [cost, *theon.grad(cost, [a, q])]
    vals = [stable(3, 35), rng(36).normal(size=(3, 3))]
    got = theon.function([a, q], outs)(*vals)
    ref = theon.function([a, q], outs, mode=VM)(*vals)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-10)


def test_props_identity() -> None:
    assert misc.Expm() == misc.Expm()
    assert misc.SolveDiscreteLyapunov("direct") == misc.SolveDiscreteLyapunov("direct")
    assert misc.SolveDiscreteLyapunov("direct") != misc.SolveDiscreteLyapunov("bilinear")
    assert misc.SolveContinuousLyapunov() != misc.SolveDiscreteLyapunov()
    assert misc.Expm().gufunc_signature == "(m,m)->(m,m)"


# batched (Blockwise) ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batched_values(dtype: str) -> None:
    x = tt.tensor("x", dtype=dtype, shape=(None, None, None))
    q = tt.tensor("q", dtype=dtype, shape=(None, None))
    m = np.stack([stable(3, 60 + i) for i in range(4)]).astype(dtype)
    qv = rng(61).normal(size=(3, 3)).astype(dtype)
    got = expm(x).eval({x: m})
    for i in range(4):
        np.testing.assert_allclose(got[i], scipy.linalg.expm(m[i]), **tol(dtype))
    got = solve_continuous_lyapunov(x, q).eval({x: m, q: qv})
    got_d = solve_discrete_lyapunov(x * 0.3, q).eval({x: m, q: qv})
    for i in range(4):
        np.testing.assert_allclose(got[i], scipy.linalg.solve_continuous_lyapunov(m[i], qv),
                                   **tol(dtype))
        np.testing.assert_allclose(
            got_d[i], scipy.linalg.solve_discrete_lyapunov(m[i] * np.asarray(0.3, dtype), qv),
            **tol(dtype))
    v = rng(62).normal(size=(2, 3, 4)).astype(dtype)
    for ord in (2, -2, "nuc"):
        for axis in ((1, 2), (2, 0)):
            np.testing.assert_allclose(norm(x, ord, axis=axis).eval({x: v}),
                                       np.linalg.norm(v, ord, axis=axis), **tol(dtype))


def test_batched_grads() -> None:
    m = np.stack([stable(3, 63 + i) for i in range(2)])
    qv = rng(64).normal(size=(3, 3))
    theon.verify_grad(expm, [m * 0.5])
    theon.verify_grad(solve_continuous_lyapunov, [m, qv])
    theon.verify_grad(lambda a, q: solve_discrete_lyapunov(a, q, "direct"), [m * 0.3, qv])
    theon.verify_grad(lambda a: norm(a, "nuc", axis=(1, 2)), [rng(65).normal(size=(2, 3, 4))])
    a, e = tt.dtensor3("a"), tt.dtensor3("e")
    ev = rng(66).normal(size=m.shape)
    got = theon.function([a, e], theon.Rop(expm(a), a, e))(m * 0.5, ev)
    for i in range(2):
        np.testing.assert_allclose(got[i], scipy.linalg.expm_frechet(
            m[i] * 0.5, ev[i], compute_expm=False), rtol=1e-9)


def test_batched_infer_shape_and_vm() -> None:
    a, q = tt.dtensor3("a"), tt.dmatrix("q")
    m = np.stack([stable(3, 67 + i) for i in range(2)])
    qv = rng(68).normal(size=(3, 3))
    check_infer_shape(expm(a), [a], [m])
    check_infer_shape(solve_continuous_lyapunov(a, q), [a, q], [m, qv])
    cost = expm(a).sum() + solve_continuous_lyapunov(a, q).sum() + norm(a, 2, axis=(1, 2)).sum()
    outs = [cost, *theon.grad(cost, [a, q])]
    got = theon.function([a, q], outs)(m, qv)
    ref = theon.function([a, q], outs, mode=VM)(m, qv)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-10)


# band_part (the triangles of the factorizations' gradients) ----------------------------

BANDS = [(None, 0, 0.5), (0, None, 1.0), (None, -1, 1.0), (-1, None, 1.0), (1, 1, 2.0),
         (2, -1, 3.0), (0, 0, -1.0)]


def _band_ref(x: np.ndarray, lower: Any, upper: Any, diagonal: float) -> np.ndarray:
    """NumPy's tril/triu of the band, then the diagonal scaled (when it is in the band)."""
    out = np.array(x)
    if upper is not None:
        out = np.tril(out, upper)
    if lower is not None:
        out = np.triu(out, -lower)
    if (lower is None or lower >= 0) and (upper is None or upper >= 0):
        k = np.arange(min(x.shape[-2:]))
        out[..., k, k] *= x.dtype.type(diagonal)
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("band", BANDS, ids=str)
def test_band_part_values(dtype: str, band: Any) -> None:
    from theon.tensor.linalg._common import band_part

    x3 = tt.TensorType(dtype, shape=(None, None, None))("x3")
    x2 = tt.TensorType(dtype, shape=(None, None))("x2")
    a3 = rng(40).normal(size=(2, 4, 5)).astype(dtype)
    a2 = rng(41).normal(size=(5, 3)).astype(dtype)
    f = theon.function([x3, x2], [band_part(x3, *band), band_part(x2, *band)])
    for got, a in zip(f(a3, a2), (a3, a2)):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, _band_ref(a, *band))
    assert not np.shares_memory(f(a3, a2)[0], a3)  # a new array, the input untouched
    check_infer_shape(band_part(x3, *band), [x3], [a3])


@pytest.mark.parametrize("band", BANDS[:4], ids=str)
def test_band_part_grad_and_batching(band: Any) -> None:
    from theon.graph.replace import vectorize_graph
    from theon.tensor.linalg._common import BandPart, band_part

    theon.verify_grad(lambda a: band_part(a, *band) * 1.5, [rng(42).normal(size=(4, 3))])
    x, xs = tt.dmatrix("x"), tt.dtensor3("xs")
    (out,) = vectorize_graph([band_part(x, *band)], {x: xs})
    assert isinstance(out.owner.op, BandPart)  # its own batched form, not a loop
    a = rng(43).normal(size=(3, 4, 4))
    np.testing.assert_array_equal(out.eval({xs: a}), _band_ref(a, *band))
    assert BandPart(None, 0, 0.5) == BandPart(None, 0, 0.5) != BandPart(None, 0, 1.0)


def test_band_part_of_a_temporary_is_taken_in_place() -> None:
    """The inplace phase writes band_part into its input's buffer when nothing else reads
    it (a product's result); never into the caller's array."""
    from theon.tensor.linalg._common import BandPart, band_part

    a, b = tt.dmatrices("a", "b")
    f = theon.function([a, b], [band_part(tt.dot(a, b), None, 0, 0.5), band_part(a, 0, None)])
    ops = [n.op for n in f.maker.fgraph.toposort() if isinstance(n.op, BandPart)]
    assert sorted(op.inplace for op in ops) == [False, True]
    av, bv = rng(44).normal(size=(4, 4)), rng(45).normal(size=(4, 4))
    keep = av.copy()
    lo, up = f(av, bv)
    np.testing.assert_allclose(lo, _band_ref(av @ bv, None, 0, 0.5), rtol=1e-12)
    np.testing.assert_array_equal(up, np.triu(av))
    np.testing.assert_array_equal(av, keep)
