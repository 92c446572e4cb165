"""Printing graphs: ``dprint`` in the seeds' format, ``pprint`` as infix math
(:mod:`theon.printing.pretty`) and ``pydotprint`` pictures (:mod:`theon.printing.dot`).

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> class F(Op):
...     __props__ = ()
...     def make_node(self, *xs):
...         return Apply(self, list(xs), [Generic()()])
>>> x = Generic()("x")
>>> print(dprint(F()(x, F()(x)), file="str"), end="")
F [id A] ''
 |x [id B]
 |F [id C] ''
   |x [id B]
"""

from __future__ import annotations

import sys
from typing import IO, Any

from theon.graph.basic import Apply, Variable

__all__ = ["Print", "debugprint", "dprint", "pp", "pprint", "pydotprint"]


def _id_name(n: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'BA' (base 26 with A as the zero digit)."""
    digits = []
    while True:
        n, r = divmod(n, 26)
        digits.append(chr(ord("A") + r))
        if n == 0:
            break
    return "".join(reversed(digits))


def _roots(obj: Any) -> tuple[list[Variable], Any]:
    from theon.graph.fg import FunctionGraph

    maker = getattr(obj, "maker", None)
    if maker is not None and hasattr(maker, "fgraph"):
        obj = maker.fgraph
    if isinstance(obj, FunctionGraph):
        return list(obj.outputs), obj
    if isinstance(obj, Apply):
        return list(obj.outputs), None
    if isinstance(obj, Variable):
        return [obj], None
    if isinstance(obj, (list, tuple)):
        out: list[Variable] = []
        for o in obj:
            out.extend(_roots(o)[0])
        return out, None
    raise TypeError(f"dprint cannot print {type(obj).__name__} {obj!r}")


def _inner_graph(op: Any) -> tuple[list[Variable], list[Variable]] | None:
    """``(inner_inputs, inner_outputs)`` of an Op holding an inner graph, else None.

    The protocol: an Op with an inner graph (OpFromGraph, scan, ...) has the
    attributes ``inner_inputs`` and ``inner_outputs``, lists of Variables.
    """
    outs = getattr(op, "inner_outputs", None)
    ins = getattr(op, "inner_inputs", None)
    if not isinstance(outs, (list, tuple)) or not isinstance(ins, (list, tuple)):
        return None
    return list(ins), list(outs)


def _type_text(var: Variable, print_type: bool, print_shape: bool) -> str:
    """What ``dprint`` adds after a variable: its type, its static shape."""
    txt = f" <{var.type}>" if print_type else ""
    shape = getattr(var.type, "shape", None)
    if print_shape and shape is not None:
        dims = ["?" if d is None else str(d) for d in shape]
        txt += f" shape=({', '.join(dims)}{',' if len(dims) == 1 else ''})"
    return txt


def _maps_text(node: Apply, destroy: bool, view: bool) -> str:
    """What ``dprint`` adds after a node: its Op's destroy and view maps."""
    extra = ""
    if destroy and node.op.destroy_map:
        extra += f" d={node.op.destroy_map}"
    if view and node.op.view_map:
        extra += f" v={node.op.view_map}"
    return extra


def dprint(
    obj: Any,
    file: IO[str] | str | None = None,
    depth: int = -1,
    print_type: bool = False,
    ids: str = "CHAR",
    print_destroy_map: bool = False,
    print_view_map: bool = False,
    print_shape: bool = False,
) -> Any:
    """Print a graph as an indented tree, one line per variable.

    ``print_type`` adds each variable's type, ``print_shape`` its static shape
    (PyTensor's ``shape=(?, 3)``: ``?`` for a length known only at run time).

    Accepts a Variable, a list of them, an Apply, a FunctionGraph or a compiled
    function.  Computed variables print as ``Op [id A] 'name'`` and their inputs
    follow, indented with ``|``; a node met again prints only its header.
    ``file="str"`` returns the text instead of printing it.

    An Op holding an inner graph (OpFromGraph, scan, ...) exposes it as the
    attributes ``inner_inputs`` and ``inner_outputs``.  Those graphs are printed
    after the outer one, under ``Inner graphs:``: for each such Op (once, however
    many nodes use it) a header with its node's id, the inner inputs, then the
    inner outputs' trees, every line starting with ``>``.  Inner graphs inside
    inner graphs follow in turn.

    >>> from theon.scalar import add, float64
    >>> x = float64("x")
    >>> print(dprint(add(x, x), file="str"), end="")
    add [id A] ''
     |x [id B]
     |x [id B]
    """
    roots, fgraph = _roots(obj)
    ids_of: dict[Any, str] = {}
    expanded: set[Apply] = set()
    lines: list[str] = []
    inner_queue: list[Apply] = []  # nodes whose op has an inner graph, to print after
    queued_ops: set[int] = set()

    def ident(key: Any) -> str:
        if key not in ids_of:
            ids_of[key] = _id_name(len(ids_of)) if ids == "CHAR" else str(len(ids_of))
        return ids_of[key]

    def type_text(var: Variable) -> str:
        return _type_text(var, print_type, print_shape)

    def leaf_text(var: Variable) -> str:
        return f"{var} [id {ident(var)}]{type_text(var)}"

    def tree(root: Variable, margin: str) -> None:
        stack: list[tuple[Variable, int]] = [(root, 0)]
        while stack:
            var, level = stack.pop()
            prefix = margin + ("" if level == 0 else "  " * (level - 1) + " |")
            node = var.owner
            if node is None:
                lines.append(prefix + leaf_text(var))
                continue
            op_txt = str(node.op)
            if len(node.outputs) > 1:
                op_txt += f".{var.index}"
            extra = _maps_text(node, print_destroy_map, print_view_map)
            name = var.name or ""
            lines.append(f"{prefix}{op_txt} [id {ident(node)}] '{name}'{extra}{type_text(var)}")
            if _inner_graph(node.op) is not None and id(node.op) not in queued_ops:
                queued_ops.add(id(node.op))
                inner_queue.append(node)
            if node in expanded or (depth != -1 and level + 1 >= depth):
                continue
            expanded.add(node)
            for inp in reversed(node.inputs):
                stack.append((inp, level + 1))

    for root in roots:
        tree(root, "")
    if inner_queue:
        lines.extend(["", "Inner graphs:"])
    k = 0
    while k < len(inner_queue):  # inner graphs may hold inner graphs: a worklist
        node = inner_queue[k]
        k += 1
        inner = _inner_graph(node.op)
        assert inner is not None
        ins, outs = inner
        lines.extend(["", f"{node.op} [id {ident(node)}]"])
        lines.append(" >inputs: " + ", ".join(leaf_text(v) for v in ins))
        for out in outs:
            tree(out, " >")
    text = "\n".join(lines) + "\n"
    if isinstance(file, str):
        if file != "str":
            raise ValueError(f"dprint: file must be a stream, None or 'str', got {file!r}")
        return text
    stream = sys.stdout if file is None else file
    stream.write(text)
    return obj


debugprint = dprint


# after the helpers above, which the submodules read
from theon.printing.pretty import pp, pprint  # noqa: E402
from theon.printing.print_op import Print  # noqa: E402


def __getattr__(name: str) -> Any:
    """``pydotprint`` loads its module on first use (``import theon`` stays fast)."""
    if name == "pydotprint":
        from theon.printing.dot import pydotprint

        return pydotprint
    raise AttributeError(f"module 'theon.printing' has no attribute {name!r}")
