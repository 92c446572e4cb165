"""What the HTML view draws: a graph turned into placed nodes, edges and groups (plain data).

Every Apply node is drawn as a box.  The variables on the boundary are drawn as
ellipses: the graph's inputs, shared variables, constants (one next to each node
that reads it) and outputs.  The variables between two Apply nodes are the edges
(their name, type and shape are in the edge's tooltip).  An Op holding an inner
graph (scan, OpFromGraph, ...: the protocol of :func:`theon.printing._inner_graph`)
gets one numbered *group*: its inner graph, drawn the same way in a frame that the
page can collapse, joined to every node that uses the Op.

>>> from theon.scalar import exp, float64
>>> x = float64("x")
>>> doc = build_document(exp(x))
>>> sorted(n["kind"] for n in doc["nodes"])
['apply', 'input', 'output']
>>> doc["counts"]
{'apply': 1, 'variables': 2, 'groups': 0}
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from theon.d3viz.fold import fold
from theon.d3viz.layout import layout
from theon.graph.basic import Apply, Constant, Variable, format_trace
from theon.graph.fg import FunctionGraph
from theon.graph.traversal import io_toposort
from theon.printing import _inner_graph

__all__ = ["ExtraInfo", "build_document"]

#: ``extra(node)``: more (key, text) entries for an Apply node's details
ExtraInfo = Callable[[Apply], Mapping[str, str]]

MAX_LABEL = 40  # characters of a box's first line
MAX_TEXT = 1000  # characters of one detail value (a Composite's text can be long)
CHAR_W = 7.3  # width of one character of the 12 px monospace label font
SUB_CHAR_W = 6.2  # ... of the 10.5 px second line
BOX_H = 38.0
HEADER_CHAR_W = 7.6  # ... of a group's 12.5 px bold header


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _shape(var: Variable) -> str:
    shape = getattr(var.type, "shape", None)
    if not isinstance(shape, tuple):
        return "-"
    inner = ", ".join("?" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _short_type(var: Variable) -> str:
    dtype = getattr(var.type, "dtype", None)
    if dtype is None:
        return _clip(str(var.type), 30)
    return f"{dtype} {_shape(var)}" if isinstance(getattr(var.type, "shape", None), tuple) \
        else str(dtype)


def _where(*things: Any) -> str:
    """The user's source line recorded on the first of ``things`` that has one; a file
    under the working directory is named relative to it (shorter, and the same in
    every checkout)."""
    for t in things:
        trace = getattr(getattr(t, "tag", None), "trace", None)
        if trace:
            fn, line, name = trace[0]
            here = os.getcwd() + os.sep
            if isinstance(fn, str) and fn.startswith(here):
                fn = fn[len(here):]
            return format_trace([(fn, line, name)])
    return ""


@runtime_checkable
class _HasValue(Protocol):
    """What a shared variable is to this module (``theon.compile`` is a layer above)."""

    def get_value(self, borrow: bool = False) -> Any: ...


def _is_shared(var: Variable) -> bool:
    # duck-typed: SharedVariable lives in theon.compile, a layer above this one
    return var.owner is None and callable(getattr(var, "get_value", None)) \
        and hasattr(var, "container")


def _value_text(var: Variable) -> str:
    try:
        if isinstance(var, Constant):
            value = var.data
        elif isinstance(var, _HasValue):  # a shared variable (_is_shared)
            value = var.get_value(borrow=True)
        else:
            raise AttributeError(f"{var} has no value")
    except Exception as exc:  # a value we cannot show must not stop the drawing
        return f"<unavailable: {type(exc).__name__}>"
    shape = getattr(value, "shape", None)
    size = getattr(value, "size", 1)
    if shape is not None and size > 12:
        return f"array of shape {tuple(shape)}, dtype {getattr(value, 'dtype', '?')}"
    return _clip(repr(value), MAX_TEXT)


def _var_label(var: Variable) -> str:
    if isinstance(var, Constant) and var.name is None:
        data = var.data
        text = repr(data.item()) if getattr(data, "size", 0) == 1 else str(data)
        return _clip(" ".join(text.split()), 24)
    return _clip(str(var), MAX_LABEL)


class _Doc:
    """Accumulates the document: nodes, edges and groups, with ids unique in the page."""

    def __init__(self, extra: ExtraInfo | None) -> None:
        self.extra = extra
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []
        self.graphs: list[dict[str, Any]] = []
        self.n_apply = 0
        self.n_vars = 0
        self.n_groups = 0
        self.group_of: dict[int, str] = {}  # id(op) -> its group: one per Op, however
        self.owners: dict[str, list[str]] = {}  # many nodes use it; group -> those nodes

    def group_for(self, node: Apply) -> tuple[str, bool]:
        """The group of ``node.op``'s inner graph, and whether it is new."""
        gid = self.group_of.get(id(node.op))
        if gid is not None:
            return gid, False
        self.n_groups += 1
        gid = self.group_of[id(node.op)] = f"g{self.n_groups}"
        self.owners[gid] = []
        return gid, True

    def node(self, graph: str, kind: str, label: str, sub: str,
             details: list[list[str]], **flags: Any) -> dict[str, Any]:
        w = max(len(label) * CHAR_W, len(sub) * SUB_CHAR_W) + 24
        w = max(w, 56.0) + (0 if kind == "apply" else 22)
        details = [[k, _clip(v, MAX_TEXT)] for k, v in details]
        d: dict[str, Any] = {"id": f"n{len(self.nodes)}", "graph": graph, "kind": kind,
                             "label": label, "sub": sub, "w": round(w, 1), "h": BOX_H,
                             "details": details, "inplace": False, "view": False,
                             "inner": None, "output": None}
        d.update(flags)
        self.nodes.append(d)
        if kind == "apply":
            self.n_apply += 1
        else:
            self.n_vars += 1
        return d

    def apply_details(self, node: Apply, ninner: int, group: str | None
                      ) -> list[list[str]]:
        op = node.op
        det = [["Op", str(op)], ["class", f"{type(op).__module__}.{type(op).__qualname__}"]]
        for p in op.__props__ or ():
            det.append([f"prop {p}", repr(getattr(op, p, None))])
        for j, out in enumerate(node.outputs):
            tag = "" if len(node.outputs) == 1 else f" {j}"
            name = f"'{out.name}' " if out.name else ""
            det.append([f"output{tag}", f"{name}{out.type}"])
            det.append([f"shape{tag}", _shape(out)])
        for o, ins in sorted((op.destroy_map or {}).items()):
            det.append(["in place", f"output {o} overwrites input "
                        + ", ".join(f"{i} ({node.inputs[i]})" for i in ins)])
        for o, ins in sorted((op.view_map or {}).items()):
            det.append(["view", f"output {o} is a view of input "
                        + ", ".join(f"{i} ({node.inputs[i]})" for i in ins)])
        if op.lazy_conditional:
            det.append(["lazy", "runs the condition first, then only the branch taken"])
        if group is not None:
            det.append(["inner graph", f"[{group[1:]}], {ninner} Apply nodes"])
        det.append(["built at", _where(node, *node.outputs) or "(not recorded)"])
        if self.extra is not None:
            for k, v in self.extra(node).items():
                det.append([str(k), str(v)])
        return det

    def var_details(self, var: Variable, kind: str) -> list[list[str]]:
        det = [["variable", str(var)], ["kind", kind], ["type", str(var.type)],
               ["shape", _shape(var)]]
        if isinstance(var, Constant) or _is_shared(var):
            det.append(["value", _value_text(var)])
        where = _where(var)
        if where:
            det.append(["built at", where])
        return det


def _roots(obj: Any) -> tuple[list[Variable], list[Variable], dict[int, int], str]:
    """``(inputs, outputs, update_mapping, description)`` of what to draw."""
    maker = getattr(obj, "maker", None)
    if maker is not None and isinstance(getattr(maker, "fgraph", None), FunctionGraph):
        obj = maker.fgraph
    if isinstance(obj, FunctionGraph):
        return list(obj.inputs), list(obj.outputs), dict(obj.update_mapping), "compiled graph"
    if isinstance(obj, Apply):
        obj = list(obj.outputs)
    if isinstance(obj, Variable):
        obj = [obj]
    if isinstance(obj, (list, tuple)) and all(isinstance(v, Variable) for v in obj) and obj:
        return [], list(obj), {}, "symbolic graph"
    raise TypeError(
        f"d3viz draws a compiled function, a FunctionGraph, an Apply or Variables, "
        f"not {type(obj).__name__}"
    )


def _slot_name(node: Apply, i: int) -> str:
    """``input i``; for a lazy conditional ``condition``, ``then j`` or ``else j``."""
    if not node.op.lazy_conditional:
        return f"input {i}"
    n = len(node.outputs)
    if i == 0:
        return "condition"
    return f"then {i - 1}" if i <= n else f"else {i - 1 - n}"


def _add_graph(doc: _Doc, gid: str, inputs: Sequence[Variable], outputs: Sequence[Variable],
               updates: Mapping[int, int], inner_queue: list[tuple[Apply, str, str]],
               inner: bool) -> dict[str, Any]:
    """Draw one graph into ``doc`` (its nodes and edges) and lay it out."""
    apply_nodes = io_toposort(inputs, outputs)
    input_pos = {v: i for i, v in enumerate(inputs)}
    of: dict[Any, dict[str, Any]] = {}  # Apply or leaf Variable -> drawn node
    mine: list[dict[str, Any]] = []

    def leaf(var: Variable, user: Apply | None = None) -> dict[str, Any]:
        # a constant is drawn next to each node that reads it: one shared ellipse
        # would send edges all over the graph (0.5, 1.0 are read everywhere)
        key = (var, user) if isinstance(var, Constant) else var
        if key in of:
            return of[key]
        if isinstance(var, Constant):
            kind, what = "constant", "constant"
        elif _is_shared(var):
            kind, what = "shared", "shared variable"
        else:
            kind = "input"
            what = "inner input" if inner else "input"
            if var in input_pos:
                what += f" {input_pos[var]}"
            elif inputs:
                what += " (free: not among the graph's inputs)"
        d = doc.node(gid, kind, _var_label(var), _short_type(var),
                     doc.var_details(var, what))
        of[key] = d
        mine.append(d)
        return d

    for v in inputs:  # in the user's order, used or not
        leaf(v)
    edge_list: list[tuple[str, str, dict[str, Any]]] = []
    edge_info: dict[tuple[str, str], dict[str, Any]] = {}

    def connect(src: dict[str, Any], dst: dict[str, Any], var: Variable, slot: str) -> None:
        key = (src["id"], dst["id"])
        if key in edge_info:
            edge_info[key]["slots"].append(slot)
            return
        info = {"var": var, "slots": [slot]}
        edge_info[key] = info
        edge_list.append((src["id"], dst["id"], info))

    for node in apply_nodes:
        group = _inner_graph(node.op)
        ninner = len(io_toposort(group[0], group[1])) if group is not None else 0
        sub = _short_type(node.outputs[0]) if len(node.outputs) == 1 \
            else f"{len(node.outputs)} outputs"
        g2, new = doc.group_for(node) if group is not None else (None, False)
        d = doc.node(gid, "apply", _clip(str(node.op), MAX_LABEL), sub,
                     doc.apply_details(node, ninner, g2), inplace=bool(node.op.destroy_map),
                     view=bool(node.op.view_map), inner=g2)
        of[node] = d
        mine.append(d)
        if g2 is not None:
            doc.owners[g2].append(d["id"])
            if new:
                inner_queue.append((node, d["id"], g2))
        for i, v in enumerate(node.inputs):
            src = of[v.owner] if v.owner is not None and v.owner in of else leaf(v, node)
            connect(src, d, v, _slot_name(node, i))

    for k, out in enumerate(outputs):
        what = f"output {k}"
        if k in updates and updates[k] < len(inputs):
            what = f"update of {inputs[updates[k]]}"
        if out.owner is None or out.owner not in of:
            d = leaf(out)  # an input returned as it is
            d["output"] = what
            d["details"].append(["output", what])
            continue
        d = doc.node(gid, "output", _var_label(out) if out.name else what, _short_type(out),
                     doc.var_details(out, what), output=what)
        mine.append(d)
        connect(of[out.owner], d, out, f"output {out.index}")

    ids = [d["id"] for d in mine]
    by_id = {d["id"]: d for d in mine}
    lay = layout(ids, {i: (by_id[i]["w"], by_id[i]["h"]) for i in ids},
                 [(a, b) for a, b, _ in edge_list])
    bands = fold(lay)  # a very wide graph in rows, a very long one in columns
    for d in mine:
        d["x"], d["y"] = round(lay.x[d["id"]], 1), round(lay.y[d["id"]], 1)
        d["layer"] = lay.layer[d["id"]]
    _add_edges(doc, gid, edge_list, lay.routes, by_id)
    return {"id": gid, "nodes": ids, "width": round(lay.width, 1),
            "height": round(lay.height, 1), "bands": bands}


def _add_edges(doc: _Doc, gid: str, edge_list: list[tuple[str, str, dict[str, Any]]],
               routes: list[list[tuple[float, float]]], by_id: dict[str, dict[str, Any]]
               ) -> None:
    """Edges with their end points spread along the boxes' sides, in the order of the
    other ends (so that edges entering one box do not cross there)."""
    ends_out: dict[str, list[tuple[float, int]]] = {}
    ends_in: dict[str, list[tuple[float, int]]] = {}
    for k, (a, b, _) in enumerate(edge_list):
        route = routes[k]
        ends_out.setdefault(a, []).append((route[0][0] if route else by_id[b]["x"], k))
        ends_in.setdefault(b, []).append((route[-1][0] if route else by_id[a]["x"], k))
    start: dict[int, float] = {}
    end: dict[int, float] = {}
    for table, into in ((ends_out, start), (ends_in, end)):
        for nid, lst in table.items():
            lst.sort()
            w = by_id[nid]["w"]
            step = min(14.0, (w - 20) / max(len(lst), 1))
            for j, (_, k) in enumerate(lst):
                into[k] = by_id[nid]["x"] + (j - (len(lst) - 1) / 2) * step
    for k, (a, b, info) in enumerate(edge_list):
        src, dst, var = by_id[a], by_id[b], info["var"]
        points = [[round(start[k], 1), round(src["y"] + src["h"] / 2, 1)]]
        points += [[round(px, 1), round(py, 1)] for px, py in routes[k]]
        points.append([round(end[k], 1), round(dst["y"] - dst["h"] / 2, 1)])
        details = [["variable", _clip(str(var), MAX_TEXT)], ["type", str(var.type)],
                   ["shape", _shape(var)], ["from", src["label"]],
                   ["to", f"{dst['label']} ({', '.join(info['slots'])})"]]
        roles = {slot.split()[0] for slot in info["slots"]}
        role = roles.pop() if len(roles) == 1 else None
        doc.edges.append({"id": f"e{len(doc.edges)}", "graph": gid, "src": a, "dst": b,
                          "points": points, "label": _clip(str(var), MAX_LABEL),
                          "role": role if role in ("condition", "then", "else") else None,
                          "details": details})


def build_document(obj: Any, extra: ExtraInfo | None = None, title: str | None = None
                   ) -> dict[str, Any]:
    """The page's data for ``obj``: a compiled function, a FunctionGraph, an Apply,
    a Variable or a list of Variables (see the module docstring)."""
    inputs, outputs, updates, what = _roots(obj)
    doc = _Doc(extra)
    queue: list[tuple[Apply, str, str]] = []
    main = _add_graph(doc, "g0", inputs, outputs, updates, queue, inner=False)
    main.update(label=what, owner=None, owners=[], parent=None, depth=0, num=0)
    doc.graphs.append(main)
    depth = {"g0": 0}
    k = 0
    while k < len(queue):  # inner graphs may hold inner graphs: a worklist
        node, owner_id, gid = queue[k]
        k += 1
        group = _inner_graph(node.op)
        assert group is not None
        owner = doc.nodes[int(owner_id[1:])]
        g = _add_graph(doc, gid, group[0], group[1], {}, queue, inner=True)
        depth[gid] = depth[owner["graph"]] + 1
        g.update(owner=owner_id, owners=doc.owners[gid], parent=owner["graph"],
                 depth=depth[gid], num=int(gid[1:]))
        doc.graphs.append(g)
    for g in doc.graphs[1:]:  # (a group's users are all known now)
        users = len(g["owners"])
        g["label"] = f"[{g['num']}] inner graph of {doc.nodes[int(g['owner'][1:])]['label']}" \
            + (f", used by {users} nodes" if users > 1 else "")
    for g in doc.graphs:  # the frame is at least as wide as its header's text
        g["width"] = max(g["width"], round(len(g["label"]) * HEADER_CHAR_W + 40, 1))
    return {
        "title": title or f"theon graph ({what})",
        "graphs": doc.graphs,
        "nodes": doc.nodes,
        "edges": doc.edges,
        "counts": {"apply": doc.n_apply, "variables": doc.n_vars,
                   "groups": len(doc.graphs) - 1},
    }

