"""``theon.gradient.grad_clip`` (Theano's, issue 32 item 2): the identity forward, the
gradient clipped to ``[lower, upper]``, checked against finite differences of the
clipped quantity, in the default mode and in ``mode="JAX"``."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.gradient import grad_clip
from theon.gradient.ops import GradClip

MODES = [None, pytest.param("JAX", marks=pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="mode='JAX' needs jax"))]


def _finite_difference(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.flat[i] = (fn(x + e) - fn(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("mode", MODES)
def test_forward_is_the_identity_and_the_gradient_is_clipped(mode: str | None) -> None:
    """cost = sum(w * tanh(h)) with h = grad_clip(x * a): the gradient reaching h is
    w * (1 - tanh(h)^2), clipped to [-0.3, 0.5], then times a."""
    x = T.dvector("x")
    rng = np.random.default_rng(0)
    w = np.array([2.0, -1.0, 0.2, -0.1, 3.0])
    a = 1.7
    h = grad_clip(x * a, -0.3, 0.5)
    cost = (w * T.tanh(h)).sum()
    f = theon.function([x], [h, cost, theon.grad(cost, x)], mode=mode)
    xv = rng.normal(size=5) * 0.3
    hv, cv, gv = f(xv)
    np.testing.assert_allclose(hv, xv * a, rtol=1e-15)
    np.testing.assert_allclose(cv, (w * np.tanh(xv * a)).sum(), rtol=1e-14)

    def dcost_dh(hh: np.ndarray) -> float:  # the quantity clipped is d cost / d h
        return float((w * np.tanh(hh)).sum())

    upstream = _finite_difference(dcost_dh, xv * a)
    assert (upstream > 0.5).any() and (upstream < -0.3).any()  # both bounds bite
    np.testing.assert_allclose(gv, np.clip(upstream, -0.3, 0.5) * a, rtol=1e-7, atol=1e-9)


def test_inside_the_bounds_it_is_the_plain_gradient() -> None:
    rng = np.random.default_rng(1)
    xv = rng.normal(size=(3, 2))
    theon.verify_grad(lambda x: T.sin(grad_clip(x, -100.0, 100.0)) * 3, [xv], rng=rng)


def test_float32_gradients_stay_float32_and_default_equals_jax() -> None:
    x = T.fvector("x")
    g = theon.grad((grad_clip(x, -1, 1) * np.float32(4.0)).sum(), x)
    assert g.dtype == "float32"
    np.testing.assert_array_equal(g.eval({x: np.ones(3, "float32")}), np.ones(3, "float32"))
    if importlib.util.find_spec("jax") is not None:
        f = theon.function([x], g, mode="JAX")
        np.testing.assert_array_equal(f(np.ones(3, "float32")), np.ones(3, "float32"))


def test_bounds_are_checked_and_identify_the_op() -> None:
    x = T.dvector("x")
    with pytest.raises(ValueError, match="upper bound -1.0 is below the lower bound 1.0"):
        grad_clip(x, 1, -1)
    with pytest.raises(TypeError, match="lower bound a is not a constant"):
        grad_clip(x, T.dscalar("a"), 1.0)
    assert GradClip(-1.0, 1.0) == grad_clip(x, T.constant(-1.0), 1).owner.op
    assert GradClip(-1.0, 1.0) != GradClip(-2.0, 1.0)
    assert theon.gradient.grad_clip is grad_clip
