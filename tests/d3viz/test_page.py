"""The view's data and page: what is drawn, the details shown, escaping, no network."""

from __future__ import annotations

import html.parser
import json
import re

import pytest

import theon
import theon.tensor as tt
from tests.d3viz.graphs import mlp_with_scan
from theon.d3viz import build_document, d3viz, d3write, render_page
from theon.d3viz.page import embed_json

HERE = "graphs.py"  # where mlp_with_scan builds its graph


class _PageParser(html.parser.HTMLParser):
    """Collects the attributes that can load something and the JSON data element."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self.in_data = False
        self.data = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster") and v:
                self.links.append(v)
        if tag == "script":
            self.scripts.append(dict(attrs))
            self.in_data = dict(attrs).get("id") == "theon-data"
        if tag == "link":
            self.links.append(str(dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_data = False

    def handle_data(self, data: str) -> None:
        if self.in_data:
            self.data += data


def parse(page: str) -> _PageParser:
    p = _PageParser()
    p.feed(page)
    return p


def test_compiled_function_every_node_drawn_once() -> None:
    f, _ = mlp_with_scan()
    doc = build_document(f)
    fg = f.maker.fgraph
    main = [n for n in doc["nodes"] if n["graph"] == "g0"]
    applies = [n for n in main if n["kind"] == "apply"]
    assert len(applies) == len(fg.apply_nodes)
    assert sorted(n["label"] for n in applies) == sorted(
        str(a.op)[:39] + "\u2026" if len(str(a.op)) > 40 else str(a.op)
        for a in fg.apply_nodes)
    # every input and shared variable drawn once, each constant once per node reading it;
    # one output node per output
    leaves = {v for a in fg.apply_nodes for v in a.inputs if v.owner is None} | set(fg.inputs)
    assert len([n for n in main if n["kind"] in ("input", "shared")]) == len(
        [v for v in leaves if not isinstance(v, theon.Constant)])
    constant_uses = {(v, a) for a in fg.apply_nodes for v in a.inputs
                     if isinstance(v, theon.Constant)}
    assert len([n for n in main if n["kind"] == "constant"]) == len(constant_uses)
    assert len([n for n in main if n["kind"] == "output"]) == len(fg.outputs)
    kinds = {n["label"]: n["kind"] for n in main}
    assert kinds["X"] == kinds["lr"] == "input"
    assert kinds["W1"] == kinds["b1"] == kinds["W_rec"] == "shared"
    outputs = {n["output"] for n in main if n["kind"] == "output"}
    assert outputs == {"output 0", "update of b1"}
    # the scan's inner graph is a group owned by the scan node
    scan = next(n for n in applies if n["label"].startswith("Scan{scan_fn"))
    group = next(g for g in doc["graphs"] if g["id"] == scan["inner"])
    assert group["owner"] == scan["id"] and group["parent"] == "g0"
    inner_ops = {n["label"] for n in doc["nodes"] if n["graph"] == group["id"]}
    assert {"Dot", "Elemwise{sigmoid,no_inplace}"} <= inner_ops
    assert doc["counts"]["apply"] == sum(n["kind"] == "apply" for n in doc["nodes"])
    assert doc["counts"]["variables"] == sum(n["kind"] != "apply" for n in doc["nodes"])
    # ids unique; each edge joins two nodes of its graph
    ids = [n["id"] for n in doc["nodes"]]
    assert len(set(ids)) == len(ids)
    graph_of = {n["id"]: n["graph"] for n in doc["nodes"]}
    for e in doc["edges"]:
        assert graph_of[e["src"]] == graph_of[e["dst"]] == e["graph"]


def test_edges_follow_the_graph() -> None:
    x, y = tt.dvector("x"), tt.dvector("y")
    z = tt.exp(x) * y
    doc = build_document(z)
    by_label = {n["label"]: n["id"] for n in doc["nodes"]}
    pairs = {(e["src"], e["dst"]) for e in doc["edges"]}
    exp_id = by_label["Elemwise{exp,no_inplace}"]
    mul_id = by_label["Elemwise{mul,no_inplace}"]
    out_id = next(n["id"] for n in doc["nodes"] if n["kind"] == "output")
    assert pairs == {(by_label["x"], exp_id), (exp_id, mul_id), (by_label["y"], mul_id),
                     (mul_id, out_id)}
    # edges point down, from the bottom of one box to the top of the next
    pos = {n["id"]: n for n in doc["nodes"]}
    for e in doc["edges"]:
        y0, y1 = e["points"][0][1], e["points"][-1][1]
        assert y0 == pytest.approx(pos[e["src"]]["y"] + pos[e["src"]]["h"] / 2)
        assert y1 == pytest.approx(pos[e["dst"]]["y"] - pos[e["dst"]]["h"] / 2)
        assert y0 < y1


def test_details_name_op_props_type_shape_and_the_users_line() -> None:
    f, dot_line = mlp_with_scan()
    doc = build_document(f)
    dot = next(n for n in doc["nodes"] if n["graph"] == "g0" and n["label"] == "Dot")
    det = dict(dot["details"])
    assert det["Op"] == "Dot"
    assert det["class"].endswith(".Dot")
    assert det["output"] == "TensorType(float64, shape=(None, None))"  # W1 is shared
    assert det["shape"] == "(?, ?)"
    assert re.fullmatch(rf".*{re.escape(HERE)}:{dot_line} in mlp_with_scan", det["built at"])
    # props listed; in-place nodes flagged, with the input they overwrite
    sub = next(n for n in doc["nodes"] if n["label"].startswith("Subtensor"))
    assert any(k.startswith("prop ") for k, _ in sub["details"])
    assert sub["view"] and "view" in dict(sub["details"])
    inplace = [n for n in doc["nodes"] if n["inplace"]]
    assert inplace
    for n in inplace:
        assert "overwrites input" in dict(n["details"])["in place"]
    shared = next(n for n in doc["nodes"] if n["label"] == "W1")
    assert dict(shared["details"])["value"] == "array of shape (4, 8), dtype float64"


def test_extra_entries_are_added_to_every_apply_node() -> None:
    f, _ = mlp_with_scan()
    seen = []

    def extra(node):
        seen.append(node)
        return {"rewrites": f"made by <{type(node.op).__name__}>"}

    doc = build_document(f, extra=extra)
    applies = [n for n in doc["nodes"] if n["kind"] == "apply"]
    assert len(seen) == len(applies)
    for n in applies:
        assert dict(n["details"])["rewrites"].startswith("made by <")


def test_symbolic_graph_apply_and_fgraph() -> None:
    x = tt.dvector("x")
    y = tt.log1p(x ** 2)
    for obj in (y, [y], y.owner, theon.FunctionGraph([x], [y])):
        doc = build_document(obj)
        labels = [n["label"] for n in doc["nodes"] if n["kind"] == "apply"]
        assert "Elemwise{log1p,no_inplace}" in labels, obj
    with pytest.raises(TypeError, match="d3viz draws"):
        build_document(42)


NASTY = "<script>alert('x')</script> & \"quotes\" </script><!--"


def test_names_are_escaped_and_round_trip() -> None:
    x = tt.dvector(NASTY)
    y = (x * 2).sum()
    y.name = "y</title><b>"
    page = render_page(build_document(y, title="t<i>&"))
    assert "<script>alert" not in page and "</script><!--" not in page
    assert "<b>" not in page and "<i>" not in page
    assert "<title>t&lt;i&gt;&amp;</title>" in page
    p = parse(page)
    assert [s.get("id") for s in p.scripts] == ["theon-data", None]
    doc = json.loads(p.data)
    labels = {n["label"] for n in doc["nodes"]}
    assert NASTY[:39] + "\u2026" in labels  # clipped, but the very characters
    assert any(dict(n["details"]).get("variable") == NASTY for n in doc["nodes"])
    assert any(n["label"] == "y</title><b>" for n in doc["nodes"])
    assert json.loads(embed_json({"s": NASTY})) == {"s": NASTY}


def test_page_loads_nothing_from_the_network(tmp_path) -> None:
    f, _ = mlp_with_scan()
    out = d3viz(f, str(tmp_path / "f.html"))
    page = open(out, encoding="utf-8").read()
    assert "http://" not in page and "https://" not in page and "//cdn" not in page
    p = parse(page)
    assert p.links == []  # no src, href or <link> at all
    assert all("src" not in s for s in p.scripts)
    assert "@import" not in page and "url(" not in page.replace("url(#arrow)", "")
    assert "fetch(" not in page and "XMLHttpRequest" not in page
    assert "default-src 'none'" in page  # and the browser is told to refuse any load
    doc = json.loads(p.data)
    assert doc == json.loads(json.dumps(build_document(f)))


def test_callable_module_and_d3write(tmp_path) -> None:
    x = tt.dscalar("x")
    out = theon.d3viz(x + 1, str(tmp_path / "a.html"))
    assert open(out, encoding="utf-8").read().startswith("<!DOCTYPE html>")
    doc = json.load(open(d3write(x + 1, str(tmp_path / "a.json")), encoding="utf-8"))
    assert doc["counts"] == {"apply": 1, "variables": 3, "groups": 0}


def test_nested_inner_graphs_get_nested_groups() -> None:
    from theon.opfromgraph import OpFromGraph

    a = tt.dscalar("a")
    inner = OpFromGraph([a], [tt.exp(a) + 1])
    b = tt.dscalar("b")
    outer = OpFromGraph([b], [inner(b) * 2])
    c = tt.dscalar("c")
    doc = build_document(outer(c))
    groups = {g["id"]: g for g in doc["graphs"]}
    assert len(groups) == 3
    nested = [g for g in groups.values() if g["depth"] == 2]
    assert len(nested) == 1
    parent = groups[nested[0]["parent"]]
    assert parent["depth"] == 1 and parent["parent"] == "g0"
    owner = next(n for n in doc["nodes"] if n["id"] == nested[0]["owner"])
    assert owner["graph"] == parent["id"]


def test_static_shapes_are_shown() -> None:
    m = tt.TensorType("float32", shape=(3, None))("m")
    v = tt.dvector("v")
    doc = build_document([m.sum(axis=1), v])
    by_label = {n["label"]: n for n in doc["nodes"]}
    assert dict(by_label["m"]["details"])["shape"] == "(3, ?)"
    assert by_label["m"]["sub"] == "float32 (3, ?)"
    assert dict(by_label["v"]["details"])["shape"] == "(?,)"
    assert by_label["v"]["output"] == "output 1"  # an input returned as it is
    s = next(n for n in doc["nodes"] if n["kind"] == "apply")
    assert dict(s["details"])["shape"] == "(3,)"


def test_a_constant_is_drawn_next_to_each_reader() -> None:
    x = tt.dvector("x")
    c = tt.constant(1.5)
    doc = build_document((x + c) * (tt.exp(x) - c))
    consts = [n for n in doc["nodes"] if n["kind"] == "constant"]
    assert [n["label"] for n in consts] == ["1.5", "1.5"]
    readers = {e["dst"] for e in doc["edges"] if e["src"] in {n["id"] for n in consts}}
    labels = {n["id"]: n["label"] for n in doc["nodes"]}
    assert sorted(labels[r] for r in readers) == ["DimShuffle{x}", "DimShuffle{x}"]
    xs = [n for n in doc["nodes"] if n["label"] == "x"]
    assert len(xs) == 1  # an input, though read twice, is one node


def test_theano_style_calls(tmp_path) -> None:
    """Theano's tutorial: ``import theano.d3viz as d3v; d3v.d3viz(predict, path)``."""
    import theon.d3viz as d3v

    x = tt.dmatrix("x")
    predict = theon.function([x], tt.nnet.sigmoid(x).argmax(axis=1))
    for i, call in enumerate((lambda p: d3v.d3viz(predict, p),
                              lambda p: d3v.d3viz(predict, p, False),
                              lambda p: theon.d3viz(predict, p, copy_deps=True))):
        out = str(tmp_path / f"mlp{i}.html")
        assert call(out) == out
        doc = json.loads(parse(open(out, encoding="utf-8").read()).data)
        assert doc["counts"]["apply"] == len(predict.maker.fgraph.apply_nodes)


def test_ifelse_edges_name_the_condition_and_the_branches() -> None:
    from theon.ifelse import ifelse

    a, b = tt.dscalar("a"), tt.dscalar("b")
    c = tt.dscalar("c")
    out = ifelse(tt.lt(c, 0), tt.exp(a), tt.log(b))
    doc = build_document(out)
    by_label = {n["label"]: n for n in doc["nodes"]}
    cond = next(n for n in doc["nodes"] if n["label"] == str(out.owner.op))
    assert "lazy" in dict(cond["details"])
    into = {e["src"]: e for e in doc["edges"] if e["dst"] == cond["id"]}
    assert into[by_label["Elemwise{exp,no_inplace}"]["id"]]["role"] == "then"
    assert into[by_label["Elemwise{log,no_inplace}"]["id"]]["role"] == "else"
    assert into[by_label["Elemwise{lt,no_inplace}"]["id"]]["role"] == "condition"
    assert "then 0" in dict(into[by_label["Elemwise{exp,no_inplace}"]["id"]]["details"])["to"]


def test_built_at_is_relative_to_the_working_directory(tmp_path, monkeypatch) -> None:
    from pathlib import Path

    import tests.d3viz.graphs as graphs

    f, dot_line = mlp_with_scan(train=False)
    source = Path(graphs.__file__).resolve()

    def built_at() -> str:
        doc = build_document(f)
        dot = next(n for n in doc["nodes"] if n["graph"] == "g0" and n["label"] == "Dot")
        return dict(dot["details"])["built at"]

    monkeypatch.chdir(source.parents[2])
    assert built_at() == f"tests/d3viz/graphs.py:{dot_line} in mlp_with_scan"
    monkeypatch.chdir(tmp_path)
    assert built_at() == f"{source}:{dot_line} in mlp_with_scan"


def test_an_op_used_by_several_nodes_gets_one_group() -> None:
    from theon.opfromgraph import OpFromGraph

    a = tt.dscalar("a")
    inner = OpFromGraph([a], [tt.exp(a) + 1])
    b = tt.dscalar("b")
    outer = OpFromGraph([b], [inner(b) * 2 + inner(b * 3)])
    c = tt.dscalar("c")
    doc = build_document(outer(c) + outer(c * 2))
    groups = doc["graphs"][1:]
    assert len(groups) == 2  # one per Op, as dprint prints each inner graph once
    users = {g["id"]: [n["id"] for n in doc["nodes"] if n["inner"] == g["id"]]
             for g in groups}
    for g in groups:
        assert g["owners"] == users[g["id"]] and len(g["owners"]) == 2
        assert g["label"].endswith("used by 2 nodes")
        assert g["width"] >= len(g["label"]) * 7
    (g_outer,) = (g for g in groups if g["parent"] == "g0")
    (g_inner,) = (g for g in groups if g["parent"] == g_outer["id"])
    assert g_inner["depth"] == 2
    owner = next(n for n in doc["nodes"] if n["id"] == g_inner["owner"])
    assert f"[{g_inner['num']}], 2 Apply nodes" in dict(owner["details"])["inner graph"]
