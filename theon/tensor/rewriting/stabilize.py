"""Stabilizations: rewrites that make results more accurate (not faster).

As the glossary (seed 003) says, they apply even when the intermediate results
they look through have other clients: the stable expression is computed beside
them.  Only real floating-point results are touched.

The rewrites that are a fixed tree (``log(sigmoid(x)) -> -softplus(-x)``) are the
rows of ``STABILIZE_ROWS`` (see :mod:`.patterns`); the ones that look through
sums and products (``log(1 + a - b)``), or reason about axes (softmax,
logsumexp), are functions.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x = tt.dscalar("x")
>>> float(theon.function([x], tt.log(1 + x))(1e-20))
1e-20
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Variable
from theon.graph.op import Op
from theon.rewriting import node_rewriter, register_canonicalize, register_stabilize
from theon.tensor import math as tm
from theon.tensor.advanced_subtensor import AdvancedSubtensor
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise, _restore_axes
from theon.tensor.reduction import Max, Sum
from theon.tensor.rewriting.canonicalize import (
    ADDITIVE_FAMILY,
    absorbed_by_client,
    rebuild_product,
    rebuild_sum,
)
from theon.tensor.rewriting.patterns import PatternRow, elemwise, register_rows
from theon.tensor.rewriting.utils import (
    Terms,
    additive_terms,
    as_dtype,
    combined_const,
    elemwise_node,
    fit,
    is_float,
    multiplicative_terms,
)
from theon.tensor.special import LogSoftmax, Softmax
from theon.tensor.subtensor import Subtensor
from theon.tensor.type import tensor_type

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "STABILIZE_ROWS",
    "STABILIZE_ROW_REWRITERS",
    "local_exp_minus_one",
    "local_log1p",
    "local_log_sum_exp",
    "local_log_softmax_indexed",
    "log_softmax_as",
    "negate",
    "negate_as",
    "local_one_minus_sigmoid",
    "local_softmax_drop_max",
    "local_sigmoid_from_exp",
    "local_softmax_manual",
]


def negate(v: Variable, dtype: str) -> Variable:
    """``-v`` in the float ``dtype``, with ``--x`` written ``x``.

    An integer ``v`` is cast first: ``-v`` in its own dtype would wrap (``-1`` is
    255 in uint8, and the most negative int32 is its own negation).
    """
    if tensor_type(v).dtype != dtype:
        return tm.neg(as_dtype(v, dtype))
    inner = elemwise_node(v, ts.neg)
    if inner is not None:
        return inner.inputs[0]
    return tm.neg(v)


def _sum_parts(fgraph: FunctionGraph | None, v: Variable) -> tuple[Terms, Any] | None:
    """``v`` as a float sum ``(c + sum(pos)) - sum(neg)``, and ``c``; None otherwise.

    Several rewrites ask this of the same node in a row: the last answer is kept
    until the graph changes (callers must not modify the Terms).
    """
    if fgraph is None or not hasattr(fgraph, "change_count"):
        return _compute_sum_parts(fgraph, v)
    count = fgraph.change_count
    memo = fgraph.memo.get("sum_parts")
    if memo is not None and memo[0] is v and memo[1] == count:
        parts: tuple[Terms, Any] | None = memo[2]
        return parts
    got = _compute_sum_parts(fgraph, v)
    fgraph.memo["sum_parts"] = (v, count, got)
    return got


def _own_sum(fgraph: FunctionGraph, out: Variable) -> tuple[Terms, Any] | None:
    """:func:`_sum_parts` of ``out``, unless a sum that reads it is looked at whole
    instead (``out`` is absorbed by an additive client)."""
    if absorbed_by_client(fgraph, out, ADDITIVE_FAMILY):
        return None
    return _sum_parts(fgraph, out)


def _compute_sum_parts(fgraph: FunctionGraph | None, v: Variable) -> tuple[Terms, Any] | None:
    """What :func:`_sum_parts` answers, computed."""
    if not is_float(v):
        return None
    t = additive_terms(fgraph, v)
    if t is None:
        return None
    c = combined_const(t, additive=True)
    if c is None:
        return None
    return t, c


def _unary(node: Apply, sop: Any) -> Variable | None:
    """The input of ``node`` when it is an Elemwise of ``sop`` on a float, else None."""
    out = node.outputs[0]
    if elemwise_node(out, sop) is None or not is_float(out):
        return None
    return node.inputs[0]


# ----------------------------------------------------------------------------- log / exp
@register_stabilize
@node_rewriter([ts.log])
def local_log1p(fgraph: FunctionGraph, node: Apply) -> Any:
    """``log(1 + x) -> log1p(x)`` (also ``log(1 + a - b) -> log1p(a - b)``)."""
    arg = _unary(node, ts.log)
    if arg is None:
        return None
    got = _sum_parts(fgraph, arg)
    if got is None:
        return None
    t, c = got
    if c != 1 or not (t.pos or t.neg):
        return None
    rest = rebuild_sum(t.pos, t.neg, 0, arg)
    return [fit(tm.log1p(rest), node.outputs[0], [arg])]


@register_stabilize
@node_rewriter([ts.add, ts.sub])
def local_exp_minus_one(fgraph: FunctionGraph, node: Apply) -> Any:
    """``exp(x) - 1 -> expm1(x)`` and ``1 - exp(x) -> -expm1(x)`` (within a larger sum too)."""
    out = node.outputs[0]
    got = _own_sum(fgraph, out)
    if got is None:
        return None
    t, c = got
    if c == -1:
        side, other = t.pos, t.neg
    elif c == 1:
        side, other = t.neg, t.pos
    else:
        return None
    for k, v in enumerate(side):
        e = elemwise_node(v, ts.exp)
        if e is None or not is_float(v):
            continue
        new_side = [*side[:k], tm.expm1(e.inputs[0]), *side[k + 1:]]
        pos, neg = (new_side, other) if c == -1 else (other, new_side)
        return [fit(rebuild_sum(pos, neg, 0, out), out, node.inputs)]
    return None


@register_canonicalize
@register_stabilize
@node_rewriter([ts.add, ts.sub])
def local_one_plus_erf(fgraph: FunctionGraph, node: Apply) -> Any:
    """``1 + erf(x) -> erfc(-x)``, ``1 - erf(x) -> erfc(x)``, ``erf(x) - 1 -> -erfc(x)``
    and ``-1 - erf(x) -> -erfc(-x)`` (within a larger sum too).

    ``erfc`` keeps the value where ``erf(x)`` is within rounding of -1 or 1: the
    skew-normal log-density's ``log(1 + erf(z))`` is ``log(erfc(5.94)) = -38.9`` at
    ``z = -5.94``, where ``1 + erf(z)`` is 0.  In canonicalize, so that it comes before
    ``log(1 + x) -> log1p(x)``.
    """
    out = node.outputs[0]
    got = _own_sum(fgraph, out)
    if got is None:
        return None
    t, c = got
    if c not in (1, -1):
        return None
    # (side of erf(x), c) -> (side of the erfc, whether its argument is -x)
    moves = {("pos", 1): ("pos", True), ("neg", 1): ("pos", False),
             ("pos", -1): ("neg", False), ("neg", -1): ("neg", True)}
    for where, terms in (("pos", t.pos), ("neg", t.neg)):
        for k, v in enumerate(terms):
            e = elemwise_node(v, ts.erf)
            if e is None or not is_float(v):
                continue
            to, negated = moves[(where, int(c))]
            x = e.inputs[0]
            term = tm.erfc(negate_as(x, v) if negated else x)
            sides = {"pos": list(t.pos), "neg": list(t.neg)}
            del sides[where][k]
            sides[to].append(term)
            return [fit(rebuild_sum(sides["pos"], sides["neg"], 0, out), out, node.inputs)]
    return None


# ----------------------------------------------------------------------------- fixed trees
def negate_as(x: Variable, like: Variable) -> Variable:
    """``-x`` in ``like``'s (float) dtype: :func:`negate` for an output pattern."""
    return negate(x, tensor_type(like).dtype)


def log_softmax_as(sm: Variable, x: Variable) -> Variable:
    """``log_softmax(x)`` along the axis of the softmax that computed ``sm``."""
    op = sm.owner.op if sm.owner is not None else None
    if not isinstance(op, Softmax):
        raise TypeError(f"log_softmax_as: {sm} is not a softmax output")
    return LogSoftmax(op.axis)(x)


def _real(pattern: Any) -> dict[str, Any]:
    """``pattern``, matching only real floating-point results."""
    return {"pattern": pattern, "constraint": is_float}


_log, _log1p = elemwise(ts.log), elemwise(ts.log1p)
_exp, _neg, _sigmoid = elemwise(ts.exp), elemwise(ts.neg), elemwise(ts.sigmoid)

#: The stabilizations that are a fixed tree.  Inner nodes may have other clients.
STABILIZE_ROWS: tuple[PatternRow, ...] = (
    PatternRow("local_log_exp", "log(exp(x)) -> x (real floats)",
               _real((_log, (_exp, _real("x")))), "x", "stabilize"),
    PatternRow("local_log1p_exp", "log1p(exp(x)) -> softplus(x)",
               _real((_log1p, (_exp, "x"))), (tm.softplus, "x"), "stabilize"),
    PatternRow("local_log1p_neg_exp", "log1p(-exp(x)) -> log1mexp(x) (that is, log(1 - exp(x)))",
               _real((_log1p, (_neg, (_exp, "x")))), (tm.log1mexp, "x"), "stabilize"),
    PatternRow("local_log_neg_expm1", "log(-expm1(x)) -> log1mexp(x) (that is, log(1 - exp(x)))",
               _real((_log, (_neg, (elemwise(ts.expm1), "x")))), (tm.log1mexp, "x"),
               "stabilize"),
    PatternRow("local_log_sigmoid", "log(sigmoid(x)) -> -softplus(-x)",
               _real((_log, {"pattern": (_sigmoid, "x"), "name": "s"})),
               (tm.neg, (tm.softplus, (negate_as, "x", "s"))), "stabilize"),
    PatternRow("local_log1p_neg_sigmoid",
               "log1p(-sigmoid(x)) -> -softplus(x) (that is, log(1 - sigmoid(x)))",
               _real((_log1p, (_neg, (_sigmoid, "x")))), (tm.neg, (tm.softplus, "x")),
               "stabilize"),
    PatternRow("local_log_softmax", "log(softmax(x, axis)) -> log_softmax(x, axis)",
               _real((_log, {"pattern": (Softmax, "x"), "name": "sm"})),
               (log_softmax_as, "sm", "x"), "stabilize"),
)

# registered here, between the sums above and the products below, so that the
# rewrites tracking one op keep the order they always had
#: Their rewriters by name (also ``rewrite_db[name].rewriter``).
STABILIZE_ROW_REWRITERS = register_rows(STABILIZE_ROWS, __name__)


# ----------------------------------------------------------------------------- sigmoid
@register_stabilize
@node_rewriter([ts.add, ts.sub])
def local_one_minus_sigmoid(fgraph: FunctionGraph, node: Apply) -> Any:
    """``1 - sigmoid(x) -> sigmoid(-x)`` (within a larger sum too)."""
    out = node.outputs[0]
    got = _own_sum(fgraph, out)
    if got is None:
        return None
    t, c = got
    if c != 1:
        return None
    for k, v in enumerate(t.neg):
        s = elemwise_node(v, ts.sigmoid)
        if s is None or not is_float(v):
            continue
        pos = [tm.sigmoid(negate(s.inputs[0], tensor_type(v).dtype)), *t.pos]
        neg = [*t.neg[:k], *t.neg[k + 1:]]
        return [fit(rebuild_sum(pos, neg, 0, out), out, node.inputs)]
    return None


def _one_plus_exp(fgraph: FunctionGraph, v: Variable) -> tuple[Variable, Apply] | None:
    """``exp(y)`` and its node when ``v`` is ``1 + exp(y)`` (a float sum), else None."""
    got = _sum_parts(fgraph, v)
    if got is None:
        return None
    t, c = got
    if c != 1 or t.neg or len(t.pos) != 1:
        return None
    node = elemwise_node(t.pos[0], ts.exp)
    return None if node is None else (t.pos[0], node)


@register_stabilize
@node_rewriter([ts.true_div, ts.reciprocal, ts.mul])
def local_sigmoid_from_exp(fgraph: FunctionGraph, node: Apply) -> Any:
    """``1 / (1 + exp(-x)) -> sigmoid(x)``, ``exp(x) / (1 + exp(x)) -> sigmoid(x)``.

    Also within a larger product: ``a / (1 + exp(y)) -> a * sigmoid(-y)``.
    """
    out = node.outputs[0]
    if not is_float(out) or not _may_divide(node):
        return None
    t = multiplicative_terms(fgraph, out, max_depth=1)
    if t is None:
        return None
    for j, d in enumerate(t.neg):
        got = _one_plus_exp(fgraph, d)
        if got is None:
            continue
        e, e_node = got
        c = combined_const(t, additive=False)
        if c is None:
            return None
        y = e_node.inputs[0]
        dtype = tensor_type(e).dtype
        pos = list(t.pos)
        for k, p in enumerate(pos):
            pe = elemwise_node(p, ts.exp)
            if pe is not None and pe.inputs[0] is y and p.type == e.type:
                del pos[k]
                s = tm.sigmoid(as_dtype(y, dtype))
                break
        else:
            s = tm.sigmoid(negate(y, dtype))
        neg = [*t.neg[:j], *t.neg[j + 1:]]
        new = s if not pos and not neg and c == 1 else rebuild_product([s, *pos], neg, c, out)
        return [fit(new, out, node.inputs)]
    return None


# ----------------------------------------------------------------------------- softmax
def _softmax_axis(red: Op, ds: DimShuffle | None, nd: int) -> tuple[bool, int | None]:
    """Whether a reduction (re-expanded by ``ds``) is over one axis or all; and which."""
    assert isinstance(red, CAReduce)  # (as _expanded_reduce finds it)
    axes = tuple(range(nd)) if red.axis is None else red.axis
    if ds is not None:
        k = 0
        expect: list[int | str] = []
        for d in range(nd):
            if d in axes:
                expect.append("x")
            else:
                expect.append(k)
                k += 1
        if tuple(ds.new_order) != tuple(expect):
            return False, None
    if len(axes) == nd:
        return True, None if nd > 1 else 0
    if len(axes) == 1:
        return True, axes[0]
    return False, None


def _expanded_reduce(v: Variable, cls: type) -> tuple[Apply, DimShuffle | None] | None:
    """``v`` as ``reduce(x)`` or ``dimshuffle(reduce(x))`` with ``reduce`` of class ``cls``."""
    ds = None
    if v.owner is not None and isinstance(v.owner.op, DimShuffle):
        ds = v.owner.op
        v = v.owner.inputs[0]
    if v.owner is None or not isinstance(v.owner.op, cls):
        return None
    return v.owner, ds


_DIVIDES = (type(ts.true_div), type(ts.reciprocal))


def _may_divide(node: Apply) -> bool:
    """False when ``node``'s product, flattened one level, surely has no denominator.

    Only a ``true_div`` or ``reciprocal`` (the node itself or an input it would
    flatten) puts terms in the denominator; anything else is a cheap "no".
    """
    op = node.op
    if isinstance(op, Elemwise) and isinstance(op.scalar_op, _DIVIDES):
        return True
    for i in node.inputs:
        o = i.owner
        if o is not None and isinstance(o.op, Elemwise) and isinstance(o.op.scalar_op, _DIVIDES):
            return True
    return False


@register_stabilize
@node_rewriter([ts.true_div, ts.mul])
def local_softmax_manual(fgraph: FunctionGraph, node: Apply) -> Any:
    """``exp(x) / sum(exp(x), axis, keepdims=True) -> softmax(x, axis)`` (max-subtracted)."""
    out = node.outputs[0]
    if not is_float(out) or not _may_divide(node):
        return None
    t = multiplicative_terms(fgraph, out, max_depth=1)
    if t is None or not t.neg:
        return None
    nd = tensor_type(out).ndim
    for j, d in enumerate(t.neg):
        got = _expanded_reduce(d, Sum)
        if got is None:
            continue
        red, ds = got
        e = red.inputs[0]
        e_node = elemwise_node(e, ts.exp)
        if e not in t.pos or e_node is None:
            continue
        if ds is None and nd != tensor_type(red.outputs[0]).ndim:
            continue
        if tensor_type(red.outputs[0]).dtype != tensor_type(e).dtype or tensor_type(e).ndim != nd:
            continue
        ok, axis = _softmax_axis(red.op, ds, nd)
        if not ok:
            continue
        sm = Softmax(axis)(e_node.inputs[0])
        if tensor_type(sm).dtype != tensor_type(e).dtype:
            continue
        pos = list(t.pos)
        pos.remove(e)
        neg = [*t.neg[:j], *t.neg[j + 1:]]
        c = combined_const(t, additive=False)
        if c is None:
            return None
        new = sm if not pos and not neg and c == 1 else rebuild_product([sm, *pos], neg, c, out)
        return [fit(new, out, node.inputs)]
    return None


@register_stabilize
@node_rewriter([Softmax, LogSoftmax])
def local_softmax_drop_max(fgraph: FunctionGraph, node: Apply) -> Any:
    """``softmax(x - max(x, axis, keepdims=True), axis) -> softmax(x, axis)``.

    The same for log_softmax: the op subtracts the maximum itself.
    """
    (arg,) = node.inputs
    s = elemwise_node(arg, ts.sub)
    if s is None:
        return None
    x, m = s.inputs
    got = _expanded_reduce(m, Max)
    if got is None or got[0].inputs[0] is not x:
        return None
    red, ds = got
    nd = tensor_type(x).ndim
    ok, axis = _softmax_axis(red.op, ds, nd)
    op = node.op
    assert isinstance(op, (Softmax, LogSoftmax))  # (the rewrite tracks them)
    if not ok or (axis != op.axis and not (nd == 1 and {axis, op.axis} <= {0, None})):
        return None
    return [fit(type(op)(op.axis)(x), node.outputs[0])]


@register_stabilize
@node_rewriter([ts.log])
def local_log_softmax_indexed(fgraph: FunctionGraph, node: Apply) -> Any:
    """``log(softmax(x, axis)[idx]) -> log_softmax(x, axis)[idx]`` (basic or advanced ``idx``).

    Indexing picks entries and ``log`` is elementwise, so the two commute; the
    picked log-probabilities are then exact where ``softmax`` underflows to 0
    (``-log(sm[arange(n), y])``, a classifier's negative log-likelihood, stays
    finite for large logits).  The softmax may have other clients.
    """
    arg = _unary(node, ts.log)
    if arg is None or arg.owner is None:
        return None
    sub = arg.owner
    if not isinstance(sub.op, (Subtensor, AdvancedSubtensor)):
        return None
    sm = sub.inputs[0]
    if sm.owner is None or not isinstance(sm.owner.op, Softmax):
        return None
    lsm = LogSoftmax(sm.owner.op.axis)(sm.owner.inputs[0])
    return [fit(sub.op(lsm, *sub.inputs[1:]), node.outputs[0])]


# ----------------------------------------------------------------------------- logsumexp
def _is_max_shifted(v: Variable) -> bool:
    """Whether ``v`` is ``x - m`` with ``m`` a (guarded, re-expanded) maximum: already stable."""
    s = elemwise_node(v, ts.sub)
    if s is None:
        return False
    m = s.inputs[1]
    for _ in range(4):
        owner = m.owner
        if owner is None:
            return False
        op = owner.op
        if isinstance(op, DimShuffle):
            m = owner.inputs[0]
        elif elemwise_node(m, ts.switch) is not None:
            m = owner.inputs[2]
        elif isinstance(op, CAReduce) and op.scalar_op == ts.maximum:
            return True
        else:
            return False
    return False


@register_stabilize
@node_rewriter([ts.log])
def local_log_sum_exp(fgraph: FunctionGraph, node: Apply) -> Any:
    """``log(sum(exp(x), axes)) -> m + log(sum(exp(x - m), axes))``, ``m = max(x, axes)``.

    ``m`` is replaced by 0 where it is infinite, so ``-inf`` and ``inf`` rows stay right.
    """
    arg = _unary(node, ts.log)
    if arg is None:
        return None
    got = _expanded_reduce(arg, Sum)
    if got is None:
        return None
    red, ds = got
    e = elemwise_node(red.inputs[0], ts.exp)
    if e is None or tensor_type(red.outputs[0]).dtype != tensor_type(red.inputs[0]).dtype:
        return None
    x = e.inputs[0]
    if not is_float(x) or _is_max_shifted(x):
        return None
    op = red.op
    assert isinstance(op, Sum)  # (_expanded_reduce said so)
    mx = Max(op.axis, -np.inf)(x)  # -inf over an empty axis: log(0)
    zero = size1_zero(mx)
    safe = tm.switch(tm.isinf(mx), zero, mx)
    safe_k = _restore_axes(safe, tensor_type(x).ndim, op.axis)
    lse = tm.add(tm.log(op(tm.exp(tm.sub(x, safe_k)))), safe)
    if ds is not None:
        lse = ds(lse)
    return [fit(lse, node.outputs[0])]


def size1_zero(like: Variable) -> Variable:
    """A zero constant of ``like``'s dtype with ``like``'s number of (length-1) dimensions."""
    from theon.tensor.rewriting.utils import const_like

    return const_like(0, like)

