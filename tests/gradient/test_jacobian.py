"""jacobian / hessian / hessian_vector_product / Lop / Rop, against NumPy and finite
differences; the vectorized jacobian is one graph whose size does not depend on n.

Compiled in the REFERENCE mode, to isolate the graphs built here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.gradient import (
    Lop,
    Rop,
    grad,
    hessian,
    hessian_vector_product,
    jacobian,
    vectorize_graph,
)
from theon.gradient.vectorize import LoopedApply, VectorizeFallbackWarning
from theon.graph.basic import Apply
from theon.graph.op import Op
from theon.graph.traversal import toposort

MODE = "REFERENCE"


def ev(outputs, inputs, *values):
    return theon.function(list(inputs), outputs, mode=MODE, on_unused_input="ignore")(*values)


def num_jac(f, x, eps=1e-6):
    """Central finite-difference Jacobian of ``f`` (array -> array) at ``x``."""
    x = np.asarray(x, dtype=float)
    y0 = np.asarray(f(x))
    out = np.zeros(y0.shape + x.shape)
    for k in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[k] = eps
        out[(...,) + k] = (np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps)
    return out


def vec_fn(x):
    """A vector function mixing elemwise ops, reductions, reversal and broadcasting."""
    return tt.exp(x) * x.sum() + tt.sin(x[::-1]) * tt.tanh(x) + x.max()


def vec_fn_np(x):
    return np.exp(x) * x.sum() + np.sin(x[::-1]) * np.tanh(x) + x.max()


def test_jacobian_matches_fd_vectorized_and_loop():
    xv = np.array([0.3, -0.5, 1.2, 0.1])
    x = tt.TensorType("float64", shape=(4,))("x")
    jv = jacobian(vec_fn(x), x)
    jl = jacobian(vec_fn(x), x, vectorize=False)
    a, b = ev([jv, jl], [x], xv)
    np.testing.assert_allclose(a, num_jac(vec_fn_np, xv), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


def _n_nodes(out):
    return len(toposort([out]))


def test_vectorized_jacobian_size_is_independent_of_n():
    sizes = {}
    for n in (3, 10, 100):
        x = tt.TensorType("float64", shape=(n,))("x")
        sizes[n] = _n_nodes(jacobian(vec_fn(x), x))
        if n <= 10:
            # the loop form grows with n
            assert _n_nodes(jacobian(vec_fn(x), x, vectorize=False)) > 3 * sizes[n] * n / 10
    assert len(set(sizes.values())) == 1, sizes
    # and it needs no static length at all
    x = tt.dvector("x")
    j = jacobian(vec_fn(x), x)
    assert not any(isinstance(n.op, LoopedApply) for n in toposort([j]))
    xv = np.linspace(-1, 1, 100)
    np.testing.assert_allclose(ev(j, [x], xv), num_jac(vec_fn_np, xv), rtol=1e-6, atol=1e-7)


def test_loop_form_needs_static_length():
    x = tt.dvector("x")
    with pytest.raises(ValueError, match="static length"):
        jacobian(tt.exp(x), x, vectorize=False)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_jacobian_matrix_expression_and_several_wrt(n, m, seed):
    rng = np.random.default_rng(seed)
    xv, wv = rng.normal(size=n), rng.normal(size=(m, n))
    x, w = tt.dvector("x"), tt.dmatrix("w")
    y = tt.tanh(w * x) + (x**2).sum()  # (m, n)
    jx, jw = jacobian(y, [x, w])

    def fx(v):
        return np.tanh(wv * v) + (v**2).sum()

    def fw(v):
        return np.tanh(v * xv) + (xv**2).sum()

    a, b = ev([jx, jw], [x, w], xv, wv)
    assert a.shape == (m, n, n) and b.shape == (m, n, m, n)
    np.testing.assert_allclose(a, num_jac(fx, xv), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(b, num_jac(fw, wv), rtol=1e-6, atol=1e-8)


def test_jacobian_scalar_expression_is_grad_and_disconnected_rows():
    x, z = tt.dvector("x"), tt.dvector("z")
    j = jacobian((x**2).sum(), x)
    np.testing.assert_allclose(ev(j, [x], np.array([1.0, 2.0])), [2.0, 4.0])
    jz = jacobian(x * 2.0, [x, z], disconnected_inputs="ignore")[1]
    out = ev(jz, [x, z], np.ones(3), np.ones(2))
    np.testing.assert_array_equal(out, np.zeros((3, 2)))


class NoRuleSquare(Op):
    """x**2 with a gradient built from another rule-less Op, to force the looped fallback."""

    __props__ = ()

    def make_node(self, x):
        x = tt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] ** 2

    def grad(self, inputs, output_grads):
        return [TimesTwoX()(output_grads[0], inputs[0])]


class TimesTwoX(Op):
    __props__ = ()

    def make_node(self, g, x):
        g, x = tt.as_tensor_variable(g), tt.as_tensor_variable(x)
        return Apply(self, [g, x], [g.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2 * inputs[1]

    def grad(self, inputs, output_grads):
        g, x = inputs
        (gz,) = output_grads
        return [gz * 2.0 * x, gz * 2.0 * g]


def test_jacobian_falls_back_to_a_looped_node_for_ops_without_a_rule():
    x = tt.dvector("x")
    with pytest.warns(VectorizeFallbackWarning, match="TimesTwoX"):
        j = jacobian(NoRuleSquare()(x) * 3.0, x)
    assert any(isinstance(n.op, LoopedApply) for n in toposort([j]))
    xv = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(ev(j, [x], xv), np.diag(6 * xv))


def test_vectorize_graph_direct():
    v, V = tt.dvector("v"), tt.dmatrix("V")
    c = tt.dvector("c")
    out = (tt.exp(v) * c).sum() + v[0]
    [bo], [flag] = vectorize_graph([out], {v: V})
    assert flag and bo.type.ndim == 1
    Vv, cv = np.arange(6.0).reshape(2, 3) / 4, np.array([1.0, -1.0, 2.0])
    expected = (np.exp(Vv) * cv).sum(1) + Vv[:, 0]
    np.testing.assert_allclose(ev(bo, [V, c], Vv, cv), expected)


# --------------------------------------------------------------------------- hessians
def rosen(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def logsumexp_sq(x):
    return tt.logsumexp(x * tt.arange(1.0, 5.0)) ** 2 + tt.prod(tt.cos(x))


def logsumexp_sq_np(x):
    m = x * np.arange(1.0, 5.0)
    return np.log(np.exp(m).sum()) ** 2 + np.prod(np.cos(x))


def softmax_xent(x):
    e = tt.exp(x - x.max())
    p = e / e.sum()
    return -tt.log(p[2]) + (x**4).mean()


def softmax_xent_np(x):
    e = np.exp(x - x.max())
    p = e / e.sum()
    return -np.log(p[2]) + (x**4).mean()


@pytest.mark.parametrize(
    "fn, fn_np",
    [(rosen, rosen), (logsumexp_sq, logsumexp_sq_np), (softmax_xent, softmax_xent_np)],
)
@pytest.mark.parametrize("vectorize", [True, False])
def test_hessians_match_finite_differences(fn, fn_np, vectorize):
    xv = np.array([0.3, -0.4, 0.9, 1.3])
    x = tt.TensorType("float64", shape=(4,))("x")
    h = hessian(fn(x), x, vectorize=vectorize)
    g = grad(fn(x), x)
    hv = ev(h, [x], xv)
    gfun = theon.function([x], g, mode=MODE)
    np.testing.assert_allclose(hv, num_jac(lambda v: gfun(v), xv), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(hv, hv.T, rtol=1e-10, atol=1e-10)
    # second-order finite differences of the function itself
    eps = 1e-4
    fd = np.zeros((4, 4))
    for i in range(4):
        for j in range(4):
            ei, ej = np.eye(4)[i] * eps, np.eye(4)[j] * eps
            fd[i, j] = (
                fn_np(xv + ei + ej) - fn_np(xv + ei - ej) - fn_np(xv - ei + ej)
                + fn_np(xv - ei - ej)
            ) / (4 * eps**2)
    np.testing.assert_allclose(hv, fd, rtol=1e-4, atol=1e-4)


def test_hessian_of_several_wrt_and_hvp():
    x, y = tt.dvector("x"), tt.dscalar("y")
    c = (tt.exp(x * y) * x).sum()
    hx, hy = hessian(c, [x, y])
    xv, yv = np.array([0.5, -0.2]), 0.7
    a, b = ev([hx, hy], [x, y], xv, yv)
    e = np.exp(xv * yv)
    np.testing.assert_allclose(a, np.diag(2 * yv * e + yv**2 * xv * e))
    np.testing.assert_allclose(b, (xv**3 * e).sum())
    p = tt.dvector("p")
    hvp = hessian_vector_product(c, x, p)
    pv = np.array([1.0, 3.0])
    np.testing.assert_allclose(ev(hvp, [x, y, p], xv, yv, pv), a @ pv)


# --------------------------------------------------------------------------- Lop / Rop
def _jvp_case():
    x = tt.dvector("x")
    y = tt.exp(x) * x.sum() + tt.sin(x[::-1]) * tt.tanh(x)
    return x, y


def test_rop_and_lop_match_numpy_jacobian_products():
    x, y = _jvp_case()
    v, u = tt.dvector("v"), tt.dvector("u")
    xv = np.array([0.2, -0.3, 0.8])
    vv, uv = np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0, 3.0])

    def f(a):
        return np.exp(a) * a.sum() + np.sin(a[::-1]) * np.tanh(a)

    jac = num_jac(f, xv)
    r_exact = Rop(y, x, v)
    r_trick = Rop(y, x, v, use_op_rop_implementation=False)
    lo = Lop(y, x, u)
    a, b, c = ev([r_exact, r_trick, lo], [x, v, u], xv, vv, uv)
    np.testing.assert_allclose(a, jac @ vv, rtol=1e-6)
    np.testing.assert_allclose(b, a, rtol=1e-12)
    np.testing.assert_allclose(c, uv @ jac, rtol=1e-6)


def test_rop_several_inputs_and_outputs():
    x, w = tt.dvector("x"), tt.dmatrix("w")
    y1 = (w * x).sum(axis=1)
    y2 = tt.exp(x).sum()
    vx, vw = tt.dvector("vx"), tt.dmatrix("vw")
    r1, r2 = Rop([y1, y2], [x, w], [vx, vw])
    xv, wv = np.array([1.0, 2.0]), np.array([[1.0, 0.5], [-1.0, 2.0], [0.0, 3.0]])
    vxv, vwv = np.array([0.1, -0.2]), np.ones((3, 2))
    a, b = ev([r1, r2], [x, w, vx, vw], xv, wv, vxv, vwv)
    np.testing.assert_allclose(a, wv @ vxv + vwv @ xv)
    np.testing.assert_allclose(b, np.exp(xv) @ vxv)


def test_rop_falls_back_for_ops_without_r_op():
    x, v = tt.dvector("x"), tt.dvector("v")
    y = NoRuleSquare()(x) * tt.sin(x)  # NoRuleSquare has no R_op
    r = Rop(y, x, v)
    xv, vv = np.array([0.5, 1.5]), np.array([2.0, -1.0])
    expected = (2 * xv * np.sin(xv) + xv**2 * np.cos(xv)) * vv
    np.testing.assert_allclose(ev(r, [x, v], xv, vv), expected)


def test_rop_of_grad_is_hessian_vector_product():
    x, v = tt.dvector("x"), tt.dvector("v")
    c = (tt.exp(x) * x**2).sum()
    r = Rop(grad(c, x), x, v)
    xv, vv = np.array([0.1, 0.4]), np.array([1.0, -2.0])
    h = np.exp(xv) * (xv**2 + 4 * xv + 2)
    np.testing.assert_allclose(ev(r, [x, v], xv, vv), h * vv)


def test_jacobian_and_hessian_through_matrix_products():
    x, w, b = tt.dvector("x"), tt.dmatrix("w"), tt.dvector("b")
    y = tt.tanh(tt.dot(w, x) + b)
    jx, jw = jacobian(y, [x, w])
    rng = np.random.default_rng(0)
    xv, wv, bv = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=4)
    yv = np.tanh(wv @ xv + bv)
    a, c = ev([jx, jw], [x, w, b], xv, wv, bv)
    np.testing.assert_allclose(a, (1 - yv**2)[:, None] * wv, rtol=1e-12)
    np.testing.assert_allclose(c, num_jac(lambda m: np.tanh(m @ xv + bv), wv), rtol=1e-6,
                               atol=1e-9)
    # logistic-regression negative log-likelihood: H = X^T diag(p(1-p)) X
    X, t = tt.dmatrix("X"), tt.dvector("t")
    p = tt.sigmoid(X @ x)
    nll = -(t * tt.log(p) + (1 - t) * tt.log(1 - p)).sum()
    h = hessian(nll, x)
    Xv, tv = rng.normal(size=(5, 3)), (rng.random(5) > 0.5).astype(float)
    pv = 1 / (1 + np.exp(-Xv @ xv))
    np.testing.assert_allclose(ev(h, [x, X, t], xv, Xv, tv), Xv.T @ np.diag(pv * (1 - pv)) @ Xv,
                               rtol=1e-10)


def test_documented_exact_r_ops_define_r_op():
    import importlib
    import pkgutil

    from theon.gradient import EXACT_R_OP

    classes = {}
    for info in pkgutil.iter_modules(tt.__path__):
        if info.ispkg:
            continue
        mod = importlib.import_module(f"theon.tensor.{info.name}")
        for k, v in vars(mod).items():
            if isinstance(v, type) and issubclass(v, Op):
                classes.setdefault(k, v)
    for name in EXACT_R_OP:
        assert name in classes, name
        assert classes[name].R_op is not Op.R_op, name
