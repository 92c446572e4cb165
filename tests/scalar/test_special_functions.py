"""SciPy's special functions as rows of the scalar table (issue 35): values, dtypes, gradients.

Values are checked against SciPy (``tests/scalar/special_cases.py``) on random
inputs with extreme values appended, through the default linker, the reference VM
and FAST_RUN's fused kernels; gradients with ``verify_grad`` at a point of every
region where a different method computes the derivative, and the parameter
derivatives (series and continued fractions) against Richardson-extrapolated finite
differences of SciPy's own functions.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.scalar as ts
import theon.tensor as tt
from tests.scalar.special_cases import CASES, NAMES, Case, fd, values
from tests.seeding import stable_seed
from theon.graph.null_type import NullType
from theon.scalar import table
from theon.scalar.composite import Composite
from theon.tensor.elemwise import Elemwise


def _inputs(case: Case, dtype: str = "float64") -> list[tt.TensorVariable]:
    return [tt.vector(f"x{i}", dtype=dtype) for i in range(case.nin)]


def _ref(case: Case, cols: list[np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(case.ref(*cols), dtype=np.float64)


def _assert_close(got: np.ndarray, want: np.ndarray, rtol: float, what: str) -> None:
    got, want = np.broadcast_arrays(np.asarray(got, dtype=np.float64), want)
    same_nan = np.isnan(got) == np.isnan(want)
    assert same_nan.all(), f"{what}: nan at {np.flatnonzero(~same_nan)}: {got} vs {want}"
    fin = np.isfinite(want)
    assert (got[~fin] == want[~fin])[~np.isnan(want[~fin])].all(), what
    err = np.abs(got[fin] - want[fin])
    tol = rtol * np.abs(want[fin]) + 1e-300
    bad = err > tol
    assert not bad.any(), (f"{what}: {got[fin][bad]} vs {want[fin][bad]}, max rel "
                           f"{float(np.max(err / np.maximum(np.abs(want[fin]), 1e-300)))}")


# the rows --------------------------------------------------------------------------------
def test_every_row_of_the_work_has_a_case() -> None:
    rows = {r.name for r in table.ROWS if r.family == "special"}
    assert set(NAMES) <= rows
    for name in NAMES:
        row = table.ROW[name]
        assert row.nin == CASES[name].nin, name
        fn = getattr(tt, name)  # (tt.xlogx: the module of that name, callable)
        assert isinstance(fn.__dict__.get(name, fn), Elemwise), name
        assert getattr(ts, name) is table.OPS[name]
        assert getattr(ts, row.cls) is type(table.OPS[name])


def test_pytensor_class_names() -> None:
    for cls in ("Erfcx", "Owens_t", "I0", "I1", "Ive", "J0", "J1", "Jv", "Kve", "GammaInc",
                "GammaIncC", "GammaIncInv", "GammaIncCInv", "GammaL", "GammaU", "BetaInc",
                "BetaIncInv", "Hyp2F1"):
        assert isinstance(getattr(ts, cls), type) and issubclass(getattr(ts, cls), ts.ScalarOp)


# values ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", ["py", "vm"])
def test_values_match_scipy(name: str, mode: str) -> None:
    case = CASES[name]
    cols = values(case, np.random.default_rng(stable_seed(name)))
    xs = _inputs(case)
    f = theon.function(xs, case.fn(*xs),
                       mode=theon.Mode(linker=mode, optimizer="fast_run"))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning escapes (SciPy's kn on a float order)
        got = f(*cols)
    want = _ref(case, cols)
    assert got.dtype == np.float64
    if case.exact:
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        _assert_close(got, want, case.rtol, name)


@pytest.mark.parametrize("name", NAMES)
def test_float32_values(name: str) -> None:
    case = CASES[name]
    rng = np.random.default_rng(stable_seed(name) + 1)
    with np.errstate(over="ignore"):  # (xlogx's huge samples become inf)
        cols = [c.astype(np.float32) for c in case.sample(rng, 30)]
    xs = _inputs(case, "float32")
    out = theon.function(xs, case.fn(*xs))(*cols)
    assert out.dtype == np.float32
    if case.exact:  # SciPy's own float32 loop (some compute in float32 throughout)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(out, np.asarray(case.ref(*cols), np.float32), name)
        return
    # computed in float64 from the float32 arguments, rounded
    with np.errstate(over="ignore"):
        want = _ref(case, [c.astype(np.float64) for c in cols]).astype(np.float32)
    _assert_close(out, want, 2e-6, name)


@pytest.mark.parametrize("name", NAMES)
def test_output_dtypes_follow_exp(name: str) -> None:
    """np.exp's rule over the upcast of the inputs: small integers give float16 (computed
    in float32), float32 stays, int64 with float32 gives float64; no complex inputs."""
    case = CASES[name]
    for dts, want in [(["int8"], "float16"), (["int16"], "float32"), (["float32"], "float32"),
                      (["int64", "float32"], "float64"), (["uint8", "float16"], "float16"),
                      (["bool"], "float16"), (["float64"], "float64")]:
        args = [tt.scalar(dtype=dts[k % len(dts)]) for k in range(case.nin)]
        assert case.fn(*args).dtype == want, (name, dts)
    with pytest.raises(TypeError, match=f"{name}.*complex"):
        case.fn(*[tt.scalar(dtype="complex128") for _ in range(case.nin)])
    # float16: computed in float32, rounded
    with np.errstate(over="ignore"):
        x = [np.asarray(c, dtype=np.float16) for c in case.sample(np.random.default_rng(3), 5)]
        want = _ref(case, [c.astype(np.float64) for c in x]).astype(np.float16)
    got = theon.function(xs := _inputs(case, "float16"), case.fn(*xs))(*x)
    assert got.dtype == np.float16
    _assert_close(got, want, 2e-3, name)


def test_fused_with_other_ops() -> None:
    """FAST_RUN fuses the rows with NumPy's ufuncs into one kernel, same values."""
    k, x, a = tt.dvector("k"), tt.dvector("x"), tt.dvector("a")
    y = tt.exp(-x) * tt.gammainc(k, x) + tt.log1p(tt.erfcx(x)) * tt.betainc(k, a, tt.sigmoid(x)) \
        + tt.xlogy0(k, x) - tt.kve(k, x + 1) * tt.owens_t(x, a)
    f = theon.function([k, x, a], y)
    fused = [n for n in f.maker.fgraph.toposort()
             if isinstance(n.op, Elemwise) and isinstance(n.op.scalar_op, Composite)]
    assert len(fused) == 1 and len(f.maker.fgraph.toposort()) == 1
    rng = np.random.default_rng(7)
    kv, xv, av = rng.uniform(0.1, 5, 50), rng.uniform(0.01, 8, 50), rng.uniform(0.1, 5, 50)
    with np.errstate(all="ignore"):
        want = (np.exp(-xv) * sps.gammainc(kv, xv)
                + np.log1p(sps.erfcx(xv)) * sps.betainc(kv, av, sps.expit(xv))
                + sps.xlogy(kv, xv) - sps.kve(kv, xv + 1) * sps.owens_t(xv, av))
    np.testing.assert_allclose(f(kv, xv, av), want, rtol=1e-13)


def test_zero_dim_inputs_take_the_numpy_path() -> None:
    k, x = tt.dscalar("k"), tt.dscalar("x")
    f = theon.function([k, x], [tt.gammaincc(k, x), tt.jv(k, x) + 1.0])
    a, b = f(2.5, 3.0)
    assert a == sps.gammaincc(2.5, 3.0) and b == sps.jv(2.5, 3.0) + 1.0


def test_hyp2f1_derivatives_where_the_function_is_undefined() -> None:
    """A ``c`` that is 0 or a negative integer (the function is infinite) and ``z > 1``
    (no real value) give nan derivatives; ``z == 0`` gives 0, ``z == 1`` Gauss's sum."""
    a, b, c, z = (tt.dvector(n) for n in "abcz")
    f = theon.function([a, b, c, z], [tt.hyp2f1_grad_a(a, b, c, z),
                                      tt.hyp2f1_grad_c(a, b, c, z)])
    ga, gc = f([1.0, 1.0, 1.0, 1.5], [1.0, 1.0, 1.0, 1.0], [-1.0, 0.0, 2.0, 4.0],
               [0.5, 0.5, 1.5, 1.0])
    assert np.isnan(ga[:3]).all() and np.isnan(gc[:3]).all()
    want = _fd_value(lambda v: sps.hyp2f1(v, 1.0, 4.0, 1.0), 1.5)
    assert abs(ga[3] - want) <= 1e-8 * abs(want)
    assert theon.function([a, b, c, z], tt.hyp2f1_grad_b(a, b, c, z))(
        [1.0], [2.0], [3.0], [0.0])[0] == 0.0


def _fd_value(f: object, x: float) -> float:
    return fd(f, x, 1e-3)  # type: ignore[arg-type]


def test_kn_truncates_a_float_order_like_scipy() -> None:
    n, x = tt.dvector("n"), tt.dvector("x")
    f = theon.function([n, x], tt.kn(n, x))
    got = f([2.7, -2.7, 3.0], [1.5, 1.5, 1.5])
    np.testing.assert_array_equal(got, sps.kn([2, -2, 3], 1.5))
    i = tt.lvector("i")
    np.testing.assert_array_equal(theon.function([i, x], tt.kn(i, x))([0, 4], [2.0, 2.0]),
                                  sps.kn([0, 4], 2.0))


def test_independent_references() -> None:
    """Identities that do not go through the function computed: chi2sf is
    gammaincc(k/2, x/2); iv is ive times exp(|x|); kv is kve times exp(-x); gammal +
    gammau is gamma(k); xlogx(x) is xlogy0(x, x)."""
    rng = np.random.default_rng(11)
    k, x = rng.uniform(0.2, 10, 30), rng.uniform(0.05, 20, 30)
    kv, xv = tt.dvector("k"), tt.dvector("x")
    f = theon.function([kv, xv], [tt.chi2sf(xv, kv), tt.iv(kv, xv), tt.kv(kv, xv),
                                  tt.gammal(kv, xv) + tt.gammau(kv, xv), tt.xlogx(xv)])
    chi, iv, kvv, total, xlx = f(k, x)
    np.testing.assert_allclose(chi, sps.gammaincc(k / 2, x / 2), rtol=1e-13)
    np.testing.assert_allclose(iv, sps.ive(k, x) * np.exp(x), rtol=1e-13)
    np.testing.assert_allclose(kvv, sps.kve(k, x) * np.exp(-x), rtol=1e-13)
    np.testing.assert_allclose(total, sps.gamma(k), rtol=1e-13)
    np.testing.assert_allclose(xlx, x * np.log(x), rtol=1e-15)


# gradients -----------------------------------------------------------------------------------
GRAD_POINTS = [(name, region) for name in NAMES for region in CASES[name].grad_points]


@pytest.mark.parametrize(("name", "region"), GRAD_POINTS, ids=[f"{n}-{r}" for n, r in GRAD_POINTS])
def test_grad_by_finite_differences(name: str, region: str) -> None:
    """verify_grad in every region where a different method gives the derivative."""
    case = CASES[name]
    point = case.grad_points[region]
    free = case.grad_args

    def fn(*vs: tt.TensorVariable) -> tt.TensorVariable:
        args: list[object] = list(point)
        for k, v in zip(free, vs):
            args[k] = v
        return case.fn(*args)

    pt = [np.array([point[k]]) for k in free]
    theon.verify_grad(fn, pt, rng=np.random.default_rng(stable_seed(name + region)),
                      abs_tol=1e-6, rel_tol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_grad_on_arrays_in_every_region_at_once(name: str) -> None:
    """The gradient of a vector holding a point of each region (their methods side by side
    in one array), against the finite differences of SciPy's function itself."""
    case = CASES[name]
    pts = np.array(list(case.grad_points.values()), dtype=np.float64)
    xs = _inputs(case)
    y = case.fn(*xs)
    grads = theon.grad(y.sum(), [xs[k] for k in case.grad_args])
    g = theon.function(xs, grads)(*[pts[:, k] for k in range(case.nin)])
    for j, k in enumerate(case.grad_args):
        for row, pt in enumerate(pts):

            def f(v: float, pt: np.ndarray = pt, k: int = k) -> float:
                q = [np.float64(p) for p in pt]
                q[k] = np.float64(v)
                with np.errstate(all="ignore"):
                    return float(case.ref(*q))

            h = 1e-3 * max(abs(pt[k]), 0.05)
            if pt[k] == 0 and name in ("i1", "j1"):
                h = 1e-3
            want = fd(f, float(pt[k]), h)
            assert abs(g[j][row] - want) <= 1e-7 * abs(want) + 1e-10, (name, pt, k, g[j][row],
                                                                       want)


@pytest.mark.parametrize("name", ["iv", "ive", "jv", "kv", "kve"])
def test_order_of_a_bessel_function_has_no_gradient(name: str) -> None:
    v, x = tt.dscalar("v"), tt.dscalar("x")
    with pytest.raises(Exception, match=f"{name}.*order of a Bessel function"):
        theon.grad(getattr(tt, name)(v, x), v)
    op = table.OPS[name]
    sv, sx = ts.float64("v"), ts.float64("x")
    g, _ = op.L_op([sv, sx], [op(sv, sx)], [ts.float64("gz")])
    assert isinstance(g.type, NullType)


def test_integer_order_is_disconnected_and_float_kn_order_is_zero() -> None:
    n, x, m = tt.lscalar("n"), tt.dscalar("x"), tt.dscalar("m")
    g = theon.grad(tt.kn(n, x) + tt.iv(n, x), x)
    assert np.isfinite(g.eval({n: 2, x: 1.5}))
    gm = theon.grad(tt.kn(m, x), m)
    assert gm.eval({m: 2.3, x: 1.5}) == 0.0


def test_second_derivatives_through_the_parameter_rows() -> None:
    """d/dx of d/dk gammainc, d/dx of d/da betainc and d/dz of d/da hyp2f1 (closed forms of
    the rows at shifted parameters), against finite differences of the first derivative."""
    for fn, pt, k in [
        (lambda k, x: tt.gammainc_grad(k, x), (2.5, 1.2), 1),
        (lambda k, x: tt.gammainc_grad(k, x), (2.5, 6.0), 1),
        (lambda a, b, x: tt.betainc_grad_a(a, b, x), (2.0, 3.0, 0.3), 2),
        (lambda a, b, x: tt.betainc_grad_b(a, b, x), (2.0, 3.0, 0.8), 2),
        (lambda a, b, c, z: tt.hyp2f1_grad_a(a, b, c, z), (0.7, 1.3, 2.9, 0.4), 3),
        (lambda a, b, c, z: tt.hyp2f1_grad_b(a, b, c, z), (0.7, 1.3, 2.9, -0.8), 3),
        (lambda a, b, c, z: tt.hyp2f1_grad_c(a, b, c, z), (0.7, 1.3, 2.9, 0.4), 3),
    ]:
        def f(v: tt.TensorVariable, pt: tuple[float, ...] = pt, k: int = k,
              fn: object = fn) -> tt.TensorVariable:
            args: list[object] = list(pt)
            args[k] = v
            return fn(*args)  # type: ignore[operator]

        theon.verify_grad(f, [np.array([pt[k]])], rng=np.random.default_rng(5),
                          abs_tol=1e-6, rel_tol=1e-6)


def test_second_derivative_in_a_parameter_is_named() -> None:
    k, x = tt.dscalar("k"), tt.dscalar("x")
    with pytest.raises(Exception, match="gammainc_grad.*second derivative in a parameter"):
        theon.grad(theon.grad(tt.gammainc(k, x), k), k)


def test_hessian_of_a_gamma_log_likelihood() -> None:
    """A second derivative mixing the rows: d2/dx dk of log gammaincc(k, x)."""
    k, x = tt.dscalar("k"), tt.dscalar("x")
    y = tt.log(tt.gammaincc(k, x))
    gk = theon.grad(y, k)
    hkx = theon.grad(gk, x)
    f = theon.function([k, x], hkx)

    def dk(xv: float) -> float:
        return fd(lambda kv: float(np.log(sps.gammaincc(kv, xv))), 2.5, 1e-3)

    want = fd(dk, 4.0, 1e-3)
    assert abs(f(2.5, 4.0) - want) <= 1e-6 * abs(want)


def test_r_op_matches_the_partials() -> None:
    a, b, x = tt.dvector("a"), tt.dvector("b"), tt.dvector("x")
    va, vb, vx = tt.dvector("va"), tt.dvector("vb"), tt.dvector("vx")
    y = tt.betainc(a, b, x)
    (jv,) = theon.Rop([y], [a, b, x], [va, vb, vx])
    f = theon.function([a, b, x, va, vb, vx], jv)
    pa, pb, px = np.array([2.0, 0.5]), np.array([3.0, 4.0]), np.array([0.3, 0.9])
    ea, eb, ex = np.array([1.0, -2.0]), np.array([0.5, 1.0]), np.array([2.0, 0.1])
    h = 1e-4
    want = (sps.betainc(pa + h * ea, pb + h * eb, px + h * ex)
            - sps.betainc(pa - h * ea, pb - h * eb, px - h * ex)) / (2 * h)
    np.testing.assert_allclose(f(pa, pb, px, ea, eb, ex), want, rtol=1e-6)
