"""PyTensor's graph helpers: traversal, graph_replace, test values, HasInnerGraph,
MetaType and the names ``theon.graph`` gets from the rewriting layer."""

import pytest

from theon.graph.basic import Apply, Constant
from theon.graph.op import HasInnerGraph, Op, TestValueError, compute_test_value, get_test_value
from theon.graph.replace import clone_replace, graph_replace
from theon.graph.traversal import (
    apply_ancestors,
    apply_depends_on,
    explicit_graph_inputs,
    general_toposort,
    graph_inputs,
    toposort,
    truncated_graph_inputs,
    variable_depends_on,
    walk,
)
from theon.graph.utils import MetaType

from .toy import add, ft, it, mul, neg


class FakeShared(type(ft("x"))):
    """An owner-less variable with a value, as theon.compile's SharedVariable."""

    def get_value(self, borrow=False):
        return 4.0


def test_explicit_graph_inputs_leave_out_constants_and_shared():
    x, y = ft("x"), ft("y")
    s = FakeShared(ft, name="s")
    out = add(mul(x, s), add(y, Constant(ft, 2.0)))
    gi = graph_inputs([out])
    assert len(gi) == 4 and {x, s, y} <= set(gi)
    # out; push mul, add; add: push y, 2.0; 2.0; y; mul: push x, s; s; x
    assert explicit_graph_inputs(out) == [y, x]
    assert explicit_graph_inputs([out, x]) == [x, y]


def test_truncated_graph_inputs_cases():
    """The cases of PyTensor's docstring, worked out by hand."""
    x, y = ft("x"), ft("y")
    o1 = add(x, y)
    c = Constant(ft, 2.0)
    o2 = mul(o1, c)
    o3 = neg(o2)
    # nothing to include: the outputs themselves
    assert truncated_graph_inputs([o3]) == [o3]
    # one ancestor: it, and what does not depend on it
    assert truncated_graph_inputs([o3], [o1]) == [c, o1]
    # two ancestors where one depends on the other: both
    assert set(truncated_graph_inputs([o3], [o1, o2])) == {o2}  # o1 is behind o2
    assert set(truncated_graph_inputs([o3, o1], [o2])) == {o1, o2}
    # an ancestor deeper down: the walk goes through what depends on it
    assert truncated_graph_inputs([o3], [x]) == [c, y, x]
    # a disconnected ancestor is not returned
    assert truncated_graph_inputs([o3], [ft("z")]) == [o3]
    # an output that is itself an ancestor to include
    assert truncated_graph_inputs([o1], [o1]) == [o1]


def test_general_toposort_and_cycle():
    deps = {"d": ["b", "c"], "c": ["a"], "b": ["a"], "a": []}
    order = general_toposort(["d"], lambda k: deps[k])
    assert order == ["a", "b", "c", "d"]
    with pytest.raises(ValueError, match="cycle"):
        general_toposort(["p"], lambda k: {"p": ["q"], "q": ["p"]}[k])


def test_toposort_blockers_walk_children_and_dependencies():
    x, y = ft("x"), ft("y")
    a = add(x, y)
    b = neg(a)
    out = mul(b, a)
    assert toposort([out]) == [a.owner, b.owner, out.owner]
    assert toposort([out], blockers=[a]) == [b.owner, out.owner]
    # out; push b, a; a: push x, y; y; x; b: push a (seen)
    assert apply_ancestors([out]) == [out.owner, a.owner, b.owner]
    assert variable_depends_on(out, x) and not variable_depends_on(a, [b])
    assert apply_depends_on(out.owner, a.owner) and not apply_depends_on(a.owner, out.owner)
    got = walk([out], lambda v: v.owner.inputs if v.owner else None, return_children=True)
    assert got[0] == (out, [b, a])


def test_graph_replace_copies_only_what_depends_on_the_replaced():
    x, y, z = ft("x"), ft("y"), ft("z")
    e = neg(x)
    out = mul(add(e, y), e)
    new = graph_replace(out, {y: z})
    assert new.owner.inputs[1] is e and new.owner.inputs[0].owner.inputs == [e, z]
    assert out.owner.inputs[0].owner.inputs == [e, y]  # the original is untouched
    # clone_replace copies every node
    assert clone_replace(out, {y: z}).owner.inputs[1] is not e
    # lists, outputs that are replaced themselves, unused replacements
    r_out, r_e = graph_replace([out, e], {e: z})
    assert r_e is z and r_out.owner.inputs[1] is z and r_out.owner.inputs[0].owner.inputs == [z, y]
    assert graph_replace(out, {out: z}) is z
    with pytest.raises(ValueError, match="not used"):
        graph_replace(out, {ft("w"): z})
    assert graph_replace(out, {ft("w"): z}, strict=False) is out
    with pytest.raises(TypeError):
        graph_replace(out, {y: it("i")})


def test_test_values():
    x, y = ft("x"), ft("y")
    out = add(mul(x, y), Constant(ft, 1.0))
    with pytest.raises(TestValueError, match="x"):
        compute_test_value(out.owner.inputs[0].owner)
    x.tag.test_value, y.tag.test_value = 2.0, 3.0
    compute_test_value(out.owner.inputs[0])  # a variable: its owner
    compute_test_value(out.owner)
    assert get_test_value(out) == 7.0 and get_test_value(Constant(ft, 1.5)) == 1.5
    assert get_test_value(FakeShared(ft, name="s")) == 4.0
    assert get_test_value(5) == 5


class Inner(Op):
    __props__ = ()
    inner_inputs = ()
    inner_outputs = ()


def test_has_inner_graph_by_protocol():
    assert isinstance(Inner(), HasInnerGraph)
    assert not isinstance(add, HasInnerGraph)

    class Declared(HasInnerGraph):
        pass

    with pytest.raises(TypeError):  # a subclass must define the inner graph
        Declared()


def test_meta_type():
    class Shift(metaclass=MetaType):
        __props__ = ("k",)

        def __init__(self, k):
            self.k = k

    assert Shift(1) == Shift(1) and Shift(1) != Shift(2)
    assert hash(Shift(1)) == hash(Shift(1)) and str(Shift(3)) == "Shift{k=3}"
    assert Shift(1)._props_dict() == {"k": 1}
    with pytest.raises(TypeError, match="tuple"):

        class Bad(metaclass=MetaType):
            __props__ = ["k"]


def test_graph_names_from_the_rewriting_layer():
    import theon.rewriting

    assert theon.graph.node_rewriter is theon.rewriting.node_rewriter
    assert theon.graph.rewrite_graph is theon.rewriting.rewrite_graph
    assert theon.graph.graph_replace is graph_replace
    with pytest.raises(AttributeError, match="no_such_name"):
        theon.graph.no_such_name  # noqa: B018
    assert isinstance(add(ft("x"), ft("y")).owner, Apply)


def test_type_is_subscriptable_and_top_level_replace():
    import theon
    from theon.graph.type import Type

    class StringType(Type[str]):
        def filter(self, x, strict=False, allow_downcast=None):
            return str(x)

    assert StringType().filter(3) == "3"
    assert theon.graph_replace is graph_replace and theon.clone_replace is clone_replace


def test_eval_by_the_name_of_a_computed_variable():
    import theon  # noqa: F401  (registers the compiler eval uses)

    x, y = ft("x"), ft("y")
    a = add(x, y)
    a.name = "a"
    out = neg(a)
    assert out.eval({"a": 3.0}) == -3.0
    assert out.eval({"x": 1.0, "y": 2.5}) == -3.5
    with pytest.raises(ValueError, match="no unique"):
        out.eval({"nothing": 1.0})
