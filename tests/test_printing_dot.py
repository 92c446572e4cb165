"""pydotprint: seed 002's calls, the PNG it writes (decoded here), and the drawing conventions."""

from __future__ import annotations

import os
import re
import shutil
import struct
import zlib

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.graph.basic import Apply
from theon.graph.op import Op
from theon.graph.type import Generic
from theon.printing import dot as dotmod
from theon.printing import pydotprint

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot program is not installed"
)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# an independent PNG reader: chunks, CRCs, IHDR, IDAT inflated and unfiltered ---------------
def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data: bytes) -> tuple[int, int, np.ndarray]:
    """(width, height, pixels as an (h, w, 3) uint8 RGB array) of an 8-bit PNG."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG signature"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in chunk {kind!r}"
        chunks.append((kind, body))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, ctype, _comp, _filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8 and interlace == 0, (depth, interlace)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = width * channels
    assert len(raw) == height * (stride + 1), "IDAT does not hold exactly height rows"
    rows, prev = [], bytearray(stride)
    for r in range(height):
        ftype = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1 : (r + 1) * (stride + 1)])
        assert ftype <= 4, f"bad filter type {ftype} in row {r}"
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[ftype]
            line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    px = np.frombuffer(b"".join(rows), np.uint8).reshape(height, width, channels)
    if ctype == 3:
        plte = next(body for kind, body in chunks if kind == b"PLTE")
        px = np.frombuffer(plte, np.uint8).reshape(-1, 3)[px[..., 0]]
    elif ctype in (0, 4):
        px = np.repeat(px[..., :1], 3, axis=2)
    return width, height, px[..., :3]


def _has_colour(px: np.ndarray, rgb: tuple[int, int, int]) -> bool:
    return bool((px == np.array(rgb, np.uint8)).all(axis=2).sum() > 50)


LIMEGREEN, DODGERBLUE, KHAKI = (50, 205, 50), (30, 144, 255), (240, 230, 140)


@needs_dot
def test_seed_002_pydotprint_calls_write_valid_pngs(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # the seed writes under ./pics, which does not exist yet
    # seed 002, as written (aesara -> theon)
    a = theon.tensor.vector("a")  # declare symbolic variable
    b = a + a**10  # build symbolic expression
    f = theon.function([a], b)  # compile function
    np.testing.assert_allclose(f([0, 1, 2]), [0.0, 2.0, 1026.0])
    theon.printing.pydotprint(b, outfile="./pics/symbolic_graph_no_rewrite.png", var_with_name_simple=True)  # noqa: E501
    theon.printing.pydotprint(f, outfile="./pics/symbolic_graph_rewite.png", var_with_name_simple=True)  # noqa: E501
    assert capsys.readouterr().out.splitlines() == [
        "The output file is available at ./pics/symbolic_graph_no_rewrite.png",
        "The output file is available at ./pics/symbolic_graph_rewite.png",
    ]
    sizes = {}
    for name in ("symbolic_graph_no_rewrite.png", "symbolic_graph_rewite.png"):
        data = (tmp_path / "pics" / name).read_bytes()
        assert 2_000 < len(data) < 1_000_000, len(data)
        width, height, px = decode_png(data)
        assert 100 <= width <= 3000 and 100 <= height <= 3000, (width, height)
        assert px.shape == (height, width, 3)
        # the input box (green) and the output box (blue) are drawn, on a white page
        assert _has_colour(px, LIMEGREEN) and _has_colour(px, DODGERBLUE)
        assert (px == 255).all(axis=2).mean() > 0.5
        sizes[name] = (width, height, px)
    # the un-rewritten graph holds the constant 10 (khaki box) and more nodes than the
    # rewritten one, where everything is fused into one node
    assert _has_colour(sizes["symbolic_graph_no_rewrite.png"][2], KHAKI)
    assert not _has_colour(sizes["symbolic_graph_rewite.png"][2], KHAKI)
    assert sizes["symbolic_graph_rewite.png"][1] < sizes["symbolic_graph_no_rewrite.png"][1]


def test_png_reader_rejects_corruption() -> None:
    """The reader above is a real check: a flipped byte or a cut stream fails it."""
    raw = b"".join(b"\x00" + bytes([r, 0, 0]) * 4 for r in range(3))  # 4x3 RGB, filter 0

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    ihdr = struct.pack(">IIBBBBB", 4, 3, 8, 2, 0, 0, 0)
    good = PNG_SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(
        b"IEND", b"")
    w, h, px = decode_png(good)
    assert (w, h) == (4, 3) and px[2, 3].tolist() == [2, 0, 0]
    bad = bytearray(good)
    bad[40] ^= 0xFF
    with pytest.raises(AssertionError):
        decode_png(bytes(bad))
    short = PNG_SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw[:-3])) + chunk(
        b"IEND", b"")
    with pytest.raises(AssertionError, match="exactly height rows"):
        decode_png(short)


# the DOT source: a small parser, and the conventions ------------------------------------
_STMT = re.compile(r"^\s*(\w+)(?: -> (\w+))? \[(.*)\];$")
_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse_dot(src: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, dict[str, str]]]]:
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    for line in src.splitlines():
        m = re.match(r"^\s*(\w+) -> (\w+);$", line)
        if m:
            edges.append((m.group(1), m.group(2), {}))
            continue
        m = _STMT.match(line)
        if not m or m.group(1) in ("graph", "node", "edge"):
            continue
        attrs = dict(_ATTR.findall(m.group(3)))
        if m.group(2):
            edges.append((m.group(1), m.group(2), attrs))
        else:
            nodes[m.group(1)] = attrs
    return nodes, edges


def by_label(nodes: dict[str, dict[str, str]], label: str) -> tuple[str, dict[str, str]]:
    found = [(k, a) for k, a in nodes.items() if a["label"] == label]
    assert len(found) == 1, (label, [a["label"] for a in nodes.values()])
    return found[0]


def _compiled_inplace_function():
    x = T.dvector("x")
    w = theon.shared(np.ones(3), name="w")
    y = T.set_subtensor(T.exp(x)[0], 1.0) * w
    y.name = "y"
    return theon.function([x], y)


def test_dot_source_styles_inputs_outputs_constants_shared_inplace() -> None:
    f = _compiled_inplace_function()
    kinds = [str(n.op) for n in f.maker.fgraph.toposort()]
    assert "SetSubtensor{0;inplace}" in kinds and "Elemwise{mul,inplace}" in kinds
    nodes, edges = parse_dot(dotmod.dot_source(f, var_with_name_simple=True))
    x_id, x_attr = by_label(nodes, "x")
    assert (x_attr["shape"], x_attr["fillcolor"]) == ("box", "limegreen")
    w_id, w_attr = by_label(nodes, "w")
    assert (w_attr["shape"], w_attr["fillcolor"]) == ("box", "cyan")
    _, y_attr = by_label(nodes, "y")  # the compiled output is labelled with the user's name
    assert (y_attr["shape"], y_attr["fillcolor"]) == ("box", "dodgerblue")
    _, c_attr = by_label(nodes, "val=1.0")
    assert c_attr["style"] == "rounded,filled" and c_attr["fillcolor"] == "khaki"
    # in-place Apply nodes: red double border, a red edge from the overwritten input
    set_id, set_attr = by_label(nodes, "SetSubtensor{0;inplace}")
    mul_id, mul_attr = by_label(nodes, "Elemwise{mul,inplace}")
    for attr in (set_attr, mul_attr):
        assert (attr["shape"], attr["color"], attr["peripheries"]) == ("ellipse", "red", "2")
    exp_id, exp_attr = by_label(nodes, "Elemwise{exp,no_inplace}")
    assert "peripheries" not in exp_attr and exp_attr["fillcolor"] == "#FFAABB"
    into_set = {e[0]: e[2] for e in edges if e[1] == set_id}
    assert into_set[exp_id]["color"] == "red"  # compact: straight from the exp Apply
    into_mul = {e[0]: e[2] for e in edges if e[1] == mul_id}
    assert into_mul[set_id]["color"] == "red" and "color" not in into_mul[w_id]
    assert (x_id, exp_id, {}) in edges


def test_dot_source_views_unused_and_labels() -> None:
    x = T.dmatrix("x")
    q, r = T.dvector("q"), x[0]  # Subtensor: a view
    nodes, edges = parse_dot(dotmod.dot_source([r.T, q], var_with_name_simple=False))
    sub_id, sub_attr = by_label(nodes, "Subtensor{0}")
    assert sub_attr["color"] == "blue" and "peripheries" not in sub_attr
    assert any(e[1] == sub_id and e[2].get("color") == "blue" for e in edges)
    _, x_attr = by_label(nodes, "x TensorType(float64, shape=(None, None))")
    assert x_attr["fillcolor"] == "limegreen"
    # an output that is an input is drawn as an output
    _, q_attr = by_label(nodes, "q TensorType(float64, shape=(None,))")
    assert q_attr["fillcolor"] == "dodgerblue"


class _Two(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [Generic()(), Generic()()])


def test_unused_output_is_grey_and_compact_hides_unnamed_intermediates() -> None:
    x = Generic()("x")
    first, _second = _Two()(x)
    nodes, edges = parse_dot(dotmod.dot_source(first))
    assert sorted(a.get("fillcolor", "") for a in nodes.values() if a["shape"] == "box") == [
        "dodgerblue", "grey", "limegreen"]
    assert sorted(e[2].get("label") for e in edges if e[0].startswith("n")) == ["0", "1"]
    a = T.dvector("a")
    mid = T.exp(a)
    out = T.log(mid)
    assert len(parse_dot(dotmod.dot_source(out))[0]) == 4  # a, exp, log, out
    assert len(parse_dot(dotmod.dot_source(out, compact=False))[0]) == 5
    mid.name = "mid"  # a named intermediate is always drawn
    nodes, _ = parse_dot(dotmod.dot_source(out, var_with_name_simple=True))
    assert by_label(nodes, "mid")[1].get("fillcolor") is None


def test_keywords_ids_truncation_contrast_colours_count() -> None:
    a = T.dvector("a")
    b = T.exp(a) + T.sum(a)
    nodes, _ = parse_dot(dotmod.dot_source(b, with_ids=True, var_with_name_simple=True))
    labels = sorted(n["label"] for n in nodes.values())
    assert "Elemwise{exp,no_inplace} id=0" in labels and any(x.startswith("a id=") for x in labels)
    nodes, _ = parse_dot(dotmod.dot_source(b, max_label_size=10))
    assert all(len(n["label"]) <= 10 for n in nodes.values())
    assert "Elemwis..." in {n["label"] for n in nodes.values()}
    nodes, _ = parse_dot(dotmod.dot_source(b, high_contrast=False))
    _, exp_attr = by_label(nodes, "Elemwise{exp,no_inplace}")
    assert exp_attr["color"] == "#FFAABB" and "fillcolor" not in exp_attr
    nodes, _ = parse_dot(dotmod.dot_source(b, colorCodes={"Sum": "orange"}))
    assert by_label(nodes, "Sum{axes=None}")[1]["fillcolor"] == "orange"
    pydotprint(b, format="dot", return_image=True, assert_nb_all_strings=6)
    with pytest.raises(AssertionError):
        pydotprint(b, format="dot", return_image=True, assert_nb_all_strings=5)


def test_fused_node_label_shows_its_expression() -> None:
    x, y = T.dvector("x"), T.dvector("y")
    f = theon.function([x, y], (x + y) * T.exp(x))
    nodes, _ = parse_dot(dotmod.dot_source(f))
    assert "Elemwise{Composite{(i0 + i1) * exp(i0)},no_inplace}" in {
        n["label"] for n in nodes.values()}


def test_cond_highlight_marks_the_branches() -> None:
    from theon.ifelse import ifelse

    a, b = T.dscalar("a"), T.dscalar("b")
    shared_part = T.sqrt(a)
    z = ifelse(T.lt(a, b), T.exp(shared_part), T.log(shared_part) + 1)
    nodes, _ = parse_dot(dotmod.dot_source(z, cond_highlight=True))
    colour = {n["label"]: n.get("color") for n in nodes.values()}
    assert colour["Elemwise{exp,no_inplace}"] == "darkgreen"
    assert colour["Elemwise{log,no_inplace}"] == "darkorange"
    assert colour["Elemwise{add,no_inplace}"] == "darkorange"
    assert colour["Elemwise{sqrt,no_inplace}"] == "purple"
    assert colour["Elemwise{lt,no_inplace}"] is None
    plain, _ = parse_dot(dotmod.dot_source(z))
    assert all("penwidth" not in n or n.get("color") == "blue" for n in plain.values())


def test_scan_graphs_draws_the_inner_graph() -> None:
    x = T.dvector("x")
    s, _ = theon.scan(lambda v, acc: acc + T.exp(v), sequences=[x],
                      outputs_info=[T.constant(0.0)])
    outer = dotmod.dot_source(s, var_with_name_simple=True)
    assert "subgraph cluster" not in outer and "Elemwise{exp" not in outer
    src = dotmod.dot_source(s, scan_graphs=True, var_with_name_simple=True)
    assert src.count("subgraph cluster_") == 1
    nodes, edges = parse_dot(src)
    exp_id, _ = by_label(nodes, "Elemwise{exp,no_inplace}")
    inner_x, attr = by_label(nodes, "x[t]")
    assert attr["fillcolor"] == "limegreen"
    assert (inner_x, exp_id, {}) in edges
    scan_id, _ = by_label(nodes, "Scan{scan_fn, for}")
    dotted = [e for e in edges if e[0] == scan_id and e[2].get("style") == "dotted"]
    assert len(dotted) == 1 and dotted[0][2]["lhead"] == "cluster_0"


def test_scan_graphs_inner_graphs_nested_and_shared_once() -> None:
    from theon.opfromgraph import OpFromGraph

    u = T.dscalar("u")
    inner = OpFromGraph([u], [T.tanh(u) * 2])
    v = T.dscalar("v")
    outer_op = OpFromGraph([v], [inner(v) + inner(v + 1)])
    w = T.dscalar("w")
    src = dotmod.dot_source([outer_op(w), outer_op(w * 3)], scan_graphs=True)
    assert src.count("subgraph cluster_") == 2  # each Op's graph once, the nested one too
    nodes, edges = parse_dot(src)
    dotted = [e for e in edges if e[2].get("style") == "dotted"]
    assert sorted(e[2]["lhead"] for e in dotted) == ["cluster_0", "cluster_0", "cluster_1",
                                                     "cluster_1"]
    by_label(nodes, "Elemwise{tanh,no_inplace}")


# files, formats, errors --------------------------------------------------------------------
def test_missing_dot_says_how_to_install_and_dot_format_still_works(
    tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(dotmod, "_find_dot", lambda: None)
    a = T.dvector("a")
    out = tmp_path / "g.png"
    with pytest.raises(dotmod.GraphvizNotFoundError) as err:
        pydotprint(a * 2, outfile=str(out))
    msg = str(err.value)
    for hint in ("'dot' program", "apt-get install graphviz", "conda install graphviz",
                 "brew install", "format='dot'"):
        assert hint in msg, hint
    assert isinstance(err.value, ImportError) and not out.exists()
    with pytest.raises(ImportError):
        pydotprint(a * 2, return_image=True, format="svg")
    src_file = tmp_path / "sub" / "g.dot"
    pydotprint(a * 2, outfile=str(src_file), format="dot")
    assert src_file.read_text().startswith("digraph G {")
    assert capsys.readouterr().out == f"The output file is available at {src_file}\n"
    assert pydotprint(a * 2, format="dot", return_image=True).startswith(b"digraph G {")


@needs_dot
def test_return_image_formats_and_default_outfile(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    a = T.dvector("a")
    png = pydotprint(T.exp(a), return_image=True)
    assert isinstance(png, bytes) and png[:8] == PNG_SIGNATURE
    assert decode_png(png)[0] > 10
    svg = pydotprint(T.exp(a), format="svg", return_image=True)
    assert b"<svg" in svg and b"Elemwise{exp,no_inplace}" in svg
    assert pydotprint(T.exp(a), format="pdf", return_image=True)[:5] == b"%PDF-"
    assert os.listdir(tmp_path) == [] and capsys.readouterr().out == ""  # nothing written
    pydotprint(T.exp(a))
    assert (tmp_path / "theon.pydotprint.png").read_bytes()[:8] == PNG_SIGNATURE
    pydotprint(T.exp(a), outfile="g.svg", print_output_file=False)  # format from the name
    assert b"<svg" in (tmp_path / "g.svg").read_bytes()
    assert capsys.readouterr().out == "The output file is available at theon.pydotprint.png\n"
    with pytest.raises(ValueError, match="could not write format 'nonsense'"):
        pydotprint(T.exp(a), format="nonsense", return_image=True)


def test_pydotprint_accepts_all_graph_forms() -> None:
    a = T.dvector("a")
    b = T.exp(a)
    f = theon.function([a], b)
    for obj in (b, [b, a], b.owner, f, f.maker.fgraph):
        src = pydotprint(obj, format="dot", return_image=True)
        assert b"Elemwise{exp" in src
    with pytest.raises(TypeError, match="cannot print"):
        pydotprint(3, format="dot", return_image=True)


def test_deep_graph_draws_without_recursion() -> None:
    s = T.dvector("s")
    for _ in range(5000):
        s = T.exp(s)
    nodes, edges = parse_dot(dotmod.dot_source(s))
    assert len(nodes) == 5002 and len(edges) == 5001
