"""Derivatives of :class:`~theon.scan.op.Scan`: backpropagation through time, and ``R_op``.

**Gradient.**  The forward loop stores every state row ``S_j[p]`` (``p = t + L_j``
written by step ``t``, rows ``p < L_j`` the initial values).  Step ``t`` reads
rows ``t + L_j + k`` for its taps ``k``.  The adjoint of a row is its output
gradient plus what the steps reading it send back.  A second Scan runs the
steps backwards (``t = n-1, ..., 0``) and carries, per state, the adjoints that
later steps already sent to the ``L_j`` rows ``t+1 .. t+L_j``.  At step ``t``:

* ``a_j = gS_j[t + L_j] + carry_j[L_j - 1]`` is the complete adjoint of the row
  step ``t`` wrote;
* the vector-Jacobian product of the body at step ``t`` (the body recomputed
  from the stored rows, differentiated by ``theon.grad``) with cotangents
  ``a_j`` and ``gY_m[t]`` gives ``c_k`` for each tap input, the sequences'
  gradients at ``t`` and the non-sequences' contributions;
* the new carry is ``carry'_j[r] = carry_j[r - 1] + c_{r - L_j}`` (rows
  ``t .. t+L_j-1``); the non-sequence gradients are summed in accumulators.

After the last backward step the carry holds the adjoints sent to the initial
rows.  With ``truncate_gradient = T`` only the last ``T`` steps are run
backwards: earlier steps send nothing (sequence gradients are zero there).

**Random draws.**  A loop that threads a generator (a carried state) draws new
numbers at every step; the backward pass must not draw again.  The loop stacks
every step's draws as hidden outputs, and the derivatives are those of the same
loop with the draws read from those stacks as sequences (:func:`_drawless`).
The draws' parameters get no gradient through a draw (it is undefined, as for a
draw outside a loop).

**R_op.**  One forward Scan computes each state and its tangent together: the
body's Jacobian-vector product (``theon.Rop`` on the body) is the tangent step.

>>> import numpy as np, theon, theon.tensor as tt
>>> from theon.scan.basic import scan
>>> a = tt.dscalar("a")
>>> xs, _ = scan(lambda x: x * a, outputs_info=tt.constant(1.0), n_steps=3)
>>> theon.function([a], theon.grad(xs[-1], a))(2.0)  # d(a**3)/da
array(12.)
"""

from __future__ import annotations

from typing import Any

import theon.tensor as tt
from theon.gradient import Rop, grad
from theon.gradient._typeutil import is_disconnected, zeros_like
from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, grad_not_implemented, grad_undefined
from theon.graph.replace import clone_replace
from theon.graph.traversal import ancestors
from theon.scan.draws import kept_source
from theon.scan.op import Scan, ScanInfo
from theon.scan.utils import carried_draws
from theon.tensor.basic import NotScalarConstantError, as_tensor_variable, get_scalar_constant_value
from theon.tensor.broadcast_grad import resolve_broadcast_grads
from theon.tensor.creation import Alloc
from theon.tensor.subtensor import SYM, IncSubtensor, Subtensor
from theon.tensor.type import tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["scan_grad", "scan_rop"]


def _is_float(v: Variable) -> bool:
    return tensor_type(v).dtype.startswith(("float", "complex"))


def _usable(g: Any, like: Variable) -> TensorVariable:
    """An output gradient as a tensor (zeros where disconnected)."""
    return as_tensor_variable(zeros_like(like) if g is None or is_disconnected(g) else g)


def _place(like: TensorVariable, start: Any, stop: Any, value: Variable) -> TensorVariable:
    """zeros shaped like ``like`` with rows ``start:stop`` set to ``value``."""
    return tt.set_subtensor(tt.zeros_like(like)[start:stop], value)


def _is_zero(x: Variable) -> bool:
    """Whether ``x`` is structurally all zeros (a zero constant, filled or allocated)."""
    while x.owner is not None and isinstance(x.owner.op, Subtensor):  # a part of zeros
        x = x.owner.inputs[0]
    if x.owner is not None and isinstance(x.owner.op, Alloc):
        x = x.owner.inputs[0]
    try:
        return bool(get_scalar_constant_value(x) == 0)
    except NotScalarConstantError:
        return False


def _last_row(x: Variable) -> Variable | None:
    """``y`` when ``x`` is structurally zero except its last row along axis 0, which
    is ``y`` broadcast to the row's shape; ``None`` when that is not known.

    Recognised: ``inc/set_subtensor(Z[-1], y)``, ``inc/set_subtensor(Z[-1:], y)``
    and ``inc/set_subtensor(Z[lo:], v)`` (constant ``lo``, unit step) where ``Z`` is
    zero and ``v`` is again of this form: the last row of ``x`` is the last row of
    ``v`` and every other row of ``x`` is zero.
    """
    v = as_tensor_variable(x)
    while True:
        node = v.owner
        if node is None or not isinstance(node.op, IncSubtensor) or len(node.inputs) != 2:
            return None
        (e,) = node.op.idx_list if len(node.op.idx_list) == 1 else (None,)
        if e is None or not _is_zero(node.inputs[0]):
            return None
        y = as_tensor_variable(node.inputs[1])
        if isinstance(e, int) and not isinstance(e, bool) and e == -1:
            return y
        if not isinstance(e, slice) or e.stop is not None or e.step not in (None, 1):
            return None
        if e.start == -1:  # x[-1:] = y: y broadcast to (1, *row)
            return y[0] if y.ndim == v.ndim else y
        if e.start == SYM or y.ndim != v.ndim:
            return None
        v = y


class _Drawless:
    """A loop with carried states (generators) rewritten to read its draws as sequences.

    ``op``/``inputs``/``outputs``: the new loop, its outer inputs (the sequences
    followed by one stack per draw) and the old node's outputs it computes (the
    states, then the nits that are not draws).  ``nits``: for each new nit, the old
    nit index.  ``param_of``: old outer input positions that feed a draw's
    parameters (their gradient through the draw is undefined).
    """

    def __init__(self, op: Scan, inputs: list[Variable], outputs: list[Variable]) -> None:
        info = op.info
        n_st, n_nit = info.n_states, info.n_nit
        inner, outs = op.inner_inputs, op.inner_outputs
        roots = [*outs[: n_st + n_nit], *outs[info.n_states + info.n_nit + info.n_carried:]]
        draws = carried_draws(roots, [])
        # (a draw the loop keeps for this is marked: kept_source is the draw)
        nit_of = {kept_source(outs[n_st + m]): m for m in range(n_nit)}
        missing = [d for d in draws if d not in nit_of]
        if missing:
            raise NotImplementedError(
                f"{op}: the derivative of a loop that draws random numbers needs each "
                f"step's draws, which this loop no longer keeps ({describe(missing[0])}); "
                "take the gradient before compiling or rewriting the loop"
            )
        self.op_in = op
        phs = [d.type(f"{d.name or 'draw'}[t]") for d in draws]
        body = clone_replace([*outs[:n_st], *outs[n_st: n_st + n_nit],
                              *outs[info.n_inner_outputs - int(info.as_while):]],
                             dict(zip(draws, phs)))
        drawn = set(draws)
        self.nits = [m for m in range(n_nit) if kept_source(outs[n_st + m]) not in drawn]
        body = [*body[:n_st], *(body[n_st + m] for m in self.nits), *body[n_st + n_nit:]]
        k = info.n_seqs
        new_in = [*inner[:k], *phs, *inner[k: info.n_inner_inputs - info.n_carried]]
        new_info = ScanInfo(
            n_seqs=k + len(phs), state_taps=info.state_taps, n_nit=len(self.nits),
            n_nonseqs=info.n_nonseqs, as_while=info.as_while, store_last=info.store_last,
            truncate_gradient=info.truncate_gradient, name=info.name,
        )
        self.op = Scan(new_in, body, new_info, mode=op.mode)
        sseq = info.outer_slices()[0]
        self.n_draws = len(draws)
        self.inputs = [*inputs[: sseq.stop], *(outputs[n_st + nit_of[d]] for d in draws),
                       *inputs[sseq.stop: info.carried_inputs.start]]
        self.outputs = [*outputs[:n_st], *(outputs[n_st + m] for m in self.nits)]
        # the old outer inputs feeding a draw's parameters
        # (a draw is a node's output: carried_draws found it as one)
        params = [p for d in draws if d.owner is not None for p in d.owner.inputs]
        src: dict[Variable, int] = {inner[i]: sseq.start + i for i in range(info.n_seqs)}
        kk = info.n_seqs
        for j, taps in enumerate(info.state_taps):
            for _ in taps:
                src[inner[kk]] = info.outer_slices()[1].start + j
                kk += 1
        for w in range(info.n_nonseqs):
            src[inner[kk + w]] = info.outer_slices()[2].start + w
        self.param_of = sorted({src[v] for v in ancestors(params, blockers=inner)
                                if v in src})

    def old_input_grads(self, grads: list[Any], inputs: list[Variable]) -> list[Any]:
        """The new loop's input gradients placed at the old loop's inputs."""
        info = self.op_in.info
        sseq = info.outer_slices()[0]
        res = [*grads[: sseq.stop], *grads[sseq.stop + self.n_draws:]]
        res += [disconnected_type() for _ in range(info.n_carried)]
        why = ("a random draw has no gradient with respect to its parameters "
               "(no reparameterization)")
        for k in self.param_of:
            if _is_float(inputs[k]):
                res[k] = grad_undefined(self.op_in, k, inputs[k], why)
        return res


def scan_grad(
    op: Scan, inputs: list[Variable], outputs: list[Variable], output_grads: list[Any]
) -> list[Any]:
    """The gradients of ``op``'s inputs (see the module docstring)."""
    info = op.info
    if info.as_while:
        return [
            grad_not_implemented(op, k, x, "a while loop (until) is not differentiable")
            for k, x in enumerate(inputs)
        ]
    if info.n_carried:
        dl = _Drawless(op, inputs, outputs)
        n_st = info.n_states
        g_out = [*output_grads[:n_st], *(output_grads[n_st + m] for m in dl.nits)]
        return dl.old_input_grads(scan_grad(dl.op, dl.inputs, dl.outputs, g_out), inputs)
    bw = _Backward(op, inputs, outputs, output_grads)
    bw.add_forward_sequences()
    bw.add_adjoint_sequences()
    bw.add_carries()
    body = bw.step_body()
    return bw.input_grads(bw.run(body))


class _Backward:
    """The backward Scan of a loop's gradient, built in named steps (see the module
    docstring): its sequences (the forward inputs and stored rows, read backwards,
    and the output gradients), its carries and accumulators, its body (the forward
    body's vector-Jacobian product), and the outer inputs' gradients it gives."""

    def __init__(self, op: Scan, inputs: list[Variable], outputs: list[Variable],
                 output_grads: list[Any]) -> None:
        info = self.info = op.info
        # a loop without carried states: every outer input and output is a tensor
        self.inputs = ins = [as_tensor_variable(v) for v in inputs]
        self.outputs = outs = [as_tensor_variable(v) for v in outputs]
        self.op, self.output_grads = op, output_grads
        self.sseq, self.sst, self.sns = info.outer_slices()
        self.n = n = ins[0]
        self.seqs, self.inits = ins[self.sseq], ins[self.sst]
        self.nonseqs = ins[self.sns]
        n_st, lags = info.n_states, info.lags
        self.n_st, self.lags = n_st, lags
        if any(info.store_last):  # the backward pass needs every row: recompute them
            full = op.clone_with(store_last=(False,) * n_st)(*ins, return_list=True)
            self.bufs = [as_tensor_variable(b) for b in full[:n_st]]
        else:
            self.bufs = outs[:n_st]
        bufs = self.bufs
        # the output gradients: per state, of its whole buffer; per nit, of its rows
        self.gS: list[TensorVariable] = []
        for j in range(n_st):
            g = _usable(output_grads[j], outs[j])
            if info.store_last[j]:
                g = _place(bufs[j], -lags[j], None, g)
            self.gS.append(g)
        self.gY = [_usable(output_grads[n_st + m], outs[n_st + m]) for m in range(info.n_nit)]
        T = info.truncate_gradient
        self.n_back = n if T == -1 else tt.minimum(n, T)
        self.start: Any = 0 if T == -1 else n - self.n_back  # the first step run backwards
        # the float inputs and outputs: the others get no gradient
        self.fl_states = [j for j in range(n_st) if _is_float(bufs[j])]
        self.fl_nits = [m for m in range(info.n_nit) if _is_float(outs[n_st + m])]
        self.fl_seqs = [i for i in range(info.n_seqs) if _is_float(self.seqs[i])]
        self.fl_ns = [w for w in range(info.n_nonseqs) if _is_float(self.nonseqs[w])]
        # the backward loop's sequences (inner placeholders and outer values), and the
        # forward body's inputs replaced by the backward body's
        self.b_inner_seqs: list[Variable] = []
        self.b_outer_seqs: list[TensorVariable] = []
        self.fwd_repl: dict[Variable, Variable] = {}

    def back(self, x: TensorVariable, lo: Any, hi: Any) -> TensorVariable:
        """Rows ``lo:hi`` of ``x``, last first."""
        rows: TensorVariable = x[lo:hi][::-1]
        return rows

    def add_forward_sequences(self) -> None:
        """The forward loop's sequences and the state rows its taps read, backwards."""
        info, inner, lags, start, n = self.info, self.op.inner_inputs, self.lags, self.start, self.n
        for i in range(info.n_seqs):
            ph = inner[i].type(inner[i].name)
            self.fwd_repl[inner[i]] = ph
            self.b_inner_seqs.append(ph)
            self.b_outer_seqs.append(self.back(self.seqs[i], start, n))
        self.tap_ph: dict[tuple[int, int], Variable] = {}
        k_in = info.n_seqs
        for j, taps in enumerate(info.state_taps):
            for k in taps:
                ph = inner[k_in].type(inner[k_in].name)
                self.fwd_repl[inner[k_in]] = ph
                self.tap_ph[(j, k)] = ph
                self.b_inner_seqs.append(ph)
                self.b_outer_seqs.append(
                    self.back(self.bufs[j], start + lags[j] + k, n + lags[j] + k))
                k_in += 1

    def add_adjoint_sequences(self) -> None:
        """The output gradients as sequences, and the non-sequences' placeholders.

        A state whose output gradient is zero except in its last row (``hs[-1]`` of a
        lag-1 state) gets that row as the initial carry of the first backward step,
        which reads exactly that row: no zero-filled sequence, no add per step.
        """
        info, inner, lags, start, n = self.info, self.op.inner_inputs, self.lags, self.start, self.n
        self.last_row: dict[int, Variable] = {}
        for j in self.fl_states:
            if lags[j] == 1:
                r = _last_row(self.gS[j])
                if r is not None:
                    self.last_row[j] = r
        self.gS_ph: dict[int, TensorVariable] = {}
        for j in self.fl_states:
            if j in self.last_row:
                continue
            ph = tensor_type(inner[info.n_seqs + sum(len(t) for t in info.state_taps[:j])])(
                f"gS{j}[t]")
            self.gS_ph[j] = ph
            self.b_inner_seqs.append(ph)
            self.b_outer_seqs.append(self.back(self.gS[j], start + lags[j], n + lags[j]))
        self.gY_ph: dict[int, TensorVariable] = {}
        for m in self.fl_nits:
            ph = tensor_type(self.op.inner_outputs[self.n_st + m]).clone()(f"gY{m}[t]")
            self.gY_ph[m] = ph
            self.b_inner_seqs.append(ph)
            self.b_outer_seqs.append(self.back(self.gY[m], start, n))
        self.ns_ph: list[Variable] = []
        for w in range(info.n_nonseqs):
            x = inner[info.n_seqs + info.n_state_taps + w]
            x_ph = x.type(x.name)
            self.fwd_repl[x] = x_ph
            self.ns_ph.append(x_ph)

    def add_carries(self) -> None:
        """The carries (one per float state: the adjoints later steps sent to its last
        ``L_j`` rows) and accumulators (one per float non-sequence)."""
        lags, bufs = self.lags, self.bufs
        self.carry_ph: dict[int, TensorVariable] = {}
        self.carry_init: list[Variable] = []
        for j in self.fl_states:
            row = tensor_type(bufs[j]).clone(shape=tensor_type(bufs[j]).shape[1:])
            if j in self.last_row:
                self.carry_ph[j] = row(f"carry{j}")
                z = as_tensor_variable(zeros_like(bufs[j][0]))
                self.carry_init.append(z + tt.cast(self.last_row[j], tensor_type(z).dtype))
            elif lags[j] == 1:
                self.carry_ph[j] = row(f"carry{j}")
                self.carry_init.append(zeros_like(bufs[j][0]))
            else:
                self.carry_ph[j] = tensor_type(bufs[j])(f"carry{j}")
                self.carry_init.append(zeros_like(bufs[j][: lags[j]]))
        self.acc_ph = {w: self.nonseqs[w].type(f"gacc{w}") for w in self.fl_ns}

    def step_body(self) -> list[Variable]:
        """The backward body: the forward body recomputed from the stored rows, its
        vector-Jacobian product, the new carries and accumulators, and the
        sequences' gradients at the step."""
        info, lags, n_st = self.info, self.lags, self.n_st
        fwd_outs = clone_replace(self.op.inner_outputs, self.fwd_repl)
        known: dict[Variable, TensorVariable] = {}
        for j in self.fl_states:
            c = self.carry_ph[j] if lags[j] == 1 else self.carry_ph[j][lags[j] - 1]
            a = c if j in self.last_row else self.gS_ph[j] + c
            o = fwd_outs[j]
            known[o] = known[o] + a if o in known else a
        for m in self.fl_nits:
            o = fwd_outs[n_st + m]
            known[o] = known[o] + self.gY_ph[m] if o in known else self.gY_ph[m]
        wrt: list[Variable] = (
            [self.b_inner_seqs[i] for i in self.fl_seqs]
            + [self.tap_ph[(j, k)] for j in self.fl_states for k in info.state_taps[j]]
            + [self.ns_ph[w] for w in self.fl_ns]
        )
        grads = (grad(None, wrt, known_grads=known, disconnected_inputs="ignore",
                      return_disconnected="zero")
                 if wrt and known else [zeros_like(v) for v in wrt])
        it = iter(grads)
        g_seq = {i: next(it) for i in self.fl_seqs}
        g_tap = {(j, k): next(it) for j in self.fl_states for k in info.state_taps[j]}
        g_ns = {w: next(it) for w in self.fl_ns}
        new_carry = [self._new_carry(j, g_tap) for j in self.fl_states]
        new_acc = [self.acc_ph[w] + g_ns[w] for w in self.fl_ns]
        body = [*new_carry, *new_acc, *(g_seq[i] for i in self.fl_seqs)]
        body = self._read_stored_rows(body, fwd_outs)
        # the body's types are final (its lengths do not broadcast at run time): the
        # gradients of its broadcasts are the static reductions, which the push-out
        # rewrites can read
        return resolve_broadcast_grads(body)

    def _new_carry(self, j: int, g_tap: dict[tuple[int, int], Variable]) -> Variable:
        """``carry'_j[r] = carry_j[r - 1] + c_{r - L_j}``: state ``j``'s next carry."""
        L = self.lags[j]
        if L == 1:
            return g_tap[(j, -1)]
        carry = self.carry_ph[j]
        rows: list[Variable] = []
        for r in range(L):
            term = g_tap.get((j, r - L))
            prev = carry[r - 1] if r >= 1 else None
            if prev is None:
                rows.append(zeros_like(carry[0]) if term is None else term)
            else:
                rows.append(prev if term is None else prev + term)
        return tt.stack(rows)

    def _read_stored_rows(self, body: list[Variable], fwd_outs: list[Variable]
                          ) -> list[Variable]:
        """``body`` reading the rows the forward loop stored instead of recomputing them.

        Where the product reads a step's output (tanh' = 1 - tanh**2, for instance),
        that output is the stored row S_j[t + L_j] (or Y_m[t]), a sequence of the
        backward loop.
        """
        n_st, start, n = self.n_st, self.start, self.n
        stored: dict[Variable, Variable] = {}
        for j in range(n_st):
            o = fwd_outs[j]
            if o.owner is not None and o not in stored:
                stored[o] = ph = o.type(f"{o.name or f'S{j}'}[t]")
                self.b_inner_seqs.append(ph)
                self.b_outer_seqs.append(
                    self.back(self.bufs[j], start + self.lags[j], n + self.lags[j]))
        for m in range(self.info.n_nit):
            o = fwd_outs[n_st + m]
            g = self.output_grads[n_st + m]
            if (o.owner is not None and o not in stored and g is not None
                    and not is_disconnected(g)):
                stored[o] = ph = o.type(f"{o.name or f'Y{m}'}[t]")
                self.b_inner_seqs.append(ph)
                self.b_outer_seqs.append(self.back(self.outputs[n_st + m], start, n))
        return clone_replace(body, stored) if stored else body

    def run(self, body: list[Variable]) -> list[TensorVariable]:
        """The backward Scan on ``body``, applied: its outputs (the carries' and
        accumulators' last rows, then the sequences' gradients per step; all tensors,
        as the loop has no carried state)."""
        fl_states, fl_ns = self.fl_states, self.fl_ns
        b_inputs = [*self.b_inner_seqs, *(self.carry_ph[j] for j in fl_states),
                    *(self.acc_ph[w] for w in fl_ns), *self.ns_ph]
        b_info = ScanInfo(
            n_seqs=len(self.b_inner_seqs),
            state_taps=((-1,),) * (len(fl_states) + len(fl_ns)),
            n_nit=len(self.fl_seqs),
            n_nonseqs=len(self.ns_ph),
            store_last=(True,) * (len(fl_states) + len(fl_ns)),
            name=f"grad_of_{self.op.name or 'scan'}",
        )
        b_op = Scan(b_inputs, body, b_info, mode=self.op.mode)
        acc_init = [zeros_like(self.nonseqs[w]) for w in fl_ns]
        outs: list[TensorVariable] = b_op(
            self.n_back, *self.b_outer_seqs, *[tt.shape_padleft(c) for c in self.carry_init],
            *[tt.shape_padleft(a) for a in acc_init], *self.nonseqs, return_list=True)
        return outs

    def input_grads(self, b_outs: list[TensorVariable]) -> list[Any]:
        """The gradients of the outer inputs, from the backward loop's outputs."""
        info, fl_states, fl_ns, fl_seqs = self.info, self.fl_states, self.fl_ns, self.fl_seqs
        sseq, sst, sns, start = self.sseq, self.sst, self.sns, self.start
        res: list[Any] = [disconnected_type()] + [None] * (len(self.inputs) - 1)
        for i in range(info.n_seqs):
            if i in fl_seqs:
                rows = b_outs[len(fl_states) + len(fl_ns) + fl_seqs.index(i)][::-1]
                res[sseq.start + i] = _place(self.seqs[i], start, self.n, rows)
            else:
                res[sseq.start + i] = disconnected_type()
        for j in range(self.n_st):
            if j not in fl_states:
                res[sst.start + j] = disconnected_type()
                continue
            L = self.lags[j]
            final = b_outs[fl_states.index(j)][-1]
            if L == 1:
                final = tt.shape_padleft(final)
            if info.truncate_gradient == -1:
                g_init = final
            else:
                g_init = _place(self.bufs[j], start, start + L, final)[:L]
            if j not in self.last_row:  # else gS's rows before the last are zero, and
                g_init = self.gS[j][:L] + g_init  # its last row went in through the carry
            res[sst.start + j] = _place(self.inits[j], 0, L, g_init)
        for w in range(info.n_nonseqs):
            if w in fl_ns:
                res[sns.start + w] = b_outs[len(fl_states) + fl_ns.index(w)][-1]
            else:
                res[sns.start + w] = disconnected_type()
        return res


def scan_rop(op: Scan, inputs: list[Variable], eval_points: list[Any]) -> list[Any]:
    """Jacobian-vector products of ``op``'s outputs: states and tangents in one loop."""
    info = op.info
    if info.n_carried:
        return _drawless_rop(op, inputs, eval_points)
    sseq, sst, sns = info.outer_slices()
    n_st = info.n_states

    def point(k: int) -> Variable:
        e = eval_points[k]
        return zeros_like(inputs[k]) if e is None else e

    fl_states = [j for j in range(n_st) if _is_float(inputs[sst][j])]
    fl_nits = [m for m in range(info.n_nit) if _is_float(op.inner_outputs[n_st + m])]
    tw = _Twins(op, fl_states)
    outs = clone_replace(op.inner_outputs, tw.repl)
    tangent_of = tw.tangent_of
    wrt = list(tangent_of)
    targets = [outs[j] for j in fl_states] + [outs[n_st + m] for m in fl_nits]
    tans = Rop(targets, wrt, [tangent_of[v] for v in wrt], disconnected_outputs="ignore") \
        if wrt and targets else [zeros_like(t) for t in targets]
    st_t = tans[: len(fl_states)]
    nit_t = tans[len(fl_states):]

    # layout: sequences (each float one followed by its tangent), states then tangent
    # states, non-sequences then their tangents
    seq_all: list[Variable] = []
    seq_outer: list[Variable] = []
    for i, ph in enumerate(tw.seq_in):
        seq_all.append(ph)
        seq_outer.append(inputs[sseq.start + i])
        if ph in tangent_of:
            seq_all.append(tangent_of[ph])
            seq_outer.append(point(sseq.start + i))
    ns_outer = list(inputs[sns])
    ns_outer_t = [point(sns.start + w) for w in range(info.n_nonseqs)
                  if tw.ns_in[w] in tangent_of]
    body = [*outs[:n_st], *st_t, *outs[n_st: n_st + info.n_nit], *nit_t]
    if info.as_while:
        body.append(outs[-1])
    new_info = ScanInfo(
        n_seqs=len(seq_all),
        state_taps=info.state_taps + tuple(info.state_taps[j] for j in fl_states),
        n_nit=info.n_nit + len(fl_nits),
        n_nonseqs=len(tw.ns_in) + len(tw.ns_t),
        as_while=info.as_while,
        store_last=info.store_last + tuple(info.store_last[j] for j in fl_states),
        name=f"rop_of_{op.name or 'scan'}",
    )
    r_op = Scan([*seq_all, *tw.tap_in, *tw.tap_t, *tw.ns_in, *tw.ns_t], body, new_info,
                mode=op.mode)
    init_t = [point(sst.start + j) for j in fl_states]
    outs_outer = r_op(inputs[0], *seq_outer, *inputs[sst], *init_t, *ns_outer, *ns_outer_t,
                      return_list=True)
    res: list[Any] = [None] * (n_st + info.n_nit)
    for pos, j in enumerate(fl_states):
        res[j] = outs_outer[n_st + pos]
    base = n_st + len(fl_states) + info.n_nit
    for pos, m in enumerate(fl_nits):
        res[n_st + m] = outs_outer[base + pos]
    return res


class _Twins:
    """The body inputs of the tangent loop: each of the loop's body inputs gets a new
    placeholder (``repl``) and, when it is a float, a tangent (``tangent_of``):
    sequences (``seq_in``), state taps (``tap_in``; ``tap_t`` the float states'
    tangents) and non-sequences (``ns_in``, ``ns_t``)."""

    def __init__(self, op: Scan, fl_states: list[int]) -> None:
        info, inner = op.info, op.inner_inputs
        self.repl: dict[Variable, Variable] = {}
        self.tangent_of: dict[Variable, Variable] = {}
        self.seq_in = [self.twin(inner[i], "seq")[0] for i in range(info.n_seqs)]
        self.tap_in: list[Variable] = []
        self.tap_t: list[Variable] = []
        k_in = info.n_seqs
        for j, taps in enumerate(info.state_taps):
            for _ in taps:
                ph, d = self.twin(inner[k_in], f"s{j}")
                self.tap_in.append(ph)
                if j in fl_states:
                    self.tap_t.append(d)
                k_in += 1
        self.ns_in: list[Variable] = []
        self.ns_t: list[Variable] = []
        for w in range(info.n_nonseqs):
            ph, d = self.twin(inner[k_in + w], "ns")
            self.ns_in.append(ph)
            if ph in self.tangent_of:
                self.ns_t.append(d)

    def twin(self, x: Variable, label: str) -> tuple[Variable, Variable]:
        """A new placeholder for the body input ``x``, and its tangent."""
        ph = x.type(x.name)
        self.repl[x] = ph
        d = x.type(f"d{x.name or label}")
        if _is_float(x):
            self.tangent_of[ph] = d
        return ph, d


def _drawless_rop(op: Scan, inputs: list[Variable], eval_points: list[Any]) -> list[Any]:
    """R_op of a loop that draws random numbers: that of the loop reading its draws."""
    info = op.info
    if info.as_while:
        raise NotImplementedError(
            f"{op}: R_op of a while loop that draws random numbers is not implemented")
    # the node's outputs (the recorded draws): the same Op on the same inputs
    # is the same node once merged
    dl = _Drawless(op, inputs, op(*inputs, return_list=True))
    sseq = info.outer_slices()[0]
    pts = [*eval_points[: sseq.stop], *([None] * dl.n_draws),
           *eval_points[sseq.stop: info.carried_inputs.start]]
    got = scan_rop(dl.op, dl.inputs, pts)
    res_c: list[Any] = [None] * len(op.inner_outputs[: info.n_states + info.n_nit])
    res_c[: info.n_states] = got[: info.n_states]
    for pos, m in enumerate(dl.nits):
        res_c[info.n_states + m] = got[info.n_states + pos]
    return res_c + [None] * info.n_carried
