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
