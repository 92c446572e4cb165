"""The activations of ``theon.tensor.nnet`` against NumPy/SciPy: values, gradients, stability.

Each row gives the theon function and its value and derivative written
independently with NumPy/SciPy in float64.  Each runs in float32 and float64 at
points from -1000 to 1000, through the reference VM (``Mode(linker="vm")``) and
the default linker, and its gradient is also checked with ``verify_grad`` at
moderate and large-magnitude points (away from the kinks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as T
from theon.compile.mode import Mode
from theon.gradient import verify_grad
from theon.tensor import nnet

Array = np.ndarray
ALPHA, SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _elu(x: Array, a: float) -> Array:
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, a * (np.exp(x) - 1))


def _delu(x: Array, a: float) -> Array:
    with np.errstate(over="ignore"):
        return np.where(x > 0, 1.0, a * np.exp(x))


@dataclass(frozen=True)
class Act:
    name: str
    build: Callable[[Any], Any]
    value: Callable[[Array], Array]
    grad: Callable[[Array], Array]
    kinks: tuple[float, ...] = ()


ACTS = (
    Act("sigmoid", nnet.sigmoid, sps.expit, lambda x: sps.expit(x) * sps.expit(-x)),
    Act("ultra_fast_sigmoid", nnet.ultra_fast_sigmoid, sps.expit,
        lambda x: sps.expit(x) * sps.expit(-x)),
    Act("hard_sigmoid", nnet.hard_sigmoid, lambda x: np.clip(0.2 * x + 0.5, 0.0, 1.0),
        lambda x: np.where(np.abs(x) < 2.5, 0.2, 0.0), (-2.5, 2.5)),
    Act("softplus", nnet.softplus, lambda x: np.logaddexp(0.0, x), sps.expit),
    Act("softsign", nnet.softsign, lambda x: x / (1 + np.abs(x)),
        lambda x: 1 / (1 + np.abs(x)) ** 2, (0.0,)),
    Act("relu", nnet.relu, lambda x: np.where(x > 0, x, 0.0),
        lambda x: np.where(x > 0, 1.0, 0.0), (0.0,)),
    Act("relu(alpha=0.1)", lambda x: nnet.relu(x, alpha=0.1), lambda x: np.where(x > 0, x, 0.1 * x),
        lambda x: np.where(x > 0, 1.0, 0.1), (0.0,)),
    Act("elu", nnet.elu, lambda x: _elu(x, 1.0), lambda x: _delu(x, 1.0), (0.0,)),
    Act("elu(alpha=0.5)", lambda x: nnet.elu(x, 0.5), lambda x: _elu(x, 0.5),
        lambda x: _delu(x, 0.5), (0.0,)),
    Act("selu", nnet.selu, lambda x: SCALE * _elu(x, ALPHA), lambda x: SCALE * _delu(x, ALPHA),
        (0.0,)),
)
IDS = [a.name for a in ACTS]
POINTS = np.array([-1000.0, -90.0, -30.0, -3.0, -1.0, -0.25, 0.3, 1.0, 3.0, 30.0, 90.0, 1000.0])
MODES = [Mode(linker="vm"), None]


@pytest.mark.parametrize("mode", MODES, ids=["vm", "default"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("act", ACTS, ids=IDS)
def test_value_and_gradient_match_numpy_at_extremes(act: Act, dtype: str, mode: Any) -> None:
    x = T.vector("x", dtype=dtype)
    out = act.build(x)
    g = theon.grad(T.sum(out), x)
    assert out.dtype == dtype and g.dtype == dtype
    xv = POINTS.astype(dtype)
    value, grad = theon.function([x], [out, g], mode=mode)(xv)
    assert value.dtype == dtype and grad.dtype == dtype
    assert np.isfinite(value).all() and np.isfinite(grad).all()
    x64 = xv.astype("float64")
    tol = {"rtol": 2e-6, "atol": 1e-30} if dtype == "float32" else {"rtol": 1e-13, "atol": 1e-300}
    np.testing.assert_allclose(value, act.value(x64), **tol)
    np.testing.assert_allclose(grad, act.grad(x64), **tol)


@pytest.mark.parametrize("act", ACTS, ids=IDS)
def test_verify_grad_moderate_and_large(act: Act) -> None:
    rng = np.random.default_rng(11)
    moderate = rng.normal(scale=2.0, size=(3, 4))
    large = rng.choice([-1.0, 1.0], size=(3, 4)) * rng.uniform(20.0, 1000.0, size=(3, 4))
    for pt in (moderate, large):
        for k in act.kinks:  # finite differences are wrong across a kink
            pt = np.where(np.abs(pt - k) < 0.05, pt + 0.2, pt)
        verify_grad(act.build, [pt], rng=rng)


def test_relu_with_symbolic_alpha_and_gradient_at_zero() -> None:
    x, a = T.dvector("x"), T.dscalar("a")
    out = nnet.relu(x, a)
    f = theon.function([x, a], [out, theon.grad(T.sum(out), x), theon.grad(T.sum(out), a)])
    v, gx, ga = f(np.array([-2.0, 0.0, 3.0]), 0.25)
    np.testing.assert_allclose(v, [-0.5, 0.0, 3.0])
    # Theano's formula: the gradient at 0 is (1 + alpha) / 2
    np.testing.assert_allclose(gx, [0.25, 0.625, 1.0])
    np.testing.assert_allclose(ga, -2.0)


def test_int_input_gives_float() -> None:
    i = T.ivector("i")
    for fn in (nnet.sigmoid, nnet.softplus, nnet.hard_sigmoid, nnet.softsign, nnet.elu):
        out = fn(i)
        assert out.dtype.startswith("float"), (fn, out.dtype)


def test_tutorial_spellings() -> None:
    """``T.nnet.<name>`` without importing theon.tensor.nnet, and ``from ... import``."""
    from theon.tensor.nnet import relu, sigmoid, softmax  # noqa: F401

    x = T.dmatrix("x")
    h = T.nnet.sigmoid(T.dot(x, np.ones((2, 3))))
    r = T.nnet.relu(h - 0.6)
    y = T.nnet.softmax(r)
    out = theon.function([x], y)(np.array([[0.0, 1.0]]))
    want = sps.softmax(np.maximum(sps.expit(np.ones((1, 3))) - 0.6, 0), axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-12)
    with pytest.raises(AttributeError, match="no attribute 'not_a_thing'"):
        T.nnet.not_a_thing  # noqa: B018


def test_theano_module_paths() -> None:
    """Theano's files ``nnet/nnet.py`` and ``nnet/sigm.py`` as import paths and attributes."""
    from theon.tensor.nnet.nnet import categorical_crossentropy, softmax
    from theon.tensor.nnet.sigm import hard_sigmoid, ultra_fast_sigmoid

    assert softmax is nnet.softmax and categorical_crossentropy is nnet.categorical_crossentropy
    assert hard_sigmoid is nnet.hard_sigmoid and ultra_fast_sigmoid is nnet.ultra_fast_sigmoid
    assert T.nnet.nnet.softmax is nnet.softmax and T.nnet.sigm.sigmoid is nnet.sigmoid
