"""cov, ptp, quantile/percentile (NumPy's thirteen methods), nanmean/nansum (issue 35)
against NumPy, bit for bit where NumPy computes the same operations; gradients with
verify_grad."""

import warnings

import numpy as np
import pytest

import theon
import theon.tensor as tt
from tests.tensor.nscheck import EXTREMES, check, check_shape
from theon.gradient import verify_grad
from theon.tensor.statistics import METHODS

rng = np.random.default_rng(357)


def _values(dtype, trial, shape=(4, 5)):
    if dtype.startswith("float"):
        a = rng.normal(size=shape).astype(dtype)
        if trial == 1:
            a.flat[[1, 7]] = [np.nan, np.inf]
        elif trial == 2:
            a[1] = -np.inf
            a.flat[3] = 1e300 if dtype == "float64" else 3e38
        return a
    return rng.integers(-100, 100, size=shape).astype(dtype)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int8"])
def test_quantile_matches_numpy_exactly(method, dtype):
    x = tt.matrix("x", dtype=dtype)
    for trial in range(3 if dtype.startswith("float") else 1):
        a = _values(dtype, trial)
        for q in [0.3, 0.5, [0.0, 0.25, 1.0], np.float32(0.7), 1, np.array([0.1, 0.9],
                                                                           "float32")]:
            for axis in [None, 0, 1, (0, 1)]:
                for keepdims in (False, True):
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        ref = np.quantile(a, q, axis=axis, method=method, keepdims=keepdims)
                    out = tt.quantile(x, q, axis=axis, method=method, keepdims=keepdims)
                    check([x], out, [a], ref, modes=("REFERENCE",))


@pytest.mark.parametrize("q", [30, 50.0, [0, 99.5, 100]])
@pytest.mark.parametrize("method", ["linear", "nearest", "hazen"])
def test_percentile(q, method):
    x = tt.dtensor3("x")
    a = rng.choice(EXTREMES, size=(2, 3, 4))
    with np.errstate(all="ignore"):
        ref = np.percentile(a, q, axis=(0, 2), method=method)
    check([x], tt.percentile(x, q, axis=(0, 2), method=method), [a], ref)


def test_quantile_fast_run_symbolic_q_and_errors():
    x, q = tt.dvector("x"), tt.dvector("q")
    a, qv = rng.normal(size=7), np.array([0.1, 0.5, 0.95])
    check([x, q], tt.quantile(x, q), [a, qv], np.quantile(a, qv))
    check_shape(tt.quantile(x, q), [x, q], [a, qv])
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        tt.quantile(x, 1.5)
    with pytest.raises(ValueError, match="method"):
        tt.quantile(x, 0.5, method="cubic")
    with pytest.raises(TypeError, match="real"):
        tt.quantile(tt.zvector("z"), 0.5)
    assert tt.quantile(x, 0.5, interpolation="lower").owner is not None


def test_quantile_grads():
    a = rng.normal(size=(3, 6))
    verify_grad(lambda v: tt.quantile(v, [0.2, 0.7], axis=1), [a], rng=rng)
    verify_grad(lambda v: tt.percentile(v, 40, method="hazen"), [a], rng=rng)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8"])
def test_ptp(axis, dtype):
    x = tt.matrix("x", dtype=dtype)
    a = (rng.normal(size=(3, 4)) * 100).astype(dtype)
    for keepdims in (False, True):
        check([x], tt.ptp(x, axis=axis, keepdims=keepdims), [a],
              np.ptp(a, axis=axis, keepdims=keepdims))
    with pytest.raises(TypeError, match="booleans"):
        tt.ptp(tt.bvector("b") > 0)


def test_ptp_grad():
    verify_grad(lambda v: tt.ptp(v, axis=1), [rng.normal(size=(3, 4))], rng=rng)


COV_CASES = [dict(), dict(rowvar=False), dict(bias=True), dict(ddof=3), dict(ddof=0),
             dict(fweights=np.array([1, 2, 3, 1, 2])), dict(aweights=np.linspace(0.5, 2, 5)),
             dict(fweights=np.array([1, 2, 3, 1, 2]), aweights=np.linspace(0.5, 2, 5),
                  ddof=2), dict(aweights=np.linspace(0.5, 2, 5), bias=True), dict(ddof=5)]


@pytest.mark.parametrize("kw", COV_CASES)
def test_cov(kw):
    m = tt.dmatrix("m")
    a = rng.normal(size=(3, 5))
    if kw.get("rowvar") is False:
        a = a.T
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ref = np.cov(a, **kw)
    check([m], tt.cov(m, **kw), [a], ref, rtol=1e-14, atol=1e-15)


def test_cov_shapes_dtypes_and_grad():
    v, y, f = tt.dvector("v"), tt.dmatrix("y"), tt.fmatrix("f")
    av, yv = rng.normal(size=5), rng.normal(size=(2, 5))
    check([v], tt.cov(v), [av], np.cov(av), rtol=1e-14)
    check([v, y], tt.cov(v, y), [av, yv], np.cov(av, yv), rtol=1e-14)
    fv = yv.astype("float32")
    check([f], tt.cov(f), [fv], np.cov(fv), rtol=1e-14)
    i = tt.imatrix("i")
    iv = rng.integers(0, 9, size=(2, 4)).astype("int32")
    check([i], tt.cov(i), [iv], np.cov(iv), rtol=1e-14)
    z = tt.zmatrix("z")
    zv = yv + 1j * yv[::-1]
    check([z], tt.cov(z), [zv], np.cov(zv), rtol=1e-14)
    verify_grad(lambda p: tt.cov(p), [rng.normal(size=(2, 6))], rng=rng)
    verify_grad(lambda p: tt.cov(p, aweights=np.arange(1.0, 7.0)), [rng.normal(size=(2, 6))],
                rng=rng)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "complex128"])
def test_nanmean_nansum(axis, dtype):
    x = tt.matrix("x", dtype=dtype)
    with np.errstate(all="ignore"):
        a = rng.choice(EXTREMES[[0, 2, 3, 10, 11, 12]], size=(3, 4)).astype(dtype) \
            if dtype != "int32" else rng.integers(-5, 5, size=(3, 4)).astype(dtype)
    if dtype.startswith("float"):
        a[1] = np.nan  # an all-nan slice along axis 1
    for keepdims in (False, True):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            means = np.nanmean(a, axis=axis, keepdims=keepdims)
            sums = np.nansum(a, axis=axis, keepdims=keepdims)
        tol = 1e-6 if dtype == "float32" else 1e-15
        check([x], [tt.nanmean(x, axis=axis, keepdims=keepdims),
                    tt.nansum(x, axis=axis, keepdims=keepdims)], [a], [means, sums], rtol=tol)


def test_nan_grads():
    a = rng.normal(size=(3, 4))
    mask = np.zeros((3, 4))
    mask[0, 1] = np.nan  # nan + v stays nan whatever v is: its gradient is zero
    verify_grad(lambda v: tt.nanmean(v + mask, axis=0), [a], rng=rng)
    verify_grad(lambda v: tt.nansum(v + mask, axis=1), [a], rng=rng)


@pytest.mark.parametrize("method", ["hazen", "weibull", "linear", "median_unbiased",
                                    "averaged_inverted_cdf", "midpoint"])
@pytest.mark.parametrize("qv", [0.0, 1.0])
def test_quantile_at_an_end_of_infinite_values_is_numpys_nan(method, qv):
    """Found by the slow random-graph fuzz (seed 10921): at q = 0 or 1 NumPy interpolates
    one element with itself, ``a + (a - a) * t``, which is nan for an infinite ``a``;
    with a static length theon's ``x - x -> 0`` must not make that ``a``."""
    x = tt.TensorType("float32", shape=(3, 4))("x")
    v = np.array([[-0.8, -1.6, 1.1, 2.1], [1.8, 30.0, -np.inf, -1.9],
                  [-0.0, np.inf, 5.5, 0.1]], dtype="float32")
    for data in (v, np.where(np.isinf(v), -0.0, v).astype("float32")):
        want = np.quantile(data, qv, method=method, keepdims=True)
        for mode in ("FAST_RUN", "REFERENCE"):
            got = theon.function([x], tt.quantile(x, qv, method=method, keepdims=True),
                                 mode=mode)(data)
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype
            assert np.signbit(got).tolist() == np.signbit(want).tolist()
