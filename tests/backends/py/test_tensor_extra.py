"""The py linker's emitters of theon.backends.py.tensor_extra against the reference VM
(which runs each Op's ``perform``) and against NumPy, node by node: fill of one value,
All/Any, Split by constant sizes, the ``...1`` advanced indexing Ops, CumOp and the
softmaxes.  Each case also checks that the generated code has no ``perform`` call left,
so a case fails if its emitter is not used."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from tests.link.pyfunc_helpers import assert_same, call, runners
from theon.tensor.advanced_subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1
from theon.tensor.elemwise import Elemwise
from theon.tensor.extra_ops import CumOp
from theon.tensor.joining import Split
from theon.tensor.math import Second
from theon.tensor.reduction import All, Any
from theon.tensor.special import LogSoftmax, Softmax

RNG = np.random.default_rng(20261129)


def _check(ins, outs, args_list, want=None):
    """py == VM on every argument tuple (values or the same exception); py has no perform."""
    py, vm = runners(ins, outs)
    assert "_perform" not in py.source, py.source
    for args in args_list:
        # (each linker gets its own copies: inplace nodes write into their inputs)
        got = call(py, [np.array(a, copy=True) for a in args])
        ref = call(vm, [np.array(a, copy=True) for a in args])
        assert_same(got, ref, where=str(outs))
        if want is not None and not isinstance(ref, Exception):
            for g, w in zip(got, want(*args)):
                np.testing.assert_array_equal(g, w)
    return py


@pytest.mark.parametrize("inplace", [False, True])
def test_fill_of_one_value_matches_perform_and_numpy(inplace):
    x = tt.dmatrix("x")
    y = tt.TensorType("float64", shape=(1, 1))("y")
    op = Elemwise(Second(), {0: 0} if inplace else None)
    args = [(RNG.normal(size=(3, 4)), [[-1.0]]), (np.zeros((0, 2)), [[2.5]]),
            (RNG.normal(size=(1, 5)), [[np.nan]])]
    _check([x, y], [op(x, y)], args, want=lambda a, b: [np.full(np.shape(a), b[0][0])])


def test_fill_inplace_writes_into_its_input_as_perform_does():
    x = tt.dvector("x")
    y = tt.TensorType("float64", shape=(1,))("y")
    py, _ = runners([x, y], [Elemwise(Second(), {0: 0})(x, y)])
    a = np.zeros(3)
    (out,) = py(a, np.array([7.0]))
    assert out is a and np.array_equal(a, [7.0, 7.0, 7.0])


@pytest.mark.parametrize("cls, ref", [(All, np.all), (Any, np.any)])
@pytest.mark.parametrize("dtype", ["bool", "float64", "int8"])
@pytest.mark.parametrize("axis", [None, (0,), (1,), (0, 1)])
def test_all_any_match_numpy(cls, ref, dtype, axis):
    x = tt.TensorType(dtype, shape=(None, None))("x")
    vals = [(RNG.integers(0, 2, size=(3, 4)).astype(dtype),), (np.zeros((2, 0), dtype),),
            (np.ones((2, 3), dtype),)]
    if dtype == "float64":
        vals.append((np.array([[np.nan, 0.0], [0.0, 0.0]]),))
    _check([x], [cls(axis)(x)], vals, want=lambda a: [ref(a, axis=axis)])


@pytest.mark.parametrize("axis, sizes", [(0, [1, 2]), (1, [0, 3, 1]), (1, [4])])
def test_split_by_constant_sizes_matches_numpy(axis, sizes):
    x = tt.dmatrix("x")
    outs = Split(len(sizes))(x, axis, np.array(sizes, dtype="int64"), return_list=True)
    a = RNG.normal(size=(3, 4))
    cuts = np.cumsum(sizes)[:-1]
    _check([x], outs, [(a,)], want=lambda v: np.split(v, cuts, axis=axis))


def test_split_sizes_that_do_not_add_up_raise_perform_error():
    x = tt.dvector("x")
    outs = Split(2)(x, 0, np.array([1, 1], dtype="int64"), return_list=True)
    py, vm = runners([x], outs)
    assert "_perform" not in py.source
    for f in (py, vm):
        with pytest.raises(ValueError, match=r"do not add up to 3"):
            f(np.zeros(3))


def test_advanced_subtensor1_matches_numpy_and_errors_alike():
    x, i = tt.dmatrix("x"), tt.lvector("i")
    a = RNG.normal(size=(4, 2))
    _check([x, i], [AdvancedSubtensor1()(x, i)],
           [(a, np.array([3, 0, 0, -1])), (a, np.array([], dtype="int64")),
            (a, np.array([4]))],  # (out of range: the same IndexError from both)
           want=lambda v, j: [v[j]])


@pytest.mark.parametrize("set_", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("ydims", [0, 1, 2])
def test_advanced_inc_subtensor1_matches_numpy(set_, inplace, ydims):
    x, i = tt.dmatrix("x"), tt.lvector("i")
    y = tt.TensorType("float64", shape=(None,) * ydims)("y")
    node_out = AdvancedIncSubtensor1(inplace, set_)(x, y, i)
    a = RNG.normal(size=(4, 3))
    j = np.array([2, 2, 0])  # a repeated index accumulates (inc), last write wins (set)
    b = RNG.normal(size=(3, 3)[-ydims:] if ydims else ())

    def want(v, w, k):
        r = v.copy()
        if set_:
            r[k] = w
        else:
            np.add.at(r, k, w)
        return [r]

    _check([x, y, i], [node_out], [(a, b, j)], want=want)


@pytest.mark.parametrize("mode, ref", [("add", np.cumsum), ("mul", np.cumprod)])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumop_matches_numpy(mode, ref, axis):
    x = tt.dmatrix("x")
    a = RNG.normal(size=(3, 4))
    _check([x], [CumOp(axis, mode)(x)], [(a,), (np.zeros((0, 4)),)],
           want=lambda v: [ref(v, axis=axis)])


@pytest.mark.parametrize("cls", [Softmax, LogSoftmax])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_softmaxes_match_perform_and_numpy(cls, axis):
    x = tt.dmatrix("x")
    a = RNG.normal(size=(3, 4))

    def want(v):
        e = np.exp(v - v.max(axis=axis, keepdims=True))
        s = e / e.sum(axis=axis, keepdims=True)
        return [s if cls is Softmax else np.log(s)]

    py = _check([x], [cls(axis)(x)], [(a,)])
    np.testing.assert_allclose(py(a)[0], want(a)[0], rtol=1e-14)
    # edge values: an infinite entry, nan, an empty array (py == perform exactly)
    edge = np.array([[1.0, np.inf, 0.0], [np.nan, 1.0, 2.0]])
    _check([x], [cls(axis)(x)], [(edge,), (np.zeros((0, 3)),)])


def test_pymc_style_graph_compiles_without_perform_calls():
    """A normal log-density with a fill, a bound check (All) and a split, compiled by
    ``theon.function``'s pipeline (inplace variants included), equals NumPy's."""
    x = tt.dvector("x")
    mu, sigma = tt.dscalar("mu"), tt.dscalar("sigma")
    lp = (-0.5 * ((x - mu) / sigma) ** 2 - tt.log(sigma)).sum()
    ok = tt.all(tt.ge(x, -10.0))
    a, b = tt.split(x, [2, 3], 2)
    g = theon.grad(lp, [x, mu])
    f = theon.function([x, mu, sigma], [lp, ok, a.sum() * b.sum(), *g])
    assert "_perform" not in f._runner.source
    v = RNG.normal(size=5)
    got = f(v, 0.3, 1.7)
    z = (v - 0.3) / 1.7
    np.testing.assert_allclose(got[0], np.sum(-0.5 * z**2 - np.log(1.7)), rtol=1e-13)
    assert got[1] == np.all(v >= -10.0)
    np.testing.assert_allclose(got[2], v[:2].sum() * v[2:].sum(), rtol=1e-13)
    np.testing.assert_allclose(got[3], -z / 1.7, rtol=1e-13)
    np.testing.assert_allclose(got[4], np.sum(z / 1.7), rtol=1e-13)
