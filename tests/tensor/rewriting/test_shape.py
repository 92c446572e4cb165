"""Shape inference: g(x).shape never computes g(x); inferred shapes equal real ones."""

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.graph.fg import FunctionGraph
from theon.tensor.rewriting.shape import ShapeFeature, shape_feature
from theon.tensor.shape import Shape_i

rng = np.random.default_rng(0)


def op_names(f):
    return {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}


GRAPHS = [
    lambda x, v: tt.exp(x).dot(x.T),
    lambda x, v: (tt.sin(x) + v).sum(axis=0),
    lambda x, v: tt.reshape(tt.tanh(x), (-1,)),
    lambda x, v: tt.concatenate([x, tt.exp(x)], axis=1),
    lambda x, v: tt.special.softmax(x * 2)[1:, ::2],
    lambda x, v: tt.outer(v, tt.log1p(v ** 2)),
    lambda x, v: tt.cumsum(tt.exp(x), axis=0).T,
    lambda x, v: tt.stack([x, x + 1]),
    lambda x, v: tt.sort(x, axis=1),
]


@pytest.mark.parametrize("k", range(len(GRAPHS)))
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_shape_of_graph_does_not_compute_graph(k, mode):
    x, v = tt.dmatrix("x"), tt.dvector("v")
    out = GRAPHS[k](x, v)
    f = theon.function([x, v], out.shape, mode=mode, on_unused_input="ignore")
    xv, vv = rng.normal(size=(3, 4)), rng.normal(size=4)
    real = theon.function([x, v], out, mode="REFERENCE", on_unused_input="ignore")(xv, vv)
    np.testing.assert_array_equal(f(xv, vv), real.shape)
    heavy = {"Elemwise", "Dot", "Softmax", "CumOp", "Join", "Sort"} & op_names(f)
    # only shape arithmetic may remain (int Elemwise on shapes is allowed)
    for n in f.maker.fgraph.apply_nodes:
        for o in n.outputs:
            assert o.type.dtype == "int64", (n, heavy)


def test_shape_i_of_input_stays():
    x = tt.dmatrix("x")
    f = theon.function([x], x.shape)
    assert op_names(f) <= {"MakeVector", "Shape_i", "Shape"}
    assert list(f(np.zeros((2, 5)))) == [2, 5]


def test_static_shapes_fold_to_constant():
    x = tt.TensorType("float64", shape=(3, 4))("x")
    f = theon.function([x], tt.exp(x).shape)
    (node,) = f.maker.fgraph.apply_nodes  # the result's copy of the constant shape
    assert isinstance(node.inputs[0], theon.graph.basic.Constant)
    assert list(f(np.zeros((3, 4)))) == [3, 4]


def test_lazy_and_memoized():
    calls = []

    class Spy(ShapeFeature):
        def _infer_node(self, node):
            calls.append(node)
            super()._infer_node(node)

    x = tt.dvector("x")
    y = x
    for _ in range(50):
        y = tt.exp(y)
    fg = FunctionGraph([x], [y, y * 2])
    sf = Spy()
    fg.attach_feature(sf)
    assert calls == []  # nothing computed until asked
    s1 = sf.shape_of(fg.outputs[1])
    n = len(calls)
    assert n == 51
    assert sf.shape_of(fg.outputs[1]) is s1 and len(calls) == n
    (entry,) = s1
    assert isinstance(entry.owner.op, Shape_i) and entry.owner.inputs[0] is fg.inputs[0]


def test_cache_forgets_pruned_variables():
    x = tt.dvector("x")
    y = tt.exp(x)
    fg = FunctionGraph([x], [y * 2])
    sf = shape_feature(fg)
    (mid,) = fg.outputs[0].owner.inputs[:1]
    sf.shape_of(fg.outputs[0])
    fg.replace(fg.outputs[0], fg.inputs[0])
    assert mid not in sf.cache


def test_deep_chain_no_recursion():
    x = tt.dvector("x")
    y = x
    for _ in range(3000):
        y = y + 1.0
    fg = FunctionGraph([x], [y])
    (s,) = shape_feature(fg).shape_of(fg.outputs[0])
    assert s.owner.inputs[0] is fg.inputs[0]
