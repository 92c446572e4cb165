"""Worklist walkers: order, fixed points, linear work, and loop guards."""

import warnings

import pytest

from theon.graph.fg import FunctionGraph
from theon.rewriting import (
    EquilibriumGraphRewriter,
    PatternNodeRewriter,
    RewriteLoopWarning,
    WalkingGraphRewriter,
    in2out,
    merge_rewriter,
    node_rewriter,
    out2in,
)

from .toy import add, exp, ft, ident, mul, neg, sub


@node_rewriter([neg])
def neg_neg(fgraph, node):
    """neg(neg(x)) -> x"""
    x = node.inputs[0]
    if x.owner is not None and x.owner.op == neg:
        return [x.owner.inputs[0]]
    return None


@node_rewriter([ident])
def drop_ident(fgraph, node):
    """ident(x) -> x"""
    return [node.inputs[0]]


@node_rewriter([add])
def add_zero(fgraph, node):
    """x + 0 -> x"""
    a, b = node.inputs
    if getattr(b, "data", None) == 0.0:
        return [a]
    return None


@node_rewriter([sub])
def sub_self(fgraph, node):
    """x - x -> 0"""
    a, b = node.inputs
    if a is b:
        return [a.type.make_constant(0.0)]
    return None


def _visit_order(order):
    seen = []

    @node_rewriter(None)
    def spy(fgraph, node):
        """records the visit order"""
        seen.append(str(node.op))
        return None

    x = ft("x")
    fg = FunctionGraph([x], [exp(neg(x))])
    WalkingGraphRewriter([spy], order=order)(fg)
    return seen


def test_in_to_out_and_out_to_in_orders():
    assert _visit_order("in_to_out") == ["neg", "exp"]
    assert _visit_order("out_to_in") == ["exp", "neg"]
    with pytest.raises(ValueError, match="order must be"):
        WalkingGraphRewriter([], order="sideways")


@pytest.mark.parametrize("make", [in2out, out2in])
def test_walkers_follow_changes_to_a_fixed_point(make):
    x = ft("x")
    y = x
    for _ in range(9):
        y = neg(y)
    fg = FunctionGraph([x], [y])
    make(neg_neg)(fg)
    assert [n.op for n in fg.toposort()] == [neg]
    fg.check_integrity()


def test_ignore_newtrees_visits_only_initial_nodes():
    calls = []

    @node_rewriter([ident])
    def wrap(fgraph, node):
        """ident(x) -> neg(neg(x))"""
        calls.append(node)
        return [neg(neg(node.inputs[0]))]

    x = ft("x")
    fg = FunctionGraph([x], [ident(x)])
    in2out(wrap, neg_neg, ignore_newtrees=True)(fg)
    # the new neg(neg(x)) is not visited
    assert [n.op for n in fg.toposort()] == [neg, neg]
    in2out(neg_neg)(fg)
    assert fg.outputs[0] is fg.inputs[0]


def test_equilibrium_reaches_fixed_point_across_rewrites():
    x = ft("x")
    # ((x + 0) - (x + 0)) reaches 0 only after add_zero and merge made both sides x
    left = add(ident(x), 0.0)
    right = add(x, 0.0)
    out = add(neg(neg(sub(left, right))), mul(x, 1.0))
    fg = FunctionGraph([x], [out])
    stats = EquilibriumGraphRewriter([neg_neg, drop_ident, add_zero, sub_self, merge_rewriter])(fg)
    ops = [n.op for n in fg.toposort()]
    # add(0, mul(x, 1)) -> add_zero does not apply (0 on the left): structure is known
    assert ops == [mul, add]
    assert fg.outputs[0].owner.inputs[0].data == 0.0
    assert stats.fires["sub_self"] == 1 and stats.fires["drop_ident"] == 1
    # a second run is a no-op: fixed point
    again = EquilibriumGraphRewriter([neg_neg, drop_ident, add_zero, sub_self, merge_rewriter])(fg)
    assert again.total_fires == 0


def _chain(n):
    """x -> (neg(neg(ident(.))) + 0) repeated: every layer collapses."""
    x = ft("x")
    y = x
    for k in range(n):
        y = neg(neg(ident(y))) if k % 2 else add(ident(y), 0.0)
    return FunctionGraph([x], [exp(y)])


@pytest.mark.parametrize("kind", ["equilibrium", "in_to_out", "out_to_in"])
def test_worklist_work_is_linear(kind):
    def attempts(n):
        fg = _chain(n)
        rws = [neg_neg, drop_ident, add_zero, sub_self]
        if kind == "equilibrium":
            rw = EquilibriumGraphRewriter([*rws, merge_rewriter])
        else:
            rw = WalkingGraphRewriter(rws, order=kind)
        stats = rw(fg)
        assert [n.op for n in fg.toposort()] == [exp]
        return stats.attempts, stats.total_fires

    a1, f1 = attempts(1000)
    a3, f3 = attempts(3000)
    assert f3 == 3 * f1 or abs(f3 / f1 - 3) < 0.01
    assert 2.7 < a3 / a1 < 3.3, (a1, a3)
    assert a1 < 10 * 1000  # a few attempts per node, not a rescan per change


def test_rewrite_cycle_stops_with_warning_naming_the_rewrite():
    @node_rewriter([neg])
    def neg_to_sub(fgraph, node):
        """neg(x) -> 0 - x"""
        return [sub(0.0, node.inputs[0])]

    sub_to_neg = PatternNodeRewriter((sub, 0.0, "x"), (neg, "x"), name="sub_to_neg")
    x = ft("x")
    fg = FunctionGraph([x], [neg(x)])
    with pytest.warns(RewriteLoopWarning, match="neg_to_sub|sub_to_neg") as rec:
        stats = EquilibriumGraphRewriter([neg_to_sub, sub_to_neg], max_use_ratio=5)(fg)
    assert stats.budget_exhausted
    assert "cycle" in str(rec[0].message)
    fg.check_integrity()


def test_rewrites_without_changes_do_not_warn():
    x = ft("x")
    fg = FunctionGraph([x], [exp(x)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        EquilibriumGraphRewriter([neg_neg])(fg)


def test_walkers_reject_non_rewriters():
    with pytest.raises(TypeError, match="node_rewriter"):
        EquilibriumGraphRewriter([lambda fg, node: None])
    with pytest.raises(TypeError, match="node rewriters only"):
        WalkingGraphRewriter([merge_rewriter])
