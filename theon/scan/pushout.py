"""Push-out rewrites of :class:`~theon.scan.op.Scan`: per-step work done once, outside the loop.

* :func:`scan_pushout_seqs`: body computations that read only sequences,
  non-sequences and constants are computed for all steps at once, before the
  loop (``dot(x_t, W) + b`` becomes one ``dot(X, W) + b`` over the whole
  sequence), and the loop reads the result as a new sequence.
* :func:`scan_pushout_acc`: an accumulator ``acc_t = acc_{t-1} + dot(p_t, q_t)``
  (or ``+ sum(e_t, axes)``) of which only the final value is read becomes, with
  the per-step operands stacked over the steps, one product after the loop.

They are registered by :mod:`theon.scan.rewriting`, after its own rewrites
(importing this module registers nothing).  Both change the order of
floating-point additions (a product over all steps sums in another order than a
per-step accumulation, and ``(a + b) + c`` is regrouped as ``(a + c) + b``): the
results agree with the loop's to rounding, not bitwise.

>>> import numpy as np, theon, theon.tensor as tt
>>> X, h0, W, U = tt.dtensor3("X"), tt.dmatrix("h0"), tt.dmatrix("W"), tt.dmatrix("U")
>>> hs, _ = theon.scan(lambda x, h, W, U: tt.tanh(tt.dot(x, W) + tt.dot(h, U)),
...                    sequences=X, outputs_info=h0, non_sequences=[W, U])
>>> f = theon.function([X, h0, W, U], hs[-1])
>>> node = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)][0]
>>> [type(n.op).__name__ for n in node.op.fgraph.toposort()]  # dot(x_t, W) went out
['Dot', 'Elemwise', 'Elemwise']
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.replace import clone_replace, graph_replace
from theon.graph.traversal import ancestors, io_toposort
from theon.rewriting import node_rewriter
from theon.scan.op import Scan, scan_op, tensor_inputs
from theon.scan.stepdot import step_dot_sum
from theon.tensor.basic import as_tensor_variable
from theon.tensor.blas import Dot
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.type import tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["scan_pushout_acc", "scan_pushout_seqs"]


def _add_node(v: Variable) -> Apply | None:
    """The elementwise ``add`` computing ``v``, or ``None``."""
    import theon.scalar as ts

    o = v.owner
    if o is not None and isinstance(o.op, Elemwise) and o.op.scalar_op == ts.add:
        return o
    return None


def _is_add(v: Variable) -> bool:
    return _add_node(v) is not None


def _remake(
    node: Apply,
    inner_outputs: list[Variable],
    new_seqs: Sequence[tuple[Variable, Variable]] = (),
    new_nits: Sequence[Variable] = (),
) -> list[Variable]:
    """``node``'s Scan with a body computing ``inner_outputs`` (same layout), plus sequences
    (placeholder, outer value) and nit-sot outputs appended.  Returns the new node's outputs:
    the old ones in order, then the new nits."""
    op = scan_op(node)
    info = op.info
    inner = op.inner_inputs
    ns_in = len(new_seqs)
    ins = [*inner[: info.n_seqs], *(p for p, _ in new_seqs), *inner[info.n_seqs:]]
    k = info.n_states + info.n_nit
    outs = [*inner_outputs[:k], *new_nits, *inner_outputs[k:]]
    new_op = Scan(ins, outs, replace(info, n_seqs=info.n_seqs + ns_in,
                                     n_nit=info.n_nit + len(new_nits)), op.mode)
    sseq = info.outer_slices()[0]
    outer = [*node.inputs[: sseq.stop], *(o for _, o in new_seqs), *node.inputs[sseq.stop:]]
    made: list[Variable] = new_op(*outer, return_list=True)
    nn = len(new_nits)
    return [*made[:k], *made[k + nn:], *made[k: k + nn]]  # carried states stay before


# -- sequences ------------------------------------------------------------------------------
class _Batch:
    """Which body values have a whole-sequence version outside the loop.

    ``batched[v]``: ``v`` stacked over the steps (a leading step axis);
    ``plain[v]``: ``v`` itself, the same at every step (non-sequences).
    """

    def __init__(self, node: Apply, inner_outputs: list[Variable]) -> None:
        from theon.gradient.vectorize import (
            CannotVectorizeError,
            VectorizeFallbackWarning,
            vectorize_node,
        )

        op = scan_op(node)
        info = op.info
        inner = op.inner_inputs
        sseq, _, sns = info.outer_slices()
        outer = tensor_inputs(node)
        n = outer[0]
        self.batched: dict[Variable, Variable] = {
            inner[i]: outer[sseq][i][:n] for i in range(info.n_seqs)}
        first_ns = info.n_seqs + info.n_state_taps
        self.plain: dict[Variable, Variable] = {
            inner[first_ns + w]: x for w, x in enumerate(node.inputs[sns])}
        self.pushed: set[Apply] = set()
        # batched values whose graph holds a product (or other non-elementwise work):
        # only those are worth moving out (see scan_pushout_seqs)
        self.heavy: set[Variable] = set()
        for nd in io_toposort(inner, inner_outputs):
            if not all(self.known(i) for i in nd.inputs):
                continue
            args = [self.outer(i) for i in nd.inputs]
            flags = [i in self.batched for i in nd.inputs]
            if not any(flags):  # the same at every step (``1 - h**2``'s ``1``): as it is
                new = nd.clone_with_new_inputs(args, strict=False)
                self.plain.update(zip(nd.outputs, new.outputs))
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error", VectorizeFallbackWarning)
                try:
                    outs, oflags = vectorize_node(nd, args, flags)
                except (VectorizeFallbackWarning, CannotVectorizeError, TypeError, ValueError):
                    continue
            self.pushed.add(nd)
            heavy = not isinstance(nd.op, (Elemwise, DimShuffle)) or any(
                i in self.heavy for i in nd.inputs)
            for o, v, f in zip(nd.outputs, outs, oflags):
                (self.batched if f else self.plain)[o] = v
                if heavy and f:
                    self.heavy.add(o)

    def known(self, v: Variable) -> bool:
        return v in self.batched or v in self.plain or isinstance(v, Constant)

    def outer(self, v: Variable) -> Variable:
        if v in self.batched:
            return self.batched[v]
        return self.plain.get(v, v)


def _regroup_adds(b: _Batch, order: list[Apply], outputs: list[Variable]) -> dict[
        Variable, Variable]:
    """``(a + c) + u`` for a sum ``a + u + c`` whose terms ``a`` (per-step, from sequences)
    and ``c`` (non-sequence or constant) can be computed outside, ``u`` not."""
    import theon.tensor as tt

    clients: dict[Variable, int] = {}
    for nd in order:
        for i in nd.inputs:
            clients[i] = clients.get(i, 0) + 1
    repl: dict[Variable, Variable] = {}
    for nd in order:
        out = nd.outputs[0]
        if not _is_add(out) or (clients.get(out) == 1 and out not in outputs and any(
                _is_add(c.outputs[0]) and out in c.inputs for c in order)):
            continue  # not a sum, or an inner term of a larger sum
        terms, stack = [], list(reversed(nd.inputs))
        while stack:  # flatten single-use inner sums
            t = stack.pop()
            add = _add_node(t)
            if add is not None and clients.get(t) == 1 and t not in outputs:
                stack.extend(reversed(add.inputs))
            else:
                terms.append(t)
        dt = tensor_type(out).dtype
        if any(tensor_type(t).dtype != dt for t in terms):
            continue
        out_terms = [t for t in terms if b.known(t)]
        rest = [t for t in terms if not b.known(t)]
        if not rest or len(out_terms) < 2 or not any(t in b.batched for t in out_terms):
            continue
        new = tt.add(tt.add(*out_terms), *rest)
        if new.type == out.type:
            repl[out] = new
    return repl


@node_rewriter([Scan])
def scan_pushout_seqs(fgraph: FunctionGraph, node: Apply) -> Any:
    """``scan(lambda x_t, h: g(f(x_t, W), h))`` -> ``scan(lambda y_t, h: g(y_t, h))``.

    Here ``Y = F(X, W)`` is computed before the loop.

    A body value ``f(x_t, W)`` computed from sequences, non-sequences and
    constants only is, at step ``t``, row ``t`` of ``F(X[:n], W)``, the graph
    batched along a leading step axis (``theon.gradient.vectorize``): it is
    computed once before the loop and read as a new sequence.  A sum
    ``a_t + u_t + c`` is first regrouped as ``(a_t + c) + u_t`` so that ``a_t + c``
    moves out too (a different order of the additions: equal to rounding).
    Nodes without a batching rule stay in the loop.  Only values whose graph holds
    a product or other non-elementwise work move out (one large product beats ``n``
    small ones); purely elementwise work on a step's rows stays in the loop, where
    it fuses with the step's other elementwise work instead of making a pass over
    the whole sequence.  While-loops are left alone (they may stop before the end
    of their sequences).
    """
    op = scan_op(node)
    info = op.info
    if info.as_while or info.n_seqs == 0:
        return None
    inner_outputs = list(op.inner_outputs)
    b = _Batch(node, inner_outputs)
    if not b.pushed:
        return None
    order = io_toposort(op.inner_inputs, inner_outputs)
    regroup = _regroup_adds(b, order, inner_outputs)
    if regroup:
        inner_outputs = clone_replace(inner_outputs, regroup)
        b = _Batch(node, inner_outputs)
        order = io_toposort(op.inner_inputs, inner_outputs)
    frontier: list[Variable] = []
    for nd in order:
        if nd in b.pushed:
            continue
        for i in nd.inputs:
            if i in b.heavy and i not in frontier:
                frontier.append(i)
    frontier += [o for o in inner_outputs if o in b.heavy and o not in frontier]
    if not frontier:
        return None
    phs = [v.type(v.name) for v in frontier]
    body = clone_replace(inner_outputs, dict(zip(frontier, phs)))
    made = _remake(node, body, [(p, b.batched[v]) for p, v in zip(phs, frontier)])
    return made[: len(node.outputs)]


# -- accumulators -----------------------------------------------------------------------------
def _strip_dimshuffles(v: Variable) -> tuple[Variable, list[Any]]:
    """``v = ds_k(...ds_1(u))``: ``u`` and the DimShuffle Ops, innermost first."""
    ops: list[Any] = []
    while v.owner is not None and isinstance(v.owner.op, DimShuffle):
        ops.append(v.owner.op)
        v = v.owner.inputs[0]
    return v, ops[::-1]


def _summable(g: Variable) -> bool:
    """Whether ``sum_t g_t`` has a whole-sequence form here (a product or a sum)."""
    import theon.scalar as ts

    u, _ = _strip_dimshuffles(g)
    o = u.owner
    if o is None:
        return False
    if isinstance(o.op, Dot):
        return all(tensor_type(x).ndim == 2 for x in o.inputs)
    return isinstance(o.op, CAReduce) and o.op.scalar_op == ts.add and (
        tensor_type(o.outputs[0]).dtype == tensor_type(o.inputs[0]).dtype)


class _Stacker:
    """Per-step body values stacked over the steps: a sequence's outer value, else a new nit."""

    def __init__(self, node: Apply) -> None:
        op = scan_op(node)
        info = op.info
        sseq = info.outer_slices()[0]
        outer = tensor_inputs(node)
        self.seq = {op.inner_inputs[i]: outer[sseq][i] for i in range(info.n_seqs)}
        self.n = outer[0]
        self.nits: list[Variable] = []
        self.stand_ins: list[TensorVariable] = []  # per new nit, its outer placeholder

    def stack(self, v: Variable) -> TensorVariable:
        """A symbolic stand-in for ``V``, ``V[t] = v_t``; :meth:`resolve` makes it real."""
        if v in self.seq:
            rows: TensorVariable = self.seq[v][: self.n]
            return rows
        if v not in self.nits:
            self.nits.append(v)
            self.stand_ins.append(
                tensor_type(v).clone(shape=(None, *tensor_type(v).shape))("stacked"))
        return self.stand_ins[self.nits.index(v)]

    def stack_transposed(self, v: Variable) -> tuple[TensorVariable, bool]:
        """``(V, False)`` as :meth:`stack` gives, or ``(U, True)`` when ``v_t = u_t.T``."""
        u, ops = _strip_dimshuffles(v)
        if len(ops) == 1 and tuple(ops[0].new_order) == (1, 0):
            return self.stack(u), True
        if v in self.seq:  # a sequence that is a transposed view outside
            s = self.seq[v]
            o = s.owner
            if o is not None and isinstance(o.op, DimShuffle) and tuple(o.op.new_order) == (
                    0, 2, 1):
                return as_tensor_variable(o.inputs[0])[: self.n], True
        return self.stack(v), False


def _is_zeros(v: Variable) -> bool:
    """Whether ``v`` is known to hold only zeros (a constant, or a fill with zero).

    >>> import theon.tensor as tt
    >>> _is_zeros(tt.zeros_like(tt.dmatrix())), _is_zeros(tt.ones_like(tt.dmatrix()))
    (True, False)
    """
    from theon.tensor.basic import NotScalarConstantError, get_scalar_constant_value

    try:
        return bool(get_scalar_constant_value(v) == 0)
    except NotScalarConstantError:
        return False


def _add_terms(v: Variable, readers: dict[Variable, int], outs: list[Variable]) -> list[Variable]:
    """The terms of the sum ``v``, through inner sums that only ``v`` reads."""
    terms: list[Variable] = []
    stack = [v]
    while stack:
        t = stack.pop()
        add = _add_node(t)
        if add is not None and (t is v or (readers.get(t) == 1 and t not in outs)):
            stack.extend(reversed(add.inputs))
        else:
            terms.append(t)
    return terms


def _step_total(g: Variable, st: _Stacker) -> Variable:
    """``sum_t g_t`` over the steps, as a graph of stacked values (see :func:`_summable`)."""
    import theon.tensor as tt

    if g in st.seq:  # a sequence row: the sequence summed over its steps
        return tt.sum(st.stack(g), axis=0)
    u, ops = _strip_dimshuffles(g)
    o = u.owner
    assert o is not None
    if isinstance(o.op, Dot):
        p, q = o.inputs
        P, p_tr = st.stack_transposed(p)  # p_t: (k, b); P: (n, k, b) or U: (n, b, k)
        # sum_t U[t].T @ Q[t]: one flat product, run in chunks (theon.scan.stepdot)
        total = step_dot_sum(P if p_tr else P.dimshuffle(0, 2, 1), st.stack(q))
    else:
        assert isinstance(o.op, CAReduce)  # (_summable: a Dot or a sum)
        E = st.stack(o.inputs[0])
        axes = o.op.axis
        nd = tensor_type(o.inputs[0]).ndim
        red = tuple(range(nd)) if axes is None else tuple(a % nd for a in axes)
        total = tt.sum(E, axis=(0, *(a + 1 for a in red)))
        dt = tensor_type(E).dtype
        if nd == 2 and red == (0,) and dt in ("float32", "float64"):
            # the column sums of all steps' rows: ones @ (the rows as one matrix), one
            # BLAS matrix-vector product instead of a reduction over two axes
            rows = E.reshape((-1, E.shape[2]))
            by_blas = tt.dot(tt.ones((rows.shape[0],), dtype=dt), rows)
            if by_blas.type == total.type:
                total = by_blas
    for d in ops:
        total = d(total)
    return total


@node_rewriter([Scan])
def scan_pushout_acc(fgraph: FunctionGraph, node: Apply) -> Any:
    """``acc_n = acc_0 + sum_t dot(p_t, q_t)`` is one product after the loop.

    A state with tap ``-1`` of which only the last row is kept (``store_last``),
    whose step is ``acc' = acc + g_1 + ... + g_r`` with ``acc`` read nowhere else,
    has the final value ``acc_0 + sum_t g_1,t + ... + sum_t g_r,t`` (the sums alone when
    ``acc_0`` is known to be zeros, as a gradient's accumulators start).  A sequence
    row ``g_t = s_t`` sums to ``sum(S[:n], axis=0)``.  For
    ``g_t = dot(p_t, q_t)`` (matrices ``(k, b)``, ``(b, m)``) the sum over steps is
    ``sum_t U[t].T @ Q[t]`` (:func:`~theon.scan.stepdot.step_dot_sum`, one flat
    product over the steps' rows), ``Q`` the stacked ``q_t`` and ``U`` the stacked
    ``u_t`` when ``p_t = u_t.T``, else the transposed view of the stacked ``p_t``; for
    ``g_t = sum(e_t, axes)`` it is ``sum(E, (0, *axes+1))``, and DimShuffles of
    either commute with the sum.  The stacked operands ``P, Q, E`` are the
    sequences themselves or new stacked outputs of the loop.  With no steps the
    sums are zeros and the value is ``acc_0``.  The additions run in another
    order than the loop's (equal to rounding).
    """
    import theon.tensor as tt

    op = scan_op(node)
    info = op.info
    if info.as_while:
        return None
    inner, outs = op.inner_inputs, op.inner_outputs
    order = io_toposort(inner, outs)
    readers: dict[Variable, int] = {}
    for nd in order:
        for i in set(nd.inputs):
            readers[i] = readers.get(i, 0) + 1
    sst = info.outer_slices()[1]
    st = _Stacker(node)
    found: dict[int, list[Variable]] = {}
    k = info.n_seqs
    for j, taps in enumerate(info.state_taps):
        acc, k = inner[k], k + len(taps)
        out = outs[j]
        if (taps != (-1,) or not info.store_last[j] or not fgraph.clients.get(node.outputs[j])
                or not _is_add(out) or readers.get(acc) != 1 or acc in outs):
            continue
        terms = _add_terms(out, readers, outs)
        if terms.count(acc) != 1:
            continue
        terms = [t for t in terms if t is not acc]
        if any(acc in ancestors([t]) or not (t in st.seq or _summable(t))
               or tensor_type(t).dtype != tensor_type(out).dtype for t in terms):
            continue
        found[j] = terms
    if not found:
        return None
    totals: dict[int, Variable] = {}
    inits = tensor_inputs(node)[sst]
    for j, terms in found.items():
        init = inits[j]
        sums = [_step_total(t, st) for t in terms]
        total = tt.shape_padleft(sums[0] if len(sums) == 1 else tt.add(*sums))
        val = init[:1] + total
        if val.type == total.type and _is_zeros(init):
            val = total  # acc_0 = 0 (a gradient's zeros): acc_n is the sum itself
        # the same one row, with the output's type: a buffer of unknown static length
        totals[j] = val[: tt.minimum(init.shape[0], 1)]
    made = _remake(node, list(outs), new_nits=st.nits)
    subs: dict[Variable, Variable] = dict(zip(st.stand_ins, made[len(node.outputs):]))
    repl: dict[Variable, Variable] = {}
    for j, total_j in totals.items():
        # (only the nodes reading the stand-ins are copied: a copy of the loop that
        # computed the sequences would be a second loop)
        new = graph_replace(total_j, subs, strict=False)
        if new.type != node.outputs[j].type:
            return None
        repl[node.outputs[j]] = new
    for o, m in zip(node.outputs, made):
        if o not in repl and fgraph.clients.get(o):
            repl[o] = m
    return repl
