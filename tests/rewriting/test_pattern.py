"""Declarative pattern rewrites on toy ops (the seed's x*y/y -> x among them)."""

import pytest

import theon
from theon.graph.basic import Constant
from theon.graph.fg import FunctionGraph
from theon.rewriting import PatternNodeRewriter, in2out

from .toy import Binary, add, exp, ft, mul, neg, sub, to_int, true_div

xy_over_y = PatternNodeRewriter((true_div, (mul, "x", "y"), "y"), "x", name="xy_over_y")


def test_seed_xy_over_y():
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [true_div(mul(x, y), y)])
    in2out(xy_over_y)(fg)
    assert fg.outputs[0] is fg.inputs[0]
    assert fg.apply_nodes == {}


def test_pattern_variables_must_bind_the_same_variable():
    x, y, z = ft("x"), ft("y"), ft("z")
    fg = FunctionGraph([x, y, z], [true_div(mul(x, y), z)])
    in2out(xy_over_y)(fg)
    assert fg.outputs[0].owner.op == true_div
    assert len(fg.apply_nodes) == 2


def test_equal_constants_bind_one_pattern_variable():
    x = ft("x")
    fg = FunctionGraph([x], [true_div(mul(x, 2.0), 2.0)])  # two distinct Constant objects
    in2out(xy_over_y)(fg)
    assert fg.outputs[0] is fg.inputs[0]


def test_constraint_on_a_variable():
    only_constant_y = PatternNodeRewriter(
        (true_div, (mul, "x", "y"), {"pattern": "y", "constraint": lambda v: isinstance(
            v, Constant)}),
        "x",
    )
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [true_div(mul(x, y), y)])
    in2out(only_constant_y)(fg)
    assert len(fg.apply_nodes) == 2
    fg = FunctionGraph([x], [true_div(mul(x, 3.0), 3.0)])
    in2out(only_constant_y)(fg)
    assert fg.outputs[0] is fg.inputs[0]


def test_constraint_on_a_subpattern_and_class_head():
    rw = PatternNodeRewriter(
        {"pattern": (Binary, "a", "b"), "constraint": lambda v: v.owner.op.name == "sub"},
        (add, "a", (neg, "b")),
    )
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [sub(x, y)])
    in2out(rw)(fg)
    out = fg.outputs[0]
    assert out.owner.op == add and out.owner.inputs[1].owner.op == neg
    fg2 = FunctionGraph([x, y], [mul(x, y)])
    in2out(rw)(fg2)
    assert fg2.outputs[0].owner.op == mul


def test_literal_constants_in_patterns():
    mul_one = PatternNodeRewriter((mul, "x", 1), "x", name="mul_one")
    x = ft("x")
    fg = FunctionGraph([x], [mul(x, 1.0)])
    in2out(mul_one)(fg)
    assert fg.outputs[0] is fg.inputs[0]
    fg = FunctionGraph([x], [mul(x, 2.0)])
    in2out(mul_one)(fg)
    assert fg.outputs[0].owner is not None


def test_out_pattern_builds_with_plain_callables_and_literals():
    def double(v):
        return mul(v, 2.0)

    rw = PatternNodeRewriter((add, "x", "x"), (double, "x"))
    x = ft("x")
    fg = FunctionGraph([x], [add(x, x)])
    in2out(rw)(fg)
    node = fg.outputs[0].owner
    assert node.op == mul and node.inputs[1].data == 2.0
    f = theon.function([x], add(x, x), mode=theon.compile.mode.Mode("vm", optimizer=None))
    assert f(3.0) == 6.0


def test_pattern_skips_inner_nodes_with_other_clients():
    x, y = ft("x"), ft("y")
    xy = mul(x, y)
    fg = FunctionGraph([x, y], [true_div(xy, y), exp(xy)])
    in2out(xy_over_y)(fg)
    assert len(fg.apply_nodes) == 3  # x*y is still needed by exp: nothing is gained
    multi = PatternNodeRewriter(
        (true_div, (mul, "x", "y"), "y"), "x", allow_multiple_clients=True
    )
    in2out(multi)(fg)
    assert fg.outputs[0] is fg.inputs[0]


def test_pattern_skips_type_changes():
    rw = PatternNodeRewriter((neg, "x"), (to_int, "x"))
    x = ft("x")
    fg = FunctionGraph([x], [neg(x)])
    in2out(rw)(fg)
    assert fg.outputs[0].owner.op == neg


def test_pattern_errors_are_clear():
    with pytest.raises(TypeError, match="op at its root"):
        PatternNodeRewriter({"pattern": "x"}, "x")
    with pytest.raises(TypeError, match="must be a tuple"):
        PatternNodeRewriter("x", "x")
    with pytest.raises(TypeError, match="symbolic variable"):
        PatternNodeRewriter((neg, ft("x")), "x")
    with pytest.raises(ValueError, match="unknown keys"):
        PatternNodeRewriter((neg, {"pattern": "x", "constrant": bool}), "x")
    rw = PatternNodeRewriter((neg, "x"), (neg, "z"))
    x = ft("x")
    fg = FunctionGraph([x], [neg(x)])
    with pytest.raises(KeyError, match="does not bind"):
        in2out(rw)(fg)


def test_pattern_name_and_doc_state_the_math():
    assert xy_over_y.__doc__ == "(true_div, (mul, x, y), y) -> x"
    assert xy_over_y.tracks() == [true_div]
