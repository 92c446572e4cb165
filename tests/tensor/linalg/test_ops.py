"""The linalg Ops against NumPy / SciPy: values (float64 and float32), infer_shape,
the reference VM against the default linker, gradients by ``verify_grad``, R_op, and
the failure modes (LinAlgError naming the node, ``on_error='nan'``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.linalg as sl

import theon
import theon.tensor as T
from tests.tensor.core_checks import check_infer_shape
from theon.tensor import linalg as la
from theon.tensor.linalg.solvers import tri_matmul

RNG_SEED = 1604
N = 4


def rng() -> np.random.Generator:
    return np.random.default_rng(RNG_SEED)


def spd(n: int = N, dtype: str = "float64", seed: int = 0) -> np.ndarray:
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, n))
    return (x @ x.T + n * np.eye(n)).astype(dtype)


def general(n: int = N, dtype: str = "float64", seed: int = 1) -> np.ndarray:
    r = np.random.default_rng(seed)
    return (r.normal(size=(n, n)) + n * np.eye(n)).astype(dtype)


def lower_tri(n: int = N, dtype: str = "float64", seed: int = 2) -> np.ndarray:
    return np.tril(general(n, dtype, seed))


def tridiag(n: int = N, dtype: str = "float64", seed: int = 3) -> np.ndarray:
    a = general(n, dtype, seed)
    return (np.triu(np.tril(a, 1), -1)).astype(dtype)


def vec(n: int = N, dtype: str = "float64", seed: int = 4) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n).astype(dtype)


def mat(m: int = N, n: int = 3, dtype: str = "float64", seed: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(m, n)).astype(dtype)


def sym(x: Any) -> Any:
    """A symmetric matrix from any square one (so a gradient sees every entry)."""
    return (x + x.T) * 0.5


def chol_grad_ref(L: np.ndarray, Lbar: np.ndarray) -> np.ndarray:
    """sym(L^-T Phi(L^T Lbar) L^-1) by ``numpy.linalg.solve`` (lower triangles read)."""
    L = np.tril(L)
    phi = np.tril(L.T @ np.tril(Lbar))
    phi[np.diag_indices_from(phi)] *= 0.5
    a = np.linalg.solve(L.T, np.linalg.solve(L.T, phi).T).T
    return (a + a.T) / 2


def var(value: np.ndarray, name: str) -> Any:
    return T.TensorType(str(value.dtype), shape=(None,) * value.ndim)(name)


# (name, builder of the symbolic result from the inputs, numpy reference, input values)
CASES: list[tuple[str, Callable[..., Any], Callable[..., Any], Callable[[str], list[Any]]]] = [
    ("cholesky", lambda a: la.cholesky(a), np.linalg.cholesky, lambda d: [spd(dtype=d)]),
    ("cholesky_upper", lambda a: la.cholesky(a, lower=False),
     lambda a: sl.cholesky(a, lower=False), lambda d: [spd(dtype=d)]),
    ("inv", la.inv, np.linalg.inv, lambda d: [general(dtype=d)]),
    ("pinv", la.pinv, np.linalg.pinv, lambda d: [mat(dtype=d)]),
    ("det", la.det, np.linalg.det, lambda d: [general(dtype=d)]),
    ("slogdet_sign", lambda a: la.slogdet(a)[0], lambda a: np.linalg.slogdet(a)[0],
     lambda d: [-general(dtype=d)]),
    ("slogdet_log", lambda a: la.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1],
     lambda d: [general(dtype=d)]),
    ("solve_gen_vec", la.solve, np.linalg.solve, lambda d: [general(dtype=d), vec(dtype=d)]),
    ("solve_gen_mat", la.solve, np.linalg.solve, lambda d: [general(dtype=d), mat(dtype=d)]),
    ("solve_sym", lambda a, b: la.solve(a, b, assume_a="sym"),
     lambda a, b: sl.solve(a, b, assume_a="sym"), lambda d: [spd(dtype=d), mat(dtype=d)]),
    ("solve_her", lambda a, b: la.solve(a, b, assume_a="her", lower=True),
     lambda a, b: sl.solve(a, b, assume_a="her", lower=True),
     lambda d: [spd(dtype=d), vec(dtype=d)]),
    ("solve_pos", lambda a, b: la.solve(a, b, assume_a="pos"),
     lambda a, b: sl.solve(a, b, assume_a="pos"), lambda d: [spd(dtype=d), mat(dtype=d)]),
    ("solve_tridiagonal", lambda a, b: la.solve(a, b, assume_a="tridiagonal"),
     np.linalg.solve, lambda d: [tridiag(dtype=d), vec(dtype=d)]),
    ("solve_triangular_lower", lambda a, b: la.solve_triangular(a, b, lower=True),
     lambda a, b: sl.solve_triangular(a, b, lower=True),
     lambda d: [general(dtype=d), mat(dtype=d)]),
    ("solve_triangular_upper_trans_unit",
     lambda a, b: la.solve_triangular(a, b, trans=1, unit_diagonal=True),
     lambda a, b: sl.solve_triangular(a, b, trans=1, unit_diagonal=True),
     lambda d: [general(dtype=d), vec(dtype=d)]),
    ("tri_matmul_lower", lambda a, b: tri_matmul(a, b), lambda a, b: np.tril(a) @ b,
     lambda d: [general(dtype=d), mat(dtype=d)]),
    ("cholesky_grad", lambda c, g: la.cholesky_grad(c, g), chol_grad_ref,
     lambda d: [np.linalg.cholesky(spd()).astype(d), general(dtype=d)]),
    ("cholesky_grad_upper", lambda c, g: la.cholesky_grad(c, g, lower=False),
     lambda c, g: chol_grad_ref(c.T, g.T),
     lambda d: [np.linalg.cholesky(spd()).T.astype(d), general(dtype=d)]),
    ("tri_matmul_upper", lambda a, b: tri_matmul(a, b, lower=False),
     lambda a, b: np.triu(a) @ b, lambda d: [general(dtype=d), mat(dtype=d)]),
    ("cho_solve", lambda c, b: la.cho_solve((c, True), b),
     lambda c, b: sl.cho_solve((c, True), b),
     lambda d: [np.linalg.cholesky(spd()).astype(d), mat(dtype=d)]),
    ("cho_solve_upper", lambda c, b: la.cho_solve((c, False), b),
     lambda c, b: sl.cho_solve((c, False), b),
     lambda d: [np.linalg.cholesky(spd()).T.astype(d), vec(dtype=d)]),
    ("lu_P", lambda a: la.lu(a)[0], lambda a: sl.lu(a)[0], lambda d: [general(dtype=d)]),
    ("lu_L", lambda a: la.lu(a)[1], lambda a: sl.lu(a)[1], lambda d: [mat(dtype=d)]),
    ("lu_U", lambda a: la.lu(a)[2], lambda a: sl.lu(a)[2], lambda d: [mat(3, 4, dtype=d)]),
    ("lu_p_indices", lambda a: la.lu(a, p_indices=True)[0],
     lambda a: sl.lu(a, p_indices=True)[0], lambda d: [general(dtype=d)]),
    ("lu_permute_l", lambda a: la.lu(a, permute_l=True)[0],
     lambda a: sl.lu(a, permute_l=True)[0], lambda d: [general(dtype=d)]),
    ("lu_factor", lambda a: la.lu_factor(a)[0], lambda a: sl.lu_factor(a)[0],
     lambda d: [general(dtype=d)]),
    ("lu_factor_piv", lambda a: la.lu_factor(a)[1], lambda a: sl.lu_factor(a)[1],
     lambda d: [general(dtype=d)]),
    ("lu_solve", lambda a, b: la.lu_solve(la.lu_factor(a), b),
     lambda a, b: sl.lu_solve(sl.lu_factor(a), b), lambda d: [general(dtype=d), mat(dtype=d)]),
    ("lu_solve_trans", lambda a, b: la.lu_solve(la.lu_factor(a), b, trans=1),
     lambda a, b: sl.lu_solve(sl.lu_factor(a), b, trans=1),
     lambda d: [general(dtype=d), vec(dtype=d)]),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "build", "ref", "values"), CASES, ids=IDS)
def test_values_match_numpy(name: str, build: Any, ref: Any, values: Any, dtype: str) -> None:
    vals = values(dtype)
    xs = [var(v, f"x{i}") for i, v in enumerate(vals)]
    out = build(*xs)
    want = ref(*vals)
    got_default = theon.function(xs, out)(*vals)
    got_vm = theon.function(xs, out, mode=theon.Mode(linker="vm"))(*vals)
    assert got_default.dtype == out.type.dtype
    if np.issubdtype(np.asarray(want).dtype, np.floating):
        assert out.type.dtype == dtype, "float32 graphs stay float32"
    tol = 1e-10 if dtype == "float64" else 2e-4
    np.testing.assert_allclose(got_default, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_vm, got_default, rtol=tol, atol=tol)
    check_infer_shape(out, xs, vals)


# verify_grad: each function of float64 inputs, through a symmetric parametrization where
# the Op reads one triangle of a symmetric matrix
GRAD_CASES: list[tuple[str, Callable[..., Any], list[np.ndarray]]] = [
    ("cholesky", lambda a: la.cholesky(sym(a)), [spd()]),
    ("cholesky_upper", lambda a: la.cholesky(sym(a), lower=False), [spd()]),
    ("inv", la.inv, [general()]),
    ("pinv", la.pinv, [mat()]),
    ("pinv_wide", la.pinv, [mat(3, 5)]),
    ("det", la.det, [general()]),
    ("slogdet", lambda a: la.slogdet(a)[1], [-general()]),
    ("solve_gen_vec", la.solve, [general(), vec()]),
    ("solve_gen_mat", la.solve, [general(), mat()]),
    ("solve_sym", lambda a, b: la.solve(sym(a), b, assume_a="sym"), [spd(), mat()]),
    ("solve_pos_lower", lambda a, b: la.solve(sym(a), b, assume_a="pos", lower=True),
     [spd(), vec()]),
    ("solve_tridiagonal", lambda a, b: la.solve(a, b, assume_a="tridiagonal"),
     [tridiag(), mat()]),
    ("solve_triangular_lower", lambda a, b: la.solve_triangular(a, b, lower=True),
     [general(), mat()]),
    ("solve_triangular_upper", lambda a, b: la.solve_triangular(a, b), [general(), vec()]),
    ("solve_triangular_trans", lambda a, b: la.solve_triangular(a, b, lower=True, trans=1),
     [general(), mat()]),
    ("solve_triangular_unit",
     lambda a, b: la.solve_triangular(a, b, lower=True, unit_diagonal=True, trans="T"),
     [general(), vec()]),
    ("cho_solve", lambda c, b: la.cho_solve((c, True), b),
     [np.linalg.cholesky(spd()), mat()]),
    ("cho_solve_upper", lambda c, b: la.cho_solve((c, False), b),
     [np.linalg.cholesky(spd()).T, vec()]),
    ("tri_matmul_lower", lambda a, b: tri_matmul(a, b), [general(), mat()]),
    ("tri_matmul_upper", lambda a, b: tri_matmul(a, b, lower=False), [general(), mat()]),
    ("cholesky_grad", lambda c, g: la.cholesky_grad(c, g),
     [np.linalg.cholesky(spd()), general()]),
    ("cholesky_grad_upper", lambda c, g: la.cholesky_grad(c, g, lower=False),
     [np.linalg.cholesky(spd()).T, general()]),
    ("lu", lambda a: sum(o.sum() * (i + 1) for i, o in enumerate(la.lu(a)[1:])), [general()]),
    ("lu_p_indices", lambda a: la.lu(a, p_indices=True)[1] * 2 + la.lu(a, p_indices=True)[2],
     [general()]),
    ("lu_solve_b", None, [general(), vec()]),  # b only: see below
    ("lu_factor", lambda a: la.lu_factor(a)[0], [general()]),
    ("lu_solve", lambda a, b: la.lu_solve(la.lu_factor(a), b), [general(), mat()]),
]


def pivoting(n: int = N, seed: int = 7) -> np.ndarray:
    """A well-conditioned matrix whose LU factorization swaps rows."""
    a = np.random.default_rng(seed).normal(size=(n, n))
    a = a[::-1] + n * np.eye(n)[::-1]  # dominant anti-diagonal
    assert (sl.lu_factor(a)[1] != np.arange(n)).any()
    return a


@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("b", [vec(), mat()], ids=["vector", "matrix"])
def test_lu_factor_and_lu_solve_gradients_with_pivoting(trans: int, b: np.ndarray) -> None:
    a = pivoting()
    weights = np.random.default_rng(8).normal(size=(N, N))
    theon.verify_grad(lambda x: la.lu_factor(x)[0] * weights, [a], rng=RNG_SEED)
    theon.verify_grad(lambda x, y: la.lu_solve(la.lu_factor(x), y, trans=trans), [a, b],
                      rng=RNG_SEED)
    # with respect to the packed factors themselves (the pivots held fixed)
    packed, piv = sl.lu_factor(a)
    theon.verify_grad(lambda p, y: la.lu_solve((p, piv), y, trans=trans), [packed, b],
                      rng=RNG_SEED)


def test_lu_solve_gradient_equals_solve_gradient() -> None:
    """Through lu_factor, lu_solve's gradient wrt ``A`` is solve's (an independent rule)."""
    a, b = T.dmatrix("a"), T.dmatrix("b")
    w = np.random.default_rng(9).normal(size=(N, 3))
    g1 = theon.grad((la.lu_solve(la.lu_factor(a), b) * w).sum(), [a, b])
    g2 = theon.grad((la.solve(a, b) * w).sum(), [a, b])
    f = theon.function([a, b], g1 + g2)
    ga1, gb1, ga2, gb2 = f(pivoting(), mat())
    np.testing.assert_allclose(ga1, ga2, rtol=1e-10)
    np.testing.assert_allclose(gb1, gb2, rtol=1e-10)


def test_lu_grads_batched() -> None:
    rng = np.random.default_rng(10)
    a = np.stack([pivoting(seed=s) for s in (7, 11, 12)])
    b = rng.normal(size=(3, N))
    theon.verify_grad(lambda x, y: la.lu_solve(la.lu_factor(x), y, b_ndim=1), [a, b],
                      rng=RNG_SEED)
    weights = rng.normal(size=(N, N))
    theon.verify_grad(lambda x: la.lu_factor(x)[0] * weights, [a], rng=RNG_SEED)


def test_pivot_matrix_matches_scipy_lu() -> None:
    a = pivoting()
    packed, piv = sl.lu_factor(a)
    p, _, _ = sl.lu(a)
    x = T.ivector("piv")
    from theon.tensor.linalg.decomp import pivot_matrix

    np.testing.assert_array_equal(pivot_matrix(x, "float64").eval({x: piv.astype("int32")}), p)


@pytest.mark.parametrize(("name", "fn", "pt"), GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_verify_grad(name: str, fn: Any, pt: list[np.ndarray]) -> None:
    if fn is None:  # lu_solve: gradient wrt b (the factors are constants)
        a = pt[0]
        packed, piv = sl.lu_factor(a)
        theon.verify_grad(lambda b: la.lu_solve((packed, piv), b), [pt[1]], rng=RNG_SEED)
        theon.verify_grad(lambda b: la.lu_solve((packed, piv), b, trans=1), [pt[1]],
                          rng=RNG_SEED)
        return
    theon.verify_grad(fn, pt, rng=RNG_SEED)


def test_verify_grad_extreme_scales() -> None:
    """Large and tiny (but well-conditioned) matrices: the gradients scale correctly."""
    for s in (1e-3, 1e3):
        theon.verify_grad(lambda a: la.cholesky(sym(a)), [spd() * s], rng=RNG_SEED,
                          rel_tol=1e-4)
        theon.verify_grad(lambda a: la.slogdet(a)[1], [general() * s], rng=RNG_SEED)
        theon.verify_grad(la.solve, [general() * s, vec()], rng=RNG_SEED)


def test_float32_gradients_stay_float32() -> None:
    a, b = T.fmatrix("a"), T.fmatrix("b")
    cost = la.solve(a, b).sum() + la.slogdet(a)[1] + la.cholesky(a).sum() + la.det(a)
    g = theon.grad(cost, [a, b])
    assert [x.type.dtype for x in g] == ["float32", "float32"]
    f = theon.function([a, b], g)
    outs = f(spd(dtype="float32"), mat(dtype="float32"))
    assert all(o.dtype == np.float32 for o in outs)


ROP_CASES: list[tuple[str, Callable[..., Any], list[np.ndarray]]] = [
    ("cholesky", lambda a: la.cholesky(a), [spd()]),
    ("cholesky_upper", lambda a: la.cholesky(a, lower=False), [spd()]),
    ("inv", la.inv, [general()]),
    ("det", la.det, [general()]),
    ("slogdet", lambda a: la.slogdet(a)[1], [general()]),
    ("solve", la.solve, [general(), mat()]),
    ("solve_vec", la.solve, [general(), vec()]),
    ("solve_triangular", lambda a, b: la.solve_triangular(a, b, lower=True, trans=1),
     [lower_tri(), mat()]),
    ("tri_matmul_lower", lambda a, b: tri_matmul(a, b), [general(), mat()]),
    ("tri_matmul_upper", lambda a, b: tri_matmul(a, b, lower=False), [general(), mat()]),
    ("cholesky_grad", lambda c, g: la.cholesky_grad(c, g),
     [np.linalg.cholesky(spd()), general()]),
    ("pinv_square", la.pinv, [general()]),
    ("pinv_tall", la.pinv, [mat(5, 3)]),
    ("pinv_wide", la.pinv, [mat(3, 5)]),
    ("cho_solve_lower", lambda c, b: la.cho_solve((c, True), b),
     [np.linalg.cholesky(spd()), mat()]),
    ("cho_solve_upper_vec", lambda c, b: la.cho_solve((c, False), b),
     [np.linalg.cholesky(spd()).T, vec()]),
    ("lu_solve", lambda p, b: la.lu_solve((p, sl.lu_factor(general(seed=7)[::-1])[1]), b),
     [sl.lu_factor(general(seed=7)[::-1])[0], mat()]),
    ("lu_solve_trans_vec",
     lambda p, b: la.lu_solve((p, sl.lu_factor(general(seed=7)[::-1])[1]), b, trans=1),
     [sl.lu_factor(general(seed=7)[::-1])[0], vec()]),
]


@pytest.mark.parametrize(("name", "fn", "pt"), ROP_CASES, ids=[c[0] for c in ROP_CASES])
def test_rop_matches_finite_differences(name: str, fn: Any, pt: list[np.ndarray]) -> None:
    """R_op(f)(x, v) == (f(x + h v) - f(x - h v)) / 2h, with symmetric directions."""
    xs = [var(v, f"x{i}") for i, v in enumerate(pt)]
    vs = [var(v, f"v{i}") for i, v in enumerate(pt)]
    out = fn(*xs)
    jv = theon.gradient.Rop(out, xs, vs)
    f = theon.function(xs + vs, jv)
    ev = theon.function(xs, out)
    r = np.random.default_rng(RNG_SEED)
    dirs = [r.normal(size=v.shape) for v in pt]
    dirs = [sym(d) if d.ndim == 2 and d.shape[0] == d.shape[1] else d for d in dirs]
    h = 1e-6
    fd = (ev(*[p + h * d for p, d in zip(pt, dirs)])
          - ev(*[p - h * d for p, d in zip(pt, dirs)])) / (2 * h)
    np.testing.assert_allclose(f(*pt, *dirs), fd, rtol=1e-5, atol=1e-6)


# failure modes ---------------------------------------------------------------------------
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])

FAILING = [
    ("cholesky", lambda a, b, e: la.cholesky(a, on_error=e), NOT_PD),
    ("inv", lambda a, b, e: la.inv(a, on_error=e), SINGULAR),
    ("solve_gen", lambda a, b, e: la.solve(a, b, on_error=e), SINGULAR),
    ("solve_pos", lambda a, b, e: la.solve(a, b, assume_a="pos", on_error=e), NOT_PD),
    ("solve_sym", lambda a, b, e: la.solve(a, b, assume_a="sym", on_error=e), SINGULAR),
    ("solve_triangular", lambda a, b, e: la.solve_triangular(a, b, lower=True, on_error=e),
     np.array([[1.0, 0.0], [1.0, 0.0]])),
    ("cho_solve", lambda a, b, e: la.cho_solve((a, True), b, on_error=e),
     np.array([[1.0, 0.0], [1.0, 0.0]])),
    ("lu_solve", lambda a, b, e: la.lu_solve(la.lu_factor(a), b, on_error=e), SINGULAR),
]


@pytest.mark.parametrize(("name", "build", "value"), FAILING, ids=[c[0] for c in FAILING])
@pytest.mark.parametrize("linker", ["py", "vm"])
def test_failure_raises_naming_the_node(name: str, build: Any, value: np.ndarray,
                                       linker: str) -> None:
    a, b = T.dmatrix("the_matrix"), T.dvector("b")
    out = build(a, b, "raise")
    f = theon.function([a, b], out, mode=theon.Mode(linker=linker),
                       on_unused_input="ignore")
    with pytest.raises(np.linalg.LinAlgError) as info:
        f(value, np.ones(2))
    text = str(info.value) + "\n".join(getattr(info.value, "__notes__", []))
    assert "on_error='nan'" in text
    assert "while computing" in text and "test_ops.py" in text  # node and where it was built


@pytest.mark.parametrize(("name", "build", "value"), FAILING, ids=[c[0] for c in FAILING])
def test_failure_gives_nan_with_on_error_nan(name: str, build: Any, value: np.ndarray) -> None:
    a, b = T.dmatrix("a"), T.dvector("b")
    out = build(a, b, "nan")
    f = theon.function([a, b], out, on_unused_input="ignore")
    res = f(value, np.ones(2))
    assert res.shape == np.shape(f(np.eye(2), np.ones(2)))
    assert np.isnan(res).all()
    ok = f(np.eye(2) * 2, np.ones(2))  # a good input still works
    assert np.isfinite(ok).all()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="on_error"):
        la.cholesky(T.dmatrix(), on_error="ignore")
    with pytest.raises(ValueError, match="assume_a"):
        la.solve(T.dmatrix(), T.dvector(), assume_a="banded")
    with pytest.raises(TypeError, match="matrix"):
        la.inv(T.dvector("v"))
    with pytest.raises(ValueError, match="square"):
        la.det(T.TensorType("float64", shape=(2, 3))("r"))


def test_ops_have_props_identity_and_signature() -> None:
    assert la.Cholesky(lower=True) == la.Cholesky(lower=True)
    assert la.Cholesky(lower=True) != la.Cholesky(lower=False)
    assert hash(la.Solve("pos", b_ndim=1)) == hash(la.Solve("pos", b_ndim=1))
    assert la.Solve(b_ndim=1).gufunc_signature == "(m,m),(m)->(m)"
    assert la.SolveTriangular(b_ndim=2).gufunc_signature == "(m,m),(m,n)->(m,n)"
    assert la.Det().gufunc_signature == "(m,m)->()"
    assert str(la.Cholesky(on_error="nan")) == "Cholesky{lower=True, on_error='nan'}"


def test_theano_module_paths() -> None:
    from theon.tensor import nlinalg, slinalg

    assert T.linalg is la
    assert nlinalg.matrix_inverse is la.inv and nlinalg.det is la.det
    assert slinalg.cholesky is la.cholesky and slinalg.solve is la.solve
    assert T.slinalg.solve_triangular is la.solve_triangular


def test_import_theon_tensor_loads_no_scipy() -> None:
    import subprocess
    import sys

    code = ("import sys, theon.tensor as T; x = T.dmatrix(); y = T.linalg.cholesky(x); "
            "assert 'scipy' not in sys.modules, 'scipy imported'; "
            "assert 'theon.tensor.linalg' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import sys, theon.tensor; assert 'theon.tensor.linalg' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("lower", [True, False])
def test_cho_solve_reads_one_triangle_in_gradient_and_rop(lower: bool) -> None:
    """Entries outside the factor's triangle are not read: with junk there, the gradient
    and R_op still equal finite differences (which see no change from the junk)."""
    c = np.linalg.cholesky(spd())
    c = c if lower else c.T
    junk = np.random.default_rng(11).normal(size=c.shape) * 3
    c = c + (np.triu(junk, 1) if lower else np.tril(junk, -1))
    theon.verify_grad(lambda cc, b: la.cho_solve((cc, lower), b), [c, mat()], rng=RNG_SEED)
    cv, bv = var(c, "c"), var(mat(), "b")
    vc, vb = var(c, "vc"), var(mat(), "vb")
    out = la.cho_solve((cv, lower), bv)
    jv = theon.function([cv, bv, vc, vb], theon.gradient.Rop(out, [cv, bv], [vc, vb]))
    ev = theon.function([cv, bv], out)
    d = np.random.default_rng(12).normal(size=c.shape)
    e = np.random.default_rng(13).normal(size=mat().shape)
    h = 1e-6
    fd = (ev(c + h * d, mat() + h * e) - ev(c - h * d, mat() - h * e)) / (2 * h)
    np.testing.assert_allclose(jv(c, mat(), d, e), fd, rtol=1e-5, atol=1e-6)
