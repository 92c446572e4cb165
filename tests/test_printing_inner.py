"""dprint shows inner graphs: the ``inner_inputs``/``inner_outputs`` protocol of Ops
holding a graph (OpFromGraph, scan, ...), printed after the outer graph."""

from __future__ import annotations

import theon
import theon.tensor as tt
from theon.graph.basic import Apply
from theon.graph.op import Op
from theon.opfromgraph import OpFromGraph

from .graph.toy import add, ft, mul, neg


class Holder(Op):
    """A toy Op with an inner graph, given by the printing protocol only."""

    def __init__(self, name, inner_inputs, inner_outputs):
        self.name = name
        self.inner_inputs = inner_inputs
        self.inner_outputs = inner_outputs

    def make_node(self, *xs):
        return Apply(self, list(xs), [ft()])


def test_toy_op_with_the_protocol():
    p, q = ft("p"), ft("q")
    holder = Holder("holder", [p, q], [mul(add(p, q), q)])
    x = ft("x")
    text = theon.dprint(neg(holder(x, x)), file="str")
    assert text == (
        "neg [id A] ''\n"
        " |holder [id B] ''\n"
        "   |x [id C]\n"
        "   |x [id C]\n"
        "\n"
        "Inner graphs:\n"
        "\n"
        "holder [id B]\n"
        " >inputs: p [id D], q [id E]\n"
        " >mul [id F] ''\n"
        " > |add [id G] ''\n"
        " >   |p [id D]\n"
        " >   |q [id E]\n"
        " > |q [id E]\n"
    )


def test_nested_inner_graphs_and_one_section_per_op():
    p = ft("p")
    inner = Holder("inner", [p], [neg(p)])
    r = ft("r")
    outer = Holder("outer", [r], [inner(r)])
    x = ft("x")
    text = theon.dprint([outer(x), inner(x), inner(add(x, x))], file="str")
    assert text.count("Inner graphs:") == 1
    head, _, inners = text.partition("\nInner graphs:\n")
    sections = inners.strip("\n").split("\n\n")
    assert [s.splitlines()[0].split(" [id")[0] for s in sections] == ["outer", "inner"]
    # the inner Op's section is headed by its first node's id; ids continue the outer ones
    assert sections[1].splitlines() == ["inner [id C]", " >inputs: p [id H]",
                                        " >neg [id I] ''", " > |p [id H]"]
    assert " >inner [id G] ''" in sections[0]  # its node inside the outer graph


def test_opfromgraph_inner_graph():
    x, y = tt.dvector("x"), tt.dvector("y")
    op = OpFromGraph([x, y], [tt.exp(x) * y], name="expmul")
    a = tt.dvector("a")
    text = theon.dprint(op(a, a), file="str")
    assert text == (
        "expmul [id A] ''\n"
        " |a [id B]\n"
        " |a [id B]\n"
        "\n"
        "Inner graphs:\n"
        "\n"
        "expmul [id A]\n"
        " >inputs: x [id C], y [id D]\n"
        " >Elemwise{mul,no_inplace} [id E] ''\n"
        " > |Elemwise{exp,no_inplace} [id F] ''\n"
        " >   |x [id C]\n"
        " > |y [id D]\n"
    )
    # and in a compiled function's graph
    f = theon.function([a], op(a, a) + 1.0)
    assert "Inner graphs:\n\nexpmul [id" in theon.dprint(f, file="str")


def test_graph_without_inner_graphs_has_no_section():
    x = ft("x")
    text = theon.dprint(mul(add(x, x), x), file="str")
    assert "Inner graphs" not in text and text.count("\n") == 5
