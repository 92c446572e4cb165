"""interp (numpy.interp: values, left/right, period, complex fp, nan and inf) and
interpolate1d (PyTensor's methods) (issue 35); gradients with verify_grad."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.nscheck import check
from theon.gradient import verify_grad
from theon.tensor.interpolate import interpolate1d

rng = np.random.default_rng(359)


def test_interp_matches_numpy():
    x = tt.dvector("x")
    xp = np.sort(rng.normal(size=8))
    fp = rng.normal(size=8)
    xs = np.concatenate([rng.normal(size=20) * 2, xp, [np.nan, np.inf, -np.inf]])
    check([x], tt.interp(x, xp, fp), [xs], np.interp(xs, xp, fp))
    check([x], tt.interp(x, xp, fp, left=-7.0, right=np.nan), [xs],
          np.interp(xs, xp, fp, left=-7.0, right=np.nan))
    check([x], tt.interp(x, xp, fp + 2j * fp), [xs[:20]], np.interp(xs[:20], xp, fp + 2j * fp))
    check([x], tt.interp(x, xp, fp, period=1.5), [xs[:20]],
          np.interp(xs[:20], xp, fp, period=1.5), rtol=1e-13)


def test_interp_repeated_points_and_infinities():
    x = tt.dvector("x")
    xp = np.array([0.0, 1.0, 1.0, 2.0, np.inf])
    fp = np.array([0.0, 1.0, 2.0, np.inf, np.inf])
    xs = np.array([-1.0, 0.5, 1.0, 1.5, 2.0, 3.0, np.inf])
    check([x], tt.interp(x, xp, fp), [xs], np.interp(xs, xp, fp))
    i = tt.ivector("i")
    check([i], tt.interp(i, [0, 2], [0, 4]), [np.array([0, 1, 3], "int32")],
          np.interp(np.array([0, 1, 3]), [0, 2], [0, 4]))


def test_interp_grads():
    xp, fp = np.sort(rng.normal(size=6)), rng.normal(size=6)
    xs = rng.uniform(xp[0] - 1, xp[-1] + 1, size=10)
    verify_grad(lambda a, b, c: tt.interp(a, b, c), [xs, xp, fp], rng=rng)


X = np.array([2.0, 0.0, 1.0, 4.0])
Y = np.array([20.0, 0.0, 10.0, 0.0])
Q = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 3.0, 4.0, 5.0, 0.25, 0.75])
# the results PyTensor 3.0.7 gives for these points (x sorted first)
WANT = {
    ("linear", True): [-10, 0, 5, 10, 15, 10, 0, -10, 2.5, 7.5],
    ("linear", False): [0, 0, 5, 10, 15, 10, 0, 0, 2.5, 7.5],
    ("nearest", True): [0, 0, 0, 10, 10, 20, 0, 0, 0, 10],
    ("first", True): [0, 0, 0, 0, 10, 20, 20, 0, 0, 0],
    ("last", True): [0, 0, 10, 10, 20, 0, 0, 0, 10, 10],
    ("mean", True): [5, 5, 5, 5, 15, 10, 10, 10, 5, 5],
    ("mean", False): [0, 5, 5, 5, 15, 10, 10, 0, 5, 5],
}


@pytest.mark.parametrize(("method", "extrapolate"), list(WANT))
def test_interpolate1d(method, extrapolate):
    q = tt.dvector("q")
    f = interpolate1d(X, Y, method=method, extrapolate=extrapolate)
    check([q], f(q), [Q], np.array(WANT[method, extrapolate], dtype=float))


def test_interpolate1d_pads_and_grads():
    q = tt.dvector("q")
    f = tt.interpolate1d(X, Y, extrapolate=False, left_pad=-7.0, right_pad=7.0)
    # the end points keep the data's values (PyTensor's gives the pads there)
    check([q], f(q), [Q], np.array([-7, 0, 5, 10, 15, 10, 0, 7, 2.5, 7.5], dtype=float))
    verify_grad(lambda a, b, c: interpolate1d(b, c)(a),
                [rng.uniform(-1, 5, size=6), np.array([0.0, 1.0, 2.5, 4.0]),
                 rng.normal(size=4)], rng=rng)
    with pytest.raises(ValueError, match="method"):
        interpolate1d(X, Y, method="cubic")
