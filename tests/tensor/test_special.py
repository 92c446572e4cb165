"""softmax, log_softmax and the special functions against SciPy; gradients; stability."""

import numpy as np
import pytest
import scipy.special as sp

import theon
import theon.tensor as tt
from theon.gradient import Rop, verify_grad
from theon.tensor import special

from .core_checks import check_infer_shape, run

rng = np.random.default_rng(7)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_log_softmax_match_scipy(axis, dtype):
    x = tt.tensor(dtype, shape=(None, None), name="x")
    xv = rng.normal(size=(3, 4)).astype(dtype)
    sm, lsm = special.softmax(x, axis=axis), special.log_softmax(x, axis=axis)
    r1, r2 = run([x], [sm, lsm], xv)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(r1, sp.softmax(xv, axis=axis), rtol=tol, atol=tol)
    np.testing.assert_allclose(r2, sp.log_softmax(xv, axis=axis), rtol=tol, atol=tol)
    assert r1.dtype == dtype and r2.dtype == dtype and sm.dtype == dtype
    check_infer_shape(sm, [x], [xv])
    check_infer_shape(lsm, [x], [xv])


@pytest.mark.parametrize("axis", [0, -1, None])
def test_softmax_grads(axis):
    xv = rng.normal(size=(3, 4))
    verify_grad(lambda v: special.softmax(v, axis=axis), [xv], rng=rng)
    verify_grad(lambda v: special.log_softmax(v, axis=axis), [xv], rng=rng)


def test_stability_at_extremes():
    x = tt.dvector("x")
    r = run([x], [special.softmax(x), special.log_softmax(x)], np.array([1000.0, 0.0]))
    np.testing.assert_allclose(r[0], [1.0, 0.0])
    np.testing.assert_allclose(r[1], [0.0, -1000.0])
    assert float(run([x], special.logsumexp(x), np.array([1000.0, 1000.0]))) == pytest.approx(
        1000 + np.log(2))


@pytest.mark.parametrize("row", [[1.0, np.inf, -2.0], [1.0, -np.inf, -2.0],
                                 [-np.inf, -np.inf, -np.inf], [1.0, np.nan, 0.0]])
def test_infinities_give_numpys_nan_and_inf(row):
    """Where ``x`` has infinities, softmax and log_softmax (the ops, and the manual
    forms the stabilizations rewrite into them) give NumPy's ``exp(x)/sum(exp(x))``."""
    x = tt.dmatrix("x")
    e = tt.exp(x)
    manual = e / tt.sum(e, axis=1, keepdims=True)
    outs = [special.softmax(x, axis=1), special.log_softmax(x, axis=1), manual, tt.log(manual)]
    xv = np.array([row, [0.0, 1.0, 2.0]])
    with np.errstate(all="ignore"):
        want = np.exp(xv) / np.sum(np.exp(xv), axis=1, keepdims=True)
        expected = [want, np.log(want), want, np.log(want)]
        results = run([x], outs, xv)
    for got, exp in zip(results, expected):
        np.testing.assert_allclose(got, exp, rtol=1e-12, atol=1e-15)


def test_empty_and_errors():
    x = tt.dmatrix("x")
    assert run([x], special.softmax(x), np.zeros((0, 3))).shape == (0, 3)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        special.softmax(x, axis=2)
    with pytest.raises(ValueError, match="at least one dimension"):
        special.softmax(tt.dscalar("s"))


def test_int_input_gives_float():
    x = tt.ivector("x")
    out = special.softmax(x)
    assert out.dtype == "float64"
    np.testing.assert_allclose(run([x], out, np.array([1, 2], dtype="int32")),
                               sp.softmax([1.0, 2.0]))


@pytest.mark.parametrize("name,ref", [
    ("sigmoid", sp.expit), ("softplus", lambda v: np.logaddexp(0, v)), ("erf", sp.erf),
    ("erfc", sp.erfc), ("gammaln", sp.gammaln), ("psi", sp.psi), ("expit", sp.expit),
])
def test_special_elementwise(name, ref):
    x = tt.dvector("x")
    xv = rng.uniform(0.1, 3.0, size=5)
    np.testing.assert_allclose(run([x], getattr(special, name)(x), xv), ref(xv), rtol=1e-10)
    verify_grad(getattr(special, name), [xv], rng=rng)


def test_logit_inverts_sigmoid():
    x = tt.dvector("x")
    xv = rng.normal(size=4)
    np.testing.assert_allclose(run([x], special.logit(special.sigmoid(x)), xv), xv)


def test_softmax_rop_matches_jacobian():
    x, v = tt.dvector("x"), tt.dvector("v")
    xv, vv = rng.normal(size=4), rng.normal(size=4)
    for fn in (special.softmax, special.log_softmax):
        r = theon.function([x, v], Rop(fn(x), x, v))(xv, vv)
        j = theon.function([x], theon.gradient.jacobian(fn(x), x))(xv)
        np.testing.assert_allclose(r, j @ vv, rtol=1e-8, atol=1e-12)


def test_namespace_access():
    assert tt.special.softmax is special.softmax
    assert tt.softmax is special.softmax
