"""PyTensor 3's pullback (vector-Jacobian product) and pushforward (Jacobian-vector
product), with its signatures, against Jacobians computed by hand with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.gradient import DisconnectedType, pullback, pushforward


def jac_sin_times(xv, wv):
    """f = sin(x) * w (elementwise): df/dx = diag(cos(x) w), df/dw = diag(sin(x))."""
    return np.diag(np.cos(xv) * wv), np.diag(np.sin(xv))


def test_pullback_is_cotangent_times_jacobian():
    rng = np.random.default_rng(0)
    x, w, u = tt.dvectors("x", "w", "u")
    f = tt.sin(x) * w
    gx, gw = pullback(f, [x, w], u)
    fn = theon.function([x, w, u], [gx, gw])
    xv, wv, uv = rng.normal(size=(3, 4))
    jx, jw = jac_sin_times(xv, wv)
    got_x, got_w = fn(xv, wv, uv)
    np.testing.assert_allclose(got_x, uv @ jx, rtol=1e-13)
    np.testing.assert_allclose(got_w, uv @ jw, rtol=1e-13)
    # one wrt: one result; theon.pullback is the same function
    assert theon.pullback is pullback
    single = pullback(f, x, u)
    assert isinstance(single, theon.Variable)


def test_pullback_of_several_outputs_sums_their_products():
    rng = np.random.default_rng(1)
    x, u1, u2 = tt.dvectors("x", "u1", "u2")
    A = rng.normal(size=(3, 4))
    f1, f2 = tt.dot(tt.constant(A), x), tt.exp(x)
    g = pullback([f1, f2], x, [u1, u2])
    xv, uv2 = rng.normal(size=4), rng.normal(size=4)
    uv1 = rng.normal(size=3)
    got = theon.function([x, u1, u2], g)(xv, uv1, uv2)
    np.testing.assert_allclose(got, uv1 @ A + uv2 * np.exp(xv), rtol=1e-13)


@pytest.mark.parametrize("use_op_pushforward", [False, True])
def test_pushforward_is_jacobian_times_tangent(use_op_pushforward):
    rng = np.random.default_rng(2)
    x, w, v1, v2 = tt.dvectors("x", "w", "v1", "v2")
    f = tt.sin(x) * w
    jv = pushforward(f, [x, w], [v1, v2], use_op_pushforward=use_op_pushforward)
    xv, wv, tv1, tv2 = rng.normal(size=(4, 5))
    jx, jw = jac_sin_times(xv, wv)
    got = theon.function([x, w, v1, v2], jv)(xv, wv, tv1, tv2)
    np.testing.assert_allclose(got, jx @ tv1 + jw @ tv2, rtol=1e-13)
    assert theon.pushforward is pushforward


def test_disconnected_results():
    x, y, u = tt.dvectors("x", "y", "u")
    f = tt.exp(x)
    with pytest.raises(Exception, match="y"):
        pullback(f, [x, y], u)
    gx, gy = pullback(f, [x, y], u, disconnected_inputs="ignore")
    np.testing.assert_array_equal(gy.eval({y: np.ones(2)}), np.zeros(2))
    _, none = pullback(f, [x, y], u, disconnected_inputs="ignore", return_disconnected="none")
    assert none is None
    _, dis = pullback(f, [x, y], u, disconnected_inputs="ignore",
                      return_disconnected="disconnected")
    assert isinstance(dis.type, DisconnectedType)
    g = tt.exp(y)
    with pytest.raises(ValueError, match="does not depend on wrt"):
        pushforward([f, g], x, u)
    jf, jg = pushforward([f, g], x, u, disconnected_outputs="ignore")
    np.testing.assert_array_equal(jg.eval({y: np.ones(3)}), np.zeros(3))
    _, jn = pushforward([f, g], x, u, disconnected_outputs="ignore", return_disconnected="none")
    assert jn is None
    _, jd = pushforward([f, g], x, u, disconnected_outputs="ignore",
                        return_disconnected="disconnected")
    assert isinstance(jd.type, DisconnectedType)
    with pytest.raises(ValueError, match="return_disconnected"):
        pullback(f, x, u, return_disconnected="zeros")
