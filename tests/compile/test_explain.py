"""theon.explain: each compiled node's rewrites and the user's lines it comes from.

The expected lines are found by marker comments in this file, so every check
names the file and the line number of the statement that built the graph.
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.explain import explain, provenance_details
from theon.graph.basic import Apply
from theon.rewriting.provenance import Step, origins, provenance, steps

HERE = __file__
_LINES = Path(HERE).read_text().splitlines()


def line_of(marker: str) -> int:
    """The number of the (only) line of this file ending with ``# marker``."""
    found = [k for k, ln in enumerate(_LINES, 1) if ln.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


def at(marker: str) -> str:
    return f"{HERE}:{line_of(marker)}"


def demo():
    """The graph of theon/demo.py, its function and its gradient's function."""
    x = tt.dvector("x")  # DEMO-X
    y = tt.dvector("y")
    e = tt.exp(-(x**2)) * tt.sin(y) + tt.log1p(x**2)  # DEMO-E
    f = theon.function([x, y], e)
    gx = theon.grad(e.sum(), x)  # DEMO-GRAD
    g = theon.function([x, y], gx)
    return x, y, e, f, g


def test_demo_shows_the_fusion_and_the_users_line():
    x, y, e, f, _ = demo()
    text = explain(f, file="str")
    (node,) = f.maker.fgraph.toposort()
    assert text.startswith("the compiled function: 1 node, in run order\n")
    assert f"#0 {node.op}(x, y)  -> output 0" in text
    assert "[fusion] elemwise_fusion of:" in text
    assert "[specialize] local_pow_specialize of:" in text  # x**2 became sqr(x) first
    where = at("DEMO-E")
    for op in ("add", "mul", "exp", "neg", "sin", "log1p", "pow"):
        assert f"{op} built at {where} in demo" in text, op
    # the user's code is quoted, from the line that built the graph
    assert f"{where} in demo    e = tt.exp(-(x**2)) * tt.sin(y) + tt.log1p(x**2)" in text
    # the records behind it: one fused node standing for the seven user nodes
    p = provenance(node)
    assert isinstance(p, Step) and (p.phase, p.rewrite) == ("fusion", "elemwise_fusion")
    assert sorted(str(o.op.scalar_op) for o in origins(p)) == [
        "add", "exp", "log1p", "mul", "neg", "pow", "sin"]
    assert {o.trace[0][1] for o in origins(p)} == {line_of("DEMO-E")}


def test_an_untouched_node_says_where_it_was_built():
    x = tt.dmatrix("x")
    s = x.sum(axis=0)  # SUM-LINE
    f = theon.function([x], s)
    text = explain(f, file="str", source=False)
    assert f"no rewrite recorded: Sum{{axis=(0,)}} built at {at('SUM-LINE')} in " in text
    assert "made by" not in text


def test_gradient_nodes_point_back_to_the_forward_lines():
    _, _, _, _, g = demo()
    text = explain(g, file="str")
    fwd, grad_line = at("DEMO-E"), at("DEMO-GRAD")
    for op in ("exp", "log1p", "pow", "neg"):
        assert f"built at {grad_line} in demo (gradient of {op} built at {fwd} in demo)" in text
    assert "gx = theon.grad(e.sum(), x)" in text
    assert "(differentiated: " in text
    # every user node the compiled gradient stands for was built on one of the two lines;
    # the gradient nodes' forward nodes on the forward line
    (node,) = g.maker.fgraph.toposort()
    found = origins(provenance(node))
    assert {o.trace[0][1] for o in found} == {line_of("DEMO-E"), line_of("DEMO-GRAD")}
    forward = {str(o.grad_of.op.scalar_op) for o in found if o.grad_of is not None}
    assert {"exp", "log1p", "pow", "neg"} <= forward
    assert all(o.grad_of.trace[0][1] == line_of("DEMO-E")
               for o in found if o.grad_of is not None)


def test_gradient_of_a_stabilized_cost_names_the_users_line():
    x = tt.dvector("x")
    cost = tt.log(1 + tt.exp(x)).sum()  # SOFTPLUS-LINE
    g = theon.function([x], theon.grad(cost, x))
    text = explain(g, file="str", source=False)
    # grad differentiated softplus, which the stabilize phase made from the user's log1p(exp)
    assert f"(gradient of softplus built at {at('SOFTPLUS-LINE')} in " in text
    np.testing.assert_allclose(g(np.array([0.0, 1000.0])), [0.5, 1.0])


def test_merged_nodes_keep_both_lines():
    x = tt.dmatrix("x")
    a = x.sum(axis=0)  # MERGE-A
    b = x.sum(axis=0)  # MERGE-B
    f = theon.function([x], [a, b])
    (node,) = f.maker.fgraph.toposort()
    p = provenance(node)
    assert isinstance(p, Step) and (p.phase, p.rewrite) == ("merge1", "merge")
    assert {o.trace[0][1] for o in origins(p)} == {line_of("MERGE-A"), line_of("MERGE-B")}
    text = explain(f, node, file="str", source=False)
    assert f"Sum{{axis=(0,)}} built at {at('MERGE-A')}" in text
    assert f"Sum{{axis=(0,)}} built at {at('MERGE-B')}" in text


def test_explain_one_node_by_apply_variable_position_or_name():
    x = tt.dvector("x")
    h = tt.tanh(x.dot(x))
    h.name = "h"
    out = (h * x).sum()
    f = theon.function([x], [out, h])
    order = f.maker.fgraph.toposort()
    texts = {k: explain(f, k, file="str") for k in range(len(order))}
    h_node = f.maker.fgraph.outputs[1].owner
    k = order.index(h_node)
    assert explain(f, h_node, file="str") == texts[k]
    assert explain(f, h_node.outputs[0], file="str") == texts[k]
    assert explain(f, h, file="str") == texts[k]  # the user's variable, not the copy
    assert explain(f, "h", file="str") == texts[k]
    assert explain(f, k - len(order), file="str") == texts[k]
    assert texts[k].startswith(f"#{k} ") and "-> output 1" in texts[k]
    buf = io.StringIO()
    assert explain(f, h, file=buf) is None and buf.getvalue() == texts[k]


def test_theon_explain_is_the_function():
    assert theon.explain is explain
    assert theon.compile.explain.provenance_details is provenance_details


def test_explain_prints_by_default(capsys):
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x))
    assert explain(f) is None
    assert capsys.readouterr().out == explain(f, file="str")


def test_explain_refuses_what_is_not_a_node():
    x = tt.dvector("x")
    y = tt.exp(x)
    f = theon.function([x], y)
    with pytest.raises(IndexError, match="the graph has 1 nodes"):
        explain(f, 3)
    with pytest.raises(ValueError, match="is an input or a constant"):
        explain(f, f.maker.fgraph.inputs[0])
    with pytest.raises(ValueError, match="neither a variable of the compiled graph"):
        explain(f, tt.log(x))
    with pytest.raises(ValueError, match="not a node of the compiled graph"):
        explain(f, y.owner)
    with pytest.raises(ValueError, match="named 'nope'"):
        explain(f, "nope")
    with pytest.raises(TypeError, match="an Apply, a Variable, an int or a str"):
        explain(f, 1.5)
    with pytest.raises(TypeError, match="compiled function"):
        explain(y)
    with pytest.raises(ValueError, match="format must be 'text' or 'html'"):
        explain(f, format="svg")
    with pytest.raises(ValueError, match="needs outfile="):
        explain(f, format="html")


def test_provenance_details_for_a_graph_view():
    _, _, _, f, g = demo()
    (node,) = f.maker.fgraph.toposort()
    d = provenance_details(f)[node]
    assert d["rewrites"].startswith("[fusion] elemwise_fusion, ")
    assert "[specialize] local_pow_specialize" in d["rewrites"]
    assert d["user code"] == f"{at('DEMO-E')} in demo: add, pow, neg, exp, sin, mul, log1p"
    assert d["provenance"].splitlines()[0] == "[fusion] elemwise_fusion of:"
    (gnode,) = g.maker.fgraph.toposort()
    assert f"(gradient of exp built at {at('DEMO-E')} in demo)" in \
        provenance_details(g)[gnode]["user code"]
    x = tt.dvector("x")
    plain = theon.function([x], x.sum())
    (d,) = provenance_details(plain).values()
    assert d["rewrites"] == "none"


@pytest.mark.skipif(importlib.util.find_spec("theon.d3viz") is None,
                    reason="theon.d3viz (the HTML view) is not in this tree")
def test_html_view_carries_the_provenance(tmp_path):
    _, _, _, f, _ = demo()
    out = tmp_path / "f.html"
    explain(f, format="html", outfile=str(out))
    html = out.read_text()
    assert "elemwise_fusion" in html and f"test_explain.py:{line_of('DEMO-E')}" in html


def test_provenance_survives_a_copy_of_the_function():
    _, _, _, f, _ = demo()
    (node,) = f.copy().maker.fgraph.toposort()
    assert [s.rewrite for s in steps(provenance(node))][0] == "elemwise_fusion"


def test_a_loaded_function_says_it_has_no_record():
    import pickle

    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x) + 1)
    text = explain(pickle.loads(pickle.dumps(f)), file="str")
    # (pickling keeps the fused output's line: the line of the add it replaced)
    assert "no rewrite recorded: Composite{add(exp(i0), i1)} built at " in text
    assert "made by" not in text


def test_a_rewritten_output_keeps_the_replaced_variables_line():
    # (an Op call inside a rewrite would record the line calling theon.function)
    x = tt.dvector("x")
    y = x**2  # SQUARE
    f = theon.function([x], y)  # COMPILE
    (node,) = f.maker.fgraph.toposort()
    assert str(node.op.scalar_op) == "sqr"
    assert node.outputs[0].tag.trace[0][1] == line_of("SQUARE")
    # a fused node (made by make_node, no line of its own) takes its output's line
    z = tt.exp(x) * 2 + 1  # FUSED
    (fused,) = theon.function([x], z).maker.fgraph.toposort()
    assert fused.outputs[0].tag.trace[0][1] == line_of("FUSED")


def test_a_node_nobody_recorded():
    x = tt.dvector("x")
    out = tt.exp(x).owner.op.make_node(x).outputs[0]  # no Op call: no line recorded
    text = explain(theon.FunctionGraph([x], [out], clone=False), file="str")
    assert "#0 Elemwise{exp,no_inplace}(x)  -> output 0" in text
    assert "no record of where this node comes from" in text


def test_one_record_per_rewrite_shared_by_the_nodes_it_made():
    # a rewrite's Step points at the nodes it consumed (a user's node as the Apply
    # itself, read when asked for) and is shared by the nodes it made
    x = tt.dvector("x")
    y = tt.dvector("y")
    e = (x * y) / (x * 2.0)  # CANCEL
    f = theon.function([x, y], e)
    (node,) = f.maker.fgraph.toposort()
    p = provenance(node)
    assert (p.phase, p.rewrite) == ("canonicalize", "local_mul_canonizer")
    assert len(p.sources) == 3 and all(isinstance(q, Apply) for q in p.sources)
    # (the two products: equal Ops built on one line, listed once)
    assert [str(o.op.scalar_op) for o in origins(p)] == ["true_div", "mul"]
    assert {o.trace[0][1] for o in origins(p)} == {line_of("CANCEL")}
    # (x*y*2)/(x*z) -> (y*2)/z: local_mul_canonizer makes two nodes (the product and
    # the quotient), which fusion then fuses; the fused node lists that one Step twice
    z = tt.dvector("z")
    g = theon.function([x, y, z], (x * y * 2.0) / (x * z))
    (fused,) = g.maker.fgraph.toposort()
    sources = provenance(fused).sources
    shared = [q for q in sources if isinstance(q, Step) and
              sum(r is q for r in sources) == 2]
    assert shared and shared[0].rewrite == "local_mul_canonizer"
