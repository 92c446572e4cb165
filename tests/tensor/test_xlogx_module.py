"""``theon.tensor.xlogx``, Theano's and PyTensor's module (issue 32 item 4): ``xlogx``
and ``xlogy0`` against SciPy, their gradients by ``verify_grad``, the default mode
against ``mode="JAX"``; the module stays callable as theon's earlier function."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as T
from theon.tensor.elemwise import Elemwise

MODES = [None, pytest.param("JAX", marks=pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="mode='JAX' needs jax"))]


def test_the_module_and_its_names() -> None:
    import theon.tensor.xlogx as xl
    from theon.tensor.xlogx import XlogX, XlogY0, scalar_xlogx, scalar_xlogy0, xlogx, xlogy0

    assert T.xlogx is xl and xl.xlogx is xlogx and xl.xlogy0 is xlogy0
    assert isinstance(xlogx, Elemwise) and xlogx.scalar_op is scalar_xlogx
    assert isinstance(scalar_xlogx, XlogX) and isinstance(scalar_xlogy0, XlogY0)
    assert T.xlogx.scalar_op is scalar_xlogx  # the function's attributes, as before
    assert xlogy0 is T.xlogy0


@pytest.mark.parametrize("mode", MODES)
def test_values_against_scipy(mode: str | None) -> None:
    x, y = T.dvector("x"), T.dvector("y")
    xv = np.array([0.0, 1e-300, 0.3, 1.0, 2.5, 1e300])
    yv = np.array([0.0, 1e-10, 0.7, 3.0, 0.5, 2.0])
    f = theon.function([x, y], [T.xlogx.xlogx(x), T.xlogx.xlogy0(x, y), T.xlogx(x)],
                       mode=mode)
    a, b, c = f(xv, yv)
    np.testing.assert_allclose(a, sps.xlogy(xv, xv), rtol=1e-14)
    np.testing.assert_allclose(b, sps.xlogy(xv, yv), rtol=1e-14)
    np.testing.assert_array_equal(c, a)
    assert a[0] == 0.0 and b[0] == 0.0  # 0 log 0 is 0


def test_gradients() -> None:
    rng = np.random.default_rng(0)
    xv = rng.uniform(0.2, 3.0, size=(3, 2))
    yv = rng.uniform(0.2, 3.0, size=(3, 2))
    theon.verify_grad(T.xlogx.xlogx, [xv], rng=rng)
    theon.verify_grad(T.xlogx.xlogy0, [xv, yv], rng=rng)
    x = T.dvector("x")
    g = theon.grad(T.xlogx.xlogx(x).sum(), x).eval({x: [0.5, 1.0, 2.0]})
    np.testing.assert_allclose(g, np.log([0.5, 1.0, 2.0]) + 1, rtol=1e-14)
