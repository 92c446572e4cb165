"""py-linker emitters for ``theon.scalar``: ScalarType values and ScalarOp nodes.

A ScalarType value is a NumPy scalar of the type's dtype, so the boxing of a
Python number is the dtype's scalar class (``np.float64(x)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.link.pyfunc.dispatch import (
    MAX_EXPR_ARGS,
    PyBlockBuilder,
    ValueInfo,
    py_globals,
    py_scalar_block,
    py_scalar_expr,
    value_info,
)
from theon.scalar.basic import Add, Mul, ScalarOp
from theon.scalar.composite import Composite
from theon.scalar.pyimpl import py_namespace
from theon.scalar.type import ScalarType

py_globals.update(py_namespace())


@value_info.register(ScalarType)
def _scalar_type_info(t: ScalarType) -> ValueInfo:
    """0-d values boxed as NumPy scalars of the type's dtype."""
    return ValueInfo(0, t.dtype, t._scalar_class)


@py_scalar_expr.register(ScalarOp)
def _scalar_op_expr(op: ScalarOp, node: Apply, args: list[str]) -> Any:
    """The op's own ``py_expr``, where its contract (``py_expr_ok``) allows.

    For a row of :mod:`theon.scalar.table` that is the row's ``py`` spelling, written
    inline (a helper call costs more than the arithmetic where the row avoids one).
    """
    if not op.py_expr_ok(node):
        return None
    return op.py_expr(*args)


def _literal(data: Any) -> str:
    """A Python literal for a 0-d float64/bool constant (``inf``/``nan`` are globals)."""
    v = np.asarray(data).item()
    if isinstance(v, bool):
        return repr(v)
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "(-inf)"
    return f"({f!r})"


# ops whose py_expr on n operands is the left fold ``((a op b) op c) ...``: a long one
# is spelled in chunks, ``t = (a0 op ... op a31)``, ``t = (t op a32 op ... op a62)``, ...
# (the same operations in the same order, so the same result)
_FOLDS: tuple[type[ScalarOp], ...] = (Add, Mul)


def fold_lines(
    op: ScalarOp, node: Apply, args: list[str], name: str
) -> list[str] | None:
    """Statements assigning ``op`` of ``args`` to ``name``, at most MAX_EXPR_ARGS per line.

    ``op`` must be in ``_FOLDS``; None when it has no Python spelling here.

    >>> from theon.scalar.type import float64
    >>> x = [float64(f"x{i}") for i in range(40)]
    >>> from theon.scalar.basic import add
    >>> z = add(*x)
    >>> lines = fold_lines(z.owner.op, z.owner, [f"a{i}" for i in range(40)], "t")
    >>> len(lines), lines[1]
    (2, 't = (t + a32 + a33 + a34 + a35 + a36 + a37 + a38 + a39)')
    """
    templates: dict[int, str | None] = {}  # by chunk length (asking per chunk costs O(n))
    lines = []
    k = MAX_EXPR_ARGS
    chunk, rest = args[:k], args[k:]
    while True:
        if len(chunk) not in templates:
            marks = [f"__arg{i}__" for i in range(len(chunk))]
            expr = py_scalar_expr(op, node, marks)
            if expr is not None:
                expr = expr.replace("{", "{{").replace("}", "}}")
                for i, m in enumerate(marks):
                    expr = expr.replace(m, "{" + str(i) + "}")
            templates[len(chunk)] = expr
        template = templates[len(chunk)]
        if template is None:
            return None
        lines.append(f"{name} = {template.format(*chunk)}")
        if not rest:
            return lines
        chunk, rest = [name, *rest[: k - 1]], rest[k - 1 :]


def _fold_block(op: ScalarOp, node: Apply) -> PyBlockBuilder | None:
    """A sum or product of more than MAX_EXPR_ARGS operands, in chunks (see ``fold_lines``)."""
    if len(node.inputs) <= MAX_EXPR_ARGS or not op.py_expr_ok(node):
        return None
    # py_expr may still decline for particular names: try once with placeholders
    if fold_lines(op, node, [f"__a{k}__" for k in range(len(node.inputs))], "__t__") is None:
        return None

    def build(args: list[str], new_name: Callable[[], str]) -> tuple[list[str], list[str]]:
        name = new_name()
        return fold_lines(op, node, args, name) or [], [name]

    return build


for _cls in _FOLDS:
    py_scalar_block.register(_cls)(_fold_block)


def composite_block(comp: Composite) -> PyBlockBuilder | None:
    """Statements computing a Composite's inner graph on Python floats, or None."""
    for inner in comp.inner_nodes:
        if len(inner.outputs) != 1:
            return None
    for v in (*comp.inputs, *comp.outputs):
        vt = v.type
        if not isinstance(vt, ScalarType) or vt.dtype not in ("float64", "bool"):
            return None

    def build(args: list[str], new_name: Callable[[], str]) -> tuple[list[str], list[str]]:
        names: dict[Variable, str] = dict(zip(comp.inputs, args))

        def ref(v: Variable) -> str:
            return _literal(v.data) if isinstance(v, Constant) else names[v]

        lines = []
        for inner in comp.inner_nodes:
            inner_args = [ref(v) for v in inner.inputs]
            if isinstance(inner.op, Composite):
                # a composite inside: its statements, not its one-expression py_expr
                # (whose inner sums would not be cut into chunks)
                sub = cached_composite_block(inner.op)
                if sub is None:
                    raise _NoExpr
                sub_lines, (out,) = sub(inner_args, new_name)
                lines.extend(sub_lines)
                names[inner.outputs[0]] = out
                continue
            name = new_name()
            names[inner.outputs[0]] = name
            if len(inner_args) <= MAX_EXPR_ARGS:
                expr = py_scalar_expr(inner.op, inner, inner_args)
                if expr is None:
                    raise _NoExpr
                lines.append(f"{name} = {expr}")
                continue
            # too many operands for one expression (see MAX_EXPR_ARGS)
            folded = (
                fold_lines(inner.op, inner, inner_args, name)
                if isinstance(inner.op, _FOLDS)
                else None
            )
            if folded is None:
                raise _NoExpr
            lines.extend(folded)
        return lines, [ref(o) for o in comp.outputs]

    # py_expr may still decline for particular names: try once with placeholders
    try:
        build([f"__a{k}__" for k in range(len(comp.inputs))], _counter())
    except _NoExpr:
        return None
    return build


class _NoExpr(Exception):
    """An inner op of a Composite has no Python-float spelling."""


def _counter() -> Callable[[], str]:
    n = [0]

    def new() -> str:
        n[0] += 1
        return f"__t{n[0]}__"

    return new


_blocks: dict[Composite, PyBlockBuilder | None] = {}


def cached_composite_block(comp: Composite) -> PyBlockBuilder | None:
    """:func:`composite_block`, memoized per Composite."""
    try:
        return _blocks[comp]
    except KeyError:
        b = _blocks[comp] = composite_block(comp)
        return b


@py_scalar_block.register(Composite)
def _composite_node_block(op: Composite, node: Apply) -> PyBlockBuilder | None:
    """A scalar-level Composite node, statement by statement."""
    return cached_composite_block(op)
