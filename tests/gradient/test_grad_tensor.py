"""theon.grad on tensor graphs, checked against NumPy and finite differences.

Graphs are compiled in the REFERENCE mode (reference VM, no rewrites) so these tests
isolate the gradient graphs themselves; test_verify_grad exercises the default mode.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import theon
import theon.tensor as tt
from theon.gradient import (
    DisconnectedInputError,
    GradNotImplementedError,
    NullTypeGradError,
    disconnected_grad,
    grad,
    undefined_grad,
    zero_grad,
)
from theon.graph.basic import Apply
from theon.graph.null_type import grad_undefined
from theon.graph.op import Op

MODE = "REFERENCE"


def ev(outputs, inputs, *values):
    return theon.function(list(inputs), outputs, mode=MODE, on_unused_input="ignore")(*values)


def num_grad(f, x, eps=1e-6):
    """Central finite differences of scalar ``f`` at array ``x``."""
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[k] = eps
        g[k] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@settings(max_examples=25, deadline=None)
@given(st.floats(-4, 4))
def test_seed_example_scalar(xv):
    x = tt.dscalar("x")
    y = tt.exp(tt.sin(x) ** 2)
    g = theon.grad(y, x)
    expected = 2 * np.sin(xv) * np.cos(xv) * np.exp(np.sin(xv) ** 2)
    np.testing.assert_allclose(ev(g, [x], xv), expected, rtol=1e-12, atol=1e-14)


@settings(max_examples=15, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-3, 3)))
def test_seed_example_vector(xv):
    x = tt.dvector("x")
    g = theon.grad(tt.exp(tt.sin(x) ** 2).sum(), x)
    expected = 2 * np.sin(xv) * np.cos(xv) * np.exp(np.sin(xv) ** 2)
    np.testing.assert_allclose(ev(g, [x], xv), expected, rtol=1e-12, atol=1e-14)


def test_cost_must_be_scalar():
    m = tt.dmatrix("m")
    with pytest.raises(TypeError, match=r"scalar.*ndim 2.*\(None, None\)"):
        grad(m * 2, m)
    # ...unless known_grads seeds the walk
    g = grad(None, m, known_grads={m * 2: tt.ones_like(m)})
    np.testing.assert_allclose(ev(g, [m], np.ones((2, 3))), 2 * np.ones((2, 3)))


def test_broadcast_gradient_is_unbroadcast():
    x = tt.TensorType("float64", shape=(1, None))("x")
    m = tt.dmatrix("m")
    g = grad((x * m).sum(), x)
    assert g.type.ndim == 2
    mv = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(ev(g, [x, m], np.ones((1, 2)), mv), mv.sum(0, keepdims=True))


def test_accumulation_over_many_clients():
    x = tt.dvector("x")
    s = tt.sin(x)
    c = (s * s).sum() + s.sum() + tt.exp(s).sum()
    xv = np.array([0.1, 0.7, -1.2])
    sv = np.sin(xv)
    expected = (2 * sv + 1 + np.exp(sv)) * np.cos(xv)
    np.testing.assert_allclose(ev(grad(c, x), [x], xv), expected)


def test_float32_gradients_keep_dtype():
    x = tt.fvector("x")
    g = grad((x * 2.5).sum(), x)
    assert g.type.dtype == "float32"


def test_integer_inputs_disconnected():
    x = tt.dvector("x")
    k = tt.lvector("k")
    c = (x * k).sum()
    np.testing.assert_allclose(ev(grad(c, x), [x, k], np.ones(3), np.arange(3)), np.arange(3.0))
    # an integer input the cost depends on: float zeros, as Theano and PyTensor give
    gk = grad(c, k)
    assert gk.dtype == theon.config.floatX
    np.testing.assert_array_equal(ev(gk, [x, k], np.ones(3), np.arange(3)), np.zeros(3))
    # one the cost does not depend on is disconnected, as any input
    with pytest.raises(DisconnectedInputError, match="integer"):
        grad(x.sum(), k)
    # a gradient never flows through integer intermediates
    i = tt.cast(x * 10, "int64")
    with pytest.raises(DisconnectedInputError):
        grad(tt.cast(i, "float64").sum(), x)


def test_known_grads_and_consider_constant():
    x = tt.dvector("x")
    y = tt.exp(x)
    gy = tt.dvector("gy")
    g = grad(None, x, known_grads={y: gy})
    xv, gv = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    np.testing.assert_allclose(ev(g, [x, gy], xv, gv), gv * np.exp(xv))
    c = (x * y).sum()
    np.testing.assert_allclose(ev(grad(c, x, consider_constant=[y]), [x], xv), np.exp(xv))
    np.testing.assert_allclose(ev(grad(c, x), [x], xv), np.exp(xv) * (1 + xv))


def test_disconnected_grad_and_zero_grad():
    x = tt.dvector("x")
    xv = np.array([1.0, 2.0])
    c = (x * disconnected_grad(x)).sum()
    np.testing.assert_allclose(ev(grad(c, x), [x], xv), xv)
    with pytest.raises(DisconnectedInputError):
        grad(disconnected_grad(x).sum(), x)
    c2 = (zero_grad(x) ** 2).sum()
    np.testing.assert_allclose(ev(grad(c2, x), [x], xv), [0.0, 0.0])
    # forward values are untouched
    np.testing.assert_allclose(ev(disconnected_grad(x) + zero_grad(x), [x], xv), 2 * xv)
    with pytest.raises(NullTypeGradError, match="undefined_grad"):
        grad(undefined_grad(x).sum(), x)


def test_disconnected_modes_with_tensors():
    x, y = tt.dvector("x"), tt.dvector("y")
    c = (y**2).sum()
    with pytest.raises(DisconnectedInputError, match="'x'"):
        grad(c, [x, y])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        gx, gy = grad(c, [x, y], disconnected_inputs="warn")
    assert any("disconnected" in str(m.message) for m in w)
    np.testing.assert_allclose(ev(gx, [x], np.ones(3)), np.zeros(3))
    gx = grad(c, x, disconnected_inputs="ignore", return_disconnected="None")
    assert gx is None


def test_op_without_grad_names_op_and_location():
    class Opaque(Op):
        __props__ = ()

        def make_node(self, x):
            x = tt.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0].copy()

    x = tt.dvector("x")
    y = Opaque()(x)
    with pytest.raises(GradNotImplementedError, match=r"Opaque.*test_grad_tensor\.py"):
        grad(y.sum(), x)


def test_null_gradient_only_when_needed():
    class HalfUndefined(Op):
        """f(x, y) = x * y with an undefined gradient for y."""

        __props__ = ()

        def make_node(self, x, y):
            x, y = tt.as_tensor_variable(x), tt.as_tensor_variable(y)
            return Apply(self, [x, y], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] * inputs[1]

        def grad(self, inputs, output_grads):
            return [output_grads[0] * inputs[1], grad_undefined(self, 1, inputs[1])]

    x, y = tt.dvector("x"), tt.dvector("y")
    c = HalfUndefined()(x, y).sum()
    np.testing.assert_allclose(ev(grad(c, x), [x, y], np.ones(2), np.array([3.0, 4.0])),
                               [3.0, 4.0])
    with pytest.raises(NullTypeGradError, match="HalfUndefined"):
        grad(c, y)


def test_second_and_third_derivatives():
    x = tt.dscalar("x")
    f = tt.sin(x) * x**2
    d1 = grad(f, x)
    d2 = grad(d1, x)
    d3 = grad(d2, x)
    xv = 0.8
    s, c = np.sin(xv), np.cos(xv)
    np.testing.assert_allclose(
        ev([d1, d2, d3], [x], xv),
        [c * xv**2 + 2 * xv * s, -s * xv**2 + 4 * xv * c + 2 * s,
         -c * xv**2 - 6 * xv * s + 6 * c],
        rtol=1e-12,
    )


def test_grad_of_vector_norm_matches_numpy_and_fd():
    x = tt.dvector("x")
    w = tt.dvector("w")
    c = tt.log(tt.sum(tt.exp(x * w))) + tt.sqrt((x**2).sum())
    xv, wv = np.array([0.3, -0.7, 1.1]), np.array([1.0, 2.0, -0.5])

    def f(v):
        return np.log(np.exp(v * wv).sum()) + np.sqrt((v**2).sum())

    np.testing.assert_allclose(ev(grad(c, x), [x, w], xv, wv), num_grad(f, xv), rtol=1e-7)


def test_grad_through_indexing_and_join():
    x = tt.dvector("x")
    y = tt.concatenate([x[1:] * 2.0, x[:1] ** 2])
    c = (y * tt.arange(3.0)).sum()
    xv = np.array([3.0, 5.0, 7.0])

    def f(v):
        return (np.concatenate([v[1:] * 2.0, v[:1] ** 2]) * np.arange(3.0)).sum()

    np.testing.assert_allclose(ev(grad(c, x), [x], xv), num_grad(f, xv), rtol=1e-7)


def test_a_constant_zero_factor_cuts_its_gradient_even_under_an_infinite_one() -> None:
    """``log1mexp(lam * 0)`` is ``-inf`` for every ``lam``: the cost below is 0 for every
    ``lam``, so its derivative is 0 (what finite differences and PyTensor give), not the
    chain rule's ``inf * 0 = nan``. PyMC's ``find_constrained_prior`` differentiates
    the CDF at a support bound this way."""
    from theon.gradient import verify_grad

    lam = tt.dscalar("lam")
    cost = tt.exp(tt.log1mexp(lam * 0.0) * 2.0)
    g = theon.function([lam], theon.grad(cost, lam))
    assert float(g(1.5)) == 0.0
    verify_grad(lambda a: tt.exp(tt.log1mexp(a * 0.0) * 2.0), [np.array(1.5)],
                rng=np.random.default_rng(7))
    # the other factor's gradient is the constant's broadcast: d(0 * x * y)/dx = 0 * y
    x, y = tt.dvector("x"), tt.dmatrix("y")
    gx, gy = theon.grad((tt.constant(np.zeros(3)) * x * y).sum(), [x, y])
    fx = theon.function([x, y], [gx, gy])
    outx, outy = fx(np.ones(3), np.ones((2, 3)))
    np.testing.assert_array_equal(outx, np.zeros(3))
    np.testing.assert_array_equal(outy, np.zeros((2, 3)))
    # a nonzero constant still scales: d(2 * x)/dx = 2
    h = theon.function([x], theon.grad((2.0 * x).sum(), x))
    np.testing.assert_array_equal(h(np.ones(3)), [2.0, 2.0, 2.0])
