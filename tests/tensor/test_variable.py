"""TensorVariable: operators against NumPy, attributes, methods, Python protocol errors."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.core_checks import run

rng = np.random.default_rng(42)

BINARY = [
    (operator.add, "add"), (operator.sub, "sub"), (operator.mul, "mul"),
    (operator.truediv, "truediv"), (operator.floordiv, "floordiv"), (operator.mod, "mod"),
    (operator.pow, "pow"), (operator.lt, "lt"), (operator.le, "le"), (operator.gt, "gt"),
    (operator.ge, "ge"),
]
BITWISE = [(operator.and_, "and"), (operator.or_, "or"), (operator.xor, "xor"),
           (operator.lshift, "lshift"), (operator.rshift, "rshift")]


def _pos(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return (rng.uniform(0.5, 3.0, size=shape)).astype(dtype)


@pytest.mark.parametrize("fn,name", BINARY)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_binary_operators_match_numpy(fn, name, dtype) -> None:
    x = tt.tensor(dtype, shape=(None, None), name="x")
    y = tt.tensor(dtype, shape=(1, None), name="y")
    xv = _pos((3, 4), dtype) if dtype.startswith("float") else rng.integers(1, 4, (3, 4)).astype(
        dtype)
    yv = _pos((1, 4), dtype) if dtype.startswith("float") else rng.integers(1, 4, (1, 4)).astype(
        dtype)
    for expr, ref in [
        (fn(x, y), fn(xv, yv)),
        (fn(y, x), fn(yv, xv)),
        (fn(x, 2), fn(xv, 2)),
        (fn(2, x), fn(2, xv)),
        (fn(x, 1.5), fn(xv, 1.5)),
        (fn(1.5, x), fn(1.5, xv)),
        (fn(x, yv), fn(xv, yv)),  # an ndarray operand
    ]:
        out = run([x, y], expr, xv, yv)
        assert expr.dtype == ref.dtype, (name, expr.dtype, ref.dtype)
        assert out.dtype == ref.dtype
        np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_ndarray_on_the_left_defers_to_variable() -> None:
    x = tt.dvector("x")
    a = np.array([1.0, 2.0])
    for expr, ref in [(a + x, a + a), (a * x, a * a), (a - x, a - a), (a < x, a < a),
                      (a @ tt.dmatrix("m"), None)]:
        assert isinstance(expr, tt.TensorVariable)
        if ref is not None:
            np.testing.assert_array_equal(run([x], expr, a), ref)


@pytest.mark.parametrize("fn,name", BITWISE)
def test_bitwise_operators(fn, name) -> None:
    x = tt.ivector("x")
    y = tt.ivector("y")
    xv = np.array([1, 6, 12], dtype="int32")
    yv = np.array([3, 1, 2], dtype="int32")
    for expr, ref in [(fn(x, y), fn(xv, yv)), (fn(x, 2), fn(xv, 2)), (fn(5, x), fn(5, xv))]:
        out = run([x, y], expr, xv, yv)
        assert out.dtype == ref.dtype
        np.testing.assert_array_equal(out, ref)


def test_bool_logic_operators() -> None:
    a, b = tt.tensor("bool", shape=(None,)), tt.tensor("bool", shape=(None,))
    av, bv = np.array([True, False, True]), np.array([True, True, False])
    for expr, ref in [(a & b, av & bv), (a | b, av | bv), (a ^ b, av ^ bv), (~a, ~av)]:
        out = run([a, b], expr, av, bv)
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, ref)


def test_unary_operators() -> None:
    x = tt.dvector("x")
    xv = np.array([-1.5, 0.0, 2.0])
    np.testing.assert_array_equal(run([x], -x, xv), -xv)
    np.testing.assert_array_equal(run([x], abs(x), xv), np.abs(xv))
    assert +x is x
    i = tt.ivector("i")
    iv = np.array([1, -2], dtype="int32")
    np.testing.assert_array_equal(run([i], ~i, iv), ~iv)


def test_matmul_operator() -> None:
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(run([a, b], a @ b, av, bv), av @ bv)
    np.testing.assert_allclose(run([a, b], av @ b, av, bv), av @ bv)


def test_divmod() -> None:
    x = tt.ivector("x")
    xv = np.array([7, -7], dtype="int32")
    q, r = divmod(x, 3)
    np.testing.assert_array_equal(run([x], [q, r], xv), list(divmod(xv, 3)))


def test_python_protocol_errors() -> None:
    x = tt.dvector("x")
    assert bool(x) and x  # Theano's rule: ``if not input:`` tests for None
    with pytest.raises(TypeError, match="truth value"):
        if x > 0:
            pass
    with pytest.raises(TypeError, match="truth value"):
        bool(0 < x < 1)  # (0 < x) and (x < 1): the comparison's truth is unknown
    with pytest.raises(TypeError, match="truth value"):
        bool(tt.bvector("b").astype("bool"))
    with pytest.raises(TypeError, match="len"):
        len(x)
    with pytest.raises(TypeError, match="iterated"):
        iter(x)
    with pytest.raises(TypeError, match="iterated"):
        list(x)
    with pytest.raises(TypeError, match="item assignment"):
        x[0] = 1.0
    with pytest.raises(TypeError, match="NumPy array"):
        np.asarray(x)


def test_numpys_atleast_functions_hold_variables_as_object_elements() -> None:
    """As in PyTensor, ``np.atleast_1d`` of variables (PyMC's step-method selection
    does it) is an object array of those variables; converting one otherwise stays an
    error naming the NumPy function."""
    a, b = tt.dvector("a"), tt.dscalar("b")
    both = np.atleast_1d([a, b])
    assert both.dtype == object and both.shape == (2,)
    assert both[0] is a and both[1] is b
    one = np.atleast_1d(a)
    assert one.shape == (1,) and one[0] is a
    with pytest.raises(TypeError, match="by numpy.linalg|by numpy.inv|NumPy array"):
        np.linalg.inv(tt.dmatrix("m"))


def test_static_length_allows_len_and_unpacking() -> None:
    x = tt.dmatrix("x")
    n, m = x.shape
    assert len(x.shape) == 2
    xv = np.zeros((2, 5))
    assert [int(v) for v in run([x], [n, m], xv)] == [2, 5]
    c = tt.TensorType("float64", (3, None))("c")
    assert len(c) == 3 and len(list(c)) == 3
    with pytest.raises(TypeError, match="len"):
        len(tt.dscalar())


def test_identity_comparison_kept() -> None:
    x, y = tt.dvector("x"), tt.dvector("y")
    assert x == x and x != y
    assert len({x, y, x}) == 2


def test_attributes() -> None:
    x = tt.TensorType("float32", shape=(None, 1, 3))("x")
    assert x.ndim == 3 and x.dtype == "float32"
    assert x.broadcastable == (False, True, False)
    assert x.type.shape == (None, 1, 3)
    assert x.T.type.shape == (3, 1, None)
    xv = np.zeros((2, 1, 3), dtype="float32")
    np.testing.assert_array_equal(run([x], x.shape, xv), [2, 1, 3])
    assert int(run([x], x.size, xv)) == 6
    z = tt.zvector("z")
    zv = np.array([1 + 2j, -3j])
    np.testing.assert_array_equal(run([z], [z.real, z.imag, z.conj()], zv),
                                  [zv.real, zv.imag, zv.conj()])


def test_reduction_methods() -> None:
    x = tt.dmatrix("x")
    xv = rng.normal(size=(3, 4))
    cases = [
        (x.sum(), xv.sum()), (x.sum(axis=0), xv.sum(axis=0)),
        (x.sum(axis=-1, keepdims=True), xv.sum(axis=-1, keepdims=True)),
        (x.prod(axis=1), xv.prod(axis=1)), (x.mean(axis=0), xv.mean(axis=0)),
        (x.var(axis=1, ddof=1), xv.var(axis=1, ddof=1)), (x.std(), xv.std()),
        (x.max(axis=0), xv.max(axis=0)), (x.min(), xv.min()),
        (x.argmax(axis=1), xv.argmax(axis=1)), (x.argmin(), xv.argmin()),
        ((x > 0).any(axis=0), (xv > 0).any(axis=0)), ((x > 0).all(), (xv > 0).all()),
    ]
    outs = run([x], [c[0] for c in cases], xv)
    for (_expr, ref), out in zip(cases, outs):
        np.testing.assert_allclose(out, ref, rtol=1e-12)
        assert out.dtype == np.asarray(ref).dtype
        assert out.shape == np.shape(ref)


def test_elementwise_methods() -> None:
    x = tt.dvector("x")
    xv = np.array([-2.5, 0.5, 1.5, 3.0])
    cases = [
        (x.clip(-1, 1), np.clip(xv, -1, 1)), (x.round(), np.round(xv)),
        (x.astype("int32"), xv.astype("int32")), (x.astype("float64"), xv),
        (x.copy(), xv), (x.dimshuffle("x", 0), xv[None, :]), (round(x), np.round(xv)),
    ]
    outs = run([x], [c[0] for c in cases], xv)
    for (_expr, ref), out in zip(cases, outs):
        assert out.dtype == ref.dtype
        np.testing.assert_array_equal(out, ref)
    assert x.astype("float64") is x
    assert x.copy(name="c").name == "c"


def test_delegated_methods() -> None:
    x = tt.dmatrix("x")
    xv = rng.normal(size=(2, 3))
    cases = [
        (x.reshape((3, 2)), xv.reshape(3, 2)), (x.reshape(3, 2), xv.reshape(3, 2)),
        (x.reshape(-1), xv.reshape(-1)), (x.flatten(), xv.flatten()), (x.ravel(), xv.ravel()),
        (x.transpose(), xv.T), (x.transpose(1, 0), xv.T), (x.transpose((1, 0)), xv.T),
        (x.swapaxes(0, 1), xv.T), (x[0], xv[0]), (x[:, 1:], xv[:, 1:]),
        (x.dot(np.ones(3)), xv @ np.ones(3)),
        (x.dimshuffle("x", 1, 0), xv.T[None]),
        (x.reshape((1, 2, 3)).squeeze(), xv),
    ]
    outs = run([x], [c[0] for c in cases], xv)
    for (_expr, ref), out in zip(cases, outs):
        np.testing.assert_allclose(out, ref)


@pytest.mark.parametrize("method", ["cumsum", "cumprod", "sort", "argsort", "take", "repeat",
                                    "nonzero"])
def test_delegated_methods_other_modules(method: str) -> None:
    import importlib

    mod = {"cumsum": "extra_ops", "cumprod": "extra_ops", "repeat": "extra_ops",
           "nonzero": "extra_ops", "sort": "sort", "argsort": "sort", "take": "subtensor"}[method]
    try:
        importlib.import_module(f"theon.tensor.{mod}")
    except ModuleNotFoundError:
        pytest.skip(f"theon.tensor.{mod} is not written yet")
    x = tt.dvector("x")
    xv = np.array([3.0, 0.0, 2.0])
    args = {"take": (np.array([2, 0]),), "repeat": (2,)}.get(method, ())
    expr = getattr(x, method)(*args)
    ref = getattr(np, method)(xv, *args)
    out = run([x], list(expr) if isinstance(expr, (list, tuple)) else expr, xv)
    if isinstance(ref, tuple):
        for o, r in zip(out, ref):
            np.testing.assert_array_equal(o, r)
    else:
        np.testing.assert_array_equal(out, ref)


def test_numpy_ufunc_dispatch() -> None:
    x = tt.fvector("x")
    y = np.exp(x)
    assert isinstance(y, tt.TensorVariable) and y.owner.op == tt.exp
    z = np.add(x, 1.0)
    assert z.dtype == "float32"
    with pytest.raises(TypeError):
        np.add.reduce(x)


def test_constant_operators() -> None:
    c = tt.constant([1.0, 2.0])
    x = tt.dvector("x")
    np.testing.assert_array_equal(run([x], c * x + c.sum(), np.ones(2)), [4.0, 5.0])


def test_constant_is_a_tensor_variable_and_a_constant() -> None:
    """PyTensor's class tree: TensorConstant is both; a constant keeps no owner and the
    attributes of a variable, and code written for TensorVariable takes it."""
    from theon.graph.basic import Constant

    c = tt.constant(np.array([1.0, -2.0]), name="c")
    assert isinstance(c, tt.TensorVariable) and isinstance(c, Constant)
    assert c.owner is None and c.ndim == 1 and c.type.shape == (2,)
    np.testing.assert_array_equal((c * 3).eval(), np.array([3.0, -6.0]))
    assert isinstance(tt.as_tensor_variable(2.5), tt.TensorVariable)
    clone = c.clone()
    assert isinstance(clone, tt.TensorConstant) and clone.data is c.data


def test_free_attributes_on_variables_and_constants() -> None:
    """PyMC sets attributes PyTensor does not declare (``rv.str_repr``, ``rv.tag``-like
    notes) on variables; they stay on the object that got them."""
    x = tt.dvector("x")
    c = tt.constant(1.0)
    x.str_repr = lambda: "x ~ N(0, 1)"
    c.note = "mine"
    assert x.str_repr() == "x ~ N(0, 1)" and c.note == "mine"
    assert not hasattr(tt.dvector("y"), "str_repr")


def test_an_object_with_its_own_reflected_operator_decides():
    """PyMC's covariance functions: ``x * cov`` and ``x + cov`` call the object's
    ``__rmul__``/``__radd__`` (PyTensor returns NotImplemented for an operand it cannot
    convert); arrays, numbers and lists still convert, and an object without a reflected
    operator keeps theon's error naming it."""
    class Cov:
        def __rmul__(self, other):
            return ("rmul", other)

        def __radd__(self, other):
            return ("radd", other)

    x = tt.dvector("x")
    assert (x * Cov())[0] == "rmul" and (x * Cov())[1] is x
    assert (x + Cov())[0] == "radd"
    assert isinstance(x * np.ones(2), tt.TensorVariable)
    assert isinstance(x * [1.0, 2.0], tt.TensorVariable)
    with pytest.raises(TypeError, match="is not a tensor, a number or an array"):
        x * object()
    with pytest.raises(TypeError, match="is not a tensor, a number or an array"):
        x - Cov()  # (no __rsub__: theon's own error)


def test_mT_swaps_the_last_two_axes_as_numpy():
    x = tt.dtensor3("x")
    v = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(x.mT.eval({x: v}), v.mT)
    m = tt.constant(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(m.mT.eval(), np.arange(6.0).reshape(2, 3).mT)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        _ = tt.dvector("v").mT
