"""``pprint``: a graph as infix math, ``(x + y) * exp(z)``.

Each Op is rendered by a row of a table: scalar ops (bare, or inside an
``Elemwise``) by their name in :data:`SCALAR_INFIX` / :data:`SCALAR_PREFIX`,
tensor Ops by their class name (or a base class's) in :data:`TENSOR_OPS`.  The printing layer sits
below ``theon.scalar`` and ``theon.tensor``, so the table names classes instead
of importing them.  An Op missing from the tables prints as ``Op(args)``, with
the Op's own text.

Every rendering has a precedence (Python's), and an operand is parenthesised
only when its precedence requires it.  The walk is iterative, so a chain of
thousands of nodes prints without reaching Python's recursion limit.

>>> from theon.scalar import exp, float64, mul
>>> x = float64("x")
>>> pprint(exp(mul(x, 2.0)))
'exp(x * 2.0)'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable

__all__ = ["SCALAR_INFIX", "SCALAR_PREFIX", "TENSOR_OPS", "pp", "pprint"]

ATOM = 100  # names, calls, subscripts, attributes: never parenthesised
POWER = 90
UNARY = 80
LET_MIN = 30  # a subexpression used twice and longer than this is bound to a name

Text = tuple[str, int]  # an expression's text and its precedence

# scalar op name -> (symbol, precedence, associativity): Python's operator table
SCALAR_INFIX: dict[str, tuple[str, int, str]] = {
    "pow": ("**", POWER, "right"),
    "mul": ("*", 70, "left"),
    "true_div": ("/", 70, "left"),
    "int_div": ("//", 70, "left"),
    "mod": ("%", 70, "left"),
    "add": ("+", 60, "left"),
    "sub": ("-", 60, "left"),
    "left_shift": ("<<", 55, "left"),
    "right_shift": (">>", 55, "left"),
    "and_": ("&", 50, "left"),
    "xor": ("^", 45, "left"),
    "or_": ("|", 42, "left"),
    "lt": ("<", 35, "none"),
    "le": ("<=", 35, "none"),
    "gt": (">", 35, "none"),
    "ge": (">=", 35, "none"),
    "eq": ("==", 35, "none"),
    "neq": ("!=", 35, "none"),
}
# scalar op name -> prefix symbol (precedence UNARY)
SCALAR_PREFIX: dict[str, str] = {"neg": "-", "invert": "~"}
# scalar op name -> the function name printed, where it differs from the op's name
# ("" prints the argument alone)
SCALAR_CALL_NAMES: dict[str, str] = {"identity": ""}


def _paren(t: Text, need: bool) -> str:
    return f"({t[0]})" if need else t[0]


def _atom(t: Text) -> str:
    """``t`` as the object of a subscript, an attribute or a method call."""
    return _paren(t, t[1] < ATOM)


def _call(fn: str, args: Sequence[str], **kw: Any) -> Text:
    parts = list(args) + [f"{k}={v}" for k, v in kw.items()]
    return f"{fn}({', '.join(parts)})", ATOM


def _infix(sym: str, prec: int, assoc: str, args: Sequence[Text]) -> Text:
    """``a sym b sym c`` with the fewest parentheses that keep the tree's meaning."""
    pieces = []
    for k, a in enumerate(args):
        if assoc == "none":
            need = a[1] <= prec
        elif assoc == "right":
            need = a[1] <= prec if k < len(args) - 1 else a[1] < prec
        else:
            need = a[1] < prec if k == 0 else a[1] <= prec
        pieces.append(_paren(a, need))
    return f" {sym} ".join(pieces), prec


# scalar ops --------------------------------------------------------------------------
def _scalar_text(op: Any, args: list[Text], index: int) -> Text:
    """The rendering of scalar op ``op`` (bare or the ``scalar_op`` of an Elemwise)."""
    cls = type(op).__name__
    if cls == "Composite":
        return _composite_text(op, args, index)
    if cls == "Cast":
        return _call("cast", [args[0][0], repr(str(op.o_type.dtype))])
    name = str(getattr(op, "name", None) or op)
    if name in SCALAR_INFIX and len(args) >= 2:
        sym, prec, assoc = SCALAR_INFIX[name]
        return _infix(sym, prec, assoc, args)
    if name in SCALAR_PREFIX and len(args) == 1:
        return SCALAR_PREFIX[name] + _paren(args[0], args[0][1] <= UNARY), UNARY
    fn = SCALAR_CALL_NAMES.get(name, name)
    if fn == "" and len(args) == 1:
        return args[0]
    return _call(fn, [a[0] for a in args])


def _composite_text(op: Any, args: list[Text], index: int) -> Text:
    """A fused Composite: its inner scalar expression, on the outer arguments."""
    memo: dict[Variable, Text] = dict(zip(op.inputs, args))
    for node in op.inner_nodes:  # already in topological order
        ins = [memo[v] if v in memo else _leaf_text(v) for v in node.inputs]
        for j, out in enumerate(node.outputs):
            memo[out] = _scalar_text(node.op, ins, j)
    out = op.outputs[index]
    return memo[out] if out in memo else _leaf_text(out)


# tensor Ops -----------------------------------------------------------------------------
Renderer = Callable[[Apply, list[Text], int], Text]


def _elemwise(node: Apply, args: list[Text], index: int) -> Text:
    op: Any = node.op
    return _scalar_text(op.scalar_op, args, index)


def _axis_text(axis: Any) -> str | None:
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    return str(axes[0]) if len(axes) == 1 else "(" + ", ".join(map(str, axes)) + ")"


def _reduction(fn: str) -> Renderer:
    def render(node: Apply, args: list[Text], index: int) -> Text:
        axis = _axis_text(getattr(node.op, "axis", None))
        return _call(fn, [args[0][0]], **({} if axis is None else {"axis": axis}))

    return render


def _along_axis(fn: str) -> Renderer:
    def render(node: Apply, args: list[Text], index: int) -> Text:
        axis = getattr(node.op, "axis", None)
        ndim = getattr(node.inputs[0].type, "ndim", None)
        if axis is None:
            return _call(fn, [args[0][0]], axis=None)
        if ndim is not None and axis == ndim - 1:
            axis = -1  # the last axis, as the user usually wrote it
        return _call(fn, [args[0][0]], axis=axis)

    return render


def _fn(fn: str) -> Renderer:
    return lambda node, args, index: _call(fn, [a[0] for a in args])


def _transparent(node: Apply, args: list[Text], index: int) -> Text:
    return args[0]


def _dimshuffle(node: Apply, args: list[Text], index: int) -> Text:
    op: Any = node.op
    order = tuple(op.new_order)
    nd = int(op.input_ndim)
    kept = tuple(o for o in order if o != "x")
    lead = len(order) - len(kept)
    if kept == tuple(range(nd)) and all(o == "x" for o in order[:lead]):
        return args[0]  # adding leading broadcast axes: NumPy's implicit broadcasting
    if nd >= 2 and order == tuple(reversed(range(nd))):
        return f"{_atom(args[0])}.T", ATOM
    spelled = ", ".join(repr(o) if o == "x" else str(o) for o in order)
    return f"{_atom(args[0])}.dimshuffle({spelled})", ATOM


def _index_text(idx_list: Sequence[Any], args: Sequence[Text]) -> str:
    """``0, 1:n, ::2`` from an index description, ``'?'`` taking the next argument."""
    it = iter(args)

    def part(p: Any) -> str:
        if p is None:
            return ""
        return next(it)[0] if p == "?" else str(p)

    parts = []
    for e in idx_list:
        if isinstance(e, slice):
            a, b, c = e.start, e.stop, e.step
            t = f"{part(a)}:{part(b)}"
            if c is not None:
                t += f":{part(c)}"
            parts.append(t)
        elif e is None:
            parts.append("None")
        else:
            parts.append(part(e) if e == "?" else str(e))
    return ", ".join(parts) if parts else "()"


def _subtensor(node: Apply, args: list[Text], index: int) -> Text:
    op: Any = node.op
    return f"{_atom(args[0])}[{_index_text(op.idx_list, args[1:])}]", ATOM


def _inc_subtensor(node: Apply, args: list[Text], index: int) -> Text:
    op: Any = node.op
    fn = "set_subtensor" if op.set_instead_of_inc else "inc_subtensor"
    target = f"{_atom(args[0])}[{_index_text(op.idx_list, args[2:])}]"
    return _call(fn, [target, args[1][0]])


def _shape_i(node: Apply, args: list[Text], index: int) -> Text:
    op: Any = node.op
    return f"{_atom(args[0])}.shape[{op.i}]", ATOM


def _join(node: Apply, args: list[Text], index: int) -> Text:
    axis, *pieces = args  # (PyTensor's Join: the axis is the first input)
    items = "[" + ", ".join(a[0] for a in pieces) + "]"
    return _call("concatenate", [items], axis=axis[0])


TENSOR_OPS: dict[str, Renderer] = {
    "Elemwise": _elemwise,
    "DimShuffle": _dimshuffle,
    "Subtensor": _subtensor,
    "AdvancedSubtensor": _subtensor,
    "IncSubtensor": _inc_subtensor,
    "AdvancedIncSubtensor": _inc_subtensor,
    "Sum": _reduction("sum"),
    "Prod": _reduction("prod"),
    "Max": _reduction("max"),
    "Min": _reduction("min"),
    "All": _reduction("all"),
    "Any": _reduction("any"),
    "Argmax": _reduction("argmax"),
    "Argmin": _reduction("argmin"),
    "Softmax": _along_axis("softmax"),
    "LogSoftmax": _along_axis("log_softmax"),
    "Dot": _fn("dot"),
    "MatMul": lambda node, args, index: _infix("@", 70, "left", args),
    "Shape": lambda node, args, index: (f"{_atom(args[0])}.shape", ATOM),
    "Shape_i": _shape_i,
    "Reshape": _fn("reshape"),
    "Join": _join,
    "MakeVector": lambda node, args, index: ("[" + ", ".join(a[0] for a in args) + "]", ATOM),
    "TensorFromScalar": _transparent,
    "ScalarFromTensor": _transparent,
}


# the walk ------------------------------------------------------------------------------------
def _const_text(data: Any) -> Text:
    a = np.asarray(data)
    if a.size == 1:  # a number (0-d, or broadcast to length-1 axes)
        text = str(a.reshape(())[()])
    elif a.ndim == 1 and a.size <= 8:
        text = "[" + ", ".join(str(e) for e in a) + "]"
    else:
        text = f"<{a.dtype} constant of shape {a.shape}>"
    return text, (UNARY if text.startswith("-") else ATOM)


def _leaf_text(var: Variable) -> Text:
    if isinstance(var, Constant) and var.name is None:
        return _const_text(var.data)
    return str(var), ATOM


def _is_scalar_op(op: Any) -> bool:
    return any(c.__name__ == "ScalarOp" for c in type(op).__mro__)


def by_class_name(table: dict[str, Any], op: Any) -> Any:
    """The row of ``table`` for the nearest class of ``op`` (in its MRO) named there."""
    for cls in type(op).__mro__:
        if cls.__name__ in table:
            return table[cls.__name__]
    return None


def _render(node: Apply, args: list[Text], index: int) -> Text:
    op = node.op
    render: Renderer | None = by_class_name(TENSOR_OPS, op)
    if render is not None:
        return render(node, args, index)
    if _is_scalar_op(op):
        return _scalar_text(op, args, index)
    text, _ = _call(str(op), [a[0] for a in args])
    return (f"{text}[{index}]" if len(node.outputs) > 1 else text), ATOM


def _use_counts(roots: Sequence[Variable]) -> dict[Variable, int]:
    uses: dict[Variable, int] = {}
    seen: set[Apply] = set()
    stack = [r.owner for r in roots if r.owner is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for v in node.inputs:
            uses[v] = uses.get(v, 0) + 1
            if v.owner is not None and v.owner not in seen:
                stack.append(v.owner)
    return uses


def pprint(var: Variable | Sequence[Variable] | Any) -> str:
    """The graph as one line of infix math, Python's operators and precedences.

    Accepts a Variable, a list of them, an Apply, a FunctionGraph or a compiled
    function (its rewritten graph; a fused ``Composite`` prints as its inner
    scalar expression).  Named variables print as their name, unnamed ones as
    the expression computing them; constants print their value.  An output that
    has a name is still expanded.  Parentheses appear only where precedence
    needs them: ``(x + y) * z``, ``x - (y - z)``, ``-x ** 2``.  Several outputs
    are joined by ``", "``.  A subexpression used more than once and longer than
    30 characters is bound once to ``t0``, ``t1``, ... on lines printed before
    the expression, so that shared subgraphs do not repeat.

    Parameters
    ----------
    var
        What to print.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> import theon.tensor as tt
    >>> x, y, z = tt.dvector("x"), tt.dvector("y"), tt.dvector("z")
    >>> pprint((x + y) * tt.exp(z))
    '(x + y) * exp(z)'
    >>> pprint([x[0], -x ** 2, tt.sum(x - (y - z), axis=0)])
    'x[0], -x ** 2, sum(x - (y - z), axis=0)'
    """
    from theon.printing import _roots

    if isinstance(var, Variable):
        roots = [var]
    else:
        roots, _ = _roots(var)
    uses = _use_counts(roots)
    taken = {v.name for v in uses} | {r.name for r in roots}
    counter = itertools.count()
    memo: dict[Variable, Text] = {}
    lets: list[str] = []

    def text_of(v: Variable, expand: bool) -> Text | None:
        """The text of ``v`` if known without expanding its inputs, else None."""
        if v.owner is None:
            return _leaf_text(v)
        if v.name is not None and not expand:
            return v.name, ATOM
        return memo.get(v)

    def expand(root: Variable) -> Text:
        done = text_of(root, True)
        if done is not None:
            return done
        stack: list[Variable] = [root]
        while stack:
            v = stack[-1]
            node = v.owner
            assert node is not None
            pending = [i for i in node.inputs if text_of(i, False) is None]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            if v in memo:
                continue
            args = [t for t in (text_of(i, False) for i in node.inputs) if t is not None]
            t = _render(node, args, v.index or 0)
            if uses.get(v, 0) > 1 and len(t[0]) > LET_MIN and v is not root:
                name = f"t{next(counter)}"
                while name in taken:  # a user's variable already has that name
                    name = f"t{next(counter)}"
                lets.append(f"{name} = {t[0]}")
                t = (name, ATOM)
            memo[v] = t
        return memo[root]

    body = ", ".join(expand(r)[0] for r in roots)
    return "\n".join([*lets, body])


pp = pprint  # Theano's and PyTensor's name: ``theano.printing.pp(y)``
