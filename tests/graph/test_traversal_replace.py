from theon.graph.basic import Constant
from theon.graph.replace import clone, clone_replace, equal_computations
from theon.graph.traversal import (
    ancestors,
    explicit_graph_inputs,
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
    assert graph_inputs([d]) == [y, x]
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


# issue 29 item 8: PyTensor 2.38's orders, worked out by hand -------------------------
# ``ancestors``/``graph_inputs``: one stack, seeded with the roots as given (so the LAST
# root is taken first); a taken variable's owner's inputs are pushed as they stand (so
# its LAST input is taken next); a variable is marked when taken.  ``vars_between``: the
# same stack, pushing a node's inputs then its outputs.  Theano's orders (a node's first
# input first) are theon.gof.graph's: tests/compat/test_theano_graph.py.  The expected
# lists follow those rules step by step (and equal what PyTensor 2.38.3 and 3.0.7 give).


def test_issue29_item8_inputs_of_three_leaves_come_last_first():
    """PyMC seeds its generators in ``graph_inputs`` order: ``[x, y, z]`` gives ``[z, y, x]``,
    and a node's inputs come last first."""
    from theon.compile.sharedvalue import shared

    x, y, z = ft("x"), ft("y"), ft("z")
    assert graph_inputs([x, y, z]) == [z, y, x]
    assert ancestors([x, y, z]) == [z, y, x]
    sx, sy, sz = shared(1.0, name="x"), shared(2.0, name="y"), shared(3.0, name="z")
    assert graph_inputs([sx, sy, sz]) == [sz, sy, sx]
    # [add, sz] -> sz; add: push sx, sy; sy; sx
    assert graph_inputs([add(sx, sy), sz]) == [sz, sy, sx]
    assert explicit_graph_inputs([add(x, y), z]) == [z, y, x]


def test_issue29_item8_ancestors_and_graph_inputs_by_hand():
    x, y, a, b, c, d = build()  # a = x + y, b = a * x, c = -b, d = c + a
    # [d] -> d; push c, a; a; push x, y; y; x; c; push b; b; push a, x (both seen)
    assert ancestors([d]) == [d, a, y, x, c, b]
    assert ancestors([d], blockers=[b]) == [d, a, y, x, c, b]
    # a blocked: d; push c, a; a; c; push b; b; push a, x; x
    assert ancestors([d], blockers=[a]) == [d, a, c, b, x]
    assert graph_inputs([d]) == [y, x]
    assert graph_inputs([d], blockers=[b]) == [y, x, b]  # (theon lists a cut blocker)
    # two roots sharing x: the last root (q) first
    p, q = add(x, y), neg(x)
    assert ancestors([p, q]) == [q, x, p, y]
    assert ancestors([q, p]) == [p, y, x, q]
    assert graph_inputs([p, q]) == [x, y]
    # disjoint roots: the last root's inputs first, each node's inputs right to left
    z, w = ft("z"), ft("w")
    s, t = add(x, y), mul(z, w)
    assert ancestors([s, t]) == [t, w, z, s, y, x]
    assert graph_inputs([s, t]) == [w, z, y, x]
    # theon's order of a function's implicit inputs: roots and inputs left to right
    assert graph_inputs([s, t], in_root_order=True) == [x, y, z, w]
    assert ancestors([s, t], in_root_order=True) == [s, x, y, t, z, w]


def test_issue29_item8_a_variable_is_marked_when_taken_not_when_pushed():
    from theon.graph.traversal import apply_ancestors, preorder

    u, v = ft("u"), ft("v")
    w = neg(u)
    r = add(add(u, v), w)
    # r; push add.0, w; w; push u; u; add.0; push u, v; v; (u)
    assert ancestors([r]) == [r, w, u, r.owner.inputs[0], v]
    # marking at push time would give [r, w, add.0, v, u]; Theano's order is left to right:
    # r; push w, add.0 (reversed); add.0; push v, u; u; v; w
    assert preorder([r], last_input_first=False) == [r, r.owner.inputs[0], u, v, w]
    assert apply_ancestors([r]) == [r.owner, w.owner, r.owner.inputs[0].owner]
    # PyTensor lists a blocker's owner (the blocker is an ancestor), not the nodes behind it
    x, y, a, b, c, d = build()
    assert apply_ancestors([d], blockers=[b]) == [d.owner, a.owner, c.owner, b.owner]


def test_issue29_item8_vars_between_pytensor_order_by_hand():
    from theon.graph.traversal import vars_between

    x, y, z = ft("x"), ft("y"), ft("z")
    q, r = divmod_(x, y)
    s = add(q, z)
    # [s] -> s; push q, z, s; (s); z; q; push x, y, q, r; r; push x, y, q, r; (r, q); y; x
    assert vars_between([x], [s]) == [s, z, q, r, y, x]
    # [s, r] -> r; push x, y, q, r; (r); q; push again; (r, q); y; x; ...; s; push q, z, s; z
    assert vars_between([], [s, r]) == [r, q, y, x, s, z]
    assert orphans_between([x], [s]) == [z, y]
    assert vars_between([q], [s]) == [s, z, q]  # q is an input: not expanded
    X, Y, a, b, c, d = build()
    # d; push c, a, d; (d); a; push X, Y, a; (a); Y; X; c; push b, c; (c); b; push a, X, b
    assert vars_between([X], [d]) == [d, a, Y, X, c, b]
    assert variables([X], [d]) == vars_between([X], [d])


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
