"""divmod, isposinf/isneginf, iround, round_half_away_from_zero, largest/smallest,
logaddexp, ceil_intdiv, tri_gamma, dense_dot, batched_dot/batched_tensordot, kron and the
constants (issue 35) against NumPy/SciPy; gradients with verify_grad."""

import math

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as tt
from tests.tensor.nscheck import EXTREMES, check
from theon.gradient import verify_grad

rng = np.random.default_rng(351)
# the inputs are extreme on purpose (inf, nan, values that overflow float32)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def test_constants():
    assert (tt.e, tt.pi, tt.euler_gamma) == (np.e, np.pi, np.euler_gamma)
    assert tt.inf == np.inf and math.isnan(tt.nan) and tt.newaxis is None
    v = tt.dvector("v")
    assert v[tt.newaxis].type.shape == (1, None)


@pytest.mark.parametrize(("dx", "dy"), [("int32", "int32"), ("int8", "int64"),
                                         ("float64", "float64"), ("float32", "int8")])
def test_divmod(dx, dy):
    x, y = tt.vector("x", dtype=dx), tt.vector("y", dtype=dy)
    if dx.startswith("int"):
        xv = np.array([7, -7, 0, 5, -5, 100], dtype=dx)
    else:
        xv = np.array([7.5, -7.5, 0.0, np.inf, -1e300, np.nan], dtype=dx)
    yv = np.array([2, 2, 3, -3, 3, -2], dtype=dy)
    check([x, y], list(tt.divmod(x, y)), [xv, yv], list(np.divmod(xv, yv)))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_isposinf_isneginf(dtype):
    x = tt.vector("x", dtype=dtype)
    xv = EXTREMES.astype(dtype) if dtype.startswith("float") else np.arange(-3, 3, dtype=dtype)
    check([x], [tt.isposinf(x), tt.isneginf(x)], [xv], [np.isposinf(xv), np.isneginf(xv)])


HALVES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                   4503599627370495.5, 2.0 ** 53 + 2, 1e300, -np.inf, np.nan, -0.0, 0.7])


def _round_away(v):
    """C's round: halves away from zero (computed exactly with Python's decimal rule)."""
    out = np.where(np.abs(v - np.trunc(v)) >= 0.5, np.trunc(v) + np.sign(v), np.trunc(v))
    return out.astype(v.dtype)


def test_round_half_away_from_zero():
    x = tt.dvector("x")
    want = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0, 0.0, -0.0, 4503599627370496.0,
                     2.0 ** 53 + 2, 1e300, -np.inf, np.nan, -0.0, 1.0])
    check([x], tt.round_half_away_from_zero(x), [HALVES], want)
    np.testing.assert_array_equal(_round_away(HALVES), want)
    i = tt.ivector("i")
    assert tt.round_half_away_from_zero(i) is i


@pytest.mark.parametrize("mode", [None, "half_to_even", "half_away_from_zero"])
def test_iround(mode):
    x = tt.dvector("x")
    xv = np.array([0.5, 1.5, -2.5, 2.7, -3.2, 1e10])
    ref = (np.round(xv) if mode != "half_away_from_zero" else _round_away(xv)).astype("int64")
    check([x], tt.iround(x, mode), [xv], ref)
    with pytest.raises(ValueError, match="mode"):
        tt.iround(x, "up")


def test_largest_smallest():
    x, y, z = tt.dvector("x"), tt.dmatrix("y"), tt.dscalar("z")
    xv, yv = rng.choice(EXTREMES, size=3), rng.choice(EXTREMES, size=(2, 3))
    check([x, y, z], [tt.largest(x, y, z), tt.smallest(x, y, z)], [xv, yv, 0.25],
          [np.maximum(np.maximum(xv, yv), 0.25), np.minimum(np.minimum(xv, yv), 0.25)])
    verify_grad(lambda a, b: tt.largest(a, b, 0.0), [np.array([1.0, -2.0]),
                                                     np.array([0.5, -3.0])], rng=rng)
    with pytest.raises(TypeError, match="at least one"):
        tt.largest()


@pytest.mark.parametrize(("da", "db"), [("float64", "float64"), ("float32", "float32"),
                                         ("int8", "int8"), ("int32", "float32")])
def test_logaddexp(da, db):
    a, b = tt.vector("a", dtype=da), tt.vector("b", dtype=db)
    if da.startswith("float"):
        av = np.repeat(EXTREMES, len(EXTREMES)).astype(da)
    else:
        av = np.repeat(np.arange(-7, 7), 14).astype(da)
    bv = np.resize(EXTREMES if db.startswith("float") else np.arange(-7, 7), av.size
                   ).astype(db)
    with np.errstate(all="ignore"):
        ref = np.logaddexp(av, bv)
    tol = {"float64": 4e-16, "float32": 3e-7, "float16": 2e-3}[str(ref.dtype)]
    check([a, b], tt.logaddexp(a, b), [av, bv], ref, rtol=tol)


def test_logaddexp_many_and_grad():
    a, b, c = tt.dvectors("abc")
    vals = [rng.normal(size=4) * 30 for _ in range(3)]
    ref = np.logaddexp(np.logaddexp(*vals[:2]), vals[2])
    check([a, b, c], tt.logaddexp(a, b, c), vals, ref, rtol=1e-15)
    verify_grad(lambda p, q: tt.logaddexp(p, q), [rng.normal(size=3) * 5,
                                                  rng.normal(size=3) * 5], rng=rng)
    verify_grad(lambda p: tt.logaddexp(p, 700.0), [np.array([690.0, 710.0])], rng=rng)


def test_ceil_intdiv():
    a, b = tt.lvector("a"), tt.lvector("b")
    av, bv = np.array([7, -7, 6, 0, -1]), np.array([2, 2, -4, 3, 5])
    check([a, b], tt.ceil_intdiv(a, b), [av, bv], -(-av // bv))


def test_tri_gamma():
    x = tt.dvector("x")
    xv = np.array([0.1, 1.0, 2.5, 100.0, -1.5])
    check([x], tt.tri_gamma(x), [xv], sps.polygamma(1, xv), rtol=1e-12)


def test_dense_dot():
    a, b = tt.dmatrix("a"), tt.dvector("b")
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=3)
    check([a, b], tt.dense_dot(a, b), [av, bv], np.dot(av, bv), rtol=1e-14)


def _np_batched_dot(a, b):
    return np.stack([np.dot(x, y) if np.ndim(x) and np.ndim(y) else x * y
                     for x, y in zip(a, b)])


@pytest.mark.parametrize(("sa", "sb"), [((3, 4), (3, 4)), ((3, 2, 4), (3, 4, 5)),
                                        ((3, 2, 4), (3, 4)), ((3, 4), (3, 4, 2)),
                                        ((3,), (3, 4)), ((3, 2, 4), (3,)),
                                        ((3, 2, 4), (3, 5, 4, 2))])
def test_batched_dot(sa, sb):
    a = tt.tensor("a", dtype="float64", shape=(None,) * len(sa))
    b = tt.tensor("b", dtype="float64", shape=(None,) * len(sb))
    av, bv = rng.normal(size=sa), rng.normal(size=sb)
    check([a, b], tt.batched_dot(a, b), [av, bv], _np_batched_dot(av, bv), rtol=1e-13)
    verify_grad(tt.batched_dot, [av, bv], rng=rng)


@pytest.mark.parametrize(("sa", "sb", "axes"), [
    ((2, 3, 4), (2, 4, 5), 1), ((2, 3, 4), (2, 3, 4), 2), ((2, 3, 4), (2, 5, 4), [[2], [2]]),
    ((2, 3, 4, 5), (2, 5, 3), [[1, 3], [2, 1]]), ((2, 3), (2, 3, 4), [[1], [1]])])
def test_batched_tensordot(sa, sb, axes):
    a = tt.tensor("a", dtype="float64", shape=(None,) * len(sa))
    b = tt.tensor("b", dtype="float64", shape=(None,) * len(sb))
    av, bv = rng.normal(size=sa), rng.normal(size=sb)
    if isinstance(axes, int):
        np_axes = (list(range(len(sa) - 1 - axes, len(sa) - 1)), list(range(axes)))
    else:
        np_axes = ([i - 1 for i in axes[0]], [i - 1 for i in axes[1]])
    ref = np.stack([np.tensordot(x, y, np_axes) for x, y in zip(av, bv)])
    check([a, b], tt.batched_tensordot(a, b, axes), [av, bv], ref, rtol=1e-13)
    verify_grad(lambda p, q: tt.batched_tensordot(p, q, axes), [av, bv], rng=rng)


def test_batched_errors():
    with pytest.raises(ValueError, match="batch axis"):
        tt.batched_dot(tt.dscalar("s"), tt.dvector("v"))
    with pytest.raises(ValueError, match="batch axis 0"):
        tt.batched_tensordot(tt.dmatrix("a"), tt.dmatrix("b"), [[0], [0]])


@pytest.mark.parametrize(("sa", "sb"), [((2, 3), (4, 5)), ((3,), (2, 2)), ((2,), (3,))])
def test_kron(sa, sb):
    a = tt.tensor("a", dtype="float64", shape=(None,) * len(sa))
    b = tt.tensor("b", dtype="float64", shape=(None,) * len(sb))
    av, bv = rng.normal(size=sa), rng.normal(size=sb)
    check([a, b], tt.kron(a, b), [av, bv], np.kron(av, bv), rtol=1e-15)
    verify_grad(tt.kron, [av, bv], rng=rng)


def test_names_helpers():
    v = tt.dvector("v")
    assert tt.transfer(v, "cpu") is v
    with pytest.raises(ValueError, match="CPU only"):
        tt.transfer(v, "gpu")
    assert tt.values_eq_approx_always_true(1, 2)
    assert tt.Op is theon.graph.op.Op


def test_piecewise_grads():
    # away from the steps: the remainder's slope is 1 in x, the rounding's is 0
    xv = np.array([0.3, 1.7, -2.2, 5.4])
    verify_grad(lambda v: tt.divmod(v, 2.5)[1], [xv], rng=rng)
    verify_grad(lambda v: tt.round_half_away_from_zero(v) + v, [xv], rng=rng)
    verify_grad(tt.tri_gamma, [np.array([0.5, 2.0, 7.5])], rng=rng)
    verify_grad(tt.dense_dot, [rng.normal(size=(2, 3)), rng.normal(size=3)], rng=rng)
