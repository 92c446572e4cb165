"""DestroyHandler: illegal destruction is refused, orderings are right, rollbacks work.

Uses toy 1-d array ops whose inplace variants really overwrite memory, so a
wrong order or an illegal destruction shows up as wrong values in the VM.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theon.graph.basic import Constant
from theon.graph.destroyhandler import (
    DestroyHandler,
    can_destroy,
    ensure_destroy_handler,
    try_replace,
    view_roots,
)
from theon.graph.features import InconsistencyError, ReplaceValidate
from theon.graph.fg import FunctionGraph
from theon.link.vm import VMLinker

from ..rewriting.toy import AAdd, AShift, AView, aadd, asum, at


def shift(x, c=1.0):
    return AShift(c)(x)


def shift_i(x, c=1.0):
    return AShift(c, inplace=True)(x)


def attach(fg, mutable=()):
    fg.attach_feature(ReplaceValidate())
    fg.attach_feature(DestroyHandler(mutable_inputs=mutable))
    return fg.destroy_handler


def run(fg, *vals):
    return VMLinker().make_function(fg)(*[np.array(v, dtype=float) for v in vals])


def test_protected_input_is_refused_and_named():
    x = at("x")
    fg = FunctionGraph([x], [shift_i(x)], clone=False)
    with pytest.raises(InconsistencyError, match="function input 'x'.*not declared mutable"):
        attach(fg)
    assert getattr(fg, "destroy_handler", None) is None


def test_mutable_input_may_be_destroyed():
    x = at("x")
    fg = FunctionGraph([x], [asum(shift_i(x, 2.0))], clone=False)
    attach(fg, mutable=[x])
    xv = np.array([1.0, 2.0])
    assert VMLinker().make_function(fg)(xv) == [7.0]
    assert list(xv) == [3.0, 4.0]  # really overwritten
    fg2 = FunctionGraph([x], [asum(shift_i(x, 2.0))], clone=False)
    fg2.mutable_inputs = {x}  # the attribute function() may set
    attach(fg2, mutable=None)


def test_constants_and_outputs_are_protected():
    c = Constant(at, np.ones(2))
    fg = FunctionGraph([], [asum(shift_i(c))])
    with pytest.raises(InconsistencyError, match="constant"):
        attach(fg)
    x = at("x")
    y = shift(x)
    fg = FunctionGraph([x], [y, shift_i(y)])
    with pytest.raises(InconsistencyError, match="output of the function"):
        attach(fg)
    v = AView(2)(y)
    fg = FunctionGraph([x], [v, shift_i(y)])
    with pytest.raises(InconsistencyError, match="output of the function"):
        attach(fg)


def test_destroying_a_view_of_an_input_is_refused():
    x = at("x")
    fg = FunctionGraph([x], [asum(shift_i(AView(1)(x)))])
    with pytest.raises(InconsistencyError, match="not declared mutable"):
        attach(fg)
    assert view_roots(fg.outputs[0].owner.inputs[0].owner.inputs[0]) == [fg.inputs[0]]


def test_double_destruction_is_refused():
    x = at("x")
    y = shift(x)
    fg = FunctionGraph([x], [asum(shift_i(y, 1.0)), asum(shift_i(y, 2.0))])
    with pytest.raises(InconsistencyError, match="destroyed by two nodes"):
        attach(fg)


def test_aliased_inputs_of_the_destroyer_are_refused():
    x = at("x")
    y = shift(x)
    fg = FunctionGraph([x], [asum(AAdd(True)(y, y))])
    with pytest.raises(InconsistencyError, match="same memory"):
        attach(fg)
    y = shift(x)
    fg = FunctionGraph([x], [asum(AAdd(True)(y, AView(2)(y)))])
    with pytest.raises(InconsistencyError, match="same memory"):
        attach(fg)


def test_reader_needed_after_the_destroyer_is_refused():
    x = at("x")
    y = shift(x)
    d = shift_i(y)
    fg = FunctionGraph([x], [asum(aadd(d, y))])
    with pytest.raises(InconsistencyError, match="still needs"):
        attach(fg)


def test_readers_are_ordered_before_the_destroyer():
    x = at("x")
    y = shift(x, 1.0)
    v = AView(1)(y)
    d = shift_i(y, 10.0)
    # outputs list the destroyer first, so a plain toposort would run it first
    fg = FunctionGraph([x], [asum(d), asum(v), asum(y)], clone=False)
    dh = attach(fg)
    order = fg.toposort()
    assert order.index(d.owner) > order.index(v.owner)
    assert set(dh.orderings(fg)[d.owner]) >= {v.owner, fg.outputs[1].owner,
                                              fg.outputs[2].owner}
    assert fg.destroyers(y) == [d.owner] and fg.destroyers(v) == [d.owner]
    assert fg.has_destroyers([v]) and not fg.has_destroyers([x])
    assert run(fg, [1.0, 2.0]) == [25.0, 2.0, 5.0]


def test_replace_validate_rolls_back_illegal_replacements():
    x = at("x")
    y = shift(x)
    a = shift(y, 2.0)
    b = asum(aadd(a, y))
    fg = FunctionGraph([x], [b], clone=False)
    attach(fg)
    before = fg.toposort()
    bad = AShift(2.0, inplace=True)(y)  # y is still read by aadd after it
    with pytest.raises(InconsistencyError):
        fg.replace_validate(a, bad)
    assert fg.toposort() == before
    fg.check_integrity()
    assert not can_destroy(fg, a.owner, 0)
    assert not try_replace(fg, [(a, bad)])
    assert fg.toposort() == before
    # the last reader of a may destroy it
    s = fg.outputs[0].owner.inputs[0]
    assert can_destroy(fg, s.owner, 0)
    assert try_replace(fg, [(s, AAdd(True)(a, y))])
    assert run(fg, [1.0, 2.0]) == [14.0]  # sum((x + 3) + (x + 1))


def test_history_revert_restores_destroy_state():
    x = at("x")
    y = shift(x)
    out = asum(shift(y))
    fg = FunctionGraph([x], [out], clone=False)
    dh = attach(fg)
    chk = fg.checkpoint()
    fg.replace(y.owner.outputs[0].owner.outputs[0], y)  # no-op
    node = out.owner.inputs[0].owner
    fg.replace(node.outputs[0], shift_i(y))
    fg.validate()
    assert dh.destroyers_set
    fg.revert(chk)
    fg.validate()
    assert not dh.destroyers_set
    fg.check_integrity()


def test_ensure_destroy_handler_is_idempotent_and_can_destroy_needs_it():
    x = at("x")
    fg = FunctionGraph([x], [asum(shift(x))])
    with pytest.raises(ValueError, match="DestroyHandler"):
        can_destroy(fg, fg.outputs[0].owner, 0)
    dh = ensure_destroy_handler(fg)
    assert ensure_destroy_handler(fg) is dh
    assert can_destroy(fg, fg.outputs[0].owner, 0)  # the shift result is an intermediate
    assert not can_destroy(fg, fg.outputs[0].owner.inputs[0].owner, 0)  # x is an input
    fg.remove_feature(dh)
    assert getattr(fg, "destroy_handler", None) is None


def test_incremental_validation_is_cheap_on_long_chains():
    """Making a chain inplace node by node never renumbers the whole graph."""
    x = at("x")
    y = shift(x)
    for _ in range(300):
        y = shift(y)
    fg = FunctionGraph([x], [asum(y)], clone=False)
    dh = attach(fg)
    rebuilds = []
    full = dh._full_validate

    def counting(fgraph):
        rebuilds.append(1)
        full(fgraph)

    dh._full_validate = counting
    for node in fg.toposort()[1:-1]:
        assert can_destroy(fg, node, 0)
        assert try_replace(fg, [(node.outputs[0], AShift(node.op.c, True)(node.inputs[0]))])
    assert rebuilds == []  # numbered once when attached, then kept up to date locally
    assert run(fg, [0.0, 1.0]) == [2 * 301 + 1.0]


def test_can_destroy_on_every_node_costs_linear_work():
    # a_k is also read by r_k = a_k + a_n: overwriting a_k in shift(a_k) is illegal,
    # and proving it means walking the chain down to a_n (O(n) per node); the
    # searches together may visit only DestroyHandler.search_per_node nodes per node
    def succ_calls(n):
        x = at("x")
        chain = [shift(x)]
        for _ in range(n):
            chain.append(shift(chain[-1]))
        fg = FunctionGraph([x], [asum(aadd(a, chain[-1])) for a in chain[:-1]], clone=False)
        dh = attach(fg)
        calls = [0]
        succ = dh._succ

        def counting(*args):
            calls[0] += 1
            return succ(*args)

        dh._succ = counting
        shifts = [a.owner for a in chain[1:]]
        assert not any(can_destroy(fg, node, 0) for node in shifts)
        return calls[0]

    small, large = succ_calls(200), succ_calls(400)
    assert large <= 2.3 * small, (small, large)


def test_readers_numbered_late_are_moved_before_the_destroyer_locally():
    x = at("x")
    y = shift(x)
    a = shift(y, 2.0)
    b = asum(y)
    fg = FunctionGraph([x], [asum(a), b], clone=False)
    dh = attach(fg)
    assert dh.pos[b.owner] > dh.pos[a.owner]  # numbered after the future destroyer
    full = dh._full_validate
    dh._full_validate = lambda fgraph: pytest.fail("renumbered the whole graph")
    assert can_destroy(fg, a.owner, 0)
    assert try_replace(fg, [(a, shift_i(y, 2.0))])
    assert _numbering_ok(fg, dh)
    dh._full_validate = full
    assert run(fg, [1.0, 2.0]) == [9.0, 5.0]


def _numbering_ok(fg, dh):
    """dh.pos respects every graph edge and every destroy ordering."""
    pos = dh.pos
    for n in fg.apply_nodes:
        for i in n.inputs:
            if i.owner is not None and not pos[i.owner] < pos[n]:
                return False
    return all(pos[r] < pos[d] for d, rs in dh.orderings(fg).items() for r in rs)


def _destroyed_roots_ok(fg, dh):
    """dh's destroyed roots (kept up to date change by change) equal a recount."""
    want: dict = {}
    for n in fg.apply_nodes:
        for idx in n.op.destroy_map.values():
            for i in idx:
                for r in view_roots(n.inputs[i]):
                    want.setdefault(r, set()).add((n, i))
    return {r: set(e) for r, e in dh.destroyed_roots().items()} == want


def test_destroyer_of_a_view_follows_when_the_view_is_moved_onto_another_value():
    # d overwrites a view of a; the view is then moved onto b, which another node
    # reads: d now destroys b, so that reader must run first
    x = at("x")
    a, b = shift(x, 1.0), shift(x, 2.0)
    d = shift_i(AView(4)(a), 10.0)
    fg = FunctionGraph([x], [asum(d), asum(b)], clone=False)
    dh = attach(fg)
    assert try_replace(fg, [(a, b)])
    assert dh.destroyers(b) == [d.owner]
    assert _destroyed_roots_ok(fg, dh)
    assert fg.outputs[1].owner in dh.orderings(fg)[d.owner]
    xv = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert run(fg, xv) == [sum(v + 2.0 + 10.0 for v in xv[:4]), sum(v + 2.0 for v in xv)]


# --- random graphs: the incremental verdict equals a from-scratch check -------------


@st.composite
def _array_graph(draw):
    x, y = at("x"), at("y")
    pool = [x, y]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["shift", "add", "view"]))
        a = draw(st.sampled_from(pool))
        if kind == "shift":
            pool.append(shift(a, float(draw(st.integers(1, 3)))))
        elif kind == "view":
            pool.append(AView(4)(a))
        else:
            pool.append(aadd(a, draw(st.sampled_from(pool))))
    outs = [asum(v) for v in draw(st.lists(st.sampled_from(pool[2:] or pool), min_size=1,
                                            max_size=3))]
    if draw(st.booleans()):
        outs.append(draw(st.sampled_from(pool)))
    mutable = draw(st.sampled_from([(), ("x",), ("x", "y")]))
    return [x, y], outs, mutable


def _inplace_variant(node):
    op = node.op
    if isinstance(op, AShift) and not op.inplace:
        return AShift(op.c, True)
    if isinstance(op, AAdd) and not op.inplace:
        return AAdd(True)
    return None


def _valid_from_scratch(fg, node, new_op, mutable_names):
    fg2, equiv = fg.clone_get_equiv(attach_feature=False)
    n2 = equiv[node]
    fg2.replace_all(list(zip(n2.outputs, new_op.make_node(*n2.inputs).outputs)))
    try:
        DestroyHandler([i for i in fg2.inputs if i.name in mutable_names]).on_attach(fg2)
    except InconsistencyError:
        return False
    return True


@settings(max_examples=120, deadline=None)
@given(_array_graph(), st.randoms(use_true_random=False))
def test_incremental_verdicts_match_a_full_check(graph, rnd):
    ins, outs, mutable = graph
    vals = [np.arange(4.0), np.arange(4.0) * 3 + 1]
    ref = FunctionGraph(ins, outs)
    want = run(ref, *vals)
    fg = FunctionGraph(ins, outs)
    attach(fg, mutable=[i for i in fg.inputs if i.name in mutable])
    nodes = fg.toposort()
    rnd.shuffle(nodes)
    for node in nodes:
        if node not in fg.apply_nodes:
            continue
        new_op = _inplace_variant(node)
        if new_op is None:
            continue
        expected = _valid_from_scratch(fg, node, new_op, mutable)
        assert can_destroy(fg, node, 0) == expected
        new = new_op.make_node(*node.inputs)
        assert try_replace(fg, list(zip(node.outputs, new.outputs))) == expected
        fg.check_integrity()
        fg.destroy_handler.refresh(fg)
        assert _numbering_ok(fg, fg.destroy_handler)
        assert _destroyed_roots_ok(fg, fg.destroy_handler)
    got = run(fg, *vals)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w)
