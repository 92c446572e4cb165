"""``pydotprint``: a picture of a graph, drawn by Graphviz's ``dot``.

The graph becomes DOT source (:func:`dot_source`, plain text, no dependency),
which the ``dot`` program lays out as PNG, SVG, PDF or any of its formats.
``format="dot"`` writes the source itself and needs nothing installed.

Drawing conventions (also in ``docs/printing.md``); the colours are the rows of
:data:`VARIABLE_STYLES` and :data:`OP_COLORS`:

* Apply nodes are ellipses labelled with their Op, filled with a colour per Op
  class (``Elemwise`` pink, ``Subtensor`` purple, ``Scan`` yellow, ...; white
  for the others); ``high_contrast=False`` colours the border instead.
* An Apply whose Op works in place (``destroy_map``) has a red double border
  and a red edge from the input it overwrites; an Op returning a view
  (``view_map``) has a blue border and a blue edge from the input it views.
* Variables are boxes: inputs green, outputs blue, shared variables cyan,
  constants khaki with rounded corners (labelled with their value), unused
  outputs grey, other intermediates white.
* ``compact=True`` leaves out unnamed intermediate variables: the edge goes
  straight from the Apply computing it to the Apply using it.
* An edge into an Apply with several inputs is labelled with the input's
  position, an edge out of an Apply with several outputs with the output's.
* ``scan_graphs=True`` draws the inner graph of each Op holding one (scan,
  OpFromGraph: the ``inner_inputs`` / ``inner_outputs`` protocol that
  :func:`theon.printing.dprint` reads) as a framed cluster beside the outer
  graph, joined to the Apply by a dotted edge.
* In SVG, hovering shows each node's type and where the user built it.

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> src = dot_source(tt.exp(x) + 1.0)
>>> src.splitlines()[0]
'digraph G {'
>>> 'label="x TensorType' in src and "limegreen" in src
True
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from typing import Any

from theon.graph.basic import Apply, Constant, Variable, format_trace
from theon.graph.op import lazy_branches
from theon.printing.pretty import ATOM, _composite_text, _const_text, by_class_name

__all__ = [
    "OP_COLORS",
    "VARIABLE_STYLES",
    "GraphvizNotFoundError",
    "dot_source",
    "pydotprint",
]

# the kind of a variable -> its node attributes
VARIABLE_STYLES: dict[str, dict[str, str]] = {
    "input": {"shape": "box", "style": "filled", "fillcolor": "limegreen"},
    "output": {"shape": "box", "style": "filled", "fillcolor": "dodgerblue"},
    "shared": {"shape": "box", "style": "filled", "fillcolor": "cyan"},
    "constant": {"shape": "box", "style": "rounded,filled", "fillcolor": "khaki"},
    "unused": {"shape": "box", "style": "filled", "fillcolor": "grey"},
    "intermediate": {"shape": "box"},
}
# the class name of an Op -> the colour of its Apply nodes (``colorCodes`` adds to it)
OP_COLORS: dict[str, str] = {
    "Elemwise": "#FFAABB",
    "Subtensor": "#FFAAFF",
    "AdvancedSubtensor": "#FFAAFF",
    "IncSubtensor": "#FFAAFF",
    "Alloc": "#FFAA22",
    "Shape": "#D2B48C",
    "Shape_i": "#D2B48C",
    "Scan": "yellow",
    "OpFromGraph": "#FFFF99",
    "IfElse": "magenta",
    "Dot": "#AADDFF",
    "MatMul": "#AADDFF",
    "Gemm": "#AADDFF",
    "Gemv": "#AADDFF",
}
INPLACE_STYLE = {"color": "red", "peripheries": "2", "penwidth": "2"}
VIEW_STYLE = {"color": "blue", "penwidth": "2"}
# with cond_highlight: the border of a node needed by one branch of a lazy conditional
BRANCH_STYLES = {
    "then": {"color": "darkgreen", "penwidth": "3"},
    "else": {"color": "darkorange", "penwidth": "3"},
    "both": {"color": "purple", "penwidth": "3"},
}
SOURCE_FORMATS = ("dot", "gv", "raw")
_KNOWN_FORMATS = ("png", "svg", "pdf", "ps", "eps", "jpg", "jpeg", "gif", "bmp", "tiff", "webp",
                  "json", "plain", *SOURCE_FORMATS)

INSTALL_HINT = (
    "Install Graphviz, which provides it (pip cannot): 'apt-get install graphviz' "
    "(Debian/Ubuntu), 'conda install graphviz' (conda), 'brew install graphviz' (macOS), or "
    "https://graphviz.org/download/. pydotprint(..., format='dot') writes the DOT source "
    "without it."
)


class GraphvizNotFoundError(ImportError):
    """Graphviz's ``dot`` program, needed to draw a picture, is not installed."""


def _find_dot() -> str | None:
    """The path of Graphviz's ``dot`` program, or None (tests replace this lookup)."""
    return shutil.which("dot")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(attrs: dict[str, str]) -> str:
    return "[" + ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items()) + "]"


def _truncate(text: str, size: int) -> str:
    if size > 3 and len(text) > size:
        return text[: size - 3] + "..."
    return text


def _is_shared(v: Variable) -> bool:
    return any(c.__name__ == "SharedVariable" for c in type(v).__mro__)


def _op_label(node: Apply) -> str:
    """The Op's text; a fused Composite shows its scalar expression."""
    op = node.op
    scalar: Any = getattr(op, "scalar_op", None)
    if type(scalar).__name__ == "Composite":
        names = [(f"i{k}", ATOM) for k in range(len(scalar.inputs))]
        exprs = [_composite_text(scalar, names, j)[0] for j in range(len(scalar.outputs))]
        inplace = "inplace" if getattr(op, "destroy_map", None) else "no_inplace"
        return f"Elemwise{{Composite{{{', '.join(exprs)}}},{inplace}}}"
    return str(op)


def _where(tag: Any) -> str:
    return format_trace(getattr(tag, "trace", None))


def _ancestors(starts: Iterable[Variable]) -> set[Apply]:
    seen: set[Apply] = set()
    stack = [v.owner for v in starts if v.owner is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(v.owner for v in node.inputs if v.owner is not None)
    return seen


def _branch_of(nodes: Sequence[Apply]) -> dict[Apply, str]:
    """For ``cond_highlight``: which branches of the lazy conditionals need each node."""
    out: dict[Apply, str] = {}
    for node in nodes:
        br = lazy_branches(node)
        if br is None:
            continue
        then, other = _ancestors(br.then_values), _ancestors(br.else_values)
        for n in then | other:
            kind = "both" if n in then and n in other else ("then" if n in then else "else")
            if out.get(n, kind) != kind:
                kind = "both"
            out[n] = kind
    return out


class _Drawer:
    """Accumulates the DOT statements of one picture."""

    def __init__(self, opts: dict[str, Any]) -> None:
        self.o = opts
        self.lines: list[str] = []
        self.ids: dict[Any, str] = {}
        self.labels: set[str] = set()
        self.colors = {**OP_COLORS, **(opts["colorCodes"] or {})}
        self.names: dict[Variable, str] = {}  # outputs of a compiled function: the user's names

    def ident(self, obj: Any, prefix: str) -> str:
        if obj not in self.ids:
            self.ids[obj] = f"{prefix}{len(self.ids)}"
        return self.ids[obj]

    def var_label(self, v: Variable, number: int) -> str:
        if isinstance(v, Constant):
            text = "val=" + _const_text(v.data)[0]
            if not self.o["var_with_name_simple"]:
                text += f" {v.type}"
        elif (name := v.name or self.names.get(v)) is not None:
            text = name if self.o["var_with_name_simple"] else f"{name} {v.type}"
        else:
            text = str(v.type)
        if self.o["with_ids"]:
            text += f" id={number}"
        return text

    def add_var(self, v: Variable, kind: str, indent: str) -> str:
        vid = self.ident(v, "v")
        label = _truncate(self.var_label(v, int(vid[1:])), self.o["max_label_size"])
        self.labels.add(label)
        attrs = {"label": label, **VARIABLE_STYLES[kind]}
        where = _where(v.tag)
        attrs["tooltip"] = f"{v.type}" + (f"\nbuilt at {where}" if where else "")
        self.lines.append(f"{indent}{vid} {_attrs(attrs)};")
        return vid

    def add_apply(self, node: Apply, number: int, branch: str | None, indent: str) -> str:
        nid = self.ident(node, "n")
        label = _op_label(node)
        if self.o["with_ids"]:
            label += f" id={number}"
        label = _truncate(label, self.o["max_label_size"])
        self.labels.add(label)
        attrs: dict[str, str] = {"label": label, "shape": "ellipse"}
        color = by_class_name(self.colors, node.op)
        if color is not None:
            if self.o["high_contrast"]:
                attrs.update(style="filled", fillcolor=color)
            else:
                attrs.update(color=color, penwidth="2")
        if node.op.view_map:
            attrs.update(VIEW_STYLE)
        if node.op.destroy_map:
            attrs.update(INPLACE_STYLE)
        if branch is not None:
            attrs.update(BRANCH_STYLES[branch])
        where = _where(node.tag) or next(
            (w for w in (_where(o.tag) for o in node.outputs) if w), ""
        )
        attrs["tooltip"] = str(node.op) + (f"\nbuilt at {where}" if where else "")
        self.lines.append(f"{indent}{nid} {_attrs(attrs)};")
        return nid

    def graph(
        self,
        inputs: Sequence[Variable] | None,
        outputs: Sequence[Variable],
        nodes: Sequence[Apply],
        indent: str,
    ) -> None:
        """The statements of one graph (the outer one or an inner one)."""
        out_set = set(outputs)
        in_set = set(inputs) if inputs is not None else None
        used = {v for n in nodes for v in n.inputs}
        branch = _branch_of(nodes) if self.o["cond_highlight"] else {}

        def kind(v: Variable) -> str:
            if isinstance(v, Constant):
                return "constant"
            if _is_shared(v) and v.owner is None:
                return "shared"
            if v in out_set:
                return "output"
            if v.owner is None and (in_set is None or v in in_set):
                return "input"
            if v not in used:
                return "unused"
            return "intermediate"

        def shown(v: Variable) -> bool:
            return not (self.o["compact"] and kind(v) == "intermediate" and v.name is None)

        drawn: set[Variable] = set()

        def var_id(v: Variable) -> str:
            if v not in drawn:
                drawn.add(v)
                self.add_var(v, kind(v), indent)
            return self.ids[v]

        for number, node in enumerate(nodes):
            nid = self.add_apply(node, number, branch.get(node), indent)
            destroyed = {i for ins in node.op.destroy_map.values() for i in ins}
            viewed = {i for ins in node.op.view_map.values() for i in ins}
            for i, v in enumerate(node.inputs):
                attrs: dict[str, str] = {}
                if len(node.inputs) > 1:
                    attrs["label"] = str(i)
                if i in destroyed:
                    attrs.update(color="red", penwidth="2")
                elif i in viewed:
                    attrs.update(color="blue")
                src = var_id(v) if shown(v) or v.owner is None else self.ids[v.owner]
                self.lines.append(f"{indent}{src} -> {nid}{' ' + _attrs(attrs) if attrs else ''};")
            for j, v in enumerate(node.outputs):
                if shown(v):
                    label = {"label": str(j)} if len(node.outputs) > 1 else {}
                    self.lines.append(
                        f"{indent}{nid} -> {var_id(v)}{' ' + _attrs(label) if label else ''};"
                    )
        for v in outputs:  # an output that is an input or a constant
            if v.owner is None:
                var_id(v)


def _graph_of(obj: Any) -> tuple[list[Variable] | None, list[Variable], list[Apply]]:
    from theon.graph.traversal import io_toposort
    from theon.printing import _roots

    roots, fgraph = _roots(obj)
    if fgraph is not None:
        return list(fgraph.inputs), roots, list(fgraph.toposort())
    return None, roots, io_toposort([], roots)


def dot_source(
    fct: Any,
    compact: bool = True,
    with_ids: bool = False,
    high_contrast: bool = True,
    cond_highlight: bool | None = None,
    colorCodes: dict[str, str] | None = None,
    max_label_size: int = 70,
    scan_graphs: bool = False,
    var_with_name_simple: bool = False,
) -> str:
    """The DOT source of the picture :func:`pydotprint` draws (same keywords).

    >>> import theon.tensor as tt
    >>> a = tt.dvector("a")
    >>> b = -a
    >>> b.name = "b"
    >>> for line in dot_source(b, var_with_name_simple=True).splitlines()[4:]:
    ...     print(line.split(", tooltip")[0])
      n0 [label="Elemwise{neg,no_inplace}", shape="ellipse", style="filled", fillcolor="#FFAABB"
      v1 [label="a", shape="box", style="filled", fillcolor="limegreen"
      v1 -> n0;
      v2 [label="b", shape="box", style="filled", fillcolor="dodgerblue"
      n0 -> v2;
    }
    """
    opts = dict(locals())
    opts.pop("fct")
    return "\n".join(_draw(fct, opts).lines) + "\n"


def _draw(fct: Any, opts: dict[str, Any]) -> _Drawer:
    d = _Drawer(opts)
    inputs, outputs, nodes = _graph_of(fct)
    user_outputs = getattr(getattr(fct, "maker", None), "outputs", None) or []
    for out, given in zip(outputs, user_outputs):  # rewriting may drop an output's name
        name = getattr(getattr(given, "variable", given), "name", None)
        if out.name is None and isinstance(name, str):
            d.names[out] = name
    d.lines += [
        "digraph G {",
        '  graph [rankdir="TB", compound="true", fontname="Helvetica"];',
        '  node [fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize="10"];',
    ]
    d.graph(inputs, outputs, nodes, "  ")
    if opts["scan_graphs"]:
        _inner_clusters(d, nodes)
    d.lines.append("}")
    return d


def _inner_clusters(d: _Drawer, nodes: Sequence[Apply]) -> None:
    """Each inner graph once, as a cluster, with a dotted edge from each Apply using it."""
    from theon.graph.traversal import io_toposort
    from theon.printing import _inner_graph

    queue = [n for n in nodes if _inner_graph(n.op) is not None]
    cluster_of: dict[int, str] = {}
    anchor: dict[int, str] = {}
    k = 0
    while k < len(queue):  # inner graphs may hold inner graphs: a worklist
        node = queue[k]
        k += 1
        key = id(node.op)
        if key not in cluster_of:
            inner = _inner_graph(node.op)
            assert inner is not None
            ins, outs = inner
            inner_nodes = io_toposort(ins, outs)
            name = f"cluster_{len(cluster_of)}"
            cluster_of[key] = name
            d.lines += [
                f"  subgraph {name} {{",
                f"    graph {_attrs({'label': 'inner graph of ' + str(node.op), 'style': 'dashed', 'color': 'grey40'})};",  # noqa: E501
            ]
            d.graph(ins, outs, inner_nodes, "    ")
            for v in ins:  # inner inputs that no inner node reads
                if v not in d.ids:
                    d.add_var(v, "input", "    ")
            d.lines.append("  }")
            # an edge ends at a node; lhead makes dot clip it at the cluster's frame
            anchor[key] = d.ids[inner_nodes[0]] if inner_nodes else d.ids[(ins or outs)[0]]
            queue += [n for n in inner_nodes if _inner_graph(n.op) is not None]
        edge = {"style": "dotted", "lhead": cluster_of[key], "label": "inner graph"}
        d.lines.append(f"  {d.ids[node]} -> {anchor[key]} {_attrs(edge)};")


def _render(source: str, fmt: str) -> bytes:
    """``source`` laid out by ``dot`` in format ``fmt``."""
    import subprocess  # only when drawing: ``import theon`` stays fast
    if fmt in SOURCE_FORMATS:
        return source.encode()
    dot = _find_dot()
    if dot is None:
        raise GraphvizNotFoundError(
            f"pydotprint needs Graphviz's 'dot' program to write {fmt!r} files, and it is "
            f"not on PATH. {INSTALL_HINT}"
        )
    proc = subprocess.run([dot, f"-T{fmt}"], input=source.encode(), capture_output=True,
                          check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        raise ValueError(f"Graphviz's dot could not write format {fmt!r}: {err}")
    return proc.stdout


def pydotprint(
    fct: Any,
    outfile: str | os.PathLike[str] | None = None,
    compact: bool = True,
    format: str = "png",
    with_ids: bool = False,
    high_contrast: bool = True,
    cond_highlight: bool | None = None,
    colorCodes: dict[str, str] | None = None,
    max_label_size: int = 70,
    scan_graphs: bool = False,
    var_with_name_simple: bool = False,
    print_output_file: bool = True,
    return_image: bool = False,
    assert_nb_all_strings: int = -1,
) -> bytes | None:
    """Draw a graph as a picture (PNG, SVG, PDF, ...) with Graphviz's ``dot``.

    Parameters
    ----------
    fct
        A Variable or a list of them (the graph as built), an Apply, a
        FunctionGraph, or a compiled function (the graph after rewriting).
    outfile
        The file to write; missing folders are created.  Default
        ``theon.pydotprint.<format>`` in the current folder.  When ``format`` is
        left at ``"png"`` and ``outfile`` ends in another format's extension
        (``.svg``, ``.pdf``, ``.dot``, ...), that format is written.
    compact
        Leave out the unnamed intermediate variables (edges go from Apply to Apply).
    format
        Any output format of ``dot`` (``"png"``, ``"svg"``, ``"pdf"``, ...), or
        ``"dot"`` for the DOT source, which needs no Graphviz.
    with_ids
        Add each Apply's position in the run order, and a number to each variable.
    high_contrast
        Fill Apply nodes with their Op's colour (else colour only their border).
    cond_highlight
        Outline the nodes that only the ``then`` branch (green), only the
        ``else`` branch (orange) or both branches (purple) of a lazy
        conditional need.
    colorCodes
        ``{Op class name: colour}`` added to :data:`OP_COLORS`.
    max_label_size
        Labels longer than this are cut and end with ``...``.
    scan_graphs
        Also draw the inner graphs of scan, OpFromGraph and any Op with
        ``inner_inputs`` / ``inner_outputs``, as clusters of the same picture.
    var_with_name_simple
        Label named variables with their name only (else name and type).
    print_output_file
        Print ``The output file is available at <outfile>``.
    return_image
        Return the picture's bytes instead of writing a file.
    assert_nb_all_strings
        If not -1, check that the picture has exactly this many distinct labels.

    Returns
    -------
    bytes or None
        The picture when ``return_image``, else None.

    Raises
    ------
    GraphvizNotFoundError
        A picture format was asked and ``dot`` is not installed (an
        ``ImportError`` whose message says how to install it).

    Notes
    -----
    The drawing conventions are in this module's docstring and in
    ``docs/printing.md``.  Theano wrote each scan's inner graph to a file of its
    own; theon draws them in the same picture.

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> a = tt.vector("a")
    >>> b = a + a ** 10
    >>> pydotprint(b, outfile="pics/graph.png", var_with_name_simple=True)  # doctest: +SKIP
    The output file is available at pics/graph.png
    >>> pydotprint(b, format="dot", return_image=True)[:10]
    b'digraph G '
    """
    drawer = _draw(fct, {
        "compact": compact, "with_ids": with_ids, "high_contrast": high_contrast,
        "cond_highlight": cond_highlight, "colorCodes": colorCodes,
        "max_label_size": max_label_size, "scan_graphs": scan_graphs,
        "var_with_name_simple": var_with_name_simple,
    })
    source = _checked_source(drawer, assert_nb_all_strings)
    fmt = format
    if outfile is not None and not return_image and fmt == "png":
        fmt = _format_of(outfile)
    image = _render(source, fmt)
    if return_image:
        return image
    _write(image, outfile, fmt, print_output_file)
    return None


def _checked_source(drawer: Any, assert_nb_all_strings: int) -> str:
    """The DOT source of ``drawer``, after checking its number of distinct labels (if
    not -1)."""
    if assert_nb_all_strings != -1 and len(drawer.labels) != assert_nb_all_strings:
        raise AssertionError(
            f"the picture has {len(drawer.labels)} distinct labels, not {assert_nb_all_strings}"
        )
    return "\n".join(drawer.lines) + "\n"


def _format_of(outfile: str | os.PathLike[str]) -> str:
    """The format ``outfile``'s extension names, else ``"png"``."""
    ext = os.path.splitext(os.fspath(outfile))[1].lstrip(".").lower()
    return ext if ext in _KNOWN_FORMATS else "png"


def _write(image: bytes, outfile: str | os.PathLike[str] | None, fmt: str,
           print_output_file: bool) -> None:
    """Write ``image`` to ``outfile`` (default ``theon.pydotprint.<fmt>``), creating
    missing folders."""
    path = os.fspath(outfile) if outfile is not None else f"theon.pydotprint.{fmt}"
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(image)
    if print_output_file:
        print(f"The output file is available at {path}")
