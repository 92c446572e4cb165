"""The rewriting walk-through of PyTensor's documentation ("Graph Rewriting"), on
theon's scalar ops: the simplification ``(x * y) / y -> x`` as a graph rewriter, as a
node rewriter walked over the graph, as a pattern, and the merge that makes it apply
to equal subexpressions.  Values are checked against Python arithmetic."""

from theon.graph.features import ReplaceValidate
from theon.graph.fg import FunctionGraph
from theon.graph.rewriting.basic import (
    GraphRewriter,
    MergeOptimizer,
    NodeRewriter,
    PatternNodeRewriter,
    SubstitutionNodeRewriter,
    WalkingGraphRewriter,
)
from theon.scalar import add, float64, mul, sub, true_div


class Simplify(GraphRewriter):
    """(a * b) / b -> a and (a * b) / a -> b over the whole graph."""

    def add_requirements(self, fgraph):
        fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph):
        for node in fgraph.toposort():
            if node.op != true_div:
                continue
            num, den = node.inputs
            if num.owner is not None and num.owner.op == mul:
                a, b = num.owner.inputs
                if den is a:
                    fgraph.replace_validate(node.outputs[0], b)
                elif den is b:
                    fgraph.replace_validate(node.outputs[0], a)


class LocalSimplify(NodeRewriter):
    """The same rule on one node."""

    def transform(self, fgraph, node):
        if node.op != true_div:
            return False
        num, den = node.inputs
        if num.owner is not None and num.owner.op == mul:
            a, b = num.owner.inputs
            if den is a:
                return [b]
            if den is b:
                return [a]
        return False

    def tracks(self):
        return [true_div]


def scalars():
    return float64("x"), float64("y"), float64("z")


def evaluate(fgraph, **values):
    """The output of ``fgraph`` for ``values`` of its inputs, node by node."""
    import theon

    f = theon.function(fgraph.inputs, fgraph.outputs[0], mode="NO_REWRITES",
                       on_unused_input="ignore")
    return f(*(values[str(i)] for i in fgraph.inputs))


def test_graph_rewriter():
    x, y, z = scalars()
    e = FunctionGraph([x, y, z], [add(z, mul(true_div(mul(y, x), y), true_div(z, x)))])
    before = evaluate(e, x=2.0, y=3.0, z=5.0)
    Simplify().rewrite(e)
    assert str(e.outputs[0].owner.inputs[1].owner.inputs[0]) == "x"
    assert evaluate(e, x=2.0, y=3.0, z=5.0) == before == 5.0 + 2.0 * (5.0 / 2.0)


def test_equal_subexpressions_need_merging_first():
    x, y, z = scalars()
    e = FunctionGraph([x, y, z], [true_div(mul(add(y, z), x), add(y, z))])
    Simplify().rewrite(e)
    assert e.outputs[0].owner.op == true_div  # two distinct add(y, z) nodes: no match
    MergeOptimizer().rewrite(e)
    Simplify().rewrite(e)
    assert e.outputs[0] is e.inputs[0]


def test_node_rewriter_walked_over_the_graph():
    x, y, z = scalars()
    e = FunctionGraph([x, y, z], [add(z, mul(true_div(mul(y, x), y), true_div(z, x)))])
    walker = WalkingGraphRewriter(LocalSimplify())  # PyTensor's form: one node rewriter
    walker.rewrite(e)
    assert str(e.outputs[0].owner.inputs[1].owner.inputs[0]) == "x"
    assert evaluate(e, x=4.0, y=3.0, z=1.0) == 1.0 + 4.0 * (1.0 / 4.0)


def test_pattern_and_substitution_rewriters():
    x, y, z = scalars()
    e = FunctionGraph([x, y], [true_div(mul(x, y), y)])
    WalkingGraphRewriter(PatternNodeRewriter((true_div, (mul, "x", "y"), "y"), "x")).rewrite(e)
    assert e.outputs[0] is e.inputs[0]
    # PyTensor's keyword defaults: tracks=() is the root's op
    pattern = PatternNodeRewriter((true_div, (mul, "x", "y"), "x"), "y", tracks=(),
                                  allow_cast=True)
    assert pattern.tracks() == [true_div]
    e = FunctionGraph([x, y], [add(x, y)])
    WalkingGraphRewriter(SubstitutionNodeRewriter(add, sub)).rewrite(e)
    assert e.outputs[0].owner.op == sub and evaluate(e, x=5.0, y=2.0) == 3.0
