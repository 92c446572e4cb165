"""Useless-node removal: operations that give back (a cast or broadcast of) an input.

Each rewrite keeps the replaced variable's dtype and static shape: when the
dropped operand made the result wider (``int_x * 1.0``) or larger (``x * ones``
of a bigger shape), the kept operand is cast or filled out to match.  These
run in the canonicalize and specialize phases.  The ones that are a fixed tree
(``neg(neg(x)) -> x``) are the rows of ``USELESS_ROWS`` (see :mod:`.patterns`).

>>> import theon, theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> f = theon.function([x], (x * 1).T.T - 0)
>>> [str(n) for n in f.maker.fgraph.apply_nodes]  # only the result's copy of x is left
['DeepCopyOp(x)']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Constant, Variable
from theon.rewriting import node_rewriter, register_useless
from theon.rewriting.pattern import OpOf
from theon.scalar.basic import Cast
from theon.tensor.creation import Alloc
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.math import second
from theon.tensor.rewriting.patterns import PatternRow, elemwise, register_rows
from theon.tensor.rewriting.utils import const_like, elemwise_node, fit, scalar_const
from theon.tensor.shape import MakeVector, Reshape, Shape, Shape_i, SpecifyShape
from theon.tensor.type import tensor_type

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "USELESS_ROWS",
    "USELESS_ROW_REWRITERS",
    "local_add_zero",
    "local_dimshuffle_dimshuffle",
    "local_div_one",
    "local_mul_one",
    "local_pow_one",
    "local_pow_zero",
    "local_sub_zero",
    "local_useless_alloc",
    "local_useless_dimshuffle",
    "local_useless_maxmin",
    "local_useless_reduce",
    "local_useless_reshape",
    "local_useless_second",
    "local_useless_specify_shape",
    "local_useless_switch",
]


def _is_const(v: Variable, value: int) -> bool:
    """Whether ``v`` is a constant equal to the small integer ``value`` everywhere."""
    node = v.owner
    while node is not None:  # scalar_const looks through DimShuffles only
        if not isinstance(node.op, DimShuffle):
            return False
        v = node.inputs[0]
        node = v.owner
    if not isinstance(v, Constant):
        return False
    data = v.data
    if type(data) is np.ndarray and data.size == 1 and data.dtype.kind in "biufc":
        # one number: compared exactly as NumPy would (value is a small integer)
        return bool(data.item() == value)
    c = scalar_const(v)
    if c is None:
        return False
    with np.errstate(all="ignore"):
        return bool(c == value)


def _drop_neutral(node: Apply, value: Any) -> Any:
    """The node's output without the inputs equal to the neutral ``value``."""
    out = node.outputs[0]
    keep = [i for i in node.inputs if not _is_const(i, value)]
    if len(keep) == len(node.inputs):
        return None
    dropped = [i for i in node.inputs if i not in keep]
    if not keep:
        new: Variable = node.inputs[0]
    elif len(keep) == 1:
        new = keep[0]
    else:
        new = node.op(*keep)
    return [fit(new, out, dropped)]


@register_useless
@node_rewriter([ts.mul])
def local_mul_one(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x * 1 -> x``, ``1 * x -> x`` (cast/broadcast to the product's type when needed)."""
    if elemwise_node(node.outputs[0], ts.mul) is None:
        return None
    return _drop_neutral(node, 1)


@register_useless
@node_rewriter([ts.add])
def local_add_zero(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x + 0 -> x``, ``0 + x -> x`` (not on booleans, where add is "or": also neutral)."""
    if elemwise_node(node.outputs[0], ts.add) is None:
        return None
    return _drop_neutral(node, 0)


@register_useless
@node_rewriter([ts.sub])
def local_sub_zero(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x - 0 -> x``."""
    if elemwise_node(node.outputs[0], ts.sub) is None:
        return None
    x, y = node.inputs
    if not _is_const(y, 0):
        return None
    return [fit(x, node.outputs[0], [y])]


@register_useless
@node_rewriter([ts.true_div, ts.int_div])
def local_div_one(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x / 1 -> x``; ``x // 1 -> x`` for integer ``x``."""
    out = node.outputs[0]
    if elemwise_node(out, ts.true_div, ts.int_div) is None:
        return None
    x, y = node.inputs
    if not _is_const(y, 1):
        return None
    assert isinstance(node.op, Elemwise)  # (elemwise_node said so)
    if node.op.scalar_op == ts.int_div and not str(tensor_type(x).dtype).startswith(
        ("int", "uint")
    ):
        return None
    return [fit(x, out, [y])]


@register_useless
@node_rewriter([ts.pow])
def local_pow_one(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x ** 1 -> x``."""
    out = node.outputs[0]
    if elemwise_node(out, ts.pow) is None:
        return None
    x, y = node.inputs
    if not _is_const(y, 1):
        return None
    return [fit(x, out, [y])]


@register_useless
@node_rewriter([ts.pow])
def local_pow_zero(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x ** 0 -> ones_like(x)`` (NumPy gives 1 even for 0, inf and nan)."""
    out = node.outputs[0]
    if elemwise_node(out, ts.pow) is None:
        return None
    x, y = node.inputs
    if not _is_const(y, 0):
        return None
    return [fit(second(x, const_like(1, out)), out, [y])]


@register_useless
@node_rewriter([ts.maximum, ts.minimum])
def local_useless_maxmin(fgraph: FunctionGraph, node: Apply) -> Any:
    """``maximum(x, x) -> x``, ``minimum(x, x) -> x``."""
    out = node.outputs[0]
    if elemwise_node(out, ts.maximum, ts.minimum) is None:
        return None
    x, y = node.inputs
    if x is not y:
        return None
    return [fit(x, out)]


@register_useless
@node_rewriter([second.scalar_op])
def local_useless_second(fgraph: FunctionGraph, node: Apply) -> Any:
    """``second(a, b) -> b`` when ``b`` already has the result's shape (``fill`` is a copy)."""
    out = node.outputs[0]
    if elemwise_node(out, second.scalar_op) is None:
        return None
    a, b = node.inputs
    if any(sb == 1 and so != 1 for sb, so in zip(tensor_type(b).shape, tensor_type(out).shape)):
        return None
    if tensor_type(b).ndim != tensor_type(out).ndim:
        return None
    return [fit(b, out)]


@register_useless
@node_rewriter([ts.switch])
def local_useless_switch(fgraph: FunctionGraph, node: Apply) -> Any:
    """``switch(c, x, x) -> x``; ``switch(1, x, y) -> x``; ``switch(0, x, y) -> y``."""
    out = node.outputs[0]
    if elemwise_node(out, ts.switch) is None:
        return None
    c, x, y = node.inputs
    if x is y:
        return [fit(x, out, [c])]
    cv = scalar_const(c)
    if cv is None:
        return None
    return [fit(x if bool(cv) else y, out, [c, y if bool(cv) else x])]


# ------------------------------------------------------------------------ dimshuffles
def _compose(outer: DimShuffle, inner: DimShuffle) -> tuple[int | str, ...]:
    return tuple(inner.new_order[o] if isinstance(o, int) else "x" for o in outer.new_order)


@register_useless
@node_rewriter([DimShuffle])
def local_useless_dimshuffle(fgraph: FunctionGraph, node: Apply) -> Any:
    """``dimshuffle(x, (0, 1, ..., n-1)) -> x``."""
    op = node.op
    assert isinstance(op, DimShuffle)  # (the rewrite tracks DimShuffle)
    if op.new_order != tuple(range(op.input_ndim)):
        return None
    return [fit(node.inputs[0], node.outputs[0])]


@register_useless
@node_rewriter([DimShuffle])
def local_dimshuffle_dimshuffle(fgraph: FunctionGraph, node: Apply) -> Any:
    """``dimshuffle(dimshuffle(x, a), b) -> dimshuffle(x, a[b])`` (``x.T.T -> x``)."""
    (inp,) = node.inputs
    inner = inp.owner
    op = node.op
    assert isinstance(op, DimShuffle)  # (the rewrite tracks DimShuffle)
    if inner is None or not isinstance(inner.op, DimShuffle):
        return None
    order = _compose(op, inner.op)
    x = inner.inputs[0]
    nd = inner.op.input_ndim
    if order == tuple(range(nd)):
        return [fit(x, node.outputs[0])]
    return [fit(DimShuffle(nd, order)(x), node.outputs[0])]


# ------------------------------------------------------------------------ reductions
@register_useless
@node_rewriter([CAReduce])
def local_useless_reduce(fgraph: FunctionGraph, node: Apply) -> Any:
    """``reduce(x, axes) -> dimshuffle(x)`` (cast) when every axis in ``axes`` has length 1."""
    (x,) = node.inputs
    op = node.op
    assert isinstance(op, CAReduce)  # (the rewrite tracks CAReduce)
    nd = tensor_type(x).ndim
    axes = tuple(range(nd)) if op.axis is None else op.axis
    if any(tensor_type(x).shape[d] != 1 for d in axes):
        return None
    if nd == 0 and op.axis is None:
        axes = ()
    new = DimShuffle(nd, [d for d in range(nd) if d not in axes])(x) if axes else x
    return [fit(new, node.outputs[0])]


# ------------------------------------------------------------------------ shapes
def _entry_matches(entry: Variable, x: Variable, d: int) -> bool:
    """Whether the int scalar ``entry`` is known to equal ``x.shape[d]``."""
    n = entry.owner
    if n is not None and isinstance(n.op, Shape_i) and n.op.i == d and n.inputs[0] is x:
        return True
    c = scalar_const(entry)
    s = tensor_type(x).shape[d]
    return c is not None and s is not None and int(c) == s


@register_useless
@node_rewriter([Reshape])
def local_useless_reshape(fgraph: FunctionGraph, node: Apply) -> Any:
    """``reshape(x, x.shape) -> x`` (also with ``-1`` standing for the one remaining size)."""
    x, shp = node.inputs
    out = node.outputs[0]
    nd = tensor_type(x).ndim
    op = node.op
    assert isinstance(op, Reshape)  # (the rewrite tracks Reshape)
    if op.ndim != nd:
        return None
    n = shp.owner
    if n is not None and isinstance(n.op, Shape) and n.inputs[0] is x:
        return [fit(x, out)]
    if nd == 1:
        c = scalar_const(shp) if isinstance(shp, Constant) else None
        if c is not None and int(c) == -1:
            return [fit(x, out)]
    if n is not None and isinstance(n.op, MakeVector):
        entries: list[Variable] = list(n.inputs)
        unmatched = [d for d in range(nd) if not _entry_matches(entries[d], x, d)]
        if not unmatched or (len(unmatched) == 1 and _is_const(entries[unmatched[0]], -1)):
            return [fit(x, out)]
        return None
    if isinstance(shp, Constant):
        vals = np.asarray(shp.data).reshape(-1)
        static = tensor_type(x).shape
        unmatched = [d for d in range(nd) if static[d] is None or static[d] != int(vals[d])]
        if not unmatched or (len(unmatched) == 1 and int(vals[unmatched[0]]) == -1):
            return [fit(x, out)]
    return None


@register_useless
@node_rewriter([SpecifyShape])
def local_useless_specify_shape(fgraph: FunctionGraph, node: Apply) -> Any:
    """``specify_shape(x, s) -> x`` when ``x``'s static shape (or ``shape(x)``) says ``s``."""
    x, *dims = node.inputs
    it = iter(dims)
    op = node.op
    assert isinstance(op, SpecifyShape)  # (the rewrite tracks SpecifyShape)
    for d, spec in enumerate(op.specified):
        if spec and not _entry_matches(next(it), x, d):
            return None
    return [fit(x, node.outputs[0])]


@register_useless
@node_rewriter([Alloc])
def local_useless_alloc(fgraph: FunctionGraph, node: Apply) -> Any:
    """``alloc(x, *x.shape) -> x`` (the function copies outputs that need it)."""
    v, *dims = node.inputs
    out = node.outputs[0]
    if tensor_type(v).ndim != len(dims):
        return None
    if tensor_type(v).dtype != tensor_type(out).dtype:
        return None
    if not all(_entry_matches(dims[d], v, d) for d in range(len(dims))):
        return None
    return [fit(v, out)]


# ------------------------------------------------------------------------ fixed trees
def _keeps_dtype(v: Variable) -> bool:
    """Whether the cast computing ``v`` casts to its input's dtype."""
    node = v.owner
    return node is not None and tensor_type(node.inputs[0]).dtype == tensor_type(v).dtype


#: The useless-node removals that are a fixed tree.  Registered after the functions
#: above, so that rewrites tracking one op keep the order they always had.
USELESS_ROWS: tuple[PatternRow, ...] = (
    PatternRow("local_neg_neg", "neg(neg(x)) -> x",
               (elemwise(ts.neg), (elemwise(ts.neg), "x")), "x", "useless"),
    PatternRow("local_useless_identity",
               "tensor_copy(x) -> x (the function copies outputs that need it)",
               (elemwise(ts.identity), "x"), "x", "useless"),
    PatternRow("local_useless_cast", "cast(x, x.dtype) -> x",
               {"pattern": (elemwise(Cast), "x"), "constraint": _keeps_dtype}, "x", "useless"),
    PatternRow("local_reshape_reshape", "reshape(reshape(x, s1), s2) -> reshape(x, s2)",
               {"pattern": (Reshape, (Reshape, "x", "s1"), "s2"), "name": "r"},
               (OpOf("r"), "x", "s2"), "useless"),
)

#: Their rewriters by name (also ``rewrite_db[name].rewriter``).
USELESS_ROW_REWRITERS = register_rows(USELESS_ROWS, __name__)
