"""Theano's graph walks under Theano's paths keep Theano's orders (issue 29 item 8).

Theano's ``inputs``/``ancestors``: one stack seeded with the roots as given (the LAST
root is taken first); a taken variable's owner's inputs pushed reversed (its FIRST input
is taken next); a variable marked when taken.  ``variables``: the same stack, pushing a
node's inputs + outputs reversed.  Aesara's ``vars_between``: a queue (breadth first)
from the roots in order, appending a node's inputs + outputs reversed.  Each expected
list below follows those rules step by step; PyTensor's orders are tested in
tests/graph/test_traversal_replace.py.
"""

from __future__ import annotations

import theon.graph.traversal as pytensor_order
from tests.graph.toy import add, divmod_, ft, mul, neg
from theon.gof.graph import ancestors, inputs, orphans, variables, vars_between


def build():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    b = mul(a, x)
    c = neg(b)
    d = add(c, a)
    return x, y, a, b, c, d


def test_issue29_item8_theano_inputs_of_three_leaves_come_last_first():
    """Lasagne's ``get_all_params`` reads this order."""
    from theon.compile.sharedvalue import shared

    x, y, z = ft("x"), ft("y"), ft("z")
    assert inputs([x, y, z]) == [z, y, x]
    assert ancestors([x, y, z]) == [z, y, x]
    sx, sy, sz = shared(1.0, name="x"), shared(2.0, name="y"), shared(3.0, name="z")
    assert inputs([sx, sy, sz]) == [sz, sy, sx]
    # [add, sz] -> sz; add: push sy, sx (reversed); sx; sy
    assert inputs([add(sx, sy), sz]) == [sz, sx, sy]
    assert pytensor_order.graph_inputs([add(sx, sy), sz]) == [sz, sy, sx]


def test_issue29_item8_theano_ancestors_and_inputs_by_hand():
    x, y, a, b, c, d = build()  # a = x + y, b = a * x, c = -b, d = c + a
    # [d] -> d; push a, c; c; push b; b; push x, a; a; push y, x; x; y
    assert ancestors([d]) == [d, c, b, a, x, y]
    assert ancestors([d], blockers=[b]) == [d, c, b, a, x, y]
    assert ancestors([d], blockers=[a]) == [d, c, b, a, x]
    # Theano's inputs are the owner-less ancestors only: a blocker with an owner is not one
    assert inputs([d]) == [x, y]
    assert inputs([d], blockers=[b]) == [x, y]
    assert inputs([d], blockers=[x]) == [x, y]
    p, q = add(x, y), neg(x)
    assert ancestors([p, q]) == [q, x, p, y]
    assert ancestors([q, p]) == [p, x, y, q]
    z, w = ft("z"), ft("w")
    s, t = add(x, y), mul(z, w)
    assert ancestors([s, t]) == [t, z, w, s, x, y]
    assert inputs([s, t]) == [z, w, x, y]
    # r = (u + v) + (-u): r; push neg, add (reversed); add; push v, u; u; v; neg; (u)
    u, v = ft("u"), ft("v")
    r = add(add(u, v), neg(u))
    assert ancestors([r]) == [r, r.owner.inputs[0], u, v, r.owner.inputs[1]]
    assert pytensor_order.ancestors([r]) == [r, r.owner.inputs[1], u, r.owner.inputs[0], v]


def test_issue29_item8_theano_variables_and_orphans_by_hand():
    x, y, z = ft("x"), ft("y"), ft("z")
    q, r = divmod_(x, y)
    s = add(q, z)
    # [s] -> s; push s, z, q; q; push r, q, y, x; x; y; (q); r; ...; z
    assert variables([x], [s]) == [s, q, x, y, r, z]
    assert variables([], [s, r]) == [r, x, y, q, s, z]
    assert orphans([x], [s]) == [y, z]
    X, Y, a, b, c, d = build()
    assert variables([X], [d]) == [d, c, b, a, X, Y]


def test_issue29_item8_aesara_vars_between_by_hand():
    x, y, z = ft("x"), ft("y"), ft("z")
    q, r = divmod_(x, y)
    s = add(q, z)
    # queue [s] -> s; append s, z, q; (s); z; q; append r, q, y, x; r; (...); y; x
    assert vars_between([x], [s]) == [s, z, q, r, y, x]
    assert vars_between([], [s, r]) == [s, r, z, q, y, x]
    X, Y, a, b, c, d = build()
    # d; append d, a, c; a; append a, Y, X; c; append c, b; Y; X; b
    assert vars_between([X], [d]) == [d, a, c, Y, X, b]
    assert set(vars_between([X], [d])) == set(variables([X], [d]))
    assert vars_between([X], [d]) != pytensor_order.vars_between([X], [d])
