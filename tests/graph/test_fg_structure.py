"""FunctionGraph bookkeeping: the Clients set, the one-walk copy, the cached order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theon.graph.basic import Constant
from theon.graph.features import Feature
from theon.graph.fg import Clients, FunctionGraph, Output
from theon.graph.replace import clone_get_equiv
from theon.graph.traversal import io_toposort

from .toy import add, divmod_, ft, mul, neg


# ------------------------------------------------------------------------------ Clients
def test_clients_reads_like_a_list():
    c = Clients()
    c.append(("output", 0))
    c.append(("output", 1))
    c.append(("output", 2))
    assert c == [("output", 0), ("output", 1), ("output", 2)]
    assert c != [("output", 0)]
    assert c[0] == ("output", 0) and c[-1] == ("output", 2)
    assert c[1:] == [("output", 1), ("output", 2)]
    assert ("output", 1) in c and ("output", 5) not in c
    assert len(c) == 3 and bool(c) and list(c)[1] == ("output", 1)
    assert repr(c) == "[('output', 0), ('output', 1), ('output', 2)]"
    c.remove(("output", 1))
    assert c == [("output", 0), ("output", 2)]
    try:
        c.remove(("output", 1))
    except ValueError as e:
        assert "not a client" in str(e)
    else:
        raise AssertionError("removing a missing client must raise ValueError")
    assert Clients() == [] and not Clients()


def test_many_clients_keep_their_order_when_some_leave():
    """A constant read by thousands of nodes: removals keep the others in order."""
    x = ft("x")
    c = Constant(ft, 2.0)
    outs = [mul(add(x, float(k)), c) for k in range(2000)]
    fg = FunctionGraph([x], outs, clone=False)
    expected = list(fg.clients[c])
    assert len(expected) == 2000
    rng = random.Random(0)
    for k in rng.sample(range(2000), 1500):
        fg.change_node_input(fg.get_output_client(k)[0], 0, x)
        expected.remove((outs[k].owner, 1))
    assert fg.clients[c] == expected
    fg.check_integrity()


# ------------------------------------------------------------------------------ copying
def _random_graph(seed: int, n_nodes: int, n_out: int):
    rng = random.Random(seed)
    ins = [ft(f"x{k}") for k in range(3)]
    pool = list(ins) + [Constant(ft, 1.5)]
    for _ in range(n_nodes):
        kind = rng.random()
        a = rng.choice(pool)
        if kind < 0.1:
            q, r = divmod_(a, rng.choice(pool))  # two outputs, maybe only one used
            v = q if rng.random() < 0.5 else r
        elif kind < 0.25:
            v = neg(a)
        elif kind < 0.6:
            v = add(a, rng.choice(pool))
        else:
            v = mul(a, rng.choice(pool) if rng.random() < 0.8 else 3.0)
        pool.append(v)
    outs = [rng.choice(pool[3:]) for _ in range(n_out)]
    if rng.random() < 0.3:
        outs.append(ins[0])  # an input that is also an output
    return ins, outs


def _shape(fg: FunctionGraph):
    """The graph's bookkeeping with objects replaced by stable positions."""
    nodes = list(fg.apply_nodes)
    npos = {n: k for k, n in enumerate(nodes)}
    vpos = {v: k for k, v in enumerate(fg.variables)}

    def var(v):
        return vpos[v]

    def client(c):
        node, i = c
        return ("output", node.op.idx, i) if isinstance(node.op, Output) else (npos[node], i)

    return (
        [(n.op.name if hasattr(n.op, "name") else str(n.op), [var(i) for i in n.inputs])
         for n in nodes],
        [type(v).__name__ for v in fg.variables],
        [var(v) for v in fg.inputs],
        [var(v) for v in fg.outputs],
        {var(v): [client(c) for c in cl] for v, cl in fg.clients.items()},
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 4))
def test_copy_matches_clone_then_import(seed, n_nodes, n_out):
    """``FunctionGraph(clone=True)`` builds what cloning, then importing, builds."""
    ins, outs = _random_graph(seed, n_nodes, n_out)
    fg = FunctionGraph(ins, outs)
    equiv = clone_get_equiv(ins, outs, copy_inputs=True, copy_orphans=True)
    ref = FunctionGraph([equiv[i] for i in ins], [equiv[o] for o in outs], clone=False)
    assert _shape(fg) == _shape(ref)
    fg.check_integrity()
    assert not set(fg.apply_nodes) & {o.owner for o in outs}  # the user's nodes stay out
    # the cached order is the io_toposort order
    assert fg.toposort() == io_toposort(fg.inputs, fg.outputs)


def test_copy_refuses_missing_inputs_like_import():
    x, y = ft("x"), ft("y")
    out = add(x, y)
    for make in (lambda: FunctionGraph([x], [out]), lambda: FunctionGraph([x], [y])):
        try:
            make()
        except ValueError as e:
            assert "'y'" in str(e)
        else:
            raise AssertionError("a missing input must be refused")


# ------------------------------------------------------------------------------ order cache
class _Before(Feature):
    """Orders the second node before the first (they are independent)."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def orderings(self, fgraph):
        return {self.first: [self.second]}


def test_attaching_an_ordering_feature_resets_the_cached_order():
    x = ft("x")
    a, b = neg(x), add(x, 1.0)
    fg = FunctionGraph([x], [a, b], clone=False)
    assert fg.toposort() == [a.owner, b.owner]
    feature = _Before(a.owner, b.owner)
    fg.attach_feature(feature)
    assert fg.toposort() == [b.owner, a.owner]
    fg.remove_feature(feature)
    assert fg.toposort() == [a.owner, b.owner]
    # a feature without orderings keeps the cache
    fg.toposort()
    cached = fg._topo
    fg.attach_feature(Feature())
    assert fg._topo is cached


def test_output_positions_follow_every_change_of_the_outputs():
    """``fgraph.outputs.index`` (a table built on first use, for PyMC's lookups of each
    variable's position) agrees with the list's own search after every kind of change."""
    import copy
    import pickle

    from theon.graph.clients import OutputList
    from theon.graph.fg import FunctionGraph
    from theon.scalar import float64, neg

    xs = [float64(f"x{i}") for i in range(6)]
    fg = FunctionGraph(xs, [neg(x) for x in xs] + [xs[0]], clone=False)
    outs = fg.outputs
    assert isinstance(outs, OutputList)

    def check() -> None:
        for v in [*outs, *xs]:
            want = list(outs).index(v) if v in list(outs) else None
            if want is None:
                with pytest.raises(ValueError):
                    outs.index(v)
            else:
                assert outs.index(v) == want

    check()
    fg.replace(outs[1], xs[1])  # an output replaced (the Output node sets outs[1])
    check()
    fg.remove_output(0)
    check()
    fg.add_output(xs[2])  # a repeated output: the first position counts
    check()
    for change in (lambda: outs.append(xs[3]), lambda: outs.insert(0, xs[4]),
                   lambda: outs.pop(), lambda: outs.remove(xs[4]), lambda: outs.reverse(),
                   lambda: outs.__setitem__(slice(0, 2), [xs[5], xs[5]]),
                   lambda: outs.__delitem__(0), lambda: outs.extend([xs[1]]),
                   lambda: outs.sort(key=str)):
        change()
        check()
    for other in (copy.copy(outs), copy.deepcopy(outs), pickle.loads(pickle.dumps(outs))):
        assert isinstance(other, OutputList) and len(other) == len(outs)
        assert [other.index(v) for v in other] == [list(other).index(v) for v in other]
