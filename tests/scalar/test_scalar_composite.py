"""Composite: evaluation, identity, printing, generated Python code and gradients."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import theon
from theon import scalar as ts
from theon.graph.null_type import DisconnectedType, NullType
from theon.scalar import Composite
from theon.scalar.pyimpl import py_namespace

from .opspec import compile_fn
from .test_scalar_grad import check_scalar_grad, numeric_grad


def _xy() -> tuple[ts.ScalarVariable, ts.ScalarVariable]:
    return ts.float64("x"), ts.float64("y")


def test_str_and_structure() -> None:
    x, y = _xy()
    c = Composite([x, y], [ts.add(ts.mul(x, y), ts.exp(x))])
    assert str(c) == "Composite{add(mul(i0, i1), exp(i0))}"
    assert c.nin == 2 and c.nout == 1
    assert [str(n.op) for n in c.inner_nodes] == ["mul", "exp", "add"]
    # shared intermediates are bound once
    e = ts.exp(x)
    c2 = Composite([x], [ts.mul(e, e), ts.neg(x)])
    assert str(c2) == "Composite{t0=exp(i0); mul(t0, t0), neg(i0)}"
    # constants print by value
    assert str(Composite([x], [x * 2.0])) == "Composite{mul(i0, 2.0)}"


def test_inner_graph_is_cloned() -> None:
    x, y = _xy()
    z = x * y
    c = Composite([x, y], [z])
    assert c.inputs[0] is not x and c.outputs[0] is not z
    assert c.inputs[0].name == "i0"


def test_equality_follows_computation() -> None:
    x, y = _xy()
    a = Composite([x, y], [ts.add(ts.mul(x, y), 1.0)])
    u, v = _xy()
    b = Composite([u, v], [ts.add(ts.mul(u, v), 1.0)])
    assert a == b and hash(a) == hash(b)
    assert a != Composite([x, y], [ts.add(ts.mul(x, y), 2.0)])  # other constant
    assert a != Composite([y, x], [ts.add(ts.mul(x, y), 1.0)])  # inputs swapped
    f32 = ts.float32("x")
    assert a != Composite([f32, y], [ts.add(ts.mul(f32, y), 1.0)])  # other dtype
    assert Composite([x], [x * 0.0]) != Composite([x], [x * -0.0])


def test_evaluates_like_inner_graph() -> None:
    x, y = _xy()
    outs = [ts.add(ts.mul(x, y), ts.exp(x)), ts.true_div(ts.log(y), ts.sqr(x))]
    c = Composite([x, y], outs)
    node = c.make_node(x, y)
    assert [o.type for o in node.outputs] == [ts.float64, ts.float64]
    f_c = compile_fn([x, y], c(x, y))
    f_ref = compile_fn([x, y], outs)
    for p in [(0.5, 2.0), (-1.2, 3.5), (0.0, 0.0)]:
        got, want = f_c(*p), f_ref(*p)
        np.testing.assert_allclose(got, want, rtol=1e-15)
    # arrays
    xa, ya = np.linspace(0.1, 2, 7), np.linspace(1, 3, 7)
    r0, r1 = c.impl(xa, ya)
    np.testing.assert_allclose(r0, xa * ya + np.exp(xa), rtol=1e-15)
    np.testing.assert_allclose(r1, np.log(ya) / xa**2, rtol=1e-15)


def test_mixed_dtypes_and_constants() -> None:
    x, i = ts.float32("x"), ts.int8("i")
    out = ts.switch(ts.lt(i, 3), ts.sqrt(x) * 2.0, ts.cast(i, "float32"))
    c = Composite([x, i], [out])
    assert c.outputs[0].type == ts.float32
    f = compile_fn([x, i], c(x, i))
    assert f(np.float32(4.0), np.int8(1)) == np.float32(4.0)
    assert f(np.float32(4.0), np.int8(5)) == np.float32(5.0)
    assert f(np.float32(4.0), np.int8(1)).dtype == np.float32
    # weak Python numbers take the inner input's dtype
    assert c.make_node(1.5, 2).inputs[0].type == ts.float32
    with pytest.raises(TypeError, match="must have type"):
        c.make_node(ts.float64(), i)


def test_outputs_may_be_inputs_or_constants() -> None:
    x, y = _xy()
    c = Composite([x, y], [y, ts.constant(2.0), x + y])
    assert c.impl(np.float64(1.0), np.float64(5.0)) == (5.0, 2.0, 6.0)
    src = c.py_source("fn")
    ns = py_namespace()
    exec(src, ns)
    assert ns["fn"](1.0, 5.0) == (5.0, 2.0, 6.0)


def test_nested_composite() -> None:
    x, y = _xy()
    inner = Composite([x, y], [ts.mul(x, ts.exp(y))])
    u, v = _xy()
    outer = Composite([u, v], [ts.add(inner(u, v), u)])
    assert "Composite{mul(i0, exp(i1))}(i0, i1)" in str(outer)
    assert math.isclose(float(outer.impl(np.float64(2.0), np.float64(0.5))), 2 * math.exp(0.5) + 2)
    check_scalar_grad(lambda a, b: outer(a, b), [(0.3, 0.7), (-1.0, 2.0)])


def test_errors() -> None:
    x, y = _xy()
    with pytest.raises(ValueError, match="'?y'?.*not among its inputs"):
        Composite([x], [x + y])
    with pytest.raises(TypeError, match="scalar Variable"):
        Composite([theon.Generic()("g")], [x])
    with pytest.raises(ValueError, match="distinct"):
        Composite([x, x], [x])
    with pytest.raises(TypeError, match="takes 2 inputs"):
        Composite([x, y], [x + y])(x)


def test_pickle_roundtrip() -> None:
    x, y = _xy()
    c = Composite([x, y], [ts.add(ts.mul(x, y), ts.cast(x, "float32"))])
    c2 = pickle.loads(pickle.dumps(c))
    assert c2 == c and str(c2) == str(c)


def _close(g: float, w: float) -> bool:
    """Equal, both nan, or within a few ulp (math and NumPy may round differently)."""
    if math.isnan(w):
        return math.isnan(g)
    return g == w or (math.isfinite(w) and abs(g - w) <= 4e-16 * abs(w))


EDGE = [0.0, -0.0, 1.5, -2.0, 710.0, math.inf, -math.inf, math.nan]


def _chain() -> tuple[Composite, list[ts.ScalarVariable]]:
    x, y = _xy()
    t = ts.exp(ts.neg(ts.sqr(x)))
    outs = [
        ts.add(ts.true_div(t, y), ts.log(ts.abs(y))),
        ts.switch(ts.lt(x, y), ts.tanh(x), ts.maximum(t, y)),
    ]
    return Composite([x, y], outs), [x, y]


def test_py_source_matches_impl_on_edge_values() -> None:
    c, _ = _chain()
    src = c.py_source("chain")
    assert src is not None and src.startswith("def chain(i0, i1):")
    ns = py_namespace()
    exec(src, ns)
    fn = ns["chain"]
    for a in EDGE:
        for b in EDGE:
            got = fn(a, b)
            with np.errstate(all="ignore"):
                want = c.impl(np.float64(a), np.float64(b))
            for g, w in zip(got, want):
                assert type(g) is float
                assert _close(g, float(w)), (a, b, got, want)


def test_py_expr_single_output() -> None:
    x, y = _xy()
    e = ts.exp(x)
    c = Composite([x, y], [ts.add(ts.mul(e, e), ts.true_div(y, e))])
    expr = c.py_expr("a", "b")
    assert expr is not None and ":=" in expr
    node = c.make_node(x, y)
    assert c.py_expr_ok(node)
    ns = py_namespace()
    for a, b in [(0.5, 2.0), (800.0, 1.0), (-800.0, 0.0), (math.nan, 1.0)]:
        got = eval(expr, ns, {"a": a, "b": b})
        with np.errstate(all="ignore"):
            want = float(c.impl(np.float64(a), np.float64(b)))
        assert _close(got, want)
    # several outputs, or dtypes without a float64 Python spelling: no expression
    assert _chain()[0].py_expr("a", "b") is None
    f32 = ts.float32("f")
    c32 = Composite([f32], [ts.exp(f32)])
    assert not c32.py_expr_ok(c32.make_node(f32))
    assert c32.py_source() is None


def test_grad_matches_inner_graph_numerically() -> None:
    c, _ = _chain()
    x, y = _xy()
    outs = c(x, y)
    for k in range(2):
        f = compile_fn([x, y], outs[k])
        gz = [ts.constant(1.0 if j == k else 0.0) for j in range(2)]
        gs = c.L_op([x, y], outs, gz)
        g = compile_fn([x, y], gs)
        for p in [(0.3, 1.7), (-0.4, -2.2), (1.2, 0.5)]:
            num = numeric_grad(f, p)
            ana = g(*p)
            np.testing.assert_allclose(ana, num, rtol=1e-5, atol=1e-7)


def test_grad_with_disconnected_output_and_int_input() -> None:
    x, i = ts.float64("x"), ts.int32("i")
    c = Composite([x, i], [ts.mul(x, i), ts.exp(x)])
    xv, iv, g0 = ts.float64("xv"), ts.int32("iv"), ts.float64("g0")
    outs = c(xv, iv)
    gx, gi = c.L_op([xv, iv], outs, [g0, DisconnectedType()()])
    assert isinstance(gi.type, DisconnectedType)
    assert gx.type == ts.float64
    f = compile_fn([xv, iv, g0], gx, on_unused_input="ignore")
    assert f(0.5, np.int32(3), 2.0) == 6.0  # only the first output's path counts
    # an input no output depends on is disconnected
    u = ts.float64("u")
    c2 = Composite([x, u], [ts.exp(x)])
    assert isinstance(c2.grad([x, u], [ts.float64()])[1].type, DisconnectedType)


def test_grad_null_propagates() -> None:
    x = ts.float64("x")

    class NoGrad(ts.UnaryScalarOp):
        name = "nograd"
        ufunc = np.positive

        def grad(self, inputs, output_grads):  # type: ignore[no-untyped-def]
            from theon.graph.null_type import grad_undefined

            return [grad_undefined(self, 0, inputs[0], "test")]

    c = Composite([x], [ts.exp(NoGrad()(x)) + x])
    (g,) = c.grad([x], [ts.constant(1.0)])
    assert isinstance(g.type, NullType) and "nograd" in g.type.why_null


def test_r_op_multi_output() -> None:
    c, _ = _chain()
    x, y = _xy()
    vx, vy = ts.float64("vx"), ts.float64("vy")
    rs = c.R_op([x, y], [vx, vy])
    assert len(rs) == 2
    f = compile_fn([x, y, vx, vy], rs)
    outs = c(x, y)
    for k in range(2):
        fk = compile_fn([x, y], outs[k])
        num = numeric_grad(fk, [0.3, 1.7])
        assert math.isclose(
            float(f(0.3, 1.7, 0.5, -2.0)[k]), num[0] * 0.5 - 2.0 * num[1], rel_tol=1e-5
        )


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.sampled_from(["add", "mul", "sub", "exp", "tanh", "sin", "neg", "sqr"]),
        min_size=1,
        max_size=8,
    ),
    st.floats(-2, 2),
    st.floats(-2, 2),
)
def test_random_chains_evaluate_and_differentiate(ops: list[str], a: float, b: float) -> None:
    x, y = _xy()
    vals = [x, y]
    for k, name in enumerate(ops):
        op = getattr(ts, name)
        args = [vals[-1], vals[k % len(vals)]] if op.nin != 1 else [vals[-1]]
        vals.append(op(*args[: max(op.nin, 2) if op.nin < 0 else op.nin]))
    out = vals[-1]
    if out is x or out is y:
        return
    c = Composite([x, y], [out])
    f_ref = compile_fn([x, y], out, on_unused_input="ignore")
    # keep finite differences meaningful; an intermediate that overflows (tanh(exp(inf)))
    # makes the exact gradient 0 * inf = nan however the output looks
    steps = compile_fn([x, y], vals[2:], on_unused_input="ignore")(a, b)
    assume(all(abs(float(v)) < 1e6 for v in steps))
    f_c = compile_fn([x, y], c(x, y), on_unused_input="ignore")
    assert math.isclose(float(f_c(a, b)), float(f_ref(a, b)), rel_tol=1e-14, abs_tol=1e-300)
    ns = py_namespace()
    exec(c.py_source("g"), ns)
    # `math` may differ from NumPy by an ulp, and a subtraction can magnify that
    assert math.isclose(ns["g"](a, b), float(f_ref(a, b)), rel_tol=1e-10, abs_tol=1e-13)
    gs = c.grad([x, y], [ts.constant(1.0)])
    connected = [g for g in gs if not isinstance(g.type, DisconnectedType)]
    gf = compile_fn([x, y], connected, on_unused_input="ignore")
    num = numeric_grad(f_ref, [a, b])
    assume(all(abs(v) < 1e3 for v in num))  # steep points defeat finite differences
    # the finite-difference error, estimated from a second step size
    err = [abs(u - v) for u, v in zip(num, numeric_grad(f_ref, [a, b], eps=3e-6))]
    ana = gf(a, b)
    k = 0
    for i, g in enumerate(gs):
        if isinstance(g.type, DisconnectedType):
            assert num[i] == 0
            continue
        tol = 1e-5 * max(1.0, abs(num[i])) + 10 * err[i]
        assert abs(float(ana[k]) - num[i]) <= tol, (ops, i)
        k += 1


def test_fresh_composite_adopts_its_graph_and_equals_the_copied_one():
    import theon.scalar as ts_

    def build():
        a, b = ts_.float64("a"), ts_.float64("b")
        return [a, b], [ts_.add(ts_.mul(a, b), ts_.exp(a))]

    ins, outs = build()
    adopted = Composite(ins, outs, fresh=True)
    assert adopted.inputs[0] is ins[0] and adopted.outputs[0] is outs[0]
    assert [v.name for v in adopted.inputs] == ["i0", "i1"]
    copied = Composite(*build())
    assert adopted == copied and hash(adopted) == hash(copied)
    assert str(adopted) == str(copied) == "Composite{add(mul(i0, i1), exp(i0))}"
    assert float(adopted.impl(np.float64(0.0), np.float64(2.0))) == 1.0
