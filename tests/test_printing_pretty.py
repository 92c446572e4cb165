"""pprint: infix math with the fewest parentheses, checked against exact text and against Python."""

from __future__ import annotations

import random

import numpy as np
import pytest

import theon
import theon.scalar as ts
import theon.tensor as T
from theon.printing import pp, pprint

x, y, z = T.dvector("x"), T.dvector("y"), T.dvector("z")
m, W = T.dmatrix("m"), T.dmatrix("W")
n = T.lscalar("n")
v = T.lvector("v")

CASES = [
    # indexing
    (lambda: x[0], "x[0]"),
    (lambda: m[1:3, ::2], "m[1:3, ::2]"),
    (lambda: m[:, 0], "m[:, 0]"),
    (lambda: x[n:], "x[n:]"),
    (lambda: x[1 : n + 1], "x[1:n + 1]"),
    (lambda: x[v], "x[v]"),
    (lambda: (x + y)[0], "(x + y)[0]"),
    (lambda: T.set_subtensor(x[0], 1.0), "set_subtensor(x[0], 1.0)"),
    (lambda: T.inc_subtensor(m[0], y), "inc_subtensor(m[0], y)"),
    # arithmetic and precedence
    (lambda: (x + y) * T.exp(z), "(x + y) * exp(z)"),
    (lambda: x + y * z, "x + y * z"),
    (lambda: x * y + z, "x * y + z"),
    (lambda: x - y - z, "x - y - z"),
    (lambda: x - (y - z), "x - (y - z)"),
    (lambda: x - (y + z), "x - (y + z)"),
    (lambda: x / y / z, "x / y / z"),
    (lambda: x / (y * z), "x / (y * z)"),
    (lambda: x // y % z, "x // y % z"),
    (lambda: -x, "-x"),
    (lambda: -(x + y), "-(x + y)"),
    (lambda: T.neg(-x), "-(-x)"),
    (lambda: x**2, "x ** 2"),
    (lambda: -(x**2), "-x ** 2"),
    (lambda: (-x) ** 2, "(-x) ** 2"),
    (lambda: (x + 1) ** 2, "(x + 1) ** 2"),
    (lambda: x ** (y**z), "x ** y ** z"),
    (lambda: (x**y) ** z, "(x ** y) ** z"),
    (lambda: x**-y, "x ** (-y)"),
    (lambda: x * -1.5, "x * -1.5"),
    (lambda: (x > y) & (y > z), "(x > y) & (y > z)"),
    (lambda: ~(x > 0), "~(x > 0)"),
    (lambda: T.eq(x < y, y < z), "(x < y) == (y < z)"),
    (lambda: x + y > z * 2, "x + y > z * 2"),
    # functions
    (lambda: T.nnet.softmax(m, axis=-1), "softmax(m, axis=-1)"),
    (lambda: T.nnet.softmax(m, axis=0), "softmax(m, axis=0)"),
    (lambda: T.exp(T.log1p(x**2)), "exp(log1p(x ** 2))"),
    (lambda: T.nnet.sigmoid(x * 2), "sigmoid(x * 2)"),
    (lambda: abs(x - y), "abs(x - y)"),
    (lambda: T.maximum(x, 0), "maximum(x, 0)"),
    (lambda: T.switch(x > 0, x, 0), "switch(x > 0, x, 0)"),
    (lambda: T.dot(m, W), "dot(m, W)"),
    (lambda: m @ W, "dot(m, W)"),
    (lambda: m.T, "m.T"),
    (lambda: (m + W).T, "(m + W).T"),
    (lambda: T.dot(m.T, W).T, "dot(m.T, W).T"),
    (lambda: m.dimshuffle(0, "x", 1), "m.dimshuffle(0, 'x', 1)"),
    (lambda: T.sum(m, axis=1), "sum(m, axis=1)"),
    (lambda: T.sum(m, axis=(0, 1)), "sum(m, axis=(0, 1))"),
    (lambda: m.sum(), "sum(m)"),
    (lambda: T.max(m, axis=0) + 1, "max(m, axis=0) + 1"),
    (lambda: T.argmax(m, axis=1), "argmax(m, axis=1)"),
    (lambda: T.cast(x, "float32"), "cast(x, 'float32')"),
    (lambda: x.astype("int32") * 2, "cast(x, 'int32') * 2"),
    (lambda: m.shape[0], "m.shape[0]"),
    (lambda: T.concatenate([x, y]), "concatenate([x, y], axis=0)"),
    (lambda: x.reshape((2, -1)), "reshape(x, [2, -1])"),
]


@pytest.mark.parametrize(("build", "expected"), CASES, ids=[c[1] for c in CASES])
def test_pprint_exact(build, expected) -> None:
    assert pprint(build()) == expected


def test_names_constants_lists_and_graph_forms() -> None:
    h = T.tanh(x + y)
    h.name = "h"
    out = h * 2 + h
    assert pprint(out) == "h * 2 + h"  # a named intermediate prints as its name
    assert pprint(h) == "tanh(x + y)"  # the variable asked for is expanded
    assert pprint([h, out]) == "tanh(x + y), h * 2 + h"
    assert pprint(out.owner) == "h * 2 + h"
    assert pprint(x + np.array([1.0, 2.0])) == "x + [1.0, 2.0]"
    assert pprint(x + np.array([3])) == "x + 3"  # one element: a broadcast number
    big = np.zeros((3, 4))
    assert pprint(m + big) == "m + <float64 constant of shape (3, 4)>"
    assert pprint(x) == "x"
    assert pp is pprint and theon.pp is pprint
    with pytest.raises(TypeError, match="cannot print"):
        pprint(3)


def test_compiled_function_prints_fused_expressions() -> None:
    f = theon.function([x, y, z], (x + y) * T.exp(z))
    assert [type(nd.op.scalar_op).__name__ for nd in f.maker.fgraph.toposort()] == ["Composite"]
    assert pprint(f) == "(x + y) * exp(z)"
    assert pprint(f.maker.fgraph) == "(x + y) * exp(z)"
    g = theon.function([x, y], [T.sum((x - y) ** 2), x * 2])
    assert pprint(g) == "sum(sqr(x - y)), x * 2.0"


def test_scalar_graphs() -> None:
    a, b = ts.float64("a"), ts.float64("b")
    assert pprint(ts.exp(ts.mul(a, 2.0))) == "exp(a * 2.0)"
    assert pprint(ts.add(a, b, a)) == "a + b + a"
    assert pprint(ts.neg(ts.sub(a, b))) == "-(a - b)"
    c = ts.Composite([a, b], [ts.mul(ts.add(a, b), b)])
    assert pprint(c(ts.float64("p"), ts.float64("q"))) == "(p + q) * q"


def test_shared_subexpressions_are_bound_once() -> None:
    e = T.exp(x * y + T.log1p(z * z) - T.sqrt(x))
    assert len(pprint(e)) > 30
    out = e * e + e
    text = pprint(out)
    assert text.splitlines() == ["t0 = exp(x * y + log1p(z * z) - sqrt(x))", "t0 * t0 + t0"]
    t0 = T.dvector("t0")  # a bound name never hides a user's variable
    assert pprint(e * e + t0).splitlines() == [
        "t1 = exp(x * y + log1p(z * z) - sqrt(x))", "t1 * t1 + t0"]
    # doubling at each level would be 2**40 copies without the binding
    s = x
    for _ in range(40):
        s = T.tanh(s + s * 0.5 + 1.0) * s
    lines = pprint(s).splitlines()
    assert 20 < len(lines) <= 41 and sum(len(t) for t in lines) < 6000
    assert all(t.startswith(f"t{k} = ") for k, t in enumerate(lines[:-1]))


def test_deep_chains_do_not_recurse() -> None:
    s = x
    for _ in range(5000):
        s = s + 1.0
    assert pprint(s) == "x" + " + 1.0" * 5000
    e = x
    for _ in range(5000):
        e = T.exp(e)
    assert pprint(e) == "exp(" * 5000 + "x" + ")" * 5000


# the parentheses keep the meaning: the printed text, evaluated by Python, gives the graph's value
_BIN = [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
        ("div", lambda a, b: a / b), ("pow", lambda a, b: abs(a) ** b)]


def _random_tree(rng: random.Random, depth: int):
    """A random expression, built twice: as a theon graph and as a NumPy value."""
    names = {"x": np.array([0.7, 1.3]), "y": np.array([1.9, 0.4]), "z": np.array([1.1, 2.3])}
    if depth == 0 or rng.random() < 0.2:
        name = rng.choice(sorted(names))
        return {"x": x, "y": y, "z": z}[name], names[name]
    k = rng.randrange(len(_BIN) + 2)
    if k == len(_BIN):
        g, val = _random_tree(rng, depth - 1)
        return -g, -val
    if k == len(_BIN) + 1:
        g, val = _random_tree(rng, depth - 1)
        return T.exp(g * 0.1), np.exp(val * 0.1)
    a, va = _random_tree(rng, depth - 1)
    b, vb = _random_tree(rng, depth - 1)
    name, fn = _BIN[k]
    if name == "pow":
        return abs(a) ** b, fn(va, vb)
    return fn(a, b), fn(va, vb)


def test_printed_text_evaluates_to_the_graph_value() -> None:
    rng = random.Random(17)
    env = {"x": np.array([0.7, 1.3]), "y": np.array([1.9, 0.4]), "z": np.array([1.1, 2.3]),
           "exp": np.exp, "abs": np.abs}
    checked = 0
    for _ in range(300):
        with np.errstate(all="ignore"):
            g, expected = _random_tree(rng, 5)
            text = pprint(g)
            got = eval(text, {"__builtins__": {}}, env)
        if np.isfinite(expected).all():
            checked += 1
            np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=text)
    assert checked > 200


def test_ops_outside_the_tables_and_subclasses() -> None:
    from theon.graph.basic import Apply
    from theon.graph.op import Op
    from theon.tensor.subtensor import Subtensor

    class Pair(Op):
        __props__ = ()

        def make_node(self, a):
            return Apply(self, [a], [a.type(), a.type()])

    first, second = Pair()(x + 1)
    assert pprint([first, second * 2]) == "Pair(x + 1)[0], Pair(x + 1)[1] * 2"

    class MySubtensor(Subtensor):  # printed by its base class's row
        pass

    assert pprint(MySubtensor([0])(m)) == "m[0]"


def test_dprint_print_shape_gives_each_static_shape():
    """PyTensor's ``debugprint(..., print_shape=True)`` (PyMC's model printing uses it)."""
    import theon
    import theon.tensor as tt

    x = tt.TensorType("float64", shape=(None, 3))("x")
    text = theon.printing.dprint(x.T * 2, print_shape=True, file="str")
    assert "x [id" in text and "shape=(?, 3)" in text and "shape=(3, ?)" in text
    assert "shape=" not in theon.printing.dprint(x.T * 2, file="str")
    v = tt.dvector("v")
    assert "v [id B] shape=(?,)" in theon.printing.dprint(v * 2, print_shape=True, file="str")
