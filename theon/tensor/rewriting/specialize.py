"""Specializations: cheaper spellings of the canonical forms, for speed.

- constant powers: ``x**2 -> sqr(x)``, ``x**0.5 -> sqrt(x)``, ``x**-1 -> reciprocal(x)``
  (NumPy's own fast paths: the same results), and ``x**n -> `` a chain of squarings and
  products for small integers ``n`` (``x**10 -> sqr(sqr(sqr(x))) * sqr(x)``), as JAX's
  ``integer_pow`` does: within a few ulps of ``pow`` (a documented identity);
- ``sum(x * y) -> dot(x, y)`` for vectors;
- ``f(x[:, None], y[:, None]) -> f(x, y)[:, None]``: elementwise work at the inputs' own rank;
- ``softplus``/``sigmoid`` of ``z`` and ``-z`` in one graph share ``exp(-|z|)`` and its ``log1p``;
- BLAS calls for ``z + a*dot(x, y)`` live in :mod:`theon.tensor.rewriting.blas`.

>>> import theon, theon.tensor as tt
>>> a = tt.dvector("a")
>>> theon.function([a], a + a**10)([0, 1, 2]).tolist()
[0.0, 2.0, 1026.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import Output
from theon.rewriting import node_rewriter, register_specialize
from theon.tensor import math as tm
from theon.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
)
from theon.tensor.basic import constant as tt_constant
from theon.tensor.elemwise import DimShuffle, Elemwise, _restore_axes
from theon.tensor.reduction import Sum
from theon.tensor.rewriting.utils import (
    as_dtype,
    client_count,
    elemwise_node,
    fit,
    size1_constant,
)
from theon.tensor.subtensor import SYM
from theon.tensor.type import tensor_type, tensor_vars

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "MAX_POW_CHAIN",
    "local_advanced_subtensor1",
    "local_column_op_constant_matrix",
    "local_elemwise_sink_expand_dims",
    "local_elemwise_small_first",
    "local_pow_specialize",
    "local_share_logistic",
    "local_sum_mul_to_dot",
    "power_chain",
]

#: Largest integer exponent turned into a chain of multiplications.
MAX_POW_CHAIN = 64


def power_chain(x: Variable, n: int) -> Variable:
    """``x**n`` for an integer ``n >= 1`` by repeated squaring (``sqr`` and ``mul``).

    >>> import theon.tensor as tt
    >>> y = power_chain(tt.dvector("x"), 5)
    >>> str(y.owner.op)
    'Elemwise{mul,no_inplace}'
    """
    if n < 1:
        raise ValueError(f"power_chain needs n >= 1, got {n}")
    factors: list[Variable] = []
    sq = x
    while True:
        if n & 1:
            factors.append(sq)
        n >>= 1
        if not n:
            break
        sq = tm.sqr(sq)
    # the largest power first: it has the widest static shape and the result's dtype
    factors.reverse()
    out = factors[0]
    for f in factors[1:]:
        out = tm.mul(out, f)
    return out


@register_specialize
@node_rewriter([ts.pow])
def local_pow_specialize(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x**2 -> sqr(x)``, ``x**0.5 -> sqrt(x)``, ``x**-1 -> 1/x``,
    ``x**n -> `` products of squares for integers ``2 < |n| <= 64`` (negative: ``1/x**|n|``).

    The base is first cast to the result's dtype, as NumPy's ``power`` does.
    Integer bases only get non-negative integer powers.  ``x**-0.5`` stays a power:
    ``1/sqrt(x)`` is ``-inf`` at ``-0.0`` and ``nan`` at ``-inf``, where it is
    ``inf`` and ``0``.
    """
    out = node.outputs[0]
    if elemwise_node(out, ts.pow) is None:
        return None
    x, y = node.inputs
    c = size1_constant(y)
    if c is None:
        return None
    dtype = tensor_type(out).dtype
    kind = np.dtype(dtype).kind
    if kind not in "fciu":
        return None
    v = complex(c) if np.iscomplexobj(c) else float(c)
    if isinstance(v, complex):
        if v.imag != 0:
            return None
        v = v.real
    xc = as_dtype(x, dtype)
    new: Variable | None = None
    inexact = kind in "fc"
    if v == 0.5 and inexact:
        new = tm.sqrt(xc)
    elif v == int(v) and 2 <= abs(v) <= MAX_POW_CHAIN:
        n = int(v)
        if n < 0 and not inexact:
            return None
        new = power_chain(xc, abs(n))
        if n < 0:
            new = tm.reciprocal(new)
    elif v == -1 and inexact:
        new = tm.reciprocal(xc)
    if new is None:
        return None
    return [fit(new, out, [y])]


@register_specialize
@node_rewriter([Sum])
def local_sum_mul_to_dot(fgraph: FunctionGraph, node: Apply) -> Any:
    """``sum(x * y) -> dot(x, y)`` for float vectors of the sum's dtype (one BLAS call)."""
    (inp,) = node.inputs
    m = elemwise_node(inp, ts.mul)
    if m is None or len(m.inputs) != 2 or client_count(fgraph, inp) != 1:
        return None
    out = node.outputs[0]
    if tensor_type(out).ndim != 0 or tensor_type(inp).ndim != 1:
        return None
    a, b = m.inputs
    dt = tensor_type(out).dtype
    if dt not in ("float32", "float64"):
        return None
    for v in (a, b):
        if tensor_type(v).dtype != dt or tensor_type(v).shape[0] == 1:
            return None
    from theon.tensor.blas import dot

    return [fit(dot(a, b), out)]


@register_specialize
@node_rewriter([ts.add, ts.mul])
def local_elemwise_small_first(fgraph: FunctionGraph, node: Apply) -> Any:
    """``a * b * C -> (a * b) * C`` (and the same for ``+``) when ``a`` and ``b`` broadcast
    along an axis where ``C`` does not.

    Addition and multiplication are commutative and associative, so the terms that
    are all smaller than the result combine first, at their own broadcast shape
    (``n`` elements instead of ``n * m`` for ``(n, 1) * (n, 1) * (n, m)``); the
    result then takes one pass at full size.  The regrouping changes rounding by
    at most a few ulps, as any reordering of a sum or product does.  Only float
    results are regrouped, and only when the small terms have the result's dtype
    (an integer product regrouped in a narrower dtype could overflow).
    """
    out = node.outputs[0]
    if elemwise_node(out, ts.add, ts.mul) is None or len(node.inputs) < 3:
        return None
    ot = tensor_type(out)
    if ot.dtype not in ("float16", "float32", "float64"):
        return None
    full = ot.broadcastable
    small: list[Variable] = []
    rest: list[Variable] = []
    for v in node.inputs:
        t = tensor_type(v)
        pattern = (True,) * (ot.ndim - t.ndim) + t.broadcastable
        if t.dtype == ot.dtype and any(b and not f for b, f in zip(pattern, full)):
            small.append(v)
        else:
            rest.append(v)
    if len(small) < 2 or not rest:
        return None
    # the small terms' own broadcast shape must still be smaller than the result's
    ndim = max(tensor_type(v).ndim for v in small)
    joint = [True] * ndim
    for v in small:
        t = tensor_type(v)
        for k, b in enumerate(t.broadcastable, ndim - t.ndim):
            joint[k] = joint[k] and b
    if not any(joint[k - (ot.ndim - ndim)] and not full[k] for k in range(ot.ndim - ndim, ot.ndim)):
        return None
    op = node.op
    inner = op(*small)
    return [fit(op(inner, *rest), out, list(node.inputs))]


@register_specialize
@node_rewriter([Elemwise])
def local_column_op_constant_matrix(fgraph: FunctionGraph, node: Apply) -> Any:
    """``f(c, C) -> f(c^T, C^T)^T`` for a binary Elemwise of a column ``c`` (static
    shape ``(n, 1)``) and a constant matrix ``C`` (``(n, m)``), ``C^T`` stored contiguous.

    An elementwise op commutes with transposing all its operands, so the values are
    the same.  NumPy's loop over a matrix with a column broadcast along its rows
    reads a repeated scalar in its inner loop; with the transposed constant the
    column becomes a row broadcast down the rows, and the inner loop reads two
    contiguous operands, which NumPy runs faster.  The transpose of the constant is
    made once, here; the result is a transposed (Fortran-ordered) view.
    """
    op = node.op
    assert isinstance(op, Elemwise)  # (the rewrite tracks Elemwise)
    out = node.outputs[0]
    if len(node.inputs) != 2 or op.inplace_pattern or tensor_type(out).ndim != 2:
        return None
    k = next((i for i, v in enumerate(node.inputs) if isinstance(v, Constant)), None)
    if k is None:
        return None
    const = node.inputs[k]
    assert isinstance(const, Constant)
    data = const.data
    col = tensor_vars(node.inputs)[1 - k]
    ct = tensor_type(col)
    if (not isinstance(data, np.ndarray) or data.ndim != 2 or 1 in data.shape
            or not data.flags.c_contiguous or ct.ndim != 2 or ct.shape[1] != 1
            or ct.shape[0] == 1 or data.size < 256):
        return None
    c_t = tt_constant(np.ascontiguousarray(data.T))
    args = [col.dimshuffle(1, 0), c_t] if k == 1 else [c_t, col.dimshuffle(1, 0)]
    return [fit(op(*args).dimshuffle(1, 0), out, list(node.inputs))]


@register_specialize
@node_rewriter([Elemwise])
def local_elemwise_sink_expand_dims(fgraph: FunctionGraph, node: Apply) -> Any:
    """``f(x[:, None], y[:, None], c) -> f(x, y, c[:, 0])[:, None]``: an elementwise op
    on inputs that all have length 1 along some axes runs without those axes.

    ``f`` is applied entry by entry, so ``f(a, b)[i, 0] = f(a[i, 0], b[i, 0])``: dropping
    axes of static length 1 from every operand and adding them back to each result
    gives the same values (exactly; only the layout of the loop changes).  The
    canonical form lifts such DimShuffles to the inputs; here, before fusion, they
    are sunk again, so NumPy loops over ``n`` entries of 1-d operands (and a 0-d
    constant) instead of an ``(n, 1)`` array broadcast against a ``(1, 1)`` constant,
    which takes its slower, non-contiguous path.  Only done when some input is a
    DimShuffle that added all these axes (it disappears); the other inputs get a
    squeezing DimShuffle (a view; constant-folded for constants).
    """
    op = node.op
    assert isinstance(op, Elemwise)  # (the rewrite tracks Elemwise)
    if op.inplace_pattern:
        return None
    ins = node.inputs
    nd = tensor_type(node.outputs[0]).ndim
    if nd == 0 or any(tensor_type(v).ndim != nd for v in ins):
        return None
    axes = [k for k in range(nd) if all(tensor_type(v).shape[k] == 1 for v in ins)]
    if not axes:
        return None
    keep = [k for k in range(nd) if k not in axes]
    new_ins: list[Variable] = []
    gain = False
    for v in ins:
        owner = v.owner
        if (owner is not None and isinstance(owner.op, DimShuffle)
                and all(owner.op.new_order[k] == "x" for k in axes)):
            gain = True
            ds: DimShuffle = owner.op
            order = [ds.new_order[k] for k in keep]
            inner = owner.inputs[0]
            same = order == list(range(ds.input_ndim))
            new_ins.append(inner if same else DimShuffle(ds.input_ndim, order)(inner))
        else:
            new_ins.append(DimShuffle(nd, keep)(v))
    if not gain:
        return None
    small = op.make_node(*new_ins).outputs
    res = [fit(_restore_axes(o, nd, axes), old) for o, old in zip(small, node.outputs)]
    return None if any(r is None for r in res) else res


# ------------------------------------------------------------------ softplus and sigmoid
_LOGISTIC = (ts.softplus, ts.sigmoid)


def _logistic_base(w: Variable) -> Variable:
    """``z`` for ``w = -z``, else ``w``."""
    n = elemwise_node(w, ts.neg)
    return n.inputs[0] if n is not None else w


def _logistic_family(fgraph: FunctionGraph, z: Variable) -> tuple[int, bool]:
    """(How many softplus/sigmoid nodes read ``z`` or ``-z``, whether ``exp(-|z|)`` exists)."""
    found = 0
    shared = False
    stack = [z]
    clients = fgraph.clients
    while stack:
        v = stack.pop()
        for c, _ in clients.get(v, ()):
            if isinstance(c.op, Output):
                continue  # a graph output
            if elemwise_node(c.outputs[0], *_LOGISTIC) is not None:
                found += 1
            elif v is z and elemwise_node(c.outputs[0], ts.neg) is not None:
                stack.append(c.outputs[0])
            elif v is z and elemwise_node(c.outputs[0], ts.abs) is not None:
                for n1, _ in clients.get(c.outputs[0], ()):
                    if not isinstance(n1.op, Output) and elemwise_node(
                            n1.outputs[0], ts.neg) is not None:
                        shared = shared or any(
                            not isinstance(n2.op, Output)
                            and elemwise_node(n2.outputs[0], ts.exp) is not None
                            for n2, _ in clients.get(n1.outputs[0], ()))
    return found, shared


@register_specialize
@node_rewriter(list(_LOGISTIC))
def local_share_logistic(fgraph: FunctionGraph, node: Apply) -> Any:
    """``softplus(w)`` and ``sigmoid(w)``, for ``w = z`` or ``w = -z``, from one
    ``e = exp(-|z|)`` when the graph computes more than one of them:

    - ``softplus(w) -> max(w, 0) + log1p(e)`` (``|w| = |z|``): exactly the formula
      softplus itself evaluates, so the same values, with ``log1p(e)`` computed once;
    - ``sigmoid(w) -> where(w >= 0, 1, e) * q`` with ``q = 1 / (1 + e)``: for ``w >= 0``
      that is ``1 / (1 + exp(-w))``, ``expit``'s own formula bit for bit; for ``w < 0``
      it is ``exp(w) / (1 + exp(w))`` (within 2 ulps; it also keeps the subnormal
      values below ``w = -709`` where ``1 / (1 + exp(-w))`` gives 0).  NaN stays NaN,
      ``w = +-inf`` gives 1 and 0.

    A logistic loss and its gradient (``softplus(z)``, ``softplus(-z)``, ``sigmoid(z)``,
    ``sigmoid(-z)``) so take one ``exp`` and one ``log1p`` per entry instead of six
    transcendental evaluations.  Only for float arrays (0-d values run on Python floats,
    where each spelling is one ``math`` call).
    """
    out = node.outputs[0]
    ot = tensor_type(out)
    if fgraph is None or elemwise_node(out, *_LOGISTIC) is None or ot.ndim == 0:
        return None
    if ot.dtype not in ("float32", "float64"):
        return None
    (w,) = node.inputs
    if tensor_type(w).dtype != ot.dtype:
        return None
    z = _logistic_base(w)
    found, shared = _logistic_family(fgraph, z)
    if found < 2 and not shared:
        return None
    zero = tt_constant(np.zeros((), dtype=ot.dtype))
    one = tt_constant(np.ones((), dtype=ot.dtype))
    e = tm.exp(tm.neg(tm.abs(z)))
    op = node.op
    assert isinstance(op, Elemwise)  # (the rewrite tracks Elemwise)
    if op.scalar_op == ts.softplus:
        new = tm.add(tm.maximum(w, zero), tm.log1p(e))
    else:
        q = tm.reciprocal(tm.add(one, e))
        new = tm.mul(tm.switch(tm.ge(w, zero), one, e), q)
    res = fit(new, out, [w])
    return None if res is None else [res]


@register_specialize
@node_rewriter([AdvancedSubtensor, AdvancedIncSubtensor])
def local_advanced_subtensor1(fgraph: FunctionGraph, node: Apply) -> Any:
    """``x[i] -> AdvancedSubtensor1(x, i)`` and ``inc_subtensor(x[i], y) ->
    AdvancedIncSubtensor1(x, y, i)`` for an integer vector ``i`` on the first axis: the
    same computation, under the class PyTensor's compiled graphs name it with."""
    op = node.op
    assert isinstance(op, (AdvancedSubtensor, AdvancedIncSubtensor))  # (what it tracks)
    if isinstance(op, (AdvancedSubtensor1, AdvancedIncSubtensor1)) or op.idx_list != (SYM,):
        return None
    i = tensor_type(node.inputs[-1])
    if i.ndim != 1 or i.dtype == "bool":
        return None
    if isinstance(op, AdvancedIncSubtensor):
        if op.ignore_duplicates:
            return None
        new = AdvancedIncSubtensor1(op.inplace, op.set_instead_of_inc).make_node(*node.inputs)
    else:
        new = AdvancedSubtensor1().make_node(*node.inputs)
    return None if new.outputs[0].type != node.outputs[0].type else new.outputs
