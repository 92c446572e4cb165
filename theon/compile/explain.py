"""``theon.explain(f)``: where each node of a compiled function comes from.

For each node of the rewritten graph, the rewrites that made it (a tree: a fused
node lists every node it fused, and how each of those was made in turn) and the
lines of the user's code that built the original nodes it stands for.  Nodes made
by ``theon.grad`` name the forward node they are a gradient of.  The records are
made while compiling (:mod:`theon.rewriting.provenance`); this module only reads
and formats them.

This module is in the top layer (see ``tests/test_layers.py``): ``format='html'``
draws the graph with :func:`theon.d3viz.d3viz`.
"""

from __future__ import annotations

import importlib
import linecache
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

from theon.graph.basic import Apply, Variable
from theon.graph.fg import FunctionGraph
from theon.rewriting.provenance import (
    Origin,
    Provenance,
    Step,
    format_provenance,
    op_name,
    origins,
    provenance,
    steps,
    where_built,
)

__all__ = ["explain", "provenance_details"]

_Frame = tuple[str, int, str]


def explain(
    f: Any,
    node: Any = None,
    file: IO[str] | str | None = None,
    format: str = "text",
    outfile: str | None = None,
    source: bool = True,
) -> Any:
    """Show, for each node of a compiled function, the rewrites that made it and the
    user's source lines it comes from.

    Parameters
    ----------
    f
        A compiled function (``theon.function``) or a rewritten FunctionGraph.
    node
        Only this node: an Apply of the compiled graph, one of its variables (or one
        of the function's output variables as the user built them), its position in
        the graph's run order (``#k`` in the text), or the name of one of its outputs.
    file
        Where to write the text: ``None`` prints it, ``"str"`` returns it, or any
        object with a ``write`` method.
    format
        ``"text"``; or ``"html"``: the interactive view of :func:`theon.d3viz.d3viz`
        written to ``outfile``, each node's hover card showing its provenance.
    outfile
        The HTML file (``format="html"`` only).
    source
        Quote the text of each user line (read with :mod:`linecache`).

    Returns
    -------
    str or None
        The text with ``file="str"``, the HTML file's path with ``format="html"``,
        else None.

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> f = theon.function([x], tt.exp(x) + 1, name="f")
    >>> explain(f, source=False)  # (source=True quotes each line's code)
    function 'f': 1 node, in run order
    <BLANKLINE>
    #0 Elemwise{Composite{add(exp(i0), i1)},no_inplace}(x, TensorConstant{[1.]})  -> output 0
        made by:
          [fusion] elemwise_fusion of:
            [canonicalize] local_add_canonizer of:
              add built at <doctest theon.compile.explain.explain[2]>:1 in <module>
            exp built at <doctest theon.compile.explain.explain[2]>:1 in <module>
        user code:
          <doctest theon.compile.explain.explain[2]>:1 in <module>
    >>> explain(f, 0, file="str", source=False).splitlines()[-1].strip()
    '<doctest theon.compile.explain.explain[2]>:1 in <module>'
    """
    if format == "html":
        if outfile is None:
            raise ValueError("explain(f, format='html') needs outfile= (the HTML file to write)")
        d3viz = importlib.import_module("theon.d3viz").d3viz
        details = provenance_details(f)
        return d3viz(f, outfile, extra=_lookup(details))
    if format != "text":
        raise ValueError(f"explain: format must be 'text' or 'html', got {format!r}")
    fgraph = _fgraph_of(f)
    order = fgraph.toposort()
    ids = {n: k for k, n in enumerate(order)}
    if node is None:
        name = getattr(f, "name", None)
        what = f"function {name!r}" if name else "the compiled function"
        lines = [f"{what}: {len(order)} node{'s' if len(order) != 1 else ''}, in run order"]
        for n in order:
            lines.append("")
            lines.extend(_node_lines(n, ids, fgraph, source))
    else:
        lines = _node_lines(_find_node(f, fgraph, order, node), ids, fgraph, source)
    text = "\n".join(lines) + "\n"
    if isinstance(file, str):
        if file != "str":
            raise ValueError(f"explain: file must be a stream, None or 'str', got {file!r}")
        return text
    out = sys.stdout if file is None else file
    out.write(text)
    return None


def provenance_details(f: Any) -> dict[Apply, dict[str, str]]:
    """Each node's provenance as short texts, for a graph view's hover cards.

    Keys: ``"rewrites"`` (the rewrites that made the node, latest first, or
    ``"none"``), ``"user code"`` (the user's lines the node comes from, one per
    line, with the Ops built there) and ``"provenance"`` (the tree that ``explain``
    prints).

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> f = theon.function([x], tt.exp(x) * 2)
    >>> (d,) = provenance_details(f).values()
    >>> d["rewrites"]
    '[fusion] elemwise_fusion, [canonicalize] local_mul_canonizer'
    >>> d["user code"].startswith("<doctest")
    True
    """
    out: dict[Apply, dict[str, str]] = {}
    for n in _fgraph_of(f).toposort():
        p = provenance(n)
        made = steps(p)
        out[n] = {
            "rewrites": ", ".join(_step_name(s) for s in made) if made else "none",
            "user code": "\n".join(
                f"{place}: {', '.join(ops)}" for place, ops in _places(p).items()
            ) or "unknown",
            "provenance": "\n".join(format_provenance(p)),
        }
    return out


# --------------------------------------------------------------------------------


def _fgraph_of(f: Any) -> FunctionGraph:
    fgraph = getattr(getattr(f, "maker", None), "fgraph", f)
    if not isinstance(fgraph, FunctionGraph):
        raise TypeError(
            f"explain: expected a compiled function (theon.function) or a FunctionGraph, "
            f"got {type(f).__name__} {f!r}"
        )
    return fgraph


def _lookup(details: Mapping[Apply, Mapping[str, str]]) -> Callable[[Apply], Mapping[str, str]]:
    def extra(node: Apply) -> Mapping[str, str]:
        return details.get(node, {})

    return extra


def _find_node(f: Any, fgraph: FunctionGraph, order: list[Apply], node: Any) -> Apply:
    """The node of ``fgraph`` that ``node`` designates (see :func:`explain`)."""
    if isinstance(node, Apply):
        if node in fgraph.apply_nodes:
            return node
        raise ValueError(f"explain: {node} is not a node of the compiled graph")
    if isinstance(node, Variable):
        var = node
        if var not in fgraph.variables:  # an output as the user built it?
            outs = getattr(getattr(f, "maker", None), "outputs", None) or ()
            found = [k for k, o in enumerate(outs) if getattr(o, "variable", None) is var]
            if not found:
                raise ValueError(
                    f"explain: {var} is neither a variable of the compiled graph nor one of "
                    "the function's outputs"
                )
            var = fgraph.outputs[found[0]]
        if var.owner is None:
            raise ValueError(f"explain: {var} is an input or a constant, computed by no node")
        return var.owner
    if isinstance(node, int) and not isinstance(node, bool):
        if not -len(order) <= node < len(order):
            raise IndexError(f"explain: node #{node} does not exist; the graph has "
                             f"{len(order)} nodes (#0 to #{len(order) - 1})")
        return order[node]
    if isinstance(node, str):
        named = [n for n in order if any(o.name == node for o in n.outputs)]
        if len(named) == 1:
            return named[0]
        if not named:
            raise ValueError(f"explain: no node of the compiled graph computes a variable "
                             f"named {node!r}")
        raise ValueError(f"explain: several nodes compute a variable named {node!r}; "
                         "pass the node's position instead")
    raise TypeError(f"explain: node must be an Apply, a Variable, an int or a str, "
                    f"got {type(node).__name__} {node!r}")


def _node_lines(
    node: Apply, ids: dict[Apply, int], fgraph: FunctionGraph, source: bool
) -> list[str]:
    def ref(v: Variable) -> str:
        o = v.owner
        if o is not None and o in ids:
            return f"#{ids[o]}" + (f".{v.index}" if len(o.outputs) > 1 else "")
        return str(v)

    head = f"#{ids.get(node, '?')} {node.op}({', '.join(ref(v) for v in node.inputs)})"
    outs = [k for k, o in enumerate(fgraph.outputs) if o.owner is node]
    if outs:
        head += f"  -> output {', '.join(map(str, outs))}"
    lines = [head]
    p = provenance(node)
    if isinstance(p, Step):
        lines.append("    made by:")
        lines.extend("      " + ln for ln in format_provenance(p))
    elif p.trace or p.grad_of is not None:
        lines.append(f"    no rewrite recorded: {_op_name(p)} built at {where_built(p)}")
    else:  # made by theon's own code outside a compile, or the records were not pickled
        lines.append("    no record of where this node comes from (a loaded function "
                     "keeps no provenance)")
    frames = _frames(p)
    if frames:
        lines.append("    user code:")
        for (file, line, fn), notes in frames.items():
            text = f"      {file}:{line} in {fn}"
            code = linecache.getline(file, line).strip() if source else ""
            if code:
                text += f"    {code}"
            if notes:
                text += f"    (differentiated: {', '.join(notes)})"
            lines.append(text)
    return lines


def _frames(p: Provenance) -> dict[_Frame, list[str]]:
    """The user's frames behind ``p``: the lines that built its nodes, and the lines
    that built the forward nodes of its gradient nodes (noted as such)."""
    out: dict[_Frame, list[str]] = {}
    for o in origins(p):
        if o.trace:
            out.setdefault(o.trace[0], [])
        g: Origin | None = o.grad_of
        while g is not None:
            if g.trace:
                notes = out.setdefault(g.trace[0], [])
                name = _op_name(g)
                if name not in notes:
                    notes.append(name)
            g = g.grad_of
    return out


def _places(p: Provenance) -> dict[str, list[str]]:
    """``where built -> [ops]`` for the origins of ``p``."""
    out: dict[str, list[str]] = {}
    for o in origins(p):
        if o.trace or o.grad_of:
            names = out.setdefault(where_built(o), [])
            name = _op_name(o)
            if name not in names:
                names.append(name)
    return out


def _op_name(o: Origin) -> str:
    return op_name(o.op)


def _step_name(s: Step) -> str:
    return f"[{s.phase}] {s.rewrite}" if s.phase else s.rewrite
