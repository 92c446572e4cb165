"""Tensor rewrites registered PyTensor's way (``pytensor.tensor.rewriting.basic``'s
``register_canonicalize``) run in ``theon.function``; PyTensor's named tensor rewrites
and rewriters (``local_exp_over_1_plus_exp``, ``topo_unconditional_constant_folding``,
``ShapeOptimizer``) under their PyTensor module paths."""

import numpy as np
import scipy.special

import theon
import theon.tensor as pt
from theon.graph.basic import Apply, Constant
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.rewriting.basic import node_rewriter, out2in
from theon.rewriting import rewrite_db
from theon.tensor.rewriting.basic import (
    register_canonicalize,
    register_specialize,
    topo_unconditional_constant_folding,
)
from theon.tensor.rewriting.math import local_exp_over_1_plus_exp
from theon.tensor.rewriting.shape import ShapeFeature, ShapeOptimizer


class Twice(Op):
    """2 * x, computed by NumPy."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = 2 * inputs[0]


twice = Twice()


def test_register_canonicalize_runs_in_function():
    @register_canonicalize
    @node_rewriter([Twice])
    def local_twice_to_add(fgraph, node):
        """twice(x) -> x + x"""
        (x,) = node.inputs
        return [x + x]

    try:
        x = pt.dvector("x")
        f = theon.function([x], twice(x))
        assert not any(isinstance(n.op, Twice) for n in f.maker.fgraph.apply_nodes)
        v = np.array([1.0, -2.5, 3.0])
        np.testing.assert_allclose(f(v), 2 * v)
    finally:
        rewrite_db.unregister("local_twice_to_add")
    f = theon.function([x], twice(x))  # unregistered: the node stays
    assert any(isinstance(n.op, Twice) for n in f.maker.fgraph.apply_nodes)


def test_register_specialize_with_a_tag_and_name():
    @register_specialize("my_tag", name="twice_as_add")
    @node_rewriter([Twice])
    def rewrite(fgraph, node):
        """twice(x) -> x + x"""
        return [node.inputs[0] + node.inputs[0]]

    try:
        entry = rewrite_db["twice_as_add"]
        assert entry.phases == ("specialize",) and {"my_tag", "fast_run"} <= entry.tags
        x = pt.dscalar("x")
        f = theon.function([x], twice(x), mode=theon.Mode().excluding("my_tag"))
        assert any(isinstance(n.op, Twice) for n in f.maker.fgraph.apply_nodes)
        assert theon.function([x], twice(x))(4.0) == 8.0
    finally:
        rewrite_db.unregister("twice_as_add")


def test_local_exp_over_1_plus_exp_gives_sigmoid():
    x = pt.dvector("x")
    out = pt.exp(x) / (1 + pt.exp(x))
    fg = FunctionGraph([x], [out])
    out2in(local_exp_over_1_plus_exp).rewrite(fg)
    names = {type(n.op.scalar_op).__name__ for n in fg.toposort() if hasattr(n.op, "scalar_op")}
    assert names == {"Sigmoid"}
    f = theon.function(fg.inputs, fg.outputs[0], mode="NO_REWRITES")
    v = np.array([-800.0, -3.0, 0.0, 2.0, 800.0])
    np.testing.assert_allclose(f(v), scipy.special.expit(v))


def test_topo_unconditional_constant_folding():
    c = pt.as_tensor_variable(np.arange(3.0))
    big = pt.alloc(c, 4, 3)  # alloc declines ordinary folding (it would store the result)
    fg = FunctionGraph([], [pt.exp(big)])
    topo_unconditional_constant_folding.apply(fg)
    (out,) = fg.outputs
    assert isinstance(out, Constant)
    np.testing.assert_allclose(out.data, np.exp(np.tile(np.arange(3.0), (4, 1))))


def test_shape_optimizer_attaches_a_shape_feature():
    x = pt.dmatrix("x")
    fg = FunctionGraph([x], [pt.exp(x).T])
    ShapeOptimizer().rewrite(fg)
    sf = fg.find_feature(ShapeFeature)
    assert sf is not None
    rows, cols = sf.shape_of(fg.outputs[0])
    g = theon.function(fg.inputs, [rows, cols], mode="NO_REWRITES")
    assert [int(v) for v in g(np.zeros((2, 5)))] == [5, 2]
