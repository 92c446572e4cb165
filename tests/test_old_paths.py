"""Issue 15, item 3: Theano's and PyTensor's module paths and helper spellings, used as
their tutorials and docs use them, with values checked against NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import theon
import theon.tensor as T


# theano.gof ---------------------------------------------------------------------------------
def test_gof_graph_functions() -> None:
    from theon.gof import graph

    x, y = T.dscalars("xy")
    z = x * y + 1
    assert [v.name for v in graph.inputs([x * y])] == ["x", "y"]
    assert x in graph.ancestors([z]) and y in graph.ancestors([z])
    assert graph.is_same_graph(x * y, x * y)
    assert not graph.is_same_graph(x * y, y * x)
    w = T.dscalar("w")
    assert graph.is_same_graph(x * y, x * w, givens={w: y})
    [x2, y2], [z2] = graph.clone([x, y], [z])
    assert x2 is not x and graph.equal_computations([z], [z2], [x, y], [x2, y2])
    assert not graph.equal_computations([z], [z2])
    f = theon.function([x2, y2], z2)
    assert float(f(2.0, 3.0)) == 7.0


def test_gof_fg_and_opt_theano_style() -> None:
    from theon import gof
    from theon.gof import opt
    from theon.gof.fg import FunctionGraph

    @gof.local_optimizer([T.neg])
    def local_neg_neg(node):
        (a,) = node.inputs
        if a.owner is not None and a.owner.op == T.neg:
            return [a.owner.inputs[0]]
        return False

    class LogExp(opt.LocalOptimizer):  # Theano's class form: transform(self, node)
        def tracks(self):
            return [T.log]

        def transform(self, node):
            (a,) = node.inputs
            if a.owner is not None and a.owner.op == T.exp:
                return [a.owner.inputs[0]]
            return False

    v = T.dvector("v")
    fg = FunctionGraph([v], [T.log(T.exp(T.neg(T.neg(v))))], clone=False)
    opt.EquilibriumOptimizer([local_neg_neg, LogExp()], max_use_ratio=10).optimize(fg)
    assert fg.outputs[0] is v
    fg2 = FunctionGraph([v], [T.neg(T.neg(v)) * 2.0], clone=False)
    opt.TopoOptimizer(local_neg_neg).optimize(fg2)
    assert fg2.outputs[0].owner.inputs[0] is v
    pat = opt.PatternSub((T.neg, (T.neg, "x")), "x")
    fg3 = FunctionGraph([v], [T.neg(T.neg(v))], clone=False)
    opt.TopoOptimizer(pat).optimize(fg3)
    assert fg3.outputs[0] is v
    assert gof.fg.FunctionGraph is theon.FunctionGraph


# PyTensor's module paths -----------------------------------------------------------------------
def test_graph_rewriting_basic_node_rewriter_pytensor_style() -> None:
    from theon.graph.rewriting.basic import copy_stack_trace, in2out, node_rewriter
    from theon.graph.rewriting.db import RewriteDatabaseQuery
    from theon.graph.rewriting.utils import rewrite_graph
    from theon.rewriting import rewrite_db

    @node_rewriter([T.log])
    def local_log_exp(fgraph, node):
        (a,) = node.inputs
        if a.owner is not None and a.owner.op == T.exp:
            new = a.owner.inputs[0]
            copy_stack_trace(node.outputs[0], new)
            return [new]
        return None

    x = T.dvector("x")
    y = T.log(T.exp(x)) * 2
    fg = theon.FunctionGraph([x], [y], clone=True)
    in2out(local_log_exp).rewrite(fg)
    assert not any(n.op == T.log for n in fg.toposort())
    assert rewrite_graph(x * 1, include=("canonicalize",)) is x
    q = RewriteDatabaseQuery(include=["fast_run"], exclude=["inplace"])
    assert q.include == ("fast_run",) and q.exclude == ("inplace",)
    rewrite_db.query(q)(theon.FunctionGraph([x], [x + 0.0]))


def test_graph_basic_and_traversal_paths() -> None:
    from theon.graph.basic import ancestors, clone, equal_computations, graph_inputs
    from theon.graph.traversal import io_toposort

    x = T.dvector("x")
    y = T.exp(x).sum()
    [x2], [y2] = clone([x], [y])
    assert equal_computations([y], [y2], in_xs=[x], in_ys=[x2])
    assert not equal_computations([y], [y2])
    assert graph_inputs([y]) == [x] and x in ancestors([y])
    assert [n.op for n in io_toposort([x], [y])][0] == T.exp


def test_compile_mode_get_default_mode_and_unknown_rewrites_warn_once() -> None:
    from theon.compile.mode import get_default_mode

    x = T.dvector("x")
    name = "local_pytensor_only_rewrite_for_test"
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mode = get_default_mode().including(name).excluding("fusion", name + "2")
        again = get_default_mode().including(name)
    texts = [str(w.message) for w in rec]
    assert len([t for t in texts if repr(name) in t]) == 1  # once per name
    assert len([t for t in texts if repr(name + "2") in t]) == 1
    f = theon.function([x], T.exp(x) * 2, mode=mode)
    np.testing.assert_allclose(f([0.0, 1.0]), 2 * np.exp([0.0, 1.0]))
    np.testing.assert_allclose(theon.function([x], x + 1, mode=again)([1.0]), [2.0])
    assert "fusion" in mode.optimizer.exclude


def test_printing_pp() -> None:
    from theon.printing import pp

    x = T.dscalar("x")
    gy = T.grad(x**2, x)
    assert theon.pp is pp
    assert "x" in pp(gy) and isinstance(pp(gy), str)


# helpers of the tutorials ------------------------------------------------------------------------
def test_shared_get_value_return_internal_type() -> None:
    w = theon.shared(np.arange(3.0), name="w")
    v = w.get_value(borrow=True, return_internal_type=True)
    assert isinstance(v, np.ndarray)
    np.testing.assert_array_equal(v, np.arange(3.0))
    np.testing.assert_array_equal(w.get_value(return_internal_type=False), np.arange(3.0))


@pytest.mark.parametrize(
    "rng", [np.random, np.random.RandomState(42), np.random.default_rng(42)],
    ids=["np.random", "RandomState", "Generator"],
)
def test_verify_grad_rng_spellings(rng) -> None:
    x = np.array([0.3, -1.2, 2.0])
    theon.gradient.verify_grad(lambda t: T.tanh(t) * t, [x], rng=rng)
    with pytest.raises(theon.gradient.GradientError):  # a wrong gradient is still caught
        theon.gradient.verify_grad(lambda t: T.sgn(t) * T.abs(t) + theon.gradient.zero_grad(t),
                                   [x], rng=rng)


def test_grad_wrt_an_integer_input_is_float_zeros() -> None:
    i = T.iscalar("i")
    v = T.ivector("v")
    a = T.dscalar("a")
    cost = (i * 2.0 + a) ** 2 + (v * a).sum()
    gi, gv, ga = T.grad(cost, [i, v, a])
    assert gi.dtype == theon.config.floatX and gv.dtype == theon.config.floatX
    f = theon.function([i, v, a], [gi, gv, ga])
    got_i, got_v, got_a = f(3, np.array([1, 2], "int32"), 0.5)
    assert float(got_i) == 0.0
    np.testing.assert_array_equal(got_v, [0.0, 0.0])
    assert float(got_a) == pytest.approx(2 * (6.0 + 0.5) + 3.0)
    with pytest.raises(theon.gradient.DisconnectedInputError):
        T.grad(a**2, i)  # an integer the cost does not depend on is still disconnected


def test_eval_replaces_an_intermediate_variable() -> None:
    x = T.dmatrix("x")
    y = x * 2
    z = T.exp(y) + 1
    yv = np.array([[0.0, 1.0]])
    np.testing.assert_allclose(z.eval({y: yv}), np.exp(yv) + 1)
    np.testing.assert_allclose(z.eval({x: yv}), np.exp(2 * yv) + 1)
    s = T.dscalar("s")
    np.testing.assert_allclose((z * s).eval({y: yv, s: 3.0}), 3 * (np.exp(yv) + 1))
    np.testing.assert_allclose((z * s).eval({y: yv, s: 2.0}), 2 * (np.exp(yv) + 1))  # cached


# pytensor.tensor.type -------------------------------------------------------------------------
def test_shortcuts_under_the_type_module_as_pytensor_keeps_them() -> None:
    from theon.tensor.type import TensorType, dmatrix, fvectors, tensor

    x = dmatrix("x")
    a, b = fvectors("a", "b")
    t = tensor("int32", shape=(None, 3), name="t")
    assert x.type == TensorType("float64", shape=(None, None))
    assert (a.name, b.type.dtype) == ("a", "float32")
    assert t.type.shape == (None, 3)
    f = theon.function([x], (x * 2).sum())
    assert float(f(np.ones((2, 3)))) == 12.0
    with pytest.raises(AttributeError, match="no attribute 'dmatrixx'"):
        from theon.tensor import type as tt_type

        tt_type.dmatrixx  # noqa: B018
