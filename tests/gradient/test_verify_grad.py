"""verify_grad itself, and verify_grad over the tensor Ops that exist (elemwise, reductions,
dimshuffle, indexing, joins), with hypothesis-drawn shapes including broadcasting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon.tensor as tt
from theon.gradient import GradientError, verify_grad
from theon.graph.basic import Apply
from theon.graph.op import Op

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True)


# --------------------------------------------------------------------------- verify_grad
class WrongSquareGrad(Op):
    """x**2 with a wrong gradient (3x instead of 2x)."""

    __props__ = ()

    def make_node(self, x):
        x = tt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] ** 2

    def grad(self, inputs, output_grads):
        return [output_grads[0] * inputs[0] * 3.0]


class RightSquareGrad(WrongSquareGrad):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * inputs[0] * 2.0]


def test_verify_grad_accepts_a_correct_custom_op():
    verify_grad(RightSquareGrad(), [np.array([[0.5, -1.0], [2.0, 0.25]])], rng=1)


def test_verify_grad_rejects_wrong_gradient_with_details():
    y = np.array([1.0, 2.0])
    with pytest.raises(GradientError) as info:
        verify_grad(lambda a, b: a * WrongSquareGrad()(b), [y, np.array([0.5, -1.5])], rng=0)
    err = info.value
    assert isinstance(err, AssertionError)
    assert err.arg == 1
    msg = str(err)
    assert "input 1" in msg and "max abs error" in msg and "max rel error" in msg
    assert err.abs_err > err.abs_tol and err.rel_err > err.rel_tol


def test_verify_grad_tolerances_are_honoured():
    # a 50% wrong gradient passes only with absurd tolerances
    verify_grad(WrongSquareGrad(), [np.array([0.3])], abs_tol=10.0, rel_tol=10.0)
    with pytest.raises(GradientError):
        verify_grad(WrongSquareGrad(), [np.array([0.3])], abs_tol=1e-3, rel_tol=1e-3)


def test_verify_grad_input_checks():
    with pytest.raises(TypeError, match="floating-point"):
        verify_grad(lambda a: a * 2.0, [np.array([1, 2])])
    with pytest.raises(TypeError, match="list"):
        verify_grad(lambda a: a * 2.0, np.array([1.0]))


def test_verify_grad_float32():
    verify_grad(lambda a: tt.exp(a) * a, [np.array([0.5, -1.0, 1.5], dtype="float32")], rng=3)


def test_verify_grad_scalar_and_generators():
    verify_grad(lambda a: tt.sin(a) * a, [np.array(0.7)], rng=np.random.default_rng(5))
    verify_grad(lambda a: tt.sin(a) * a, [np.array(0.7)], rng=np.random.RandomState(5),
                n_tests=1)


# --------------------------------------------------------------------------- strategies
@st.composite
def broadcast_pair(draw, max_ndim=3, max_len=3):
    """Two shapes that broadcast together (some dims of length 1 on one side)."""
    nd = draw(st.integers(0, max_ndim))
    full = draw(st.lists(st.integers(2, max_len), min_size=nd, max_size=nd))
    a = [1 if draw(st.booleans()) and draw(st.booleans()) else d for d in full]
    b = [1 if draw(st.booleans()) and draw(st.booleans()) else d for d in full]
    b = b[draw(st.integers(0, len(b))):]  # b may have fewer dims
    return tuple(a), tuple(b)


def _vals(draw, shape, lo=-2.0, hi=2.0):
    seed = draw(st.integers(0, 2**31 - 1))
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


def _away_from(v, bad, margin):
    """Move values within ``margin`` of ``bad`` out of the way (kinks and poles)."""
    close = np.abs(v - bad) < margin
    return np.where(close, bad + margin * np.where(v >= bad, 1.0, -1.0) * 2, v)


UNARY = {
    "neg": (tt.neg, (-2, 2)),
    "exp": (tt.exp, (-2, 2)),
    "expm1": (tt.expm1, (-2, 2)),
    "log": (tt.log, (0.2, 3)),
    "log1p": (tt.log1p, (-0.5, 2)),
    "log2": (tt.log2, (0.2, 3)),
    "log10": (tt.log10, (0.2, 3)),
    "sqrt": (tt.sqrt, (0.2, 3)),
    "sqr": (tt.sqr, (-2, 2)),
    "sin": (tt.sin, (-3, 3)),
    "cos": (tt.cos, (-3, 3)),
    "tan": (tt.tan, (-1.2, 1.2)),
    "arcsin": (tt.arcsin, (-0.8, 0.8)),
    "arccos": (tt.arccos, (-0.8, 0.8)),
    "arctan": (tt.arctan, (-3, 3)),
    "sinh": (tt.sinh, (-2, 2)),
    "cosh": (tt.cosh, (-2, 2)),
    "tanh": (tt.tanh, (-2, 2)),
    "arcsinh": (tt.arcsinh, (-2, 2)),
    "arccosh": (tt.arccosh, (1.2, 3)),
    "arctanh": (tt.arctanh, (-0.8, 0.8)),
    "sigmoid": (tt.sigmoid, (-4, 4)),
    "softplus": (tt.softplus, (-4, 4)),
    "abs": (tt.abs, (-2, 2)),
    "reciprocal": (tt.reciprocal, (0.3, 3)),
    "erf": (tt.erf, (-2, 2)),
    "erfc": (tt.erfc, (-2, 2)),
    "gammaln": (tt.gammaln, (0.5, 4)),
    "exp2": (tt.exp2, (-2, 2)),
    "log1mexp": (tt.log1mexp, (-3, -0.2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data())
def test_unary_elemwise(name, data):
    fn, (lo, hi) = UNARY[name]
    shape = data.draw(st.lists(st.integers(1, 3), max_size=2).map(tuple))
    x = _vals(data.draw, shape, lo, hi)
    if name == "abs":
        x = _away_from(x, 0.0, 0.05)
    verify_grad(fn, [x], rng=0)


BINARY = {
    "add": (tt.add, (-2, 2), (-2, 2)),
    "sub": (tt.sub, (-2, 2), (-2, 2)),
    "mul": (tt.mul, (-2, 2), (-2, 2)),
    "true_div": (tt.true_div, (-2, 2), (0.5, 2)),
    "pow": (tt.pow, (0.5, 2), (-2, 2)),
    "maximum": (tt.maximum, (-2, 2), (-2, 2)),
    "minimum": (tt.minimum, (-2, 2), (-2, 2)),
    "arctan2": (tt.arctan2, (-2, 2), (0.5, 2)),
    "second": (tt.second, (-2, 2), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(shapes=broadcast_pair(), data=st.data())
def test_binary_elemwise_with_broadcasting(name, shapes, data):
    fn, ra, rb = BINARY[name]
    a = _vals(data.draw, shapes[0], *ra)
    b = _vals(data.draw, shapes[1], *rb)
    if name in ("maximum", "minimum"):
        # keep away from ties, where the derivative is not defined
        b = np.where(np.abs(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape))[
            (0,) * (a.ndim - b.ndim)] - b) < 0.05, b + 0.2, b) if a.ndim >= b.ndim else b
    verify_grad(fn, [a, b], rng=0)


def test_switch_and_clip():
    c = np.array([True, False, True])
    verify_grad(lambda a, b: tt.switch(c, a, b), [np.array([1.0, 2.0, 3.0]),
                                                 np.array([[4.0, 5.0, 6.0]])])
    verify_grad(lambda a: tt.clip(a, -1.0, 1.0), [np.array([-1.5, -0.5, 0.2, 0.9, 1.7])])


REDUCTIONS = {
    "sum": lambda x, ax: tt.sum(x, axis=ax),
    "prod": lambda x, ax: tt.prod(x, axis=ax),
    "mean": lambda x, ax: tt.mean(x, axis=ax),
    "max": lambda x, ax: tt.max(x, axis=ax),
    "min": lambda x, ax: tt.min(x, axis=ax),
    "var": lambda x, ax: tt.var(x, axis=ax),
    "std": lambda x, ax: tt.std(x, axis=ax),
    "logsumexp": lambda x, ax: tt.logsumexp(x, axis=ax),
    "sum_keepdims": lambda x, ax: tt.sum(x, axis=ax, keepdims=True),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data())
def test_reductions(name, data):
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    nd = len(shape)
    axis = data.draw(
        st.one_of(
            st.none(),
            st.integers(-nd, nd - 1),
            st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True).map(tuple),
        )
    )
    x = _vals(data.draw, shape, 0.3, 2.0)
    if name in ("prod",) and data.draw(st.booleans()):
        x.reshape(-1)[0] = 0.0  # the gradient of prod handles zeros exactly
    if name in ("std",) and x.size == 1:
        return  # std of one element is not differentiable (sqrt at 0)
    verify_grad(lambda a: REDUCTIONS[name](a, axis), [x], rng=0)


def test_max_gradient_flows_to_the_argmax():
    verify_grad(lambda a: tt.max(a, axis=1), [np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 0.0]])])


@SETTINGS
@given(data=st.data())
def test_dimshuffle_transpose_and_broadcast(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    x = _vals(data.draw, shape)
    verify_grad(lambda a: a.transpose(perm) * 2.0, [x], rng=0)
    order = ("x", *perm)
    verify_grad(lambda a: a.dimshuffle(*order) * tt.exp(a.dimshuffle(*order)), [x], rng=0)


def test_dimshuffle_broadcast_multiply():
    verify_grad(
        lambda v, m: v.dimshuffle(0, "x") * m,
        [np.array([1.0, 2.0, 3.0]), np.array([[1.0, -1.0], [0.5, 2.0], [3.0, 0.2]])],
    )


def test_indexing_and_writes():
    x = np.arange(12.0).reshape(3, 4) / 7.0
    verify_grad(lambda a: a[1:, ::2] * 3.0, [x])
    verify_grad(lambda a: a[np.array([0, 2, 0])], [x])  # repeated rows accumulate
    verify_grad(lambda a: a[[0, 1], [2, 3]], [x])
    verify_grad(lambda a, b: tt.set_subtensor(a[1], b), [x, np.array([1.0, 2.0, 3.0, 4.0])])
    verify_grad(lambda a, b: tt.inc_subtensor(a[:, 1:3], b), [x, np.array([[1.0, 2.0]])])


def test_reshape_join_stack():
    x = np.arange(6.0) / 5.0
    verify_grad(lambda a: tt.reshape(a, (2, 3)) ** 2, [x])
    verify_grad(lambda a: tt.flatten(tt.reshape(a, (3, 2)).T) * a, [x])
    verify_grad(lambda a, b: tt.concatenate([a, b * 2.0]), [x, x[:2]])
    verify_grad(lambda a, b: tt.stack([a, b], axis=1), [x, x + 1.0])


def test_products_softmax_cumulative_sort():
    rng = np.random.default_rng(0)
    m, v = rng.normal(size=(3, 2)), rng.normal(size=2)
    verify_grad(lambda a, b: tt.dot(a, b), [m, v])
    verify_grad(lambda a, b: tt.matmul(a, b), [rng.normal(size=(2, 3, 2)), m.T])
    verify_grad(lambda a, b: tt.einsum("ij,j->i", a, b), [m, v])
    verify_grad(lambda a: tt.special.softmax(a, axis=1), [m])
    verify_grad(lambda a: tt.special.log_softmax(a, axis=0), [m])
    verify_grad(lambda a: tt.cumsum(a, axis=0) * tt.cumprod(a, axis=1), [m])
    verify_grad(lambda a: tt.sort(a) * tt.arange(1.0, 4.0), [np.array([0.3, -1.2, 0.8])])


def test_the_cost_keeps_one_implementation_through_the_finite_differences():
    """The cost is called thousands of times and its values at nearby points compared: it
    gets no whole-graph tier 1 (which would be swapped in part way), whatever the flags."""
    import theon
    from theon.gradient.verify import _compile_cost_and_grads
    from theon.link.tier1.nbgraph import GraphRunner

    pytest.importorskip("numba", reason="the whole-graph tier needs numba (theon[numba])")
    with theon.config.change_flags(tier1_graph_calls=1, tier=1):
        cost_fn, _, _, _, _ = _compile_cost_and_grads(
            lambda x: (x * x).sum(), [np.ones(3)], None, False, False)
    assert not isinstance(cost_fn._runner, GraphRunner)
