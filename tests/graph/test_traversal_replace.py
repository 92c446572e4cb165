from theon.graph.basic import Constant
from theon.graph.replace import clone, clone_replace, equal_computations
from theon.graph.traversal import (
    ancestors,
    graph_inputs,
    io_toposort,
    orphans_between,
    toposort,
    variables,
)

from .toy import add, divmod_, ft, mul, neg


def build():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    b = mul(a, x)
    c = neg(b)
    d = add(c, a)
    return x, y, a, b, c, d


def test_ancestors_and_inputs():
    x, y, a, b, c, d = build()
    anc = ancestors([d])
    assert set(anc) == {x, y, a, b, c, d}
    assert graph_inputs([d]) == [x, y]
    assert graph_inputs([d], blockers=[a]) == [a, x]


def test_toposort_is_deterministic_and_valid():
    x, y, a, b, c, d = build()
    orders = {tuple(map(id, io_toposort([x, y], [d]))) for _ in range(5)}
    assert len(orders) == 1
    order = toposort([d])
    pos = {n: k for k, n in enumerate(order)}
    for n in order:
        for i in n.inputs:
            if i.owner is not None:
                assert pos[i.owner] < pos[n]
    assert [str(n.op) for n in order] == ["add", "mul", "neg", "add"]


def test_toposort_deep_chain_no_recursion():
    x = ft("x")
    v = x
    for _ in range(20000):
        v = neg(v)
    assert len(toposort([v])) == 20000
    assert len(ancestors([v])) == 20001


def test_variables_and_orphans():
    x = ft("x")
    q, r = divmod_(x, 2.0)
    vs = variables([x], [q])
    assert r in vs and q in vs
    orph = orphans_between([x], [q])
    assert len(orph) == 1 and isinstance(orph[0], Constant)


def test_clone_and_equal_computations():
    x, y, a, b, c, d = build()
    (nx, ny), (nd,) = clone([x, y], [d])
    assert nx is not x and nd is not d
    assert equal_computations([d], [nd], [x, y], [nx, ny])
    assert not equal_computations([d], [nd])  # inputs differ by identity
    _, (nd2,) = clone([x, y], [d], copy_inputs=False)
    assert equal_computations([d], [nd2])
    assert not equal_computations([d], [b])
    assert equal_computations([add(x, 1.0)], [add(x, 1.0)])  # equal constants
    assert not equal_computations([add(x, 1.0)], [add(x, 2.0)])


def test_clone_replace_leaves_user_graph():
    x, y, a, b, c, d = build()
    z = ft("z")
    nd = clone_replace(d, {a: z})
    assert a in ancestors([d])
    anc = ancestors([nd])
    assert z in anc and a not in anc and x in anc
    assert nd.eval({x: 2.0, z: 10.0}) == -(10.0 * 2.0) + 10.0


# issue 29 item 8: the orders of Theano and PyTensor, worked out by hand ---------------
# Theano's ``inputs``/``ancestors`` and PyTensor's ``graph_inputs``/``ancestors`` (before
# pymc-devs/pytensor#1596): a stack seeded with the roots as given (so the LAST root is
# taken first), and a node's inputs pushed reversed (so its first input is taken next).  Theano's
# ``variables``: the same stack pushing a node's inputs + outputs reversed.  PyTensor's
# ``vars_between``: a queue (breadth first) from the roots in order, appending a node's
# inputs + outputs reversed.  The expected lists below follow those rules step by step.


def test_issue29_item8_inputs_of_three_leaves_come_last_first():
    """Lasagne's ``get_all_params`` reads this order: ``inputs([x, y, z])`` is ``[z, y, x]``."""
    from theon.compile.sharedvalue import shared
    from theon.gof.graph import inputs

    x, y, z = ft("x"), ft("y"), ft("z")
    assert graph_inputs([x, y, z]) == [z, y, x]
    assert ancestors([x, y, z]) == [z, y, x]
    sx, sy, sz = shared(1.0, name="x"), shared(2.0, name="y"), shared(3.0, name="z")
    assert inputs([sx, sy, sz]) == [sz, sy, sx]
    assert inputs([add(sx, sy), sz]) == [sz, sx, sy]


def test_issue29_item8_ancestors_and_graph_inputs_by_hand():
    x, y, a, b, c, d = build()  # a = x + y, b = a * x, c = -b, d = c + a
    # [d] -> d; push a, c; c; push b; b; push x, a; a; push y, x; x; y
    assert ancestors([d]) == [d, c, b, a, x, y]
    assert ancestors([d], blockers=[b]) == [d, c, b, a, x, y]
    assert ancestors([d], blockers=[a]) == [d, c, b, a, x]
    assert graph_inputs([d], blockers=[b]) == [b, x, y]
    # two roots sharing x: the last root (q) first
    p, q = add(x, y), neg(x)
    assert ancestors([p, q]) == [q, x, p, y]
    assert ancestors([q, p]) == [p, x, y, q]
    assert graph_inputs([p, q]) == [x, y]
    # disjoint roots: the last root's inputs first, each node's inputs left to right
    z, w = ft("z"), ft("w")
    s, t = add(x, y), mul(z, w)
    assert ancestors([s, t]) == [t, z, w, s, x, y]
    assert graph_inputs([s, t]) == [z, w, x, y]
    assert graph_inputs([s, t], in_root_order=True) == [x, y, z, w]
    assert ancestors([s, t], in_root_order=True) == [s, x, y, t, z, w]


def test_issue29_item8_variables_theano_order_by_hand():
    x, y, z = ft("x"), ft("y"), ft("z")
    q, r = divmod_(x, y)
    s = add(q, z)
    # [s] -> s; push s, z, q; q; push r, q, y, x; x; y; (q); r; ...; z
    assert variables([x], [s]) == [s, q, x, y, r, z]
    assert variables([], [s, r]) == [r, x, y, q, s, z]
    X, Y, a, b, c, d = build()
    assert variables([X], [d]) == [d, c, b, a, X, Y]


def test_issue29_item8_vars_between_pytensor_order_by_hand():
    from theon.graph.traversal import vars_between

    x, y, z = ft("x"), ft("y"), ft("z")
    q, r = divmod_(x, y)
    s = add(q, z)
    # queue [s] -> s; append s, z, q; (s); z; q; append r, q, y, x; r; (...); y; x
    assert vars_between([x], [s]) == [s, z, q, r, y, x]
    assert vars_between([], [s, r]) == [s, r, z, q, y, x]
    assert orphans_between([x], [s]) == [z, y]
    X, Y, a, b, c, d = build()
    assert vars_between([X], [d]) == [d, a, c, Y, X, b]
    assert set(vars_between([X], [d])) == set(variables([X], [d]))


def test_issue29_item8_walk_breadth_and_depth_first():
    from theon.graph.traversal import walk

    kids = {"r": ["a", "b"], "a": ["c"], "b": ["d"]}

    def expand(n):
        return kids.get(n)

    assert walk(["r"], expand) == ["r", "a", "b", "c", "d"]
    assert walk(["r"], expand, bfs=False) == ["r", "b", "d", "a", "c"]
    assert walk(["a", "b"], expand, bfs=False) == ["b", "d", "a", "c"]


def test_issue29_item8_function_shared_inputs_keep_a_deterministic_order():
    """The implicit shared inputs of a function stay in the order of the outputs (the
    first output's first, as Theano's ``function``), whatever the traversals return."""
    import theon
    from theon.compile.sharedvalue import shared

    s1, s2, s3 = shared(1.0, name="s1"), shared(2.0, name="s2"), shared(3.0, name="s3")
    f = theon.function([], [add(s2, s1), neg(s3)])
    assert [v.name for v in f.maker.fgraph.inputs] == ["s2", "s1", "s3"]
    assert [i.variable for i in f.maker.inputs] == [s2, s1, s3]
    assert f() == [3.0, -3.0]
