"""Declarative pattern rewrites on toy ops (the seed's x*y/y -> x among them)."""

import pytest

import theon
from theon.graph.basic import Constant
from theon.graph.fg import FunctionGraph
from theon.rewriting import PatternNodeRewriter, in2out
from theon.rewriting.pattern import OpMatcher, OpOf

from .toy import Binary, add, exp, ft, it, mul, neg, sub, to_int, true_div

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


# ---- engine extensions: OpMatcher heads, named sub-patterns, OpOf, fit, doc ----------


def _named(*names: str) -> OpMatcher:
    return OpMatcher(lambda op: isinstance(op, Binary) and op.name in names, [Binary],
                     "|".join(names))


def test_op_matcher_head_matches_by_predicate_and_tracks_its_keys():
    rw = PatternNodeRewriter((_named("add", "sub"), "x", 0.0), "x")
    assert rw.tracks() == [Binary]
    assert rw.__doc__ == "(add|sub, x, 0.0) -> x"
    x = ft("x")
    for op in (add, sub):
        fg = FunctionGraph([x], [op(x, 0.0)])
        in2out(rw)(fg)
        assert fg.outputs[0] is fg.inputs[0]
    fg = FunctionGraph([x], [mul(x, 0.0)])
    in2out(rw)(fg)
    assert fg.outputs[0].owner.op == mul
    # explicit tracks still win
    assert PatternNodeRewriter((_named("add"), "x", "y"), "x", tracks=[add]).tracks() == [add]


def test_op_matcher_inside_the_tree():
    rw = PatternNodeRewriter((neg, (_named("sub"), "x", "y")), (sub, "y", "x"))
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [neg(sub(x, y))])
    in2out(rw)(fg)
    out = fg.outputs[0]
    assert out.owner.op == sub and out.owner.inputs == [fg.inputs[1], fg.inputs[0]]
    fg = FunctionGraph([x, y], [neg(add(x, y))])
    in2out(rw)(fg)
    assert fg.outputs[0].owner.op == neg


def test_named_subpattern_binds_an_inner_node():
    seen = []

    def keep(v):
        seen.append(v)
        return v

    rw = PatternNodeRewriter((neg, {"pattern": (exp, "x"), "name": "e"}), (neg, (keep, "e")))
    x = ft("x")
    e = exp(x)
    fg = FunctionGraph([x], [neg(e)], clone=False)
    node = fg.outputs[0].owner
    assert rw.match(fg, node) == {"e": e, "x": x}
    (new,) = rw.transform(fg, node).values()
    assert seen == [e] and new.owner.op == neg and new.owner.inputs == [e]


def test_named_subpattern_must_agree_with_other_uses_of_the_name():
    # (x - y) + (x - y) -> 2 * (x - y): "d" names the first sub node; the second use
    # must be the same variable
    rw = PatternNodeRewriter((add, {"pattern": (sub, "x", "y"), "name": "d"}, "d"),
                             (mul, 2.0, "d"), allow_multiple_clients=True)
    x, y = ft("x"), ft("y")
    d = sub(x, y)
    fg = FunctionGraph([x, y], [add(d, d)], clone=False)
    assert rw.match(fg, fg.outputs[0].owner) is not None
    fg2 = FunctionGraph([x, y], [add(sub(x, y), sub(x, y))], clone=False)
    assert rw.match(fg2, fg2.outputs[0].owner) is None  # two distinct nodes


def test_named_root_and_constraint_together():
    rw = PatternNodeRewriter(
        {"pattern": (neg, "x"), "name": "r", "constraint": lambda v: v.owner.op == neg},
        "x",
    )
    x = ft("x")
    fg = FunctionGraph([x], [neg(x)], clone=False)
    assert set(rw.match(fg, fg.outputs[0].owner)) == {"r", "x"}


def test_op_of_rebuilds_with_the_matched_op_and_its_parameters():
    # op(op(x, y), y) -> op(x, y) for any Binary op: the output op is the root's own
    rw = PatternNodeRewriter(
        {"pattern": (Binary, (Binary, "x", "y"), "y"), "name": "r"}, (OpOf("r"), "x", "y")
    )
    assert rw.__doc__ == "(Binary, (Binary, x, y), y) -> (op_of(r), x, y)"
    x, y = ft("x"), ft("y")
    for op in (mul, add):
        fg = FunctionGraph([x, y], [op(add(x, y), y)])
        in2out(rw)(fg)
        out = fg.outputs[0]
        assert out.owner.op == op and out.owner.inputs == fg.inputs


def test_op_of_and_op_matcher_in_the_wrong_pattern_are_errors():
    with pytest.raises(TypeError, match="belongs in an output pattern"):
        PatternNodeRewriter((neg, (OpOf("r"), "x")), "x")
    with pytest.raises(TypeError, match="belongs in an input pattern"):
        PatternNodeRewriter((neg, "x"), (_named("add"), "x", "x"))
    with pytest.raises(TypeError, match="'name' must be a string"):
        PatternNodeRewriter((neg, {"pattern": "x", "name": 3}), "x")
    rw = PatternNodeRewriter((neg, "x"), (OpOf("x"), "x"))
    x = ft("x")
    fg = FunctionGraph([x], [neg(x)])
    with pytest.raises(KeyError, match="binds no node output"):
        in2out(rw)(fg)


def test_fit_hook_adapts_or_refuses_the_replacement():
    calls = []

    def fit_int(new, old):
        calls.append((new, old))
        return to_int(new) if old.type == it else None

    # without fit: a float replacing an int is refused (types differ)
    plain = PatternNodeRewriter((to_int, (neg, (neg, "x"))), "x")
    x = ft("x")
    fg = FunctionGraph([x], [to_int(neg(neg(x)))])
    in2out(plain)(fg)
    assert fg.outputs[0].owner.inputs[0].owner.op == neg
    # with fit: the built x is made an int, so to_int(neg(neg(x))) -> to_int(x)
    rw = PatternNodeRewriter((to_int, (neg, (neg, "x"))), "x", fit=fit_int)
    in2out(rw)(fg)
    assert fg.outputs[0].owner.op == to_int and fg.outputs[0].owner.inputs == fg.inputs
    assert len(calls) == 1
    # fit answering None: no rewrite
    never = PatternNodeRewriter((neg, (neg, "x")), "x", fit=lambda new, old: None)
    fg = FunctionGraph([x], [neg(neg(x))])
    in2out(never)(fg)
    assert fg.outputs[0].owner.op == neg


def test_doc_states_the_math_when_given():
    rw = PatternNodeRewriter((neg, (neg, "x")), "x", name="neg_neg", doc="--x -> x")
    assert rw.__doc__ == "--x -> x" and str(rw) == "neg_neg"
