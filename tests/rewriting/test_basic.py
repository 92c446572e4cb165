"""Node rewriters, dispatch, replacement normalization and sequential composition."""

import pytest

from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.rewriting import (
    GraphRewriter,
    NodeRewriter,
    RewriteError,
    RewriterIndex,
    SequentialGraphRewriter,
    apply_replacements,
    graph_rewriter,
    in2out,
    node_rewriter,
    register_track_key,
    replacement_pairs,
)

from .toy import Binary, Unary, add, ft, ident, it, mul, neg, split, to_int


@node_rewriter([neg])
def local_neg_neg(fgraph, node):
    """neg(neg(x)) -> x"""
    x = node.inputs[0]
    if x.owner is not None and x.owner.op == neg:
        return [x.owner.inputs[0]]
    return None


def test_node_rewriter_keeps_name_doc_and_is_callable():
    assert isinstance(local_neg_neg, NodeRewriter)
    assert local_neg_neg.name == "local_neg_neg"
    assert local_neg_neg.__doc__ == "neg(neg(x)) -> x"
    assert local_neg_neg.tracks() == [neg]
    x = ft("x")
    y = neg(neg(x))
    fg = FunctionGraph([x], [y], clone=False)
    assert local_neg_neg(fg, y.owner) == [x]
    assert local_neg_neg(fg, y.owner.inputs[0].owner) is None


def test_node_rewriter_rejects_bad_tracks():
    with pytest.raises(TypeError, match="tracks must be a list"):
        node_rewriter(neg)
    with pytest.raises(TypeError, match="not an Op"):
        node_rewriter([3])
    with pytest.raises(TypeError, match="not an Op"):
        node_rewriter([int])


def test_index_dispatch_by_op_class_predicate_and_all():
    other_neg = Unary("neg", lambda a: -a)  # equal to neg (same props)
    rw_op = node_rewriter([neg])(lambda fg, n: None)
    rw_cls = node_rewriter([Binary])(lambda fg, n: None)
    rw_pred = node_rewriter([lambda op: getattr(op, "name", "") == "mul"])(lambda fg, n: None)
    rw_all = node_rewriter(None)(lambda fg, n: None)
    idx = RewriterIndex([rw_op, rw_cls, rw_pred, rw_all])
    assert idx.candidates(other_neg) == (rw_op, rw_all)
    assert idx.candidates(add) == (rw_cls, rw_all)
    assert idx.candidates(mul) == (rw_cls, rw_pred, rw_all)
    assert idx.candidates(split) == (rw_all,)
    assert idx.candidates(mul) is idx.candidates(mul)  # cached per op


def test_track_key_hook_matches_wrapped_op():
    class Wrap(Op):
        __props__ = ("inner",)

        def __init__(self, inner):
            self.inner = inner

    rw = node_rewriter([neg])(lambda fg, n: None)
    rw_cls = node_rewriter([Unary])(lambda fg, n: None)
    idx = RewriterIndex([rw, rw_cls])
    assert idx.candidates(Wrap(neg)) == ()
    register_track_key(Wrap, lambda op: op.inner)
    try:
        assert idx.candidates(Wrap(neg)) == (rw, rw_cls)
        assert idx.candidates(Wrap(add)) == ()
    finally:
        from theon.rewriting.basic import _TRACK_KEYS

        del _TRACK_KEYS[Wrap]


def test_replacement_pairs_forms_and_errors():
    x = ft("x")
    y = neg(x)
    node = y.owner
    assert replacement_pairs("r", node, None) == []
    assert replacement_pairs("r", node, False) == []
    assert replacement_pairs("r", node, [x]) == [(y, x)]
    assert replacement_pairs("r", node, x) == [(y, x)]
    assert replacement_pairs("r", node, {y: x}) == [(y, x)]
    assert replacement_pairs("r", node, [y]) == []  # unchanged
    with pytest.raises(RewriteError, match="returned 2 replacements"):
        replacement_pairs("r", node, [x, x])
    with pytest.raises(RewriteError, match="expected a list"):
        replacement_pairs("r", node, 3)
    with pytest.raises(RewriteError, match="must be"):
        replacement_pairs("r", node, [3.0])
    a, b = split(x)
    assert replacement_pairs("r", a.owner, [None, x]) == [(b, x)]
    with pytest.raises(RewriteError, match="2 outputs"):
        replacement_pairs("r", a.owner, x)


def test_apply_replacements_refuses_type_change():
    x = ft("x")
    y = neg(x)
    fg = FunctionGraph([x], [y])
    bad = to_int(fg.inputs[0])
    with pytest.raises(RewriteError, match="must keep each variable's type"):
        apply_replacements(fg, [(fg.outputs[0], bad)], "bad_rewrite")


def test_walker_raises_with_context_on_bad_rewrite():
    @node_rewriter([neg])
    def change_type(fgraph, node):
        """neg(x) -> int(x) (wrong)"""
        return [to_int(node.inputs[0])]

    x = ft("x")
    fg = FunctionGraph([x], [neg(x)])
    with pytest.raises(RewriteError) as info:
        in2out(change_type)(fg)
    assert "change_type" in str(info.value)
    assert any("change_type" in n for n in getattr(info.value, "__notes__", []))
    assert it != ft


def test_walker_on_error_warn_skips():
    @node_rewriter([neg])
    def boom(fgraph, node):
        """crashes"""
        raise RuntimeError("kaboom")

    x = ft("x")
    fg = FunctionGraph([x], [neg(x)])
    with pytest.warns(UserWarning, match="boom failed"):
        in2out(boom, on_error="warn")(fg)
    assert fg.outputs[0].owner.op == neg


def test_sequential_runs_in_order():
    order = []

    @graph_rewriter
    def first(fgraph):
        """records"""
        order.append("first")

    @graph_rewriter(name="second")
    def _second(fgraph):
        """records"""
        order.append("second")

    x = ft("x")
    fg = FunctionGraph([x], [neg(neg(x))])
    seq = SequentialGraphRewriter([first, local_neg_neg, _second], name="seq")
    stats = seq(fg)
    assert order == ["first", "second"]
    assert fg.outputs[0] is fg.inputs[0]
    assert stats.fires["local_neg_neg"] == 1
    assert isinstance(seq.rewriters[1], GraphRewriter)


def test_identity_rewrite_does_not_touch_user_graph():
    @node_rewriter([ident])
    def drop_ident(fgraph, node):
        """ident(x) -> x"""
        return [node.inputs[0]]

    x = ft("x")
    inner = ident(x)
    out = add(inner, neg(neg(inner)))
    before = [(n, list(n.inputs)) for n in [out.owner, inner.owner]]
    fg = FunctionGraph([x], [out])
    in2out(drop_ident, local_neg_neg)(fg)
    assert [n.op for n in fg.toposort()] == [add]
    assert all(list(n.inputs) == ins for n, ins in before)
    assert out.owner.inputs[0] is inner
