"""Merge (CSE, equal constants) and constant folding, on toy ops."""

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
from theon.compile.mode import Mode
from theon.compile.ops import DeepCopyOp
from theon.graph.basic import Apply, Constant
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.rewriting import MergeFeature, constant_folding, in2out, merge_rewriter

from .toy import AAdd, Binary, add, at, exp, ft, mul, neg, nofold, split, sub


def test_seed_merge_identical_subgraphs():
    x, y = ft("x"), ft("y")
    a = mul(add(x, y), exp(x))
    b = mul(add(x, y), exp(x))
    fg = FunctionGraph([x, y], [a, b])
    stats = merge_rewriter(fg)
    assert fg.outputs[0] is fg.outputs[1]
    assert len(fg.apply_nodes) == 3
    assert stats.fires["merge"] == 3
    fg.check_integrity()


def test_merge_keeps_different_ops_and_inputs_apart():
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [add(x, y), add(y, x), mul(x, y), add(x, y)])
    merge_rewriter(fg)
    o = fg.outputs
    assert o[0] is o[3]
    assert o[0] is not o[1] and o[0] is not o[2]
    assert len(fg.apply_nodes) == 3


def test_merge_equal_constants_by_signature_and_type():
    x = ft("x")
    c1, c2, c3 = Constant(ft, 2.0), Constant(ft, 2.0), Constant(ft, 3.0)
    fg = FunctionGraph([x], [add(x, c1), add(x, c2), add(x, c3)])
    merge_rewriter(fg)
    o = fg.outputs
    assert o[0] is o[1] and o[0] is not o[2]
    assert len(fg.apply_nodes) == 2
    consts = {id(i) for n in fg.apply_nodes for i in n.inputs if isinstance(i, Constant)}
    assert len(consts) == 2


def test_merge_array_constants_and_outputs_that_are_constants():
    a1 = Constant(at, np.arange(3.0))
    a2 = Constant(at, np.arange(3.0))
    a3 = Constant(at, np.ones(3))
    x = at("x")
    fg = FunctionGraph([x], [AAdd()(x, a1), AAdd()(x, a2), a3, Constant(at, np.ones(3))])
    merge_rewriter(fg)
    o = fg.outputs
    assert o[0] is o[1]
    assert o[2] is o[3]


def test_merge_multi_output_nodes():
    x = ft("x")
    p1, m1 = split(x)
    p2, m2 = split(x)
    fg = FunctionGraph([x], [add(p1, m2), add(p2, m1)])
    merge_rewriter(fg)
    # the splits merge, and then so do the two add(p, m)
    assert len(fg.apply_nodes) == 2
    assert fg.outputs[0] is fg.outputs[1]
    fg.check_integrity()


def test_merge_never_merges_destroyers():
    x = at("x")
    c = Constant(at, np.ones(2))
    d1 = AAdd(inplace=True)(AAdd()(x, c), c)
    d2 = AAdd(inplace=True)(AAdd()(x, c), c)
    fg = FunctionGraph([x], [d1, d2])
    merge_rewriter(fg)
    assert len([n for n in fg.apply_nodes if n.op.destroy_map]) == 2


def test_merge_is_incremental_after_rewrites():
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [add(neg(neg(x)), y), add(x, y)])
    mf = MergeFeature()
    fg.attach_feature(mf)
    merge_rewriter(fg)
    assert fg.outputs[0] is not fg.outputs[1]
    from .test_walkers import neg_neg

    in2out(neg_neg)(fg)
    # only the node whose input changed is looked at again (re-keyed when merge runs)
    assert list(mf.dirty) == [fg.outputs[0].owner] and not mf.pending
    merge_rewriter(fg)
    assert fg.outputs[0] is fg.outputs[1]


def test_merge_cost_is_linear():
    def attempts(n):
        x = ft("x")
        a = b = x
        for k in range(n):
            a = add(a, float(k))
            b = add(b, float(k))
        fg = FunctionGraph([x], [a, b])
        stats = merge_rewriter(fg)
        assert fg.outputs[0] is fg.outputs[1]
        return stats.attempts

    a1, a3 = attempts(300), attempts(900)
    assert 2.8 < a3 / a1 < 3.2


def test_constant_folding_computes_with_perform():
    x = ft("x")
    fg = FunctionGraph([x], [add(x, mul(2.0, exp(0.0)))])
    in2out(constant_folding)(fg)
    out = fg.outputs[0]
    c = out.owner.inputs[1]
    assert isinstance(c, Constant) and c.data == 2.0 and c.type == ft
    assert len(fg.apply_nodes) == 1


def test_constant_folding_honours_do_constant_folding():
    fg = FunctionGraph([], [neg(nofold(3.0))])
    in2out(constant_folding)(fg)
    assert [n.op for n in fg.toposort()] == [nofold, neg]


def test_constant_folding_multi_output_and_outputs():
    p, m = split(4.0)
    fg = FunctionGraph([], [p, m])
    in2out(constant_folding)(fg)
    assert [o.data for o in fg.outputs] == [5.0, 3.0]
    assert fg.apply_nodes == {}


def test_constant_folding_leaves_failures_for_run_time():
    boom = Binary("boom", lambda a, b: a / b)
    fg = FunctionGraph([], [boom(1.0, 0.0)])
    in2out(constant_folding)(fg)
    assert len(fg.apply_nodes) == 1


@st.composite
def _toy_graph(draw):
    """A random toy graph with repeated subexpressions and constants."""
    x, y = ft("x"), ft("y")
    pool = [x, y, Constant(ft, 1.0), Constant(ft, 2.0)]
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["add", "mul", "sub", "neg", "const", "dup"]))
        if kind == "neg":
            pool.append(neg(draw(st.sampled_from(pool))))
        elif kind == "const":
            pool.append(Constant(ft, float(draw(st.integers(0, 3)))))
        elif kind == "dup":
            v = draw(st.sampled_from(pool))
            if v.owner is not None:
                pool.append(v.owner.op(*v.owner.inputs))
        else:
            op = {"add": add, "mul": mul, "sub": sub}[kind]
            pool.append(op(draw(st.sampled_from(pool)), draw(st.sampled_from(pool))))
    outs = draw(st.lists(st.sampled_from(pool[2:]), min_size=1, max_size=4))
    return [x, y], outs


@settings(max_examples=60, deadline=None)
@given(_toy_graph(), st.floats(-3, 3), st.floats(-3, 3))
def test_merge_and_folding_keep_values(graph, xv, yv):
    ins, outs = graph
    ref = theon.function(ins, outs, mode=Mode("vm", optimizer=None), on_unused_input="ignore")
    fc = theon.function(ins, outs, mode=Mode("vm", optimizer="fast_compile"),
                        on_unused_input="ignore")
    want, got = ref(xv, yv), fc(xv, yv)
    for w, g in zip(want, got):
        assert type(w) is type(g)
        assert w == g or (np.isnan(w) and np.isnan(g))
    # no two nodes compute the same thing, no node has only constant inputs (but the
    # output copies put in after rewriting: one per output that is an input or constant)
    nodes = [n for n in fc.maker.fgraph.apply_nodes if not isinstance(n.op, DeepCopyOp)]
    keys = [(n.op, *map(id, n.inputs)) for n in nodes]
    assert len(set(keys)) == len(keys)
    assert not any(all(isinstance(i, Constant) for i in n.inputs) for n in nodes)


class Total(Op):
    """A sum of any number of FloatT values: one node with many inputs."""

    __props__ = ()

    def make_node(self, *xs):
        return Apply(self, list(xs), [ft()])

    def perform(self, node, inputs, out):
        out[0][0] = float(sum(inputs))


def test_merge_rekeys_a_node_once_however_many_of_its_inputs_change():
    # a node's key holds all its k inputs; re-keying it on each of k input changes
    # cost O(k**2) (the sum of 10^4 terms of issue 11, item 8)
    from .test_walkers import neg_neg

    def key_work(k):
        xs = [ft(f"x{i}") for i in range(k)]
        fg = FunctionGraph(xs, [Total()(*[neg(neg(x)) for x in xs])])
        mf = MergeFeature()
        fg.attach_feature(mf)
        merge_rewriter(fg)
        work = [0]
        register = mf._register

        def counting(node):
            work[0] += len(node.inputs)  # the size of the key it builds
            register(node)

        mf._register = counting
        in2out(neg_neg)(fg)
        merge_rewriter(fg)
        assert fg.outputs[0].owner.inputs == fg.inputs
        return work[0]

    small, large = key_work(200), key_work(400)
    assert large <= 2.3 * small, (small, large)


def _run_bounded(fn: Callable[[], object], seconds: float = 60.0) -> None:
    """Run ``fn()`` on a daemon thread; fail (instead of hanging) if it does not return."""
    import threading

    errors: list[BaseException] = []

    def target() -> None:
        try:
            fn()
        except BaseException as e:  # re-raised in the test's thread
            errors.append(e)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn} did not return within {seconds} s: it hangs"
    if errors:
        raise errors[0]


def test_issue29_item9_merge_terminates_after_replace_refines_a_static_shape():
    """Issue 29 item 9: after ``fg.replace(x1, x2)`` with ``x1`` of static shape ``(None,)``
    and ``x2`` of ``(500,)``, two nodes apply equal ops to the same inputs but their
    outputs have different types; merge used to propose that pair forever.  It must
    return, keep the more specific node, and compute what NumPy computes."""
    import theon.tensor as tt
    from theon.link.vm import VMLinker

    x = tt.tensor("float64", shape=(None,), name="x")
    z = tt.tensor("float64", shape=(500,), name="z")
    x1, x2 = tt.exp(x), tt.exp(z)
    fg = FunctionGraph([x, z], [x1 + 1, x2 + 1, (x1 * x2).sum()], clone=False)
    fg.replace(x1, x2)
    _run_bounded(lambda: merge_rewriter(fg))
    fg.check_integrity()
    o = fg.outputs
    assert o[0] is o[1] and o[0].type.shape == (500,)
    zv = np.linspace(-1.0, 1.0, 500)
    got = VMLinker().make_function(fg)(np.zeros(3), zv)
    np.testing.assert_allclose(got[0], np.exp(zv) + 1)
    np.testing.assert_allclose(got[2], (np.exp(zv) ** 2).sum())

    # the same with the refined node first: the later, more specific node is kept
    y1 = tt.tensor("float64", shape=(None,), name="y1")
    y2 = tt.tensor("float64", shape=(500,), name="y2")
    fg = FunctionGraph([y1, y2], [y2 * 2, y1 * 2], clone=False)
    fg.replace(y1, y2)
    _run_bounded(lambda: merge_rewriter(fg))
    assert fg.outputs[0] is fg.outputs[1] and fg.outputs[1].type.shape == (500,)
    got = VMLinker().make_function(fg)(np.zeros(2), zv)
    np.testing.assert_allclose(got[1], zv * 2)


@pytest.mark.parametrize("spec", ["fast_run", "fast_compile"])
def test_issue29_item9_full_rewrite_pipeline_terminates_after_refining_replace(spec: str):
    """Issue 29 item 9: every phase (not only merge) returns on such a graph."""
    import theon.tensor as tt
    from theon.link.vm import VMLinker
    from theon.rewriting.db import resolve_rewriter

    x1 = tt.tensor("float64", shape=(None,), name="x1")
    x2 = tt.tensor("float64", shape=(500,), name="x2")
    fg = FunctionGraph([x1, x2], [x1 * 2, x2 * 2, x1.shape[0] + x2.shape[0]], clone=True)
    fg.replace(fg.inputs[0], fg.inputs[1])
    rewriter = resolve_rewriter(spec)
    assert rewriter is not None
    _run_bounded(partial(rewriter, fg))
    xv = np.arange(500.0)
    got = VMLinker().make_function(fg)(np.zeros(1), xv)
    np.testing.assert_allclose(got[0], xv * 2)
    np.testing.assert_allclose(got[1], xv * 2)
    assert int(got[2]) == 1000


def test_issue29_item9_merge_terminates_on_incomparable_output_types():
    """Issue 29 item 9: equal ops on the same inputs whose output types are incomparable
    are left apart, and merge returns (before the fix it re-proposed such pairs forever)."""
    from .toy import it

    class Typed(Op):
        __props__ = ()  # equal whatever the output type: the case merge must survive

        def __init__(self, out: Any) -> None:
            self.out = out

        def make_node(self, a: Any) -> Apply:
            return Apply(self, [a], [self.out()])

    x = ft("x")
    fg = FunctionGraph([x], [Typed(ft)(x), Typed(it)(x), Typed(ft)(x)])
    _run_bounded(lambda: merge_rewriter(fg))
    o = fg.outputs
    assert o[0] is o[2] and o[0] is not o[1]
    assert len(fg.apply_nodes) == 2
